//! Money given back through the payment provider. A refund is decided in a transaction that
//! writes it (PENDING) with the event that reports it (`orders.PaymentRefunded`); the provider
//! is asked after the commit, with the refund's id as its idempotency key, and the answer
//! recorded. A crash between the two leaves a PENDING refund without a provider reference,
//! which the reconciliation asks for again (`retry_unsent`): the same key, so never twice.
//!
//! Two causes: a payment that succeeded at the provider after Boxoffice had ended it (expired,
//! cancelled, declined: its places were released), and the after-sale's cancellations
//! (`after_sale::change`), whose refunds of tickets tell the partner when the provider has
//! finished them (`orders.RefundSucceeded`, `orders.RefundFailed`).

use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::{
    checkout::Commerce,
    error::Result,
    events::{EventType, NewEvent},
    providers::{ProviderRefundState, RefundRequest},
    store::{NewRefund, PaymentRecord, RefundRecord, StoreError},
};

/// Why money went back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundReason {
    /// The payment succeeded after its order had ended.
    LatePayment,
}

impl RefundReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::LatePayment => "LATE_PAYMENT",
        }
    }
}

/// A refund's state as stored.
pub fn status_name(state: ProviderRefundState) -> &'static str {
    match state {
        ProviderRefundState::Pending => "PENDING",
        ProviderRefundState::Succeeded => "SUCCEEDED",
        ProviderRefundState::Failed => "FAILED",
    }
}

/// How long the provider remembers an idempotency key (Stripe: at least 24 hours); an unsent
/// refund older than this is left to the operator rather than risk a second one.
const RESEND_WITHIN: Duration = Duration::hours(23);

/// Refunds the whole of `payment`, which succeeded at the provider after its order ended.
/// Once per payment, however often asked (a unique index).
pub async fn refund_late_payment(state: &Commerce, payment: &PaymentRecord) -> Result<()> {
    let Some(order) = state.store.order(payment.customer_order_id).await? else {
        return Err(anyhow::anyhow!("payment {} has no order", payment.payment_id).into());
    };
    let Some(checkout) = state.store.checkout(order.checkout_id).await? else {
        return Err(anyhow::anyhow!("order {} has no checkout", order.customer_order_id).into());
    };
    let refund = NewRefund {
        refund_id: crate::ids::random_id(),
        payment_id: payment.payment_id,
        order_id: order.customer_order_id,
        reason: RefundReason::LatePayment.as_str(),
        amount: payment.amount,
        currency: payment.currency.clone(),
        ticket_ids: Vec::new(),
        to_wallet: rust_decimal::Decimal::ZERO,
        status: status_name(ProviderRefundState::Pending),
    };
    let mut tx = state.store.begin_checkout().await?;
    match tx.insert_refund(&refund).await {
        Ok(()) => {}
        // Refunded already (a duplicate event, another node): nothing more to give back.
        Err(StoreError::Conflict(_)) => return Ok(()),
        Err(err) => return Err(err.into()),
    }
    tx.insert_event(&NewEvent {
        event_type: EventType::PaymentRefunded,
        subject: format!("orders/{}", order.customer_order_id),
        campaign_id: checkout.campaign_id,
        partner_client_id: checkout.partner_client_id,
        data: json!({
            "order_id": order.customer_order_id,
            "order_display_id": order.display_id,
            "checkout_id": checkout.checkout_id,
            "payment_id": payment.payment_id,
            "refund_id": refund.refund_id,
            "amount": app::wire::Money::new(refund.amount, refund.currency.clone()),
            "reason": refund.reason,
            "status": order.status,
            "attribution": checkout.attribution.as_deref(),
        }),
    })
    .await?;
    tx.commit().await?;
    tracing::warn!(payment_id = %payment.payment_id, refund_id = %refund.refund_id, order = %order.display_id, "a payment succeeded after its order ended; refunding it");
    if let Some(stored) = state.store.refund(refund.refund_id).await? {
        send(state, &stored).await;
    }
    Ok(())
}

/// Asks the provider for `refund` and records its answer; a failure is logged and left for
/// `retry_unsent`.
pub async fn send(state: &Commerce, refund: &RefundRecord) {
    if let Err(err) = try_send(state, refund).await {
        tracing::warn!(error = ?err, refund_id = %refund.refund_id, "the refund could not be sent to the payment provider; will retry");
    }
}

async fn try_send(state: &Commerce, refund: &RefundRecord) -> anyhow::Result<()> {
    let payment = state
        .store
        .payment(refund.payment_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("refund {} has no payment", refund.refund_id))?;
    // Money a partner owes on account is not paid back by a provider: the refund lowers what
    // it owes (its statement's refund entries) and is final at once.
    if payment.provider == crate::checkout::place::ON_ACCOUNT {
        let reference = format!("on_account:{}", refund.refund_id);
        finish(state, refund, ProviderRefundState::Succeeded, &reference).await?;
        return Ok(());
    }
    let answer = match &payment.provider_ref {
        Some(reference) => {
            state
                .payments
                .refund(&RefundRequest {
                    refund_id: refund.refund_id,
                    payment_ref: reference.clone(),
                    amount: refund.amount,
                    currency: refund.currency.clone(),
                    destination_charge: payment.provider_destination.is_some(),
                })
                .await?
        }
        // A payment the provider keeps no reference of (the sandbox's) is refunded by the
        // provider by our id alone.
        None => {
            state
                .payments
                .refund(&RefundRequest {
                    refund_id: refund.refund_id,
                    payment_ref: refund.payment_id.to_string(),
                    amount: refund.amount,
                    currency: refund.currency.clone(),
                    destination_charge: false,
                })
                .await?
        }
    };
    finish(state, refund, answer.state, &answer.provider_ref).await?;
    Ok(())
}

/// Records the provider's answer to `refund`; a refund of tickets that became final tells
/// the order's partner (`orders.RefundSucceeded`, `orders.RefundFailed`) in the same
/// transaction, once however often the provider reports it.
async fn finish(
    state: &Commerce,
    refund: &RefundRecord,
    provider_state: ProviderRefundState,
    provider_ref: &str,
) -> Result<()> {
    let mut tx = state.store.begin_checkout().await?;
    let finished = tx
        .finish_refund(
            refund.refund_id,
            status_name(provider_state),
            Some(provider_ref),
        )
        .await?;
    if finished && !refund.ticket_ids.0.is_empty() {
        if let Some(event) = refund_event(state, refund, provider_state).await? {
            tx.insert_event(&event).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The event of a refund of tickets the provider finished.
async fn refund_event(
    state: &Commerce,
    refund: &RefundRecord,
    provider_state: ProviderRefundState,
) -> Result<Option<NewEvent>> {
    let event_type = match provider_state {
        ProviderRefundState::Succeeded => EventType::RefundSucceeded,
        ProviderRefundState::Failed => EventType::RefundFailed,
        ProviderRefundState::Pending => return Ok(None),
    };
    let Some(order) = state.store.order(refund.customer_order_id).await? else {
        return Ok(None);
    };
    let Some(checkout) = state.store.checkout(order.checkout_id).await? else {
        return Ok(None);
    };
    let wire = crate::checkout::order_view::wire_refund(refund).map(|mut r| {
        r.status = status_name(provider_state).to_owned();
        r
    });
    Ok(Some(NewEvent {
        event_type,
        subject: format!("orders/{}", order.customer_order_id),
        campaign_id: checkout.campaign_id,
        partner_client_id: checkout.partner_client_id,
        data: json!({
            "order_id": order.customer_order_id,
            "order_display_id": order.display_id,
            "refund": wire,
            "reason": refund.reason,
            "attribution": checkout.attribution.as_deref(),
        }),
    }))
}

/// How long the request that decided a refund has to send it before the sweeper does.
const SENDER_FIRST: Duration = Duration::seconds(10);

/// Sends the PENDING refunds the provider never answered (a crash or an outage after their
/// commit) at `now`, once their decider had its turn, within the time the provider remembers
/// their key (the same key: never a second refund).
pub async fn retry_unsent(state: &Commerce, now: DateTime<Utc>) -> Result<()> {
    for refund in state.store.pending_refunds(100).await? {
        if refund.provider_ref.is_some() || now - refund.created_at < SENDER_FIRST {
            continue;
        }
        if now - refund.created_at > RESEND_WITHIN {
            tracing::error!(refund_id = %refund.refund_id, "an unsent refund is older than the provider's idempotency window; refund it by hand and mark it");
            continue;
        }
        send(state, &refund).await;
    }
    Ok(())
}

/// Records what the provider reports of a refund (its webhook), found by our id in its
/// metadata or by its reference; `false` when it is none of ours.
pub async fn record(
    state: &Commerce,
    refund_id: Option<Uuid>,
    provider_ref: &str,
    provider_state: ProviderRefundState,
) -> Result<bool> {
    let refund = match refund_id {
        Some(id) => state.store.refund(id).await?,
        None => None,
    };
    let refund = match refund {
        Some(refund) => Some(refund),
        None => state.store.refund_by_provider_ref(provider_ref).await?,
    };
    let Some(refund) = refund else {
        return Ok(false);
    };
    finish(state, &refund, provider_state, provider_ref).await?;
    Ok(true)
}
