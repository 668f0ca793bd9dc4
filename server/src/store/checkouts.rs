//! Checkouts as stored: the rows a checkout is kept in and what is read of them. The business
//! rules (what is taken, in which order, what each transition releases) live in
//! `crate::checkout`; the unit of work that changes checkouts is `checkout_tx`.

use app::wire::{Attribution, CheckoutStatus};
use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CheckoutTx, OrderRecord, PaymentRecord, StoreResult};

/// A checkout row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CheckoutRecord {
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    pub status: CheckoutStatus,
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
    /// The bearer's session the checkout was made in (its partner's locked fields apply).
    pub session_id: Option<Uuid>,
    pub attribution: Option<sqlx::types::Json<Attribution>>,
    /// When its hold was extended (once).
    pub hold_extended_at: Option<DateTime<Utc>>,
    /// The business buyer an invoice names (`settlement::invoice`).
    #[sqlx(default)]
    pub buyer: Option<sqlx::types::Json<app::wire::Buyer>>,
    /// The answers to its booking questions (`checkout::answers`).
    #[sqlx(default)]
    pub answers: Option<sqlx::types::Json<Vec<StoredAnswer>>>,
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
    /// The after-sale policy frozen when the order was paid (`after_sale::Frozen`); read only
    /// where an order's lines are.
    #[sqlx(default)]
    pub after_sale: Option<sqlx::types::Json<crate::after_sale::frozen::Frozen>>,
    /// The line's money as sold (`settlement::split::LineMoney`), frozen with its payment;
    /// read only where an order's lines are.
    #[sqlx(default)]
    pub money: Option<sqlx::types::Json<crate::settlement::split::LineMoney>>,
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

/// A checkout to insert, priced and with its capacity already taken.
#[derive(Debug, Clone)]
pub struct NewCheckout {
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    /// The bearer's session, and the client address the request came from: who the places
    /// are held by besides the customer (`checkout::holds`).
    pub session_id: Option<Uuid>,
    pub client_address: Option<String>,
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
    pub attribution: Option<Attribution>,
    /// A business buyer given at the reservation (one given at confirm replaces it).
    pub buyer: Option<app::wire::Buyer>,
    /// The answers to the basket's booking questions (`checkout::answers`).
    pub answers: Vec<StoredAnswer>,
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
    /// The partner the checkout is attributed to: its events go to this partner alone
    /// (`checkout::customer::validate`; docs/security.md).
    pub partner_client_id: Option<Uuid>,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub return_url: String,
    pub shipping_address: Option<serde_json::Value>,
    pub newsletters: Vec<String>,
    /// A business buyer for the invoice; absent, one given at the reservation stays.
    pub buyer: Option<app::wire::Buyer>,
    /// Answers replacing the reservation's; absent, those stay.
    pub answers: Option<Vec<StoredAnswer>>,
}

/// An answer to a booking question as a checkout and a ticket keep it (`checkout::answers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAnswer {
    pub question_id: String,
    /// For a per-ticket question: the product of the ticket's line (a basket holds a product
    /// on one line), so the answer does not hang on the order lines are listed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_id: Option<Uuid>,
    /// For a per-ticket question: the ticket's 0-based place among its line's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<u32>,
    /// The question's label when it was answered.
    pub label: app::wire::LocalizedText,
    pub value: String,
    /// For a choice: the chosen option's label when it was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<app::wire::LocalizedText>,
    /// Whether the question was marked as asking for personal data.
    #[serde(default)]
    pub personal_data: bool,
}

impl CheckoutRecord {
    /// Its answers (none when none were given).
    pub fn answers(&self) -> &[StoredAnswer] {
        self.answers.as_ref().map_or(&[], |a| a.0.as_slice())
    }
}

impl StoredAnswer {
    /// As an order, a ticket and a gate show it, in `locale`.
    pub fn given(&self, locale: app::wire::Locale) -> app::wire::GivenAnswer {
        app::wire::GivenAnswer {
            question_id: self.question_id.clone(),
            label: self.label.get(locale).to_owned(),
            value: self.value.clone(),
            choice: self.choice.as_ref().map(|c| c.get(locale).to_owned()),
        }
    }

    /// As a checkout read shows what was given, with its line's place in `products` (the
    /// read's lines, in order).
    pub fn as_sent(&self, products: &[Uuid]) -> app::wire::Answer {
        app::wire::Answer {
            question_id: self.question_id.clone(),
            line: self
                .product_id
                .and_then(|p| products.iter().position(|l| *l == p))
                .and_then(|at| u32::try_from(at).ok()),
            ticket: self.ticket,
            value: self.value.clone(),
        }
    }
}

/// The return-URL origins a partner client registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOrigins {
    pub partner_client_id: Uuid,
    pub origins: Vec<String>,
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
    /// The payment an order was placed with (its first; a dearer date change adds others:
    /// `AfterSaleStore::paid_payments`).
    async fn payment_of_order(&self, order_id: Uuid) -> StoreResult<Option<PaymentRecord>>;
    /// The timeslots `ids` name (those that exist).
    async fn timeslots_by_id(&self, ids: &[Uuid]) -> StoreResult<Vec<super::Timeslot>>;
    /// RESERVED checkouts whose hold ended by `now`, oldest first.
    async fn lapsed_reservations(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// OPEN payments that ran out by `now`, oldest first.
    async fn lapsed_payments(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// PAID orders whose fulfilment is not confirmed yet, oldest first.
    async fn unfulfilled_orders(&self, limit: u32) -> StoreResult<Vec<Uuid>>;
    /// Origins a return URL may have in the campaign, per partner client: those of the
    /// session's partner client, or for guests and identity sessions those of every client
    /// allowed the campaign.
    async fn return_origins(
        &self,
        campaign_id: Uuid,
        partner_client_id: Option<Uuid>,
    ) -> StoreResult<Vec<ClientOrigins>>;
}
