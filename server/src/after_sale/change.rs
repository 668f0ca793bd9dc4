//! A cancellation or a withdrawal: some or all of a paid order's valid tickets cancelled and
//! their refund given, in one transaction (docs/api-checkout.md, "Cancel").
//!
//! It reads as its contract: decide (which tickets, what each gives back, refusals first and
//! writing nothing) → claim the Idempotency-Key → one transaction: the tickets CANCELLED (a
//! conditional update, so of two racing changes one wins and the other is a clean 409), the
//! refund recorded with its wallet part given back, the points taken back, the change and its
//! mail written, the order closed when nothing valid is left, `orders.TicketsCancelled`, the
//! key's answer, and last the places given back → commit → the provider asked for its part
//! (`payments::refunds`: a crash before it answers repeats the request, never the refund).

use app::wire::{AfterSaleOutcome, Envelope, LoyaltyKind, OrderRefund, ProblemType, TicketStatus};
use chrono::{DateTime, SecondsFormat, Utc};
use rust_decimal::{prelude::ToPrimitive, Decimal};
use serde_json::json;
use uuid::Uuid;

use super::{
    facts::OrderFacts,
    refund_parts::record_refund,
    terms::{refund_under, rule_now, withdrawable, Held, Percent},
    ChangeKind, Reason,
};
use crate::{
    checkout::{
        idempotency::{Claimed, IdempotencyKey},
        Commerce,
    },
    error::{Error, Result},
    events::{EventType, NewEvent},
    http::envelope,
    payments::refunds,
    providers::{Booking, BookingLine},
    store::{CheckoutTx, OrderChangeRecord, OrderRecord, RefundRecord, TicketRecord},
};

/// A cancellation or withdrawal as asked.
#[derive(Debug, Clone)]
pub struct Cancellation {
    /// `None`: every valid ticket (for a withdrawal, every one that carries the right).
    pub ticket_ids: Option<Vec<Uuid>>,
    pub reason: Reason,
    pub percent: Percent,
    pub note: Option<String>,
}

impl Cancellation {
    fn kind(&self) -> ChangeKind {
        if self.reason == Reason::Withdrawal {
            ChangeKind::Withdrawal
        } else {
            ChangeKind::Cancellation
        }
    }
}

/// The answer to send, and whether it replays an earlier success.
#[derive(Debug)]
pub enum Changed {
    /// Done now: the answer, and whether money went back.
    Done {
        body: Vec<u8>,
        refunded: bool,
    },
    /// Accepted, waiting for a payment (a dearer day's difference): its `payment_url` is in
    /// the answer.
    AwaitsPayment(Vec<u8>),
    Replayed(Vec<u8>),
}

impl Changed {
    /// The answer's status when it is not a replay: 202 while a payment is awaited.
    pub fn status(&self) -> axum::http::StatusCode {
        match self {
            Self::AwaitsPayment(_) => axum::http::StatusCode::ACCEPTED,
            _ => axum::http::StatusCode::OK,
        }
    }

    /// The answer's body and whether it replays an earlier success.
    pub fn into_body(self) -> (Vec<u8>, bool) {
        match self {
            Self::Done { body, .. } | Self::AwaitsPayment(body) => (body, false),
            Self::Replayed(body) => (body, true),
        }
    }
}

/// What a cancellation will do, decided before anything is written.
struct Decision {
    tickets: Vec<(Uuid, Decimal)>,
    refund: Decimal,
    to_wallet: Decimal,
    points_back: i64,
    closes_order: bool,
}

/// Cancels what `request` asks of `order` at `now`, once per `key` when one is given.
pub async fn cancel(
    state: &Commerce,
    order: OrderRecord,
    request: Cancellation,
    key: Option<IdempotencyKey>,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let mut facts = OrderFacts::load(state, order).await?;
    let decided = async {
        let decision = decide(&facts, &request, now)?;
        let points = state
            .store
            .order_points(facts.order.customer_order_id)
            .await?;
        Ok::<_, Error>(with_points(decision, &facts, points))
    }
    .await;
    let key = key.as_ref();
    let facts = &mut facts;
    let request = &request;
    once_per_key(state, key, decided, now, move |tx, decision| async move {
        let (body, to_send) = carry_out(state, tx, facts, request, &decision, key, now).await?;
        Ok((body, to_send, decision.refund > Decimal::ZERO))
    })
    .await
}

/// What a change's transaction gives back: its answer, the refund to ask the provider for,
/// and whether money went back.
pub(super) type Carried = (Vec<u8>, Vec<RefundRecord>, bool);

/// Carries a change out once per `key`, the Idempotency-Key rule of the express checkout: a
/// refusal decided before the claim is answered as the key's record says (a replay of an
/// earlier success, else the refusal); the key is claimed and the transaction begun on it;
/// `carry` does the change in that transaction and commits; a failure releases the key. After
/// the commit the provider is asked for the refund's part.
pub(super) async fn once_per_key<D, Fut>(
    state: &Commerce,
    key: Option<&IdempotencyKey>,
    decided: Result<D>,
    now: DateTime<Utc>,
    carry: impl FnOnce(Box<dyn CheckoutTx>, D) -> Fut,
) -> Result<Changed>
where
    Fut: std::future::Future<Output = Result<Carried>>,
{
    let decision = match (decided, key) {
        (Ok(decision), _) => decision,
        (Err(refusal), Some(key)) => {
            let replay = key.refused_before_claim(state, refusal, None, now).await?;
            return Ok(Changed::Replayed(replay));
        }
        (Err(refusal), None) => return Err(refusal),
    };
    let tx = match key {
        Some(key) => match key.claim_and_begin(state, now).await? {
            Claimed::Begun(tx) => tx,
            Claimed::Replay(body) => return Ok(Changed::Replayed(body)),
        },
        None => state.store.begin_checkout().await?,
    };
    match carry(tx, decision).await {
        Ok((body, to_send, refunded)) => {
            state.catalog.capacity_changed();
            for refund in &to_send {
                refunds::send(state, refund).await;
            }
            Ok(Changed::Done { body, refunded })
        }
        Err(err) => {
            if let Some(key) = key {
                if !state.store.claim_ends_with_its_checkout() {
                    key.release(state).await;
                }
            }
            Err(err)
        }
    }
}

/// What `request` would refund of `order` at `now`, without doing it (a page's review step);
/// refused as the change itself would be.
pub async fn preview(
    state: &Commerce,
    order: OrderRecord,
    request: &Cancellation,
    now: DateTime<Utc>,
) -> Result<Decimal> {
    let facts = OrderFacts::load(state, order).await?;
    Ok(decide(&facts, request, now)?.refund)
}

/// Which tickets, and what each gives back; a refusal writes nothing.
fn decide(facts: &OrderFacts, request: &Cancellation, now: DateTime<Utc>) -> Result<Decision> {
    let order = &facts.order;
    let withdrawal = request.reason == Reason::Withdrawal;
    if !order.status.is_paid() {
        return Err(not_cancellable(format!(
            "Order {} is {}: only a paid order's tickets can be cancelled.",
            order.display_id, order.status
        )));
    }
    let held = facts.held();
    let chosen = choose(
        &held,
        request.ticket_ids.as_deref(),
        |h| !withdrawal || withdrawable(h, facts.zone, order.shipped_on, now),
        ProblemType::TicketNotCancellable,
    )?;
    if chosen.is_empty() {
        return Err(if withdrawal {
            not_withdrawable("No ticket of this order carries a withdrawal right now.")
        } else {
            not_cancellable("Every ticket of this order is cancelled or used already.".into())
        });
    }
    let mut tickets = Vec::with_capacity(chosen.len());
    for h in chosen {
        let refund = match request.percent {
            Percent::Full => {
                if withdrawal && !withdrawable(h, facts.zone, order.shipped_on, now) {
                    return Err(not_withdrawable(
                        "A chosen ticket carries no withdrawal right, or its period has ended.",
                    ));
                }
                refund_under(h, Decimal::ONE_HUNDRED, None)
            }
            Percent::Exactly(percent) => refund_under(h, percent, None),
            Percent::Policy | Percent::AtMost(_) => {
                let Some((rule, _)) = rule_now(h, facts.zone, now) else {
                    return Err(past_policy(facts, now));
                };
                let percent = match request.percent {
                    Percent::AtMost(asked) if asked > rule.refund_percent => {
                        return Err(Error::new(
                            ProblemType::RefundAbovePolicy,
                            format!(
                                "The policy refunds {}% now; a partner may refund less, never more (the operator grants goodwill).",
                                rule.refund_percent
                            ),
                        ));
                    }
                    Percent::AtMost(asked) => asked,
                    _ => rule.refund_percent,
                };
                refund_under(h, percent, Some(rule))
            }
        };
        tickets.push((h.ticket_id, refund));
    }
    let refund: Decimal = tickets.iter().map(|(_, r)| *r).sum();
    let to_wallet = facts.wallet_part(refund);
    let valid_left = held
        .iter()
        .filter(|h| h.status == TicketStatus::Valid)
        .count()
        - tickets.len();
    Ok(Decision {
        tickets,
        refund,
        to_wallet,
        points_back: 0,
        closes_order: valid_left == 0,
    })
}

/// The tickets `ids` names (all valid ones `eligible` admits when `None`), refused one by one;
/// a named ticket that is not valid (used at the gate, cancelled, replaced) is `refused`.
pub(super) fn choose<'h>(
    held: &'h [Held],
    ids: Option<&[Uuid]>,
    eligible: impl Fn(&Held) -> bool,
    refused: ProblemType,
) -> Result<Vec<&'h Held>> {
    let Some(ids) = ids else {
        return Ok(held
            .iter()
            .filter(|h| h.status == TicketStatus::Valid && eligible(h))
            .collect());
    };
    if ids.is_empty() || ids.len() > 200 {
        return Err(Error::invalid_field(
            "ticket_ids",
            "length",
            "ticket_ids names 1 to 200 tickets, or is left out for every valid ticket",
        ));
    }
    let mut chosen: Vec<&Held> = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let Some(h) = held.iter().find(|h| h.ticket_id == *id) else {
            return Err(Error::invalid_field(
                &format!("ticket_ids[{i}]"),
                "unknown",
                format!("ticket {id} is not a ticket of this order"),
            ));
        };
        if chosen.iter().any(|c| c.ticket_id == *id) {
            return Err(Error::invalid_field(
                &format!("ticket_ids[{i}]"),
                "duplicate",
                format!("ticket {id} is named twice"),
            ));
        }
        if h.status != TicketStatus::Valid {
            return Err(Error::new(
                refused,
                format!("Ticket {id} is {} already.", h.status),
            ));
        }
        chosen.push(h);
    }
    Ok(chosen)
}

/// The points to take back: of what the order earned, the share of its tickets cancelled
/// without a replacement (all when none is valid after), less what was taken back before.
fn with_points(mut d: Decision, facts: &OrderFacts, (earned, adjusted): (i64, i64)) -> Decision {
    if earned <= 0 {
        return d;
    }
    let held = facts.held();
    let gone: Decimal = held
        .iter()
        .filter(|h| {
            d.tickets.iter().any(|(id, _)| *id == h.ticket_id)
                || facts.tickets.iter().any(|t| {
                    t.ticket_id == h.ticket_id
                        && t.status == TicketStatus::Cancelled
                        && t.replaced_by.is_none()
                })
        })
        .map(|h| h.share)
        .sum();
    let paid = facts.paid();
    let target = if d.closes_order || paid.is_zero() {
        earned
    } else {
        (Decimal::from(earned) * gone / paid)
            .floor()
            .to_i64()
            .unwrap_or(0)
            .min(earned)
    };
    d.points_back = (target + adjusted).max(0);
    d
}

/// The one transaction; returns the answer and the refund the provider is to be asked for.
async fn carry_out(
    state: &Commerce,
    mut tx: Box<dyn CheckoutTx>,
    facts: &mut OrderFacts,
    request: &Cancellation,
    d: &Decision,
    key: Option<&IdempotencyKey>,
    now: DateTime<Utc>,
) -> Result<(Vec<u8>, Vec<RefundRecord>)> {
    let order_id = facts.order.customer_order_id;
    let ids: Vec<Uuid> = d.tickets.iter().map(|(id, _)| *id).collect();
    let pairs: Vec<(Uuid, Option<Uuid>)> = ids.iter().map(|id| (*id, None)).collect();
    let cancelled = tx.cancel_tickets(order_id, &pairs, now).await?;
    if cancelled != ids.len() as u64 {
        return Err(Error::new(
            ProblemType::TicketNotCancellable,
            "Another change to this order came first; read the order and try again.",
        ));
    }
    let refunded = record_refund(
        tx.as_mut(),
        facts,
        &ids,
        d.refund,
        d.to_wallet,
        request.reason,
        now,
    )
    .await?;
    if let Some(refund_id) = refunded.primary_id() {
        // Each ticket's part of what it was sold for, taken back in the refund's transaction.
        tx.book(&crate::settlement::book::refund(
            &crate::settlement::book::Context::of(&facts.order, &facts.checkout, now),
            &facts.lines,
            &facts.tickets,
            &d.tickets,
            refund_id,
        ))
        .await?;
    }
    give_back_to_wallet(tx.as_mut(), facts, d.to_wallet).await?;
    if let (Some(customer), true) = (facts.order.customer_id, d.points_back > 0) {
        tx.add_loyalty_entry(
            customer,
            facts.order.campaign_id,
            Some(order_id),
            LoyaltyKind::Adjust,
            -d.points_back,
            &format!(
                "Order {}: {} ticket(s) cancelled",
                facts.order.display_id,
                ids.len()
            ),
        )
        .await?;
    }
    let change = OrderChangeRecord {
        order_change_id: crate::ids::time_ordered_id(),
        customer_order_id: order_id,
        kind: request.kind().as_str().to_owned(),
        reason: request.reason.as_str().to_owned(),
        ticket_ids: sqlx::types::Json(ids.clone()),
        new_ticket_ids: sqlx::types::Json(Vec::new()),
        refund_id: refunded.primary_id(),
        note: request.note.clone(),
        mail_id: None,
        created_at: now,
    };
    tx.insert_order_change(&change).await?;
    tx.write_change_mail(request.kind().mail(), order_id, change.order_change_id)
        .await?;
    tx.touch_order(order_id, d.closes_order, now).await?;

    // The order as it now is: the answer, and what the event reports.
    for t in &mut facts.tickets {
        if ids.contains(&t.ticket_id) {
            t.status = TicketStatus::Cancelled;
            t.cancelled_at = Some(now);
        }
    }
    if d.closes_order {
        facts.order.status = app::wire::OrderStatus::Cancelled;
    }
    facts.order.last_mutation_date = now;
    facts.refunds.extend(refunded.rows.iter().cloned());
    let wire_refund = refunded
        .combined()
        .as_ref()
        .and_then(crate::checkout::order_view::wire_refund);
    tx.insert_event(&tickets_cancelled(
        facts,
        &ids,
        request.reason,
        wire_refund.as_ref(),
    ))
    .await?;
    let body = outcome_body(facts.view(now), wire_refund, None)?;
    if let Some(key) = key {
        key.complete(tx.as_mut(), &body, now).await?;
    }
    // Places last, as every transaction that holds a day's lock: events written first.
    tx.write_events().await?;
    give_back_places(state, tx.as_mut(), facts, &ids).await?;
    tx.commit().await?;
    Ok((body, refunded.into_pending()))
}

/// Puts `amount` back in the wallet the order was paid with.
pub(super) async fn give_back_to_wallet(
    tx: &mut dyn CheckoutTx,
    facts: &OrderFacts,
    amount: Decimal,
) -> Result<()> {
    if let (Some(customer), true) = (facts.checkout.customer_id, amount > Decimal::ZERO) {
        let campaign = facts.checkout.campaign_id;
        let balance = tx.lock_wallet(customer, campaign).await?;
        tx.set_wallet_balance(customer, campaign, balance + amount)
            .await?;
    }
    Ok(())
}

/// The provider's booking of `ids`: one place each, on its day and in its slot.
pub(super) fn booking_of(facts: &OrderFacts, ids: &[Uuid]) -> Booking {
    let tickets: Vec<&TicketRecord> = facts
        .tickets
        .iter()
        .filter(|t| ids.contains(&t.ticket_id))
        .collect();
    Booking {
        checkout_id: facts.checkout.checkout_id,
        lines: tickets
            .iter()
            .filter_map(|t| {
                let line = facts
                    .lines
                    .iter()
                    .find(|l| l.checkout_line_id == t.checkout_line_id)?;
                Some(BookingLine {
                    product_id: t.product_id,
                    sku: line.sku.clone(),
                    day: t
                        .visit_date
                        .or(line.visit_date)
                        .unwrap_or(facts.checkout.visit_date),
                    availability_group_id: line.availability_group_id,
                    timeslot_id: t.timeslot_id,
                    quantity: 1,
                })
            })
            .collect(),
    }
}

/// Gives the places of `ids` back to their day and slot, through the order's provider.
pub(super) async fn give_back_places(
    state: &Commerce,
    tx: &mut dyn CheckoutTx,
    facts: &OrderFacts,
    ids: &[Uuid],
) -> Result<()> {
    let provider = state
        .fulfillment
        .get(&facts.checkout.provider)
        .ok_or_else(|| {
            anyhow::anyhow!("no fulfilment provider named {:?}", facts.checkout.provider)
        })?;
    provider
        .release(tx, &booking_of(facts, ids))
        .await
        .map_err(anyhow::Error::from)?;
    Ok(())
}

/// `orders.TicketsCancelled`, for the order's partner.
fn tickets_cancelled(
    facts: &OrderFacts,
    ids: &[Uuid],
    reason: Reason,
    refund: Option<&OrderRefund>,
) -> NewEvent {
    NewEvent {
        event_type: EventType::TicketsCancelled,
        subject: format!("orders/{}", facts.order.customer_order_id),
        campaign_id: facts.checkout.campaign_id,
        partner_client_id: facts.checkout.partner_client_id,
        data: json!({
            "order_id": facts.order.customer_order_id,
            "order_display_id": facts.order.display_id,
            "ticket_ids": ids,
            "reason": reason,
            "refund": refund,
            "status": facts.order.status,
            "attribution": facts.checkout.attribution.as_deref(),
        }),
    }
}

/// The answer of a change, as sent and stored under its key.
pub(super) fn outcome_body(
    order: app::wire::Order,
    refund: Option<OrderRefund>,
    payment_url: Option<String>,
) -> Result<Vec<u8>> {
    Ok(serde_json::to_vec(&Envelope {
        data: AfterSaleOutcome {
            order,
            refund,
            payment_url,
        },
        meta: envelope::meta(),
    })
    .map_err(anyhow::Error::from)?)
}

fn not_cancellable(detail: String) -> Error {
    Error::new(ProblemType::OrderNotCancellable, detail)
}

fn not_withdrawable(detail: &str) -> Error {
    Error::new(ProblemType::OrderNotWithdrawable, detail.to_owned())
}

/// The refusal of a cancellation past the policy, naming its last deadline.
fn past_policy(facts: &OrderFacts, now: DateTime<Utc>) -> Error {
    let view = super::terms::quote(
        &facts.held(),
        facts.zone,
        now,
        &facts.order.currency,
        facts.order.shipped_on,
    );
    not_cancellable(match view.cancel_until {
        Some(until) => format!(
            "The merchant's policy allowed cancelling until {}; that has passed.",
            until
                .with_timezone(&facts.zone)
                .to_rfc3339_opts(SecondsFormat::Secs, false)
        ),
        None => "The merchant's policy for these tickets allows no cancellation.".into(),
    })
}
