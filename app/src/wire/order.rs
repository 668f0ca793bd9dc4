//! The customer's orders, tickets and loyalty ledger (docs/api-checkout.md, "Tickets and
//! loyalty").

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::OrderAfterSale;
#[cfg(feature = "ssr")]
use super::OrderRefund;
use super::{Attribution, LoyaltyKind, Money, OrderStatus, TicketStatus, TimeslotWindow};

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Ticket {
    pub ticket_id: Uuid,
    /// Unique; printed on the ticket, and what a gate takes typed by hand.
    pub code: String,
    /// What the ticket's QR code holds: a token signed by this server that a gate verifies
    /// offline (docs/gate.md). On every read of a paid order's valid and used tickets; absent
    /// on cancelled ones.
    #[serde(default)]
    pub qr: Option<String>,
    pub product_id: Uuid,
    pub product_title: String,
    pub age_group: Option<String>,
    pub visit_date: Option<NaiveDate>,
    pub timeslot: Option<TimeslotWindow>,
    /// Last valid day, inclusive.
    pub valid_until: Option<NaiveDate>,
    pub status: TicketStatus,
    /// When a gate let its holder in (a USED ticket; docs/gate.md).
    #[serde(default)]
    pub redeemed_at: Option<DateTime<Utc>>,
    /// The ticket that replaced this one when the visit moved to another day.
    #[cfg(feature = "ssr")]
    #[serde(default)]
    pub replaced_by: Option<Uuid>,
    /// Its holder's answers to the per-ticket booking questions.
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<super::GivenAnswer>,
}

impl Ticket {
    /// What its QR code shows: the signed token, or the printed code where there is none.
    pub fn qr_content(&self) -> &str {
        self.qr.as_deref().unwrap_or(&self.code)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OrderItem {
    pub product_id: Uuid,
    pub sku: String,
    pub title: String,
    pub age_group: Option<String>,
    pub quantity: u32,
    pub line_total: Money,
}

/// An order as `GET /v2/me/fulfillment/orders` lists it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Order {
    pub order_id: Uuid,
    #[cfg_attr(feature = "ssr", schema(example = "BX-7K3M-9Q2P"))]
    pub order_display_id: String,
    pub checkout_id: Uuid,
    pub status: OrderStatus,
    pub merchant_id: Uuid,
    pub visit_date: NaiveDate,
    pub total: Money,
    pub items: Vec<OrderItem>,
    /// Issued once the order is paid.
    pub tickets: Vec<Ticket>,
    /// Where the customer came from (its checkout's `attribution`).
    #[serde(default)]
    pub attribution: Option<Attribution>,
    pub created_at: DateTime<Utc>,
    pub last_mutation_date: DateTime<Utc>,
    /// What the order allows now (cancel, change the date, withdraw); absent before payment
    /// and in lists (it is computed for the moment of a read of the one order).
    #[serde(default)]
    pub after_sale: Option<OrderAfterSale>,
    /// The customer's "manage your booking" page, keyed like the ticket page (docs/tickets.md),
    /// where the changes `after_sale` allows are made; on the read of the one order, once paid.
    #[serde(default)]
    pub manage_url: Option<String>,
    /// The refunds made so far, oldest first. (Server-side only: the frame does not read them.)
    #[cfg(feature = "ssr")]
    #[serde(default)]
    pub refunds: Vec<OrderRefund>,
    /// The answers to the per-booking questions (a ticket's own are on the ticket).
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<super::GivenAnswer>,
}

/// One line of a receipt: what was bought, without personal data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ReceiptLine {
    pub product_id: Uuid,
    pub sku: String,
    pub quantity: u32,
}

impl From<&OrderItem> for ReceiptLine {
    /// The receipt's line of an order's item: what was bought, and nothing of who bought it.
    fn from(item: &OrderItem) -> Self {
        Self {
            product_id: item.product_id,
            sku: item.sku.clone(),
            quantity: item.quantity,
        }
    }
}

/// A paid order's receipt for the embedding page (`boxoffice:order-paid`): the order's total
/// and lines, and `receipt`, a compact JWS over them signed with the server's bearer key
/// (verify it with `/.well-known/jwks.json`; docs/webframe.md, "The receipt").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OrderReceipt {
    pub order_id: Uuid,
    pub order_display_id: String,
    pub total: Money,
    pub lines: Vec<ReceiptLine>,
    /// EdDSA compact JWS; its claims repeat the fields above with `client_id`, `campaign_id`,
    /// `iat` and a 5-minute `exp`.
    pub receipt: String,
    /// The VAT in the total per rate (docs/settlement.md); absent when none is charged. Only
    /// the server writes it: the frame passes the receipt on and reads none of it.
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tax: Vec<super::VatRow>,
}

/// One movement of the customer's loyalty points.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct LoyaltyEntry {
    pub id: Uuid,
    pub occurred_at: DateTime<Utc>,
    pub kind: LoyaltyKind,
    /// Signed: negative for REDEEM.
    pub points: i64,
    pub balance_after: i64,
    /// In English, as stored; a localized screen builds its own text from `kind` and
    /// `order_display_id`.
    pub description: String,
    pub order_id: Option<Uuid>,
    /// The display id (`BX-7K3M-9Q2P`) of `order_id`'s order, with it.
    pub order_display_id: Option<String>,
}
