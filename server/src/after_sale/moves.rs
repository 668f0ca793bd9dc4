//! What every date change writes once its tickets move (`rebook`, and `rebook_payment` when a
//! dearer day's difference is paid): the moves decided, the change row and its mail, the
//! order's visit, `orders.OrderRebooked`, and the commit that takes the new places.

use app::wire::TicketStatus;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::json;
use uuid::Uuid;

use super::{facts::OrderFacts, ChangeKind, Reason};
use crate::{
    checkout::{plan::Plan, reserve::fulfillment_problem},
    error::Result,
    events::{EventType, NewEvent},
    settlement::book,
    store::{CheckoutTx, NewTicket, OrderChangeRecord, RefundRecord, TicketRecord},
};

/// Gives each new ticket of a date change its money: its old ticket's (`old`, in the same
/// order) moved by the price difference (`settlement::book::moved`). Tickets sold before
/// settlement carry none.
pub(super) fn carry_money(facts: &OrderFacts, old: &[Uuid], issued: &mut [NewTicket]) {
    for (old_id, new) in old.iter().zip(issued.iter_mut()) {
        let before = facts
            .tickets
            .iter()
            .find(|t| t.ticket_id == *old_id)
            .and_then(|t| t.money.as_ref());
        let terms = facts
            .lines
            .iter()
            .find(|l| l.checkout_line_id == new.checkout_line_id)
            .and_then(book::terms_of_line);
        new.money = match (before, terms) {
            (Some(parts), Some(terms)) => Some(book::moved(&parts.0, new.paid_share, terms)),
            _ => None,
        };
    }
}

/// One ticket moved: the old, its replacement, and what comes back for it.
pub(super) struct Move {
    pub old: Uuid,
    pub new: NewTicket,
    pub refund: Decimal,
}

/// What a date change comes to: the new visit's plan, each ticket's move, and the difference
/// to pay first when the new day is dearer (zero otherwise).
pub(super) struct Decided {
    pub plan: Plan,
    pub moves: Vec<Move>,
    pub difference: Decimal,
}

/// Where moved tickets go: their day, and their slot when the product has slots.
pub(super) struct MovedTo {
    pub date: chrono::NaiveDate,
    pub timeslot_id: Option<Uuid>,
}

/// The writes of every date change once its tickets moved (`old` replaced by `new`, which
/// are written): the change row and its mail, the order's visit when all its valid tickets
/// moved, the order touched, and `orders.OrderRebooked` (with the difference `paid` for a
/// dearer day). Answers whether every valid ticket moved. `facts` is the order before.
#[allow(clippy::too_many_arguments)]
pub(super) async fn record_move(
    tx: &mut dyn CheckoutTx,
    facts: &OrderFacts,
    reason: Reason,
    to: &MovedTo,
    old: &[Uuid],
    issued: &[NewTicket],
    refund: Option<&RefundRecord>,
    paid: Option<app::wire::Money>,
    now: DateTime<Utc>,
) -> Result<bool> {
    let order_id = facts.order.customer_order_id;
    let new: Vec<Uuid> = issued.iter().map(|t| t.ticket_id).collect();
    let change = OrderChangeRecord {
        order_change_id: crate::ids::time_ordered_id(),
        customer_order_id: order_id,
        kind: ChangeKind::Rebooking.as_str().to_owned(),
        reason: reason.as_str().to_owned(),
        ticket_ids: sqlx::types::Json(old.to_vec()),
        new_ticket_ids: sqlx::types::Json(new.to_vec()),
        refund_id: refund.map(|r| r.refund_id),
        note: None,
        mail_id: None,
        created_at: now,
    };
    tx.insert_order_change(&change).await?;
    // The price difference, booked with the move (docs/settlement.md, "The ledger").
    let pairs: Vec<(&TicketRecord, &NewTicket)> = old
        .iter()
        .zip(issued)
        .filter_map(|(o, n)| {
            facts
                .tickets
                .iter()
                .find(|t| t.ticket_id == *o)
                .map(|t| (t, n))
        })
        .collect();
    tx.book(&book::rebooking(
        &book::Context::of(&facts.order, &facts.checkout, now),
        &facts.lines,
        &pairs,
        change.order_change_id,
    ))
    .await?;
    tx.write_change_mail(
        ChangeKind::Rebooking.mail(),
        order_id,
        change.order_change_id,
    )
    .await?;
    let every_valid_moves = facts
        .tickets
        .iter()
        .filter(|t| t.status == TicketStatus::Valid)
        .all(|t| old.contains(&t.ticket_id));
    if every_valid_moves {
        tx.move_order_visit(facts.checkout.checkout_id, to.date, to.timeslot_id)
            .await?;
    }
    tx.touch_order(order_id, false, now).await?;
    tx.insert_event(&NewEvent {
        event_type: EventType::OrderRebooked,
        subject: format!("orders/{order_id}"),
        campaign_id: facts.checkout.campaign_id,
        partner_client_id: facts.checkout.partner_client_id,
        data: json!({
            "order_id": order_id,
            "order_display_id": facts.order.display_id,
            "from": { "date": facts.order.visit_date, "timeslot_id": facts.checkout.timeslot_id },
            "to": { "date": to.date, "timeslot_id": to.timeslot_id },
            "ticket_ids": old,
            "new_ticket_ids": new,
            "reason": reason,
            "refund": refund.and_then(crate::checkout::order_view::wire_refund),
            "paid": paid,
            "attribution": facts.checkout.attribution.as_deref(),
        }),
    })
    .await?;
    Ok(every_valid_moves)
}

/// Commits a transaction that takes places: a day or slot without room is the checkout's own
/// refusal (422 `checkout-product-not-fulfillable`), and nothing of it is kept.
pub(super) async fn commit_taking_places(tx: Box<dyn CheckoutTx>) -> Result<()> {
    tx.commit().await.map_err(|e| match e {
        crate::store::StoreError::Short(places) => {
            fulfillment_problem(crate::providers::FulfillmentError::Unavailable(format!(
                "fewer than {} places are left {places}",
                places.quantity()
            )))
        }
        other => other.into(),
    })
}
