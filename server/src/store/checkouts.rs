//! Checkouts, orders, payments, tickets and loyalty as stored, and the unit of work that
//! changes them. The business rules (what is taken, in which order, what each transition
//! releases) live in `crate::checkout`; this is only the data each step reads and writes.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{Places, StoreResult};
use crate::events::NewEvent;

/// A checkout row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CheckoutRecord {
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    pub status: String,
    pub visit_date: NaiveDate,
    pub timeslot_id: Option<Uuid>,
    pub flexible_date: bool,
    pub currency: String,
    #[sqlx(try_from = "super::DbDecimal")]
    pub subtotal: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub discount_total: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub wallet_applied: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub total: Decimal,
    pub requires_shipping_address: bool,
    pub voucher_codes: sqlx::types::Json<Vec<String>>,
    pub external_reference: Option<String>,
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub shipping_address: Option<sqlx::types::Json<serde_json::Value>>,
    pub return_url: Option<String>,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub provider: String,
    pub locale: String,
}

/// A checkout line row, with the capacity it took.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CheckoutLineRecord {
    pub checkout_line_id: Uuid,
    pub product_id: Uuid,
    /// The group the line took its places from (never null: migration 0003).
    pub availability_group_id: Uuid,
    pub timeslot_id: Option<Uuid>,
    pub visit_date: Option<NaiveDate>,
    pub sku: String,
    pub title: String,
    pub age_group: Option<String>,
    pub quantity: i32,
    #[sqlx(try_from = "super::DbDecimal")]
    pub unit_price: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub list_price: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub booking_costs: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub visit_guarantee_cost: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    pub line_total: Decimal,
}

/// A voucher a checkout redeemed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CheckoutVoucherRecord {
    pub voucher_id: Uuid,
    pub code: String,
    #[sqlx(try_from = "super::DbDecimal")]
    pub discount: Decimal,
    pub released: bool,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrderRecord {
    pub customer_order_id: Uuid,
    pub display_id: String,
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub status: String,
    #[sqlx(try_from = "super::DbDecimal")]
    pub total: Decimal,
    pub currency: String,
    pub created_at: DateTime<Utc>,
    pub last_mutation_date: DateTime<Utc>,
    /// From the order's checkout.
    pub merchant_id: Uuid,
    pub visit_date: NaiveDate,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PaymentRecord {
    pub payment_id: Uuid,
    pub customer_order_id: Uuid,
    pub provider: String,
    pub status: String,
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
    pub status: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LoyaltyEntryRecord {
    pub loyalty_entry_id: Uuid,
    pub occurred_at: DateTime<Utc>,
    pub kind: String,
    pub points: i64,
    pub balance_after: i64,
    pub description: String,
    pub customer_order_id: Option<Uuid>,
}

/// A checkout to insert, priced and with its capacity already taken.
#[derive(Debug, Clone)]
pub struct NewCheckout {
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    pub provider: String,
    pub locale: String,
    pub visit_date: NaiveDate,
    pub timeslot_id: Option<Uuid>,
    pub flexible_date: bool,
    pub currency: String,
    pub subtotal: Decimal,
    pub discount_total: Decimal,
    pub wallet_applied: Decimal,
    pub total: Decimal,
    pub requires_shipping_address: bool,
    pub voucher_codes: Vec<String>,
    pub external_reference: Option<String>,
    pub expires_at: DateTime<Utc>,
    pub lines: Vec<NewCheckoutLine>,
    /// Redeemed vouchers and what each took off.
    pub vouchers: Vec<(Uuid, Decimal)>,
    /// The customer's fields when the checkout is written already CONFIRMED: the express
    /// checkout reserves and confirms in one transaction, so its row is written once.
    pub confirmed: Option<CustomerFields>,
}

#[derive(Debug, Clone)]
pub struct NewCheckoutLine {
    pub checkout_line_id: Uuid,
    pub product_id: Uuid,
    pub availability_group_id: Uuid,
    pub timeslot_id: Option<Uuid>,
    /// The day its capacity is taken on.
    pub visit_date: NaiveDate,
    pub sku: String,
    pub title: String,
    pub age_group: Option<String>,
    pub quantity: u32,
    pub unit_price: Decimal,
    pub list_price: Decimal,
    pub booking_costs: Decimal,
    pub visit_guarantee_cost: Decimal,
    pub line_total: Decimal,
}

/// The customer's fields of a confirmation.
#[derive(Debug, Clone)]
pub struct CustomerFields {
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub return_url: String,
    pub shipping_address: Option<serde_json::Value>,
    pub newsletters: Vec<String>,
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

/// One database transaction over checkouts and what they hold. Dropped without `commit`, it
/// rolls back: nothing it did is kept.
///
/// Every method that takes or gives back a shared resource is one conditional statement, and
/// places are taken by the commit under the tables' CHECKs, so concurrent transactions can
/// never oversell; callers take resources in one global order (vouchers by id, the wallet,
/// days by group, then slots) so Postgres row locks cannot deadlock.
#[async_trait::async_trait]
pub trait CheckoutTx: Send {
    /// Asks for places: `commit` takes them, in the order asked, after everything else
    /// (`store::places` says why).
    fn take(&mut self, places: Places);
    async fn give_back_day(
        &mut self,
        group: Uuid,
        day: NaiveDate,
        quantity: u32,
    ) -> StoreResult<()>;
    async fn give_back_timeslot(&mut self, timeslot_id: Uuid, quantity: u32) -> StoreResult<()>;
    /// Counts one redemption; `false` when the voucher has none left.
    async fn redeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<bool>;
    async fn unredeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<()>;
    /// Locks the customer's wallet in the campaign and returns its balance (zero when none).
    async fn lock_wallet(&mut self, customer_id: Uuid, campaign_id: Uuid) -> StoreResult<Decimal>;
    /// Sets the balance of a wallet locked by `lock_wallet`.
    async fn set_wallet_balance(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        balance: Decimal,
    ) -> StoreResult<()>;
    async fn insert_checkout(&mut self, checkout: &NewCheckout) -> StoreResult<()>;
    /// Moves the checkout from `from` to `to` when it is in `from` (and, when `expired_by` is
    /// given, its hold ended by then); `false` when it was not: another request got there first.
    async fn transition_checkout(
        &mut self,
        checkout_id: Uuid,
        from: &str,
        to: &str,
        expired_by: Option<DateTime<Utc>>,
    ) -> StoreResult<bool>;
    /// Moves a RESERVED checkout whose hold has not ended to CONFIRMED with the customer's
    /// fields; `false` when it is not RESERVED or its hold ended.
    async fn confirm_checkout(
        &mut self,
        checkout_id: Uuid,
        fields: &CustomerFields,
        now: DateTime<Utc>,
    ) -> StoreResult<bool>;
    async fn insert_order(&mut self, order: &NewOrder) -> StoreResult<()>;
    /// Moves a payment from OPEN to `to`; `false` when it was no longer OPEN.
    async fn settle_payment(&mut self, payment_id: Uuid, to: &str) -> StoreResult<bool>;
    /// Moves an order from `from` to `to`; `false` when it was not in `from`.
    async fn transition_order(&mut self, order_id: Uuid, from: &str, to: &str)
        -> StoreResult<bool>;
    async fn insert_tickets(&mut self, tickets: &[NewTicket]) -> StoreResult<()>;
    /// Marks the checkout's voucher redemptions released; returns the vouchers that were not.
    async fn release_checkout_vouchers(&mut self, checkout_id: Uuid) -> StoreResult<Vec<Uuid>>;
    /// Appends a loyalty entry after the account's last one; returns the balance after it.
    async fn add_loyalty_entry(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        order_id: Option<Uuid>,
        kind: &str,
        points: i64,
        description: &str,
    ) -> StoreResult<i64>;
    /// Adds `event` to the outbox with this transaction's other changes; returns its id. Events
    /// are written together, by `write_events` or at the latest by `commit`.
    async fn insert_event(&mut self, event: &NewEvent) -> StoreResult<Uuid>;
    /// Writes the events added so far, in the order they were added (a handful of statements
    /// for any number). Call it before taking a contended place, so the place's lock is not
    /// held while they are written.
    async fn write_events(&mut self) -> StoreResult<()>;
    /// Stores the success of a claimed idempotency key with the change it made.
    async fn complete_idempotency(
        &mut self,
        campaign_id: Uuid,
        key: Uuid,
        status: u16,
        body: &[u8],
    ) -> StoreResult<()>;
    /// Writes the events not written yet, takes the places asked for and commits. When fewer
    /// places are left than one take asks for, fails with [`StoreError::Short`] naming it,
    /// and keeps nothing.
    ///
    /// [`StoreError::Short`]: super::StoreError::Short
    async fn commit(self: Box<Self>) -> StoreResult<()>;
}

#[async_trait::async_trait]
pub trait CheckoutStore {
    /// Begins a write transaction (`BEGIN IMMEDIATE` on SQLite).
    async fn begin_checkout(&self) -> StoreResult<Box<dyn CheckoutTx>>;
    async fn checkout(&self, checkout_id: Uuid) -> StoreResult<Option<CheckoutRecord>>;
    async fn checkout_lines(&self, checkout_id: Uuid) -> StoreResult<Vec<CheckoutLineRecord>>;
    async fn checkout_vouchers(&self, checkout_id: Uuid)
        -> StoreResult<Vec<CheckoutVoucherRecord>>;
    async fn order_of_checkout(&self, checkout_id: Uuid) -> StoreResult<Option<OrderRecord>>;
    async fn order(&self, order_id: Uuid) -> StoreResult<Option<OrderRecord>>;
    async fn payment(&self, payment_id: Uuid) -> StoreResult<Option<PaymentRecord>>;
    /// The newest payment of an order.
    async fn payment_of_order(&self, order_id: Uuid) -> StoreResult<Option<PaymentRecord>>;
    /// The timeslots `ids` name (those that exist).
    async fn timeslots_by_id(&self, ids: &[Uuid]) -> StoreResult<Vec<super::Timeslot>>;
    /// RESERVED checkouts whose hold ended by `now`, oldest first.
    async fn lapsed_reservations(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// OPEN payments that ran out by `now`, oldest first.
    async fn lapsed_payments(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// PAID orders whose fulfilment is not confirmed yet, oldest first.
    async fn unfulfilled_orders(&self, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// Origins a return URL may have in the campaign: those of the session's partner client,
    /// or for guests and identity sessions those of every client allowed the campaign.
    async fn return_origins(
        &self,
        campaign_id: Uuid,
        partner_client_id: Option<Uuid>,
    ) -> StoreResult<Vec<String>>;
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
