//! A date change to a dearer day (docs/api-checkout.md, "Change the date"): the difference is
//! a second payment on the same order. The request's transaction takes the new places (the
//! no-oversell rule, as any move) and opens that payment with the change waiting for it
//! (`pending_rebooking`); the answer is 202 with its `payment_url`. When the payment ends it
//! is settled here instead of as a sale (`checkout::lifecycle::settle_payment`):
//!
//! - paid: in one transaction the old tickets become CANCELLED with `replaced_by`, the new
//!   ones are issued (the places are already theirs), the old places go back, and the
//!   changed-date mail and `orders.OrderRebooked` (with `paid`) are written;
//! - declined, cancelled or expired (the sweeper ends it after the payment window): the held
//!   places go back and nothing else changed;
//! - paid after the old tickets changed meanwhile (cancelled, used): nothing moves, the places
//!   go back and the payment is refunded in full, as a late payment is.

use app::wire::{Money, PaymentStatus, Transition};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{
    change::{give_back_places, once_per_key, outcome_body, Changed},
    facts::OrderFacts,
    moves::{commit_taking_places, record_move, Decided, MovedTo},
    Actor,
};
use crate::{
    checkout::{
        idempotency::IdempotencyKey,
        place::{open_payment_of, OpenedPayment, PAYMENT_WINDOW},
        reserve::{booking, fulfillment_problem},
        Commerce,
    },
    error::Result,
    providers::{Booking, BookingLine},
    store::{HeldMove, HeldPlaces, NewTicket, PaymentRecord, PendingRebookingRecord, Settlement},
};

/// `pending_rebooking.status`.
const OPEN: &str = "OPEN";
const MOVED: &str = "MOVED";
const ENDED: &str = "ENDED";

/// Holds the dearer day's places and opens its difference's payment, once per `key`; the
/// customer comes back from paying to `return_url`.
pub(super) async fn ask(
    state: &Commerce,
    facts: OrderFacts,
    actor: Actor,
    decided: Result<Decided>,
    key: Option<IdempotencyKey>,
    return_url: String,
    now: DateTime<Utc>,
) -> Result<Asked> {
    let decided = decided?;
    let order = &facts.order;
    let owed = settles_on_account(state, &facts).await?;
    // Opened before the key is claimed, as a checkout's confirmation does: a retry that turns
    // out to be a replay leaves an unconfirmed payment at the provider, which lapses there.
    // A partner that settles on account owes the difference instead: no provider, no page.
    let opened = if owed {
        OpenedPayment::on_account_of(
            (order.customer_order_id, order.display_id.clone()),
            decided.difference,
            &order.currency,
        )
    } else {
        open_payment_of(
            state,
            (order.customer_order_id, order.display_id.clone()),
            facts.checkout.checkout_id,
            order.merchant_id,
            decided.difference,
            &order.currency,
        )
        .await?
    };
    let payment_id = opened.payment_id();
    let key = key.as_ref();
    let facts = &facts;
    let changed = once_per_key(state, key, Ok(decided), now, move |mut tx, d| async move {
        let payment = opened.into_difference(return_url, now + PAYMENT_WINDOW);
        let held = booking(facts.checkout.checkout_id, &d.plan);
        let pending = PendingRebookingRecord {
            payment_id: payment.payment_id,
            customer_order_id: facts.order.customer_order_id,
            reason: actor.reason().as_str().to_owned(),
            visit_date: d.plan.visit_date,
            timeslot_id: d.plan.timeslot().map(|s| s.timeslot_id),
            provider: d.plan.provider.clone(),
            moves: sqlx::types::Json(
                d.moves
                    .iter()
                    .map(|m| HeldMove {
                        old: m.old,
                        new: m.new.clone(),
                    })
                    .collect(),
            ),
            booking: sqlx::types::Json(held.lines.iter().map(stored).collect()),
            status: OPEN.to_owned(),
            created_at: now,
        };
        tx.insert_pending_rebooking(&payment, &pending).await?;
        let body = outcome_body(facts.view(now), None, Some(payment.payment_url.clone()))?;
        if let Some(key) = key {
            key.complete(tx.as_mut(), &body, now).await?;
        }
        let provider = state
            .fulfillment
            .get(&d.plan.provider)
            .ok_or_else(|| anyhow::anyhow!("no fulfilment provider named {:?}", d.plan.provider))?;
        provider
            .reserve(tx.as_mut(), &held)
            .await
            .map_err(fulfillment_problem)?;
        commit_taking_places(tx).await?;
        Ok((body, Vec::new(), false))
    })
    .await?;
    Ok(match changed {
        // Owed on account: the caller settles it at once (`rebook::rebook`).
        Changed::Done { body, .. } if owed => Asked {
            changed: Changed::AwaitsPayment(body),
            owed: Some(payment_id),
        },
        Changed::Done { body, .. } => Asked {
            changed: Changed::AwaitsPayment(body),
            owed: None,
        },
        other => Asked {
            changed: other,
            owed: None,
        },
    })
}

/// What asking for a dearer day did: the answer, and the difference's payment when the partner
/// owes it on account (to be settled as paid at once, which moves the tickets).
pub(super) struct Asked {
    pub changed: Changed,
    pub owed: Option<Uuid>,
}

/// Whether the order's partner settles on account (an OCTO reseller): it owes a dearer day's
/// difference as it owed the order.
async fn settles_on_account(state: &Commerce, facts: &OrderFacts) -> Result<bool> {
    let Some(client) = facts.checkout.partner_client_id else {
        return Ok(false);
    };
    Ok(state
        .store
        .partner_client(client)
        .await?
        .is_some_and(|c| c.settlement == Settlement::OnAccount))
}

/// Settles the difference `payment` of the pending change `pending` by `outcome` (the
/// payment's transition from OPEN): whether this call settled it (false when another did).
pub async fn settle(
    state: &Commerce,
    payment: &PaymentRecord,
    pending: PendingRebookingRecord,
    outcome: Transition<PaymentStatus>,
) -> Result<bool> {
    let Some(order) = state.store.order(pending.customer_order_id).await? else {
        return Err(anyhow::anyhow!("pending change {} has no order", payment.payment_id).into());
    };
    let facts = OrderFacts::load(state, order).await?;
    let now = Utc::now();
    if outcome != PaymentStatus::PAY {
        return end(state, &facts, payment, &pending, outcome).await;
    }
    let mut tx = state.store.begin_checkout().await?;
    if !tx
        .settle_payment(payment.payment_id, PaymentStatus::PAY)
        .await?
        || !tx.end_pending_rebooking(payment.payment_id, MOVED).await?
    {
        return Ok(false);
    }
    let order_id = facts.order.customer_order_id;
    let moves = &pending.moves.0;
    let old: Vec<Uuid> = moves.iter().map(|m| m.old).collect();
    let mut issued: Vec<NewTicket> = moves.iter().map(|m| m.new.clone()).collect();
    super::moves::carry_money(&facts, &old, &mut issued);
    let pairs: Vec<(Uuid, Option<Uuid>)> = moves
        .iter()
        .map(|m| (m.old, Some(m.new.ticket_id)))
        .collect();
    // The new tickets first: the old ones name them (`replaced_by`).
    tx.insert_tickets(&issued).await?;
    if tx.cancel_tickets(order_id, &pairs, now).await? != moves.len() as u64 {
        // The tickets changed while the difference was being paid: nothing moves.
        drop(tx);
        return void(state, &facts, payment, &pending).await;
    }
    let to = MovedTo {
        date: pending.visit_date,
        timeslot_id: pending.timeslot_id,
    };
    let reason = super::Reason::parse(&pending.reason).unwrap_or(super::Reason::Customer);
    let paid = Money::new(payment.amount, payment.currency.clone());
    record_move(
        tx.as_mut(),
        &facts,
        reason,
        &to,
        &old,
        &issued,
        None,
        Some(paid),
        now,
    )
    .await?;
    tx.write_events().await?;
    give_back_places(state, tx.as_mut(), &facts, &old).await?;
    tx.commit().await?;
    state.catalog.capacity_changed();
    Ok(true)
}

/// A difference whose move will not be made: the payment ends by `outcome` and the held
/// places go back.
async fn end(
    state: &Commerce,
    facts: &OrderFacts,
    payment: &PaymentRecord,
    pending: &PendingRebookingRecord,
    outcome: Transition<PaymentStatus>,
) -> Result<bool> {
    let mut tx = state.store.begin_checkout().await?;
    if !tx.settle_payment(payment.payment_id, outcome).await?
        || !tx.end_pending_rebooking(payment.payment_id, ENDED).await?
    {
        return Ok(false);
    }
    release(state, tx.as_mut(), facts, pending).await?;
    tx.commit().await?;
    state.catalog.capacity_changed();
    Ok(true)
}

/// A difference paid for a move that can no longer be made: kept as paid, its places back,
/// and the payment refunded in full.
async fn void(
    state: &Commerce,
    facts: &OrderFacts,
    payment: &PaymentRecord,
    pending: &PendingRebookingRecord,
) -> Result<bool> {
    if !end(state, facts, payment, pending, PaymentStatus::PAY).await? {
        return Ok(false);
    }
    crate::payments::refunds::refund_late_payment(state, payment).await?;
    Ok(true)
}

/// Gives the places held for `pending` back to their day or slot.
async fn release(
    state: &Commerce,
    tx: &mut dyn crate::store::CheckoutTx,
    facts: &OrderFacts,
    pending: &PendingRebookingRecord,
) -> Result<()> {
    let provider = state
        .fulfillment
        .get(&pending.provider)
        .ok_or_else(|| anyhow::anyhow!("no fulfilment provider named {:?}", pending.provider))?;
    let held = Booking {
        checkout_id: facts.checkout.checkout_id,
        lines: pending.booking.0.iter().map(line_of).collect(),
    };
    provider
        .release(tx, &held)
        .await
        .map_err(anyhow::Error::from)?;
    Ok(())
}

fn stored(line: &BookingLine) -> HeldPlaces {
    HeldPlaces {
        product_id: line.product_id,
        sku: line.sku.clone(),
        day: line.day,
        availability_group_id: line.availability_group_id,
        timeslot_id: line.timeslot_id,
        quantity: line.quantity,
    }
}

fn line_of(held: &HeldPlaces) -> BookingLine {
    BookingLine {
        product_id: held.product_id,
        sku: held.sku.clone(),
        day: held.day,
        availability_group_id: held.availability_group_id,
        timeslot_id: held.timeslot_id,
        quantity: held.quantity,
    }
}
