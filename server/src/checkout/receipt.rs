//! A paid order's receipt for the partner's page: the frame passes it on in
//! `boxoffice:order-paid`, and the page, which cannot trust a message the browser delivers,
//! verifies it against `/.well-known/jwks.json` (docs/webframe.md, "The receipt"). A compact
//! JWS signed with the bearers' EdDSA key under its own audience (`boxoffice-receipt`), so it
//! can never pass for a bearer, and valid for five minutes: enough to hand over, too short to
//! replay later.

use app::wire::{Money, Order, OrderReceipt, ReceiptLine, VatRow};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::auth::tokens::{Audience, Registered, TokenService};

/// How long a receipt verifies.
pub const RECEIPT_TTL_SECS: u64 = 300;

/// The receipt's claims.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReceiptClaims {
    #[serde(flatten)]
    pub registered: Registered,
    pub order_id: Uuid,
    pub order_display_id: String,
    pub total: Money,
    pub lines: Vec<ReceiptLine>,
    /// The partner client whose session paid.
    pub client_id: String,
    pub campaign_id: Uuid,
    /// The VAT in the total per rate (added with settlement; absent when none is charged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tax: Vec<VatRow>,
}

/// The receipt of the paid `order` with its VAT `tax`, for the session of `client_id` in
/// `campaign_id`.
pub fn receipt(
    tokens: &TokenService,
    order: &Order,
    tax: Vec<VatRow>,
    client_id: &str,
    campaign_id: Uuid,
) -> anyhow::Result<OrderReceipt> {
    let lines: Vec<ReceiptLine> = order.items.iter().map(ReceiptLine::from).collect();
    let claims = ReceiptClaims {
        registered: tokens.registered(
            Audience::Receipt,
            order.order_id.to_string(),
            RECEIPT_TTL_SECS,
        ),
        order_id: order.order_id,
        order_display_id: order.order_display_id.clone(),
        total: order.total.clone(),
        lines: lines.clone(),
        client_id: client_id.to_owned(),
        campaign_id,
        tax: tax.clone(),
    };
    Ok(OrderReceipt {
        order_id: order.order_id,
        order_display_id: order.order_display_id.clone(),
        total: order.total.clone(),
        lines,
        receipt: tokens.sign(&claims)?,
        tax,
    })
}
