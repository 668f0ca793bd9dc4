//! A date change (docs/api-checkout.md, "Change the date"): a paid order's tickets moved to
//! another day or slot in one transaction that takes the new places under the checkout's
//! rules (the same plan, capacity and fair queue as a reservation) and gives the old ones
//! back; the old tickets become CANCELLED with `replaced_by`, new ones with new codes are
//! issued in the same order, a cheaper day's difference is refunded, one changed-date mail
//! and `orders.OrderRebooked` are written. No room: the checkout's own 422, and nothing
//! changed.
//!
//! A dearer day is refused (409 `order-not-rebookable`, naming the difference): paying a
//! difference needs a second payment on the order, held places until it ends, and its own
//! refund path, which are not built yet (docs/api-checkout.md says so).

use app::wire::{BasketLine, CheckoutRequest, Locale, ProblemType, RebookingRequest, TicketStatus};
use chrono::{DateTime, SecondsFormat, Utc};
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::json;
use uuid::Uuid;

use super::{
    change::{
        choose, give_back_places, give_back_to_wallet, once_per_key, outcome_body, record_refund,
        Changed,
    },
    facts::OrderFacts,
    terms::{rebook_deadline, Held},
    Actor, ChangeKind,
};
use crate::{
    checkout::{
        idempotency::IdempotencyKey,
        plan::{self, Plan},
        reserve::{booking, fulfillment_problem, refuse_if_short},
        Commerce,
    },
    display_code::crockford,
    error::{Error, Result},
    events::{EventType, NewEvent},
    store::{CheckoutTx, NewTicket, OrderChangeRecord, OrderRecord, RefundRecord},
};

/// One ticket moved: the old, its replacement, and what comes back for it.
struct Move {
    old: Uuid,
    new: NewTicket,
    refund: Decimal,
}

/// Moves what `request` asks of `order` to its new date, once per `key` when one is given.
pub async fn rebook(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: RebookingRequest,
    key: Option<IdempotencyKey>,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let mut facts = OrderFacts::load(state, order).await?;
    let decided = decide(state, &facts, actor, &request, now).await;
    let key = key.as_ref();
    let facts = &mut facts;
    once_per_key(
        state,
        key,
        decided,
        now,
        move |tx, (plan, moves)| async move {
            let refunded = moves.iter().any(|m: &Move| m.refund > Decimal::ZERO);
            let (body, refund) =
                carry_out(state, tx, facts, actor, &plan, &moves, key, now).await?;
            Ok((body, refund, refunded))
        },
    )
    .await
}

/// What moving `request`'s tickets of `order` would refund at `now`, without doing it (a
/// page's review step); refused as the move itself would be.
pub async fn preview(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: &RebookingRequest,
    now: DateTime<Utc>,
) -> Result<Decimal> {
    let facts = OrderFacts::load(state, order).await?;
    let (_, moves) = decide(state, &facts, actor, request, now).await?;
    Ok(moves.iter().map(|m| m.refund).sum())
}

/// The times a move of `order`'s valid tickets could take on `date`: `None` when its products
/// need no timeslot (the date alone will do).
pub async fn times_on(
    state: &Commerce,
    order: &OrderRecord,
    date: chrono::NaiveDate,
    now: DateTime<Utc>,
) -> Result<Option<Vec<app::wire::TimeslotEntry>>> {
    let tickets = state
        .store
        .tickets_of_orders(&[order.customer_order_id])
        .await?;
    let valid: Vec<_> = tickets
        .iter()
        .filter(|t| t.status == TicketStatus::Valid)
        .collect();
    let Some(first) = valid.first() else {
        return Ok(None);
    };
    let store = state.store.as_ref();
    let Some(product) = state
        .catalog
        .definitions
        .product(store, first.product_id)
        .await?
    else {
        return Ok(None);
    };
    if !product.requires_timeslot {
        return Ok(None);
    }
    let zone = match state
        .catalog
        .definitions
        .merchant(store, product.merchant_id)
        .await?
    {
        Some(m) => m.zone()?,
        None => return Ok(None),
    };
    let quantity = u32::try_from(valid.len()).unwrap_or(u32::MAX);
    let slots = crate::catalog::timeslots::product_timeslots(
        state.reads(),
        &product,
        zone,
        date,
        quantity,
        now,
    )
    .await?;
    Ok(Some(slots))
}

fn not_rebookable(detail: String) -> Error {
    Error::new(ProblemType::OrderNotRebookable, detail)
}

/// The tickets, the new visit's plan and each ticket's move; a refusal writes nothing.
async fn decide(
    state: &Commerce,
    facts: &OrderFacts,
    actor: Actor,
    request: &RebookingRequest,
    now: DateTime<Utc>,
) -> Result<(Plan, Vec<Move>)> {
    let order = &facts.order;
    if !order.status.is_paid() {
        return Err(not_rebookable(format!(
            "Order {} is {}: only a paid order's visit can move.",
            order.display_id, order.status
        )));
    }
    let held = facts.held();
    let chosen = choose(&held, request.ticket_ids.as_deref(), |h| h.policy.dated)?;
    if chosen.is_empty() {
        return Err(not_rebookable(
            "No valid dated ticket of this order can move.".into(),
        ));
    }
    if actor != Actor::Operator {
        for h in &chosen {
            check_deadline(facts, h, now)?;
        }
    }
    // The new visit, planned as a checkout of the same products would be: one basket line
    // per product, as many as move.
    let mut lines: Vec<BasketLine> = Vec::new();
    for h in &chosen {
        let product_id = ticket_product(facts, h.ticket_id);
        match lines.iter_mut().find(|l| l.product_id == product_id) {
            Some(line) => line.quantity += 1,
            None => lines.push(BasketLine {
                product_id,
                quantity: 1,
            }),
        }
    }
    let basket = CheckoutRequest {
        date: request.date.clone(),
        flexible_date: false,
        lines,
        voucher_codes: Vec::new(),
        external_reference: None,
        replaces: None,
        attribution: None,
    };
    let locale: Locale = facts.checkout.locale.parse().unwrap_or_default();
    let plan = plan::plan(state, order.campaign_id, locale, &basket, now).await?;
    refuse_if_short(state, &plan)?;
    let mut moves = Vec::with_capacity(chosen.len());
    let mut dearer = Decimal::ZERO;
    for h in &chosen {
        let ticket = facts
            .tickets
            .iter()
            .find(|t| t.ticket_id == h.ticket_id)
            .ok_or_else(|| anyhow::anyhow!("ticket {} vanished", h.ticket_id))?;
        let line = facts
            .lines
            .iter()
            .find(|l| l.checkout_line_id == ticket.checkout_line_id)
            .ok_or_else(|| anyhow::anyhow!("ticket {} has no line", h.ticket_id))?;
        let planned = plan
            .lines
            .iter()
            .find(|l| l.product.product_id == ticket.product_id)
            .ok_or_else(|| anyhow::anyhow!("the plan lost product {}", ticket.product_id))?;
        let old_price = OrderFacts::price_of(line);
        let new_price = planned.unit_price + line.booking_costs + line.visit_guarantee_cost;
        let refund = if new_price < old_price && !old_price.is_zero() {
            // The difference, in the proportion of the price the holder paid (a voucher's
            // discount stays theirs), never more than the ticket's share.
            ((old_price - new_price) * h.share / old_price)
                .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
                .min(h.share)
        } else {
            dearer += new_price - old_price;
            Decimal::ZERO
        };
        let code = crockford(12);
        moves.push(Move {
            old: h.ticket_id,
            refund,
            new: NewTicket {
                ticket_id: crate::ids::random_id(),
                order_id: order.customer_order_id,
                checkout_line_id: line.checkout_line_id,
                product_id: ticket.product_id,
                code: format!("{}-{}-{}", &code[..4], &code[4..8], &code[8..]),
                visit_date: Some(planned.day),
                timeslot_id: planned.timeslot.as_ref().map(|s| s.timeslot_id),
                valid_until: planned.product.ticket_validity_date.or(Some(planned.day)),
                paid_share: h.share - refund,
            },
        });
    }
    if dearer > Decimal::ZERO {
        return Err(not_rebookable(format!(
            "The new date costs {dearer} {} more; a date change that needs a payment is not offered yet. Choose a day at the same price or less.",
            order.currency
        )));
    }
    Ok((plan, moves))
}

fn ticket_product(facts: &OrderFacts, ticket_id: Uuid) -> Uuid {
    facts
        .tickets
        .iter()
        .find(|t| t.ticket_id == ticket_id)
        .map_or(Uuid::nil(), |t| t.product_id)
}

/// Refuses a move past the policy's date-change deadline, naming it.
fn check_deadline(facts: &OrderFacts, h: &Held, now: DateTime<Utc>) -> Result<()> {
    match rebook_deadline(h, facts.zone) {
        Some(until) if now < until => Ok(()),
        Some(until) => Err(not_rebookable(format!(
            "The merchant's policy allowed changing the date until {}; that has passed.",
            until
                .with_timezone(&facts.zone)
                .to_rfc3339_opts(SecondsFormat::Secs, false)
        ))),
        None => Err(not_rebookable(
            "The merchant's policy for these tickets allows no date change.".into(),
        )),
    }
}

#[allow(clippy::too_many_arguments)]
async fn carry_out(
    state: &Commerce,
    mut tx: Box<dyn CheckoutTx>,
    facts: &mut OrderFacts,
    actor: Actor,
    plan: &Plan,
    moves: &[Move],
    key: Option<&IdempotencyKey>,
    now: DateTime<Utc>,
) -> Result<(Vec<u8>, Option<RefundRecord>)> {
    let order_id = facts.order.customer_order_id;
    let old: Vec<Uuid> = moves.iter().map(|m| m.old).collect();
    let new: Vec<Uuid> = moves.iter().map(|m| m.new.ticket_id).collect();
    let pairs: Vec<(Uuid, Option<Uuid>)> = moves
        .iter()
        .map(|m| (m.old, Some(m.new.ticket_id)))
        .collect();
    // The new tickets first: the old ones name them (`replaced_by`).
    let issued: Vec<NewTicket> = moves.iter().map(|m| m.new.clone()).collect();
    tx.insert_tickets(&issued).await?;
    if tx.cancel_tickets(order_id, &pairs, now).await? != old.len() as u64 {
        return Err(Error::new(
            ProblemType::TicketNotCancellable,
            "Another change to this order came first; read the order and try again.",
        ));
    }
    let refund_total: Decimal = moves.iter().map(|m| m.refund).sum();
    let to_wallet = facts.wallet_part(refund_total);
    let reason = actor.reason();
    let refund = record_refund(
        tx.as_mut(),
        facts,
        &old,
        refund_total,
        to_wallet,
        reason,
        now,
    )
    .await?;
    give_back_to_wallet(tx.as_mut(), facts, to_wallet).await?;
    let change = OrderChangeRecord {
        order_change_id: crate::ids::time_ordered_id(),
        customer_order_id: order_id,
        kind: ChangeKind::Rebooking.as_str().to_owned(),
        reason: reason.as_str().to_owned(),
        ticket_ids: sqlx::types::Json(old.clone()),
        new_ticket_ids: sqlx::types::Json(new.clone()),
        refund_id: refund.as_ref().map(|r| r.refund_id),
        note: None,
        mail_id: None,
        created_at: now,
    };
    tx.insert_order_change(&change).await?;
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
    let slot = plan.timeslot().map(|s| s.timeslot_id);
    if every_valid_moves {
        tx.move_order_visit(facts.checkout.checkout_id, plan.visit_date, slot)
            .await?;
    }
    tx.touch_order(order_id, false, now).await?;

    // The order as it now is.
    let from = json!({
        "date": facts.order.visit_date,
        "timeslot_id": facts.checkout.timeslot_id,
    });
    for t in &mut facts.tickets {
        if let Some(m) = moves.iter().find(|m| m.old == t.ticket_id) {
            t.status = TicketStatus::Cancelled;
            t.cancelled_at = Some(now);
            t.replaced_by = Some(m.new.ticket_id);
        }
    }
    facts
        .tickets
        .extend(issued.iter().map(|n| crate::store::TicketRecord {
            ticket_id: n.ticket_id,
            customer_order_id: n.order_id,
            checkout_line_id: n.checkout_line_id,
            product_id: n.product_id,
            code: n.code.clone(),
            visit_date: n.visit_date,
            timeslot_id: n.timeslot_id,
            valid_until: n.valid_until,
            status: TicketStatus::Valid,
            created_at: now,
            paid_share: Some(crate::store::DbDecimal(n.paid_share)),
            replaced_by: None,
            cancelled_at: None,
        }));
    if every_valid_moves {
        facts.order.visit_date = plan.visit_date;
        facts.checkout.visit_date = plan.visit_date;
        facts.checkout.timeslot_id = slot;
    }
    if let Some(new_slot) = plan.timeslot() {
        if !facts
            .slots
            .iter()
            .any(|w| w.timeslot_id == new_slot.timeslot_id)
        {
            facts
                .slots
                .push(crate::checkout::view::window(new_slot, facts.zone));
        }
    }
    facts.order.last_mutation_date = now;
    if let Some(r) = &refund {
        facts.refunds.push(r.clone());
    }
    let wire_refund = refund
        .as_ref()
        .and_then(crate::checkout::order_view::wire_refund);
    tx.insert_event(&NewEvent {
        event_type: EventType::OrderRebooked,
        subject: format!("orders/{order_id}"),
        campaign_id: facts.checkout.campaign_id,
        partner_client_id: facts.checkout.partner_client_id,
        data: json!({
            "order_id": order_id,
            "order_display_id": facts.order.display_id,
            "from": from,
            "to": { "date": plan.visit_date, "timeslot_id": slot },
            "ticket_ids": old,
            "new_ticket_ids": new,
            "reason": reason,
            "refund": wire_refund,
            "attribution": facts.checkout.attribution.as_deref(),
        }),
    })
    .await?;
    let body = outcome_body(facts.view(now), wire_refund, None)?;
    if let Some(key) = key {
        key.complete(tx.as_mut(), &body, now).await?;
    }
    // Places last: the old given back, the new taken at the commit in the reservation's
    // order (the no-oversell rule); a day or slot without room fails the commit.
    tx.write_events().await?;
    let provider = state
        .fulfillment
        .get(&plan.provider)
        .ok_or_else(|| anyhow::anyhow!("no fulfilment provider named {:?}", plan.provider))?;
    give_back_places(state, tx.as_mut(), facts, &old).await?;
    provider
        .reserve(tx.as_mut(), &booking(facts.checkout.checkout_id, plan))
        .await
        .map_err(fulfillment_problem)?;
    tx.commit().await.map_err(|e| match e {
        crate::store::StoreError::Short(places) => {
            fulfillment_problem(crate::providers::FulfillmentError::Unavailable(format!(
                "fewer than {} places are left {places}",
                places.quantity()
            )))
        }
        other => other.into(),
    })?;
    Ok((body, refund.filter(|r| r.status == "PENDING")))
}
