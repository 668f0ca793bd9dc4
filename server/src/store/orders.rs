//! Orders as stored, with their payments, tickets and the loyalty ledger they feed.

use app::wire::{LoyaltyKind, OrderStatus, PaymentStatus, TicketStatus};
use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{CheckoutLineRecord, StoreResult};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrderRecord {
    pub customer_order_id: Uuid,
    pub display_id: String,
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub customer_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    pub status: OrderStatus,
    #[sqlx(try_from = "super::DbDecimal")]
    pub total: Decimal,
    pub currency: String,
    pub created_at: DateTime<Utc>,
    pub last_mutation_date: DateTime<Utc>,
    /// From the order's checkout.
    pub merchant_id: Uuid,
    pub visit_date: NaiveDate,
    pub attribution: Option<sqlx::types::Json<app::wire::Attribution>>,
    /// The day the operator recorded the shipment of a physical order.
    pub shipped_on: Option<NaiveDate>,
    /// The answers to the booking questions, from its checkout (a ticket keeps its own).
    #[sqlx(default)]
    pub answers: Option<sqlx::types::Json<Vec<super::StoredAnswer>>>,
    /// The language it was bought in (its checkout's): its answers' labels are read in it.
    #[sqlx(default)]
    pub locale: Option<String>,
}

impl OrderRecord {
    /// The language it was bought in.
    pub fn locale(&self) -> app::wire::Locale {
        self.locale
            .as_deref()
            .and_then(|l| l.parse().ok())
            .unwrap_or_default()
    }
}

/// Which state of an order a reader saw. Whatever changes an order (its status, its tickets,
/// which come with the payment) moves its `last_mutation_date`; its lines never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct OrderVersion {
    pub customer_order_id: Uuid,
    pub last_mutation_date: DateTime<Utc>,
    #[sqlx(try_from = "String")]
    pub status: OrderStatus,
}

impl From<&OrderRecord> for OrderVersion {
    fn from(order: &OrderRecord) -> Self {
        Self {
            customer_order_id: order.customer_order_id,
            last_mutation_date: order.last_mutation_date,
            status: order.status,
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PaymentRecord {
    pub payment_id: Uuid,
    pub customer_order_id: Uuid,
    pub provider: String,
    #[sqlx(try_from = "String")]
    pub status: PaymentStatus,
    #[sqlx(try_from = "super::DbDecimal")]
    pub amount: Decimal,
    pub currency: String,
    pub return_url: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Where the provider takes the customer to pay.
    pub payment_url: Option<String>,
    /// The provider's id of the payment (Stripe: the PaymentIntent); `None` for the sandbox's.
    pub provider_ref: Option<String>,
    /// The merchant's account a destination charge pays; `None`: the platform's own charge.
    pub provider_destination: Option<String>,
    pub provider_checked_at: Option<DateTime<Utc>>,
    pub provider_final_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TicketRecord {
    pub ticket_id: Uuid,
    pub customer_order_id: Uuid,
    pub checkout_line_id: Uuid,
    pub product_id: Uuid,
    pub code: String,
    pub visit_date: Option<NaiveDate>,
    pub timeslot_id: Option<Uuid>,
    pub valid_until: Option<NaiveDate>,
    #[sqlx(try_from = "String")]
    pub status: TicketStatus,
    /// When it was issued: with the payment, or with the date change that replaced another.
    pub created_at: DateTime<Utc>,
    /// What was paid for it after vouchers and wallet (`after_sale::allocate`); `None` for
    /// tickets issued before migration 0014, whose share is computed when asked.
    pub paid_share: Option<super::DbDecimal>,
    pub replaced_by: Option<Uuid>,
    pub cancelled_at: Option<DateTime<Utc>>,
    /// When a gate let its holder in (USED); cleared when the gate undoes the entry.
    #[sqlx(default)]
    pub redeemed_at: Option<DateTime<Utc>>,
    /// Its part of its line's money (`settlement::split::per_ticket`); `None` for tickets issued
    /// before migration 0017, which the ledger leaves out.
    #[sqlx(default)]
    pub money: Option<sqlx::types::Json<crate::settlement::split::Parts>>,
    /// Its holder's answers to the per-ticket booking questions.
    #[sqlx(default)]
    pub answers: Option<sqlx::types::Json<Vec<super::StoredAnswer>>>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LoyaltyEntryRecord {
    pub loyalty_entry_id: Uuid,
    pub occurred_at: DateTime<Utc>,
    #[sqlx(try_from = "String")]
    pub kind: LoyaltyKind,
    pub points: i64,
    pub balance_after: i64,
    pub description: String,
    pub customer_order_id: Option<Uuid>,
    /// The display id of `customer_order_id`'s order.
    pub order_display_id: Option<String>,
}

/// Where a loyalty entry stands in its customer's ledger: its time, then its id.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub struct LoyaltyEntryKey {
    pub loyalty_entry_id: Uuid,
    pub occurred_at: DateTime<Utc>,
}

/// An order with its first payment.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub order_id: Uuid,
    pub display_id: String,
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub total: Decimal,
    pub currency: String,
    pub payment_id: Uuid,
    pub payment_provider: String,
    /// The provider's id of the payment, when it keeps one (`providers::OpenedAtProvider`).
    pub payment_provider_ref: Option<String>,
    pub payment_destination: Option<String>,
    pub payment_url: String,
    pub return_url: String,
    pub payment_expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct NewTicket {
    pub ticket_id: Uuid,
    pub order_id: Uuid,
    pub checkout_line_id: Uuid,
    pub product_id: Uuid,
    pub code: String,
    pub visit_date: Option<NaiveDate>,
    pub timeslot_id: Option<Uuid>,
    pub valid_until: Option<NaiveDate>,
    /// What was paid for it after vouchers and wallet.
    pub paid_share: rust_decimal::Decimal,
    /// Its part of its line's money (`settlement::split::per_ticket`).
    #[serde(default)]
    pub money: Option<crate::settlement::split::Parts>,
    /// Its holder's answers to the per-ticket booking questions.
    #[serde(default)]
    pub answers: Vec<super::StoredAnswer>,
}

#[async_trait::async_trait]
pub trait OrderStore {
    /// The versions of the customer's orders in the campaign, newest first by last mutation,
    /// after `after` (the last mutation and id of the previous page's last order).
    async fn order_versions_of_customer(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<OrderVersion>>;
    /// The orders of `order_ids` that exist, in no set order.
    async fn orders_by_id(&self, order_ids: &[Uuid]) -> StoreResult<Vec<OrderRecord>>;
    async fn tickets_of_orders(&self, order_ids: &[Uuid]) -> StoreResult<Vec<TicketRecord>>;
    /// Lines of the checkouts of `order_ids`, with the order they belong to.
    async fn lines_of_orders(
        &self,
        order_ids: &[Uuid],
    ) -> StoreResult<Vec<(Uuid, CheckoutLineRecord)>>;
    /// The keys of the customer's loyalty entries in the campaign, newest first, after
    /// `after` (the time and id of the previous page's last entry).
    async fn loyalty_entry_keys(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<LoyaltyEntryKey>>;
    /// The loyalty entries of `entry_ids` that exist, in no set order.
    async fn loyalty_entries_by_id(
        &self,
        entry_ids: &[Uuid],
    ) -> StoreResult<Vec<LoyaltyEntryRecord>>;
}
