//! What the manage page tells the partner's page after a change made inside the frame
//! (docs/webframe.md, "Messages"): `boxoffice:order-cancelled` or `boxoffice:order-rebooked`,
//! and GA4's `refund` as `boxoffice:analytics` when money went back. The same types as the
//! frame's own messages (`app::frame::host`), so the host reads one protocol; ids, amounts
//! and dates only, nothing personal.

use app::{
    frame::{
        analytics::Analytics,
        host::{Outgoing, VisitAt},
    },
    wire::Order,
};
use rust_decimal::Decimal;

use super::ChangeKind;
use crate::store::OrderChangeRecord;

/// The messages telling of `change`, made to `order` (as it now reads).
pub fn messages(order: &Order, change: &OrderChangeRecord) -> Vec<Outgoing> {
    let refund = change
        .refund_id
        .and_then(|id| order.refunds.iter().find(|r| r.refund_id == id))
        .map(|r| r.amount.clone());
    let told = if change.kind == ChangeKind::Rebooking.as_str() {
        let first_new = order
            .tickets
            .iter()
            .find(|t| change.new_ticket_ids.0.contains(&t.ticket_id));
        Outgoing::OrderRebooked {
            order_id: order.order_id,
            order_display_id: order.order_display_id.clone(),
            change_id: change.order_change_id,
            ticket_ids: change.ticket_ids.0.clone(),
            new_ticket_ids: change.new_ticket_ids.0.clone(),
            to: VisitAt {
                date: first_new.and_then(|t| t.visit_date),
                timeslot_id: first_new.and_then(|t| t.timeslot.as_ref().map(|w| w.timeslot_id)),
            },
            refund: refund.clone(),
        }
    } else {
        Outgoing::OrderCancelled {
            order_id: order.order_id,
            order_display_id: order.order_display_id.clone(),
            change_id: change.order_change_id,
            ticket_ids: change.ticket_ids.0.clone(),
            reason: change.reason.clone(),
            refund: refund.clone(),
        }
    };
    let mut out = vec![told];
    if let Some(refund) = refund.filter(|r| r.value > Decimal::ZERO) {
        out.push(Outgoing::Analytics(Analytics::Refund {
            transaction_id: order.order_id,
            currency: refund.currency,
            value: refund.value,
        }));
    }
    out
}
