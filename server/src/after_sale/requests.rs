//! The changes the routes ask for, by who asks (docs/api-checkout.md, "After the sale"): the
//! customer under the policy, a partner at the policy's percent or less, the operator at any
//! percent. The routes (`api/order_changes.rs`, `api/partner_orders.rs`, `admin/orders.rs`)
//! only authenticate and scope; each rule of who may do what is here, once.

use app::wire::{
    CancellationRequest, ManagedCancellationRequest, RebookingRequest, WithdrawalRequest,
};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{
    change::{cancel, Cancellation, Changed},
    rebook,
    terms::Percent,
    Actor, ChangeKind, Reason,
};
use crate::{
    checkout::{idempotency::IdempotencyKey, Commerce},
    error::{Error, Result},
    store::OrderRecord,
};

/// The key of a change, when one was sent, over what it asks.
fn key_of(
    order: &OrderRecord,
    key: Option<Uuid>,
    kind: ChangeKind,
    request: &impl serde::Serialize,
    now: DateTime<Utc>,
) -> Option<IdempotencyKey> {
    key.map(|key| {
        IdempotencyKey::of_change(
            order.campaign_id,
            key,
            (kind.as_str(), order.customer_order_id, request),
            order.customer_id,
            now,
        )
    })
}

/// A percent as a request may send it: 0 to 100, two decimals at most.
fn checked_percent(percent: Decimal) -> Result<Decimal> {
    if percent < Decimal::ZERO || percent > Decimal::ONE_HUNDRED || percent.scale() > 2 {
        return Err(Error::invalid_field(
            "refund_percent",
            "range",
            "refund_percent must be a decimal string from 0 to 100 with two decimals at most",
        ));
    }
    Ok(percent)
}

/// A note as stored with the change: at most 500 characters, no control characters (it is
/// shown in mails and to the operator); blank is none.
fn checked_note(note: Option<String>) -> Result<Option<String>> {
    let Some(note) = note.filter(|n| !n.trim().is_empty()) else {
        return Ok(None);
    };
    let mut checks = crate::validate::Checks::default();
    checks.text("note", &note, 1, 500);
    checks.finish()?;
    Ok(Some(note))
}

/// The customer's cancellation, under the policy.
pub async fn customer_cancellation(
    state: &Commerce,
    order: OrderRecord,
    request: CancellationRequest,
    key: Uuid,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let key = key_of(&order, Some(key), ChangeKind::Cancellation, &request, now);
    let change = Cancellation {
        ticket_ids: request.ticket_ids,
        reason: Reason::Customer,
        percent: Percent::Policy,
        note: checked_note(request.note)?,
    };
    cancel(state, order, change, key, now).await
}

/// A partner's or the operator's cancellation: a partner at the policy's percent or less, the
/// operator at any (all of it when none is given).
pub async fn managed_cancellation(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: ManagedCancellationRequest,
    key: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let key = key_of(&order, key, ChangeKind::Cancellation, &request, now);
    let percent = request.refund_percent.map(checked_percent).transpose()?;
    let percent = match (actor, percent) {
        (Actor::Operator, Some(p)) => Percent::Exactly(p),
        (Actor::Operator, None) => Percent::Full,
        (_, Some(p)) => Percent::AtMost(p),
        (_, None) => Percent::Policy,
    };
    let change = Cancellation {
        ticket_ids: request.ticket_ids,
        reason: actor.reason(),
        percent,
        note: checked_note(request.note)?,
    };
    cancel(state, order, change, key, now).await
}

/// A withdrawal from the contract (EU), in full, within the period.
pub async fn withdrawal(
    state: &Commerce,
    order: OrderRecord,
    request: WithdrawalRequest,
    key: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let key = key_of(&order, key, ChangeKind::Withdrawal, &request, now);
    let change = Cancellation {
        ticket_ids: request.ticket_ids,
        reason: Reason::Withdrawal,
        percent: Percent::Full,
        note: None,
    };
    cancel(state, order, change, key, now).await
}

/// A date change, before the policy's deadline (the operator's at any time); a dearer day's
/// payment returns the customer to `return_url`.
pub async fn rebooking(
    state: &Commerce,
    order: OrderRecord,
    actor: Actor,
    request: RebookingRequest,
    key: Option<Uuid>,
    return_url: String,
    now: DateTime<Utc>,
) -> Result<Changed> {
    let key = key_of(&order, key, ChangeKind::Rebooking, &request, now);
    rebook::rebook(state, order, actor, request, key, return_url, now).await
}
