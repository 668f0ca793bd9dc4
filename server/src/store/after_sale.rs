//! What the after-sale work stores (docs/api-checkout.md, "After the sale"): the changes made
//! to orders after payment, and the reads it decides by. Its writes are `AfterSaleTx`, part of
//! the checkout transaction, so a cancellation's tickets, places, refund, wallet, points, mail
//! and event commit together or not at all.

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::StoreResult;

/// One change after the sale (table `order_change`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrderChangeRecord {
    pub order_change_id: Uuid,
    pub customer_order_id: Uuid,
    /// `after_sale::ChangeKind`.
    pub kind: String,
    /// `after_sale::Reason`.
    pub reason: String,
    pub ticket_ids: sqlx::types::Json<Vec<Uuid>>,
    pub new_ticket_ids: sqlx::types::Json<Vec<Uuid>>,
    pub refund_id: Option<Uuid>,
    pub note: Option<String>,
    /// The mail that tells the customer of it.
    pub mail_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

/// A date change waiting for its difference to be paid (table `pending_rebooking`): the
/// tickets to move, their replacements, and the places held for them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PendingRebookingRecord {
    pub payment_id: Uuid,
    pub customer_order_id: Uuid,
    /// `after_sale::Reason`.
    pub reason: String,
    pub visit_date: NaiveDate,
    pub timeslot_id: Option<Uuid>,
    /// The fulfilment provider holding the places.
    pub provider: String,
    pub moves: sqlx::types::Json<Vec<HeldMove>>,
    pub booking: sqlx::types::Json<Vec<HeldPlaces>>,
    /// OPEN, then MOVED (paid) or ENDED (not paid).
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// One ticket of a pending date change: the old one and the ticket that will replace it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HeldMove {
    pub old: Uuid,
    pub new: super::NewTicket,
}

/// Places held for a pending date change: one line of its booking
/// (`providers::BookingLine`, as stored).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HeldPlaces {
    pub product_id: Uuid,
    pub sku: String,
    pub day: NaiveDate,
    pub availability_group_id: Uuid,
    pub timeslot_id: Option<Uuid>,
    pub quantity: u32,
}

/// A second payment on a paid order (a dearer day's difference), opened with the change
/// that asks for it.
#[derive(Debug, Clone)]
pub struct NewDifferencePayment {
    pub payment_id: Uuid,
    pub order_id: Uuid,
    pub provider: String,
    pub provider_ref: Option<String>,
    pub destination: Option<String>,
    pub amount: rust_decimal::Decimal,
    pub currency: String,
    pub payment_url: String,
    pub return_url: String,
    pub expires_at: DateTime<Utc>,
}

#[async_trait::async_trait]
pub trait AfterSaleStore {
    /// The date change waiting for `payment_id`, if it is one's.
    async fn pending_rebooking(
        &self,
        payment_id: Uuid,
    ) -> StoreResult<Option<PendingRebookingRecord>>;
    /// The open payment of the order's date change waiting for one, if any.
    async fn open_rebooking_payment(
        &self,
        order_id: Uuid,
    ) -> StoreResult<Option<super::PaymentRecord>>;
    /// The order's PAID payments, oldest (its sale) first.
    async fn paid_payments(&self, order_id: Uuid) -> StoreResult<Vec<super::PaymentRecord>>;
    /// The change the mail `mail_id` tells of.
    async fn order_change_of_mail(&self, mail_id: Uuid) -> StoreResult<Option<OrderChangeRecord>>;
    /// The changes of `order_id`, oldest first.
    async fn order_changes(&self, order_id: Uuid) -> StoreResult<Vec<OrderChangeRecord>>;
    /// The refunds of `order_ids`, oldest first.
    async fn refunds_of_orders(&self, order_ids: &[Uuid]) -> StoreResult<Vec<super::RefundRecord>>;
    /// The order's loyalty points: earned with its payment, and adjusted since (negative).
    async fn order_points(&self, order_id: Uuid) -> StoreResult<(i64, i64)>;
    /// Orders with valid tickets of `product_id` on `day` (in `timeslot_id` when given).
    async fn orders_with_tickets_on(
        &self,
        product_id: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<Vec<Uuid>>;
}

/// What a line keeps from its payment: its after-sale policy (`after_sale::Frozen`) and its
/// money (`settlement::split::LineMoney`), as JSON; `None` leaves the column as it is.
#[derive(Debug, Clone, Default)]
pub struct FrozenLine {
    pub checkout_line_id: Uuid,
    pub after_sale: Option<serde_json::Value>,
    pub money: Option<serde_json::Value>,
}

/// The writes of a change after the sale, inside the checkout transaction.
#[async_trait::async_trait]
pub trait AfterSaleTx: Send {
    /// Freezes what each line keeps from its payment, one update per line (a batch touches a
    /// row once).
    async fn freeze_lines(&mut self, lines: &[FrozenLine]) -> StoreResult<()>;
    /// Cancels the VALID tickets of `order_id` among `ticket_ids` (each replaced by its pair's
    /// second when given); how many were VALID and are now CANCELLED. Fewer than asked: a
    /// concurrent change got there first, and the caller rolls back.
    async fn cancel_tickets(
        &mut self,
        order_id: Uuid,
        tickets: &[(Uuid, Option<Uuid>)],
        now: DateTime<Utc>,
    ) -> StoreResult<u64>;
    async fn insert_order_change(&mut self, change: &OrderChangeRecord) -> StoreResult<()>;
    /// Opens a dearer day's difference payment with the change waiting for it.
    async fn insert_pending_rebooking(
        &mut self,
        payment: &NewDifferencePayment,
        pending: &PendingRebookingRecord,
    ) -> StoreResult<()>;
    /// Ends the OPEN pending change of `payment_id` as `status` (MOVED or ENDED); false when
    /// it had ended already.
    async fn end_pending_rebooking(&mut self, payment_id: Uuid, status: &str) -> StoreResult<bool>;
    /// Queues the mail about `change` (rendered when it is sent).
    async fn write_change_mail(
        &mut self,
        kind: app::wire::MailKind,
        order_id: Uuid,
        change_id: Uuid,
    ) -> StoreResult<()>;
    /// Moves the order's `last_mutation_date`, so every reader sees it changed; ends it
    /// (CANCELLED) when `close` and it is PAID or FULFILLED.
    async fn touch_order(
        &mut self,
        order_id: Uuid,
        close: bool,
        now: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// Moves the order's visit (its checkout's day and slot) when every valid ticket moved.
    async fn move_order_visit(
        &mut self,
        checkout_id: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<()>;
    /// Closes a day of `group` (or, with `timeslot_id`, that one slot) for sale: its capacity
    /// held at what is reserved from now on (migration 0014).
    async fn close_places(
        &mut self,
        group: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<()>;
    /// Records the shipment of a physical order; `false` when there is no such order.
    async fn set_shipped_on(&mut self, order_id: Uuid, day: NaiveDate) -> StoreResult<bool>;
    /// Records the provider's answer to a PENDING refund; `true` when it moved it to a final
    /// state now (the caller writes its event in the same transaction).
    async fn finish_refund(
        &mut self,
        refund_id: Uuid,
        status: &str,
        provider_ref: Option<&str>,
    ) -> StoreResult<bool>;
}
