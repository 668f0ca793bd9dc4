use app::wire::{MerchantAccountStatus, Transition};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use super::StoreResult;

/// A merchant's account at the payment provider, onboarded through a magic link and KYC.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct MerchantAccount {
    pub merchant_account_id: Uuid,
    pub merchant_id: Option<Uuid>,
    /// The account's code at the payment provider (the `debtorCode` of the onboarding call).
    pub debtor_code: String,
    pub email: String,
    pub legal_name: String,
    #[serde(skip)]
    pub provider_account_id: String,
    #[sqlx(try_from = "String")]
    pub status: MerchantAccountStatus,
    /// The payment provider the account is at (`sandbox`, `stripe`).
    pub provider: String,
    /// Whether the provider lets the account take charges (Stripe's `charges_enabled`); a
    /// merchant whose Stripe account cannot is refused checkouts.
    pub charges_enabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[async_trait::async_trait]
pub trait MerchantAccountStore {
    /// Stores the account, its single-use onboarding code and the mail of its magic link
    /// together.
    async fn create_merchant_account(
        &self,
        account: &MerchantAccount,
        code_hash: &[u8],
        code_expires_at: DateTime<Utc>,
        magic_link: &super::NewMail,
    ) -> StoreResult<()>;
    /// Redeems an onboarding code in one conditional update; `None` when unknown, used or expired.
    async fn redeem_onboarding_code(
        &self,
        code_hash: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<Option<MerchantAccount>>;
    async fn merchant_account(
        &self,
        merchant_account_id: Uuid,
    ) -> StoreResult<Option<MerchantAccount>>;
    async fn merchant_account_by_provider_id(
        &self,
        provider_account_id: &str,
    ) -> StoreResult<Option<MerchantAccount>>;
    /// Makes the change when the account is in its `from` state; `false` when it was not.
    async fn transition_merchant_account(
        &self,
        merchant_account_id: Uuid,
        change: Transition<MerchantAccountStatus>,
    ) -> StoreResult<bool>;
}
