//! What a payment provider reports, as stored: each payment's reference at the provider and
//! how far its reconciliation got, the provider's events processed once, the refunds, and
//! whether a merchant's account can take charges.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{MerchantAccount, PaymentRecord, StoreResult};

/// Money given back through the provider (table `refund`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RefundRecord {
    pub refund_id: Uuid,
    pub payment_id: Uuid,
    pub customer_order_id: Uuid,
    pub reason: String,
    #[sqlx(try_from = "super::DbDecimal")]
    pub amount: Decimal,
    pub currency: String,
    pub status: String,
    pub provider_ref: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The tickets it refunds (none for a late payment's).
    pub ticket_ids: sqlx::types::Json<Vec<Uuid>>,
    /// The part that went back to the wallet; `amount` is the provider's part.
    #[sqlx(try_from = "super::DbDecimal")]
    pub to_wallet: Decimal,
}

/// A refund decided, written with the event that reports it.
#[derive(Debug, Clone)]
pub struct NewRefund {
    pub refund_id: Uuid,
    pub payment_id: Uuid,
    pub order_id: Uuid,
    pub reason: &'static str,
    /// What the payment provider is asked to give back.
    pub amount: Decimal,
    pub currency: String,
    pub ticket_ids: Vec<Uuid>,
    /// What goes back to the wallet, in the same transaction.
    pub to_wallet: Decimal,
    /// PENDING while the provider has something to give back, else SUCCEEDED at once.
    pub status: &'static str,
}

#[async_trait::async_trait]
pub trait PaymentStore {
    async fn payment_by_provider_ref(
        &self,
        provider: &str,
        provider_ref: &str,
    ) -> StoreResult<Option<PaymentRecord>>;
    /// Payments at `provider` whose side there is not known final, opened before
    /// `opened_before` and not asked about since `asked_before`; the longest unasked first.
    async fn payments_to_reconcile(
        &self,
        provider: &str,
        opened_before: DateTime<Utc>,
        asked_before: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<PaymentRecord>>;
    /// Notes that the provider was asked about the payment at `now`, and whether its side is
    /// final there (nothing more will change).
    async fn note_payment_checked(
        &self,
        payment_id: Uuid,
        now: DateTime<Utc>,
        provider_final: bool,
    ) -> StoreResult<()>;
    /// Records the provider's event `event_id` as processed; `false` when it already was.
    async fn record_provider_event(
        &self,
        provider: &str,
        event_id: &str,
        event_type: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<bool>;
    async fn provider_event_seen(&self, provider: &str, event_id: &str) -> StoreResult<bool>;
    async fn refund(&self, refund_id: Uuid) -> StoreResult<Option<RefundRecord>>;
    async fn refunds_of_order(&self, order_id: Uuid) -> StoreResult<Vec<RefundRecord>>;
    async fn refund_by_provider_ref(&self, provider_ref: &str)
        -> StoreResult<Option<RefundRecord>>;
    /// Refunds still PENDING, the oldest first.
    async fn pending_refunds(&self, limit: u32) -> StoreResult<Vec<RefundRecord>>;
    /// The account of `merchant_id` at `provider`, the latest when there are several.
    async fn merchant_payment_account(
        &self,
        merchant_id: Uuid,
        provider: &str,
    ) -> StoreResult<Option<MerchantAccount>>;
    /// Sets whether the account can take charges; the account, when there is one.
    async fn set_account_charges_enabled(
        &self,
        provider_account_id: &str,
        charges_enabled: bool,
    ) -> StoreResult<Option<MerchantAccount>>;
}
