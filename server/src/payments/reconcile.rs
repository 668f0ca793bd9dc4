//! Nothing lost when a webhook is: payments still open at their provider
//! `BOXOFFICE_STRIPE_RECONCILE_AFTER` seconds after they were opened (and, when the provider
//! did not answer or the payment was still open there, again that long after each question)
//! are asked about and settled as the webhook would have (`super::apply`); ended payments
//! whose provider side is not final yet are ended there too, or refunded when they were paid
//! late. Runs in the sweeper's pass (which also sends again the refunds the provider never
//! answered, for every provider: `refunds::retry_unsent`).

use chrono::{DateTime, Utc};

use super::apply;
use crate::{checkout::Commerce, error::Result};

/// Payments asked about in one pass at most.
const BATCH: u32 = 50;

/// One reconciliation pass at `now`; a no-op for a provider without payments of its own (the
/// sandbox). Answers how many payments it asked about.
pub async fn pass(state: &Commerce, now: DateTime<Utc>) -> Result<u32> {
    let Some(stripe) = &state.stripe else {
        return Ok(0);
    };
    let after = chrono::Duration::from_std(stripe.settings().reconcile_after())
        .unwrap_or(chrono::Duration::MAX);
    let due = now - after;
    let payments = state
        .store
        .payments_to_reconcile(state.payments.name(), due, due, BATCH)
        .await?;
    let mut asked = 0;
    for payment in payments {
        let Some(reference) = payment.provider_ref.as_deref() else {
            continue;
        };
        asked += 1;
        match state.payments.payment(reference).await {
            Ok(at_provider) => {
                apply(state, &payment, &at_provider.state).await?;
            }
            Err(err) => {
                tracing::warn!(error = ?err, payment_id = %payment.payment_id, "asking the payment provider about a payment failed; will ask again");
                state
                    .store
                    .note_payment_checked(payment.payment_id, now, false)
                    .await?;
            }
        }
    }
    Ok(asked)
}
