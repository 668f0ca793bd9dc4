//! A date change (docs/api-checkout.md, "Change the date"): a paid order's tickets moved to
//! another day or slot in one transaction that takes the new places under the checkout's
//! rules (the same plan, capacity and fair queue as a reservation) and gives the old ones
//! back; the old tickets become CANCELLED with `replaced_by`, new ones with new codes are
//! issued in the same order, a cheaper day's difference is refunded, one changed-date mail
//! and `orders.OrderRebooked` are written. No room: the checkout's own 422, and nothing
//! changed.
//!
//! A dearer day is paid for first (`rebook_payment`): the new places are held from the
//! request, the answer is 202 with the difference's `payment_url`, and the tickets move when
//! that payment succeeds.

use app::wire::{BasketLine, CheckoutRequest, Locale, ProblemType, RebookingRequest, TicketStatus};
use chrono::{DateTime, SecondsFormat, Utc};
use rust_decimal::{Decimal, RoundingStrategy};
use uuid::Uuid;

use super::{
    change::{choose, give_back_places, give_back_to_wallet, once_per_key, outcome_body, Changed},
    facts::OrderFacts,
    moves::{carry_money, commit_taking_places, record_move, Decided, Move, MovedTo},
    refund_parts::record_refund,
    terms::{rebook_deadline, Held},
    Actor,
};
use crate::{
    checkout::{
        idempotency::IdempotencyKey,
        lifecycle::{settle_payment, PaymentOutcome},
        plan::{self, Plan},
        reserve::{booking, fulfillment_problem, refuse_if_short},
        Commerce,
    },
    display_code::crockford,
    error::{Error, Result},
    store::{CheckoutTx, NewTicket, OrderRecord, RefundRecord},
};

/// What a date change would do to the money, for a review: refunded, or to pay first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quote {
    pub refund: Decimal,
    pub difference: Decimal,
}

/// Moves what `request` asks of `order` to its new date, once per `key` when one is given.
/// A dearer day waits for its difference to be paid, which comes back to `return_url`.
pub async fn rebook(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: RebookingRequest,
    key: Option<IdempotencyKey>,
    return_url: String,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let awaiting = state
        .store
        .open_rebooking_payment(order.customer_order_id)
        .await?;
    let mut facts = OrderFacts::load(state, order).await?;
    let decided = match awaiting {
        // One move at a time: a second would hold places for tickets the first may move.
        Some(_) => Err(not_rebookable(
            "A date change of this order awaits its payment; pay it or let it lapse first.".into(),
        )),
        None => decide(state, &facts, actor, &request, now).await,
    };
    if let Ok(d) = &decided {
        if d.difference > Decimal::ZERO {
            let order = facts.order.clone();
            let asked =
                super::rebook_payment::ask(state, facts, actor, decided, key, return_url, now)
                    .await?;
            let Some(payment_id) = asked.owed else {
                return Ok(asked.changed);
            };
            // Owed on account: paid at once, so the tickets move now, as a provider's payment
            // would move them when it succeeds (`rebook_payment::settle`).
            settle_payment(state, payment_id, PaymentOutcome::Paid).await?;
            let moved = OrderFacts::load(state, order).await?;
            return Ok(Changed::Done {
                body: outcome_body(moved.view(Utc::now()), None, None)?,
                refunded: false,
            });
        }
    }
    let key = key.as_ref();
    let facts = &mut facts;
    once_per_key(state, key, decided, now, move |tx, d| async move {
        let refunded = d.moves.iter().any(|m: &Move| m.refund > Decimal::ZERO);
        let (body, to_send) =
            carry_out(state, tx, facts, actor, &d.plan, &d.moves, key, now).await?;
        Ok((body, to_send, refunded))
    })
    .await
}

/// What moving `request`'s tickets of `order` would refund or cost at `now`, without doing
/// it (a page's review step); refused as the move itself would be.
pub async fn preview(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: &RebookingRequest,
    now: DateTime<Utc>,
) -> Result<Quote> {
    let facts = OrderFacts::load(state, order).await?;
    let d = decide(state, &facts, actor, request, now).await?;
    Ok(Quote {
        refund: d.moves.iter().map(|m| m.refund).sum(),
        difference: d.difference,
    })
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
pub(super) async fn decide(
    state: &Commerce,
    facts: &OrderFacts,
    actor: Actor,
    request: &RebookingRequest,
    now: DateTime<Utc>,
) -> Result<Decided> {
    let order = &facts.order;
    if !order.status.is_paid() {
        return Err(not_rebookable(format!(
            "Order {} is {}: only a paid order's visit can move.",
            order.display_id, order.status
        )));
    }
    let held = facts.held();
    // A ticket used at the gate, cancelled or replaced has no visit left to move.
    let chosen = choose(
        &held,
        request.ticket_ids.as_deref(),
        |h| h.policy.dated,
        ProblemType::OrderNotRebookable,
    )?;
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
        buyer: None,
        answers: Vec::new(),
    };
    let locale: Locale = facts.checkout.locale.parse().unwrap_or_default();
    let plan = plan::plan(state, order.campaign_id, locale, &basket, now).await?;
    refuse_if_short(state, &plan)?;
    let mut moves = Vec::with_capacity(chosen.len());
    // Each ticket's price change (costs included), in the order of `moves`.
    let mut deltas = Vec::with_capacity(chosen.len());
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
            Decimal::ZERO
        };
        deltas.push(new_price - old_price);
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
                money: None,
                // The visit moves; who holds the ticket and what they answered do not.
                answers: ticket
                    .answers
                    .as_ref()
                    .map(|a| a.0.clone())
                    .unwrap_or_default(),
            },
        });
    }
    if deltas.iter().all(|d| *d <= Decimal::ZERO) {
        return Ok(Decided {
            plan,
            moves,
            difference: Decimal::ZERO,
        });
    }
    // A dearer day: nothing is refunded, the difference is paid first, and each new ticket's
    // share is its old one moved by its price's change (never below zero).
    let mut difference = Decimal::ZERO;
    for (m, delta) in moves.iter_mut().zip(&deltas) {
        let share = m.new.paid_share + m.refund;
        m.refund = Decimal::ZERO;
        m.new.paid_share = (share + delta).max(Decimal::ZERO);
        difference += m.new.paid_share - share;
    }
    if difference <= Decimal::ZERO {
        return Err(not_rebookable(
            "Some of these tickets would cost more on the new date and others less; move them separately.".into(),
        ));
    }
    Ok(Decided {
        plan,
        moves,
        difference,
    })
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
) -> Result<(Vec<u8>, Vec<RefundRecord>)> {
    let order_id = facts.order.customer_order_id;
    let old: Vec<Uuid> = moves.iter().map(|m| m.old).collect();
    let pairs: Vec<(Uuid, Option<Uuid>)> = moves
        .iter()
        .map(|m| (m.old, Some(m.new.ticket_id)))
        .collect();
    // The new tickets first: the old ones name them (`replaced_by`).
    let mut issued: Vec<NewTicket> = moves.iter().map(|m| m.new.clone()).collect();
    carry_money(facts, &old, &mut issued);
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
    let refunded = record_refund(
        tx.as_mut(),
        facts,
        &old,
        refund_total,
        to_wallet,
        reason,
        now,
    )
    .await?;
    let refund = refunded.combined();
    give_back_to_wallet(tx.as_mut(), facts, to_wallet).await?;
    let slot = plan.timeslot().map(|s| s.timeslot_id);
    let to = MovedTo {
        date: plan.visit_date,
        timeslot_id: slot,
    };
    let every_valid_moves = record_move(
        tx.as_mut(),
        facts,
        reason,
        &to,
        &old,
        &issued,
        refund.as_ref(),
        None,
        now,
    )
    .await?;

    // The order as it now is.
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
            redeemed_at: None,
            money: n.money.clone().map(sqlx::types::Json),
            answers: (!n.answers.is_empty()).then(|| sqlx::types::Json(n.answers.clone())),
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
    facts.refunds.extend(refunded.rows.iter().cloned());
    let wire_refund = refund
        .as_ref()
        .and_then(crate::checkout::order_view::wire_refund);
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
    commit_taking_places(tx).await?;
    Ok((body, refunded.into_pending()))
}
