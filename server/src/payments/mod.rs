//! Payments after they are opened at an external provider (Stripe; docs/payments.md): what the
//! provider reports, from its webhook (`webhook`), the customer's return to the payment page
//! (`page`) or the reconciliation that asks it (`reconcile`), applied to the payment through
//! the same transitions as the sandbox's page (`checkout::lifecycle::settle_payment`), so the
//! ticket mail, the events and the loyalty points follow unchanged. A payment that succeeds
//! after Boxoffice ended it is refunded (`refunds`), never kept.

pub mod kyc;
pub mod page;
mod page_texts;
pub mod reconcile;
pub mod refunds;
pub mod webhook;

use app::wire::PaymentStatus;
use chrono::Utc;
use utoipa_axum::router::OpenApiRouter;

use crate::{
    checkout::{
        lifecycle::{settle_payment, PaymentOutcome},
        Commerce,
    },
    error::Result,
    providers::ProviderPaymentState,
    state::AppState,
    store::PaymentRecord,
};

/// The routes of payments at an external provider: Stripe's webhook, the merchant's way into
/// Stripe's onboarding, and the payment page's script (the page itself is answered by
/// `page::gate`, in front of the frame).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(webhook::router())
        .merge(kyc::router())
        .route(page::SCRIPT_PATH, axum::routing::get(page::script))
}

/// What applying the provider's word did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The payment moved (PAID, CANCELLED).
    Settled,
    /// A payment Boxoffice had ended succeeded: it is being refunded.
    LateRefunded,
    /// Nothing to change.
    Unchanged,
}

/// Applies where the provider says `payment` stands. Safe to repeat and to race: every
/// change is a conditional transition, and a payment that moved meanwhile is read again.
pub async fn apply(
    state: &Commerce,
    payment: &PaymentRecord,
    at_provider: &ProviderPaymentState,
) -> Result<Applied> {
    let mut payment = payment.clone();
    // At most twice: once more when a concurrent change settled the payment first.
    for _ in 0..2 {
        let outcome = match (payment.status, at_provider) {
            (PaymentStatus::Open, ProviderPaymentState::Succeeded) => Some(PaymentOutcome::Paid),
            (PaymentStatus::Open, ProviderPaymentState::Canceled) => {
                Some(PaymentOutcome::Cancelled)
            }
            (PaymentStatus::Open, ProviderPaymentState::Open { .. }) => {
                note(state, &payment, false).await?;
                return Ok(Applied::Unchanged);
            }
            (PaymentStatus::Paid, ProviderPaymentState::Succeeded) => {
                note(state, &payment, true).await?;
                return Ok(Applied::Unchanged);
            }
            (PaymentStatus::Paid, _) => {
                // Stripe never cancels a succeeded PaymentIntent; an older event is all this is.
                return Ok(Applied::Unchanged);
            }
            (_, ProviderPaymentState::Succeeded) => {
                refunds::refund_late_payment(state, &payment).await?;
                note(state, &payment, true).await?;
                return Ok(Applied::LateRefunded);
            }
            (_, ProviderPaymentState::Canceled) => {
                note(state, &payment, true).await?;
                return Ok(Applied::Unchanged);
            }
            (_, ProviderPaymentState::Open { .. }) => {
                // Ended here, still payable there: end it there too, so it cannot be paid
                // late; what the cancellation answers is applied next time round.
                end_at_provider(state, &payment).await?;
                return Ok(Applied::Unchanged);
            }
        };
        let outcome = outcome.expect("every other case returned");
        if settle_payment(state, payment.payment_id, outcome).await? {
            note(state, &payment, true).await?;
            return Ok(Applied::Settled);
        }
        match state.store.payment(payment.payment_id).await? {
            Some(now) => payment = now,
            None => return Ok(Applied::Unchanged),
        }
    }
    Ok(Applied::Unchanged)
}

/// Ends a lapsed payment: at the provider first, so it cannot be paid late (when it was paid
/// before the cancellation arrived, it is PAID: nothing was released yet), then here.
pub async fn expire(state: &Commerce, payment: &PaymentRecord) -> Result<bool> {
    let Some(reference) = &payment.provider_ref else {
        return settle_payment(state, payment.payment_id, PaymentOutcome::Expired).await;
    };
    match state.payments.cancel_payment(reference).await {
        Ok(at_provider) if at_provider.state == ProviderPaymentState::Succeeded => {
            Ok(apply(state, payment, &at_provider.state).await? == Applied::Settled)
        }
        Ok(at_provider) => {
            let expired =
                settle_payment(state, payment.payment_id, PaymentOutcome::Expired).await?;
            let canceled = at_provider.state == ProviderPaymentState::Canceled;
            note(state, payment, canceled).await?;
            Ok(expired)
        }
        Err(err) => {
            // The places are not held hostage by an unreachable provider: the payment ends
            // here, and the reconciliation refunds it should it succeed there after all.
            tracing::warn!(error = ?err, payment_id = %payment.payment_id, "cancelling a lapsed payment at the provider failed");
            settle_payment(state, payment.payment_id, PaymentOutcome::Expired).await
        }
    }
}

async fn end_at_provider(state: &Commerce, payment: &PaymentRecord) -> Result<()> {
    let Some(reference) = &payment.provider_ref else {
        return Ok(());
    };
    match state.payments.cancel_payment(reference).await {
        Ok(at_provider) => {
            let canceled = at_provider.state == ProviderPaymentState::Canceled;
            if at_provider.state == ProviderPaymentState::Succeeded {
                refunds::refund_late_payment(state, payment).await?;
            }
            note(
                state,
                payment,
                canceled || at_provider.state == ProviderPaymentState::Succeeded,
            )
            .await
        }
        Err(err) => {
            tracing::warn!(error = ?err, payment_id = %payment.payment_id, "cancelling an ended payment at the provider failed; will ask again");
            note(state, payment, false).await
        }
    }
}

/// Notes that the provider was asked (and whether its side is final), for the reconciliation.
async fn note(state: &Commerce, payment: &PaymentRecord, provider_final: bool) -> Result<()> {
    if payment.provider_ref.is_some() {
        state
            .store
            .note_payment_checked(payment.payment_id, Utc::now(), provider_final)
            .await?;
    }
    Ok(())
}
