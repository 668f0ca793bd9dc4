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
    pub created_at: DateTime<Utc>,
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
    pub payment_url: String,
    pub return_url: String,
    pub payment_expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct NewTicket {
    pub ticket_id: Uuid,
    pub order_id: Uuid,
    pub checkout_line_id: Uuid,
    pub product_id: Uuid,
    pub code: String,
    pub visit_date: Option<NaiveDate>,
    pub timeslot_id: Option<Uuid>,
    pub valid_until: Option<NaiveDate>,
}

#[async_trait::async_trait]
pub trait OrderStore {
    /// The customer's orders in the campaign, newest first by last mutation, after `after`
    /// (the last mutation and id of the previous page's last order).
    async fn orders_of_customer(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<OrderRecord>>;
    async fn tickets_of_orders(&self, order_ids: &[Uuid]) -> StoreResult<Vec<TicketRecord>>;
    /// Lines of the checkouts of `order_ids`, with the order they belong to.
    async fn lines_of_orders(
        &self,
        order_ids: &[Uuid],
    ) -> StoreResult<Vec<(Uuid, CheckoutLineRecord)>>;
    /// The customer's loyalty entries in the campaign, newest first, after `after`.
    async fn loyalty_entries(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<LoyaltyEntryRecord>>;
}
