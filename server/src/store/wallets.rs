use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// A customer's stored balance in a campaign, spent last at checkout.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Wallet {
    pub customer_id: Uuid,
    pub campaign_id: Uuid,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "25.00")]
    #[serde(with = "super::two_decimals")]
    pub balance: Decimal,
    #[schema(example = "EUR")]
    pub currency: String,
    pub updated_at: DateTime<Utc>,
}

/// The balance a wallet is set to.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WalletInput {
    /// Not negative, two decimals at most.
    #[schema(value_type = String, example = "25.00", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "super::two_decimals")]
    pub balance: Decimal,
    /// Three upper-case letters (ISO 4217).
    #[schema(example = "EUR", pattern = "^[A-Z]{3}$")]
    pub currency: String,
}

#[async_trait::async_trait]
pub trait WalletStore {
    /// Sets the wallet's balance, creating the wallet if needed; `true` when it was created.
    /// An unknown customer or campaign is a missing reference.
    async fn put_wallet(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        input: &WalletInput,
    ) -> StoreResult<(Wallet, bool)>;
    async fn wallet(&self, customer_id: Uuid, campaign_id: Uuid) -> StoreResult<Option<Wallet>>;
}
