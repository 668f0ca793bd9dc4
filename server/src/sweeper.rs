//! The sweeper: one pass a second on every node (safe together: every change is a
//! conditional transition) that ends what ran out and finishes what was left half-way.

use chrono::{DateTime, Utc};

use crate::{
    checkout::{
        lifecycle::{expire_reservation, fulfil},
        Commerce,
    },
    error::Result,
    payments,
};

/// Expires what ran out by `now` (unconfirmed holds; payments, at their provider first),
/// retries unfinished fulfilments, reconciles payments with their provider, sends again the
/// refunds it never answered and purges old idempotency records: one pass. Answers how many checkouts and payments it ended.
pub async fn sweep(state: &Commerce, now: DateTime<Utc>) -> Result<u32> {
    let mut done = 0;
    for checkout_id in state.store.lapsed_reservations(now, 100).await? {
        done += u32::from(expire_reservation(state, checkout_id, now).await?);
    }
    for payment_id in state.store.lapsed_payments(now, 100).await? {
        if let Some(payment) = state.store.payment(payment_id).await? {
            done += u32::from(payments::expire(state, &payment).await?);
        }
    }
    for order_id in state.store.unfulfilled_orders(100).await? {
        fulfil(state, order_id).await?;
    }
    payments::reconcile::pass(state, now).await?;
    payments::refunds::retry_unsent(state, now).await?;
    state.store.purge_idempotency_records(now).await?;
    Ok(done)
}

/// Runs `sweep` every `interval` until `stop` turns true. Safe on several nodes at once.
pub async fn run(
    state: Commerce,
    interval: std::time::Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        if let Err(err) = sweep(&state, Utc::now()).await {
            tracing::warn!(error = ?err, "sweep failed");
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = stop.changed() => return,
        }
    }
}
