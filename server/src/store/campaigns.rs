use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// A campaign: the scope partners sell in, chosen per request by `x-campaign-id`.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Campaign {
    pub campaign_id: Uuid,
    pub name: String,
    /// Loyalty points a paid order earns per unit of currency.
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "1.00")]
    #[serde(with = "rust_decimal::serde::str")]
    pub loyalty_points_per_unit: Decimal,
    /// The partner's share of each line sold in the campaign (a product's own overrides it).
    #[schema(value_type = Option<app::wire::Charge>)]
    #[sqlx(default)]
    pub commission: Option<sqlx::types::Json<app::wire::Charge>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The writable fields of a campaign (create and full update).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignInput {
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    /// Not negative, two decimals at most.
    #[schema(value_type = String, example = "1.00", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str", default)]
    pub loyalty_points_per_unit: Decimal,
    /// The partner's share of each line sold in the campaign: a percent of its net (without
    /// VAT) or a fixed amount per ticket (docs/settlement.md). A product's own overrides it.
    #[serde(default)]
    pub commission: Option<app::wire::Charge>,
}

#[async_trait::async_trait]
pub trait CampaignStore {
    async fn create_campaign(
        &self,
        campaign_id: Uuid,
        input: &CampaignInput,
    ) -> StoreResult<Campaign>;
    async fn campaign(&self, campaign_id: Uuid) -> StoreResult<Option<Campaign>>;
    /// Replaces the writable fields; `None` when no such campaign exists.
    async fn update_campaign(
        &self,
        campaign_id: Uuid,
        input: &CampaignInput,
    ) -> StoreResult<Option<Campaign>>;
    /// Campaigns in id order, after `after`.
    async fn list_campaigns(&self, after: Option<Uuid>, limit: u32) -> StoreResult<Vec<Campaign>>;
}
