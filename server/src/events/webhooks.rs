//! The webhook delivery worker: sends due deliveries signed per Standard Webhooks, at least
//! once, with exponential back-off for 24 hours. Deliveries are claimed with a lock in the
//! database, so every node may run a worker.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{signature, CloudEvent};
use crate::store::{DeliveryOutcome, DueDelivery, Store};

/// How long a claimed delivery is ours before another worker may take it over.
const CLAIM_LOCK: Duration = Duration::from_secs(60);
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
const GIVE_UP_AFTER: chrono::Duration = chrono::Duration::hours(24);
const BATCH: u32 = 32;

/// When to try again after `attempts` failed attempts (5 s, 10 s, 20 s, … capped at one hour),
/// or `None` once the event is more than a day old.
pub fn retry_at(
    attempts: i32,
    occurred_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let delay_secs = 5i64.saturating_mul(1i64 << attempts.clamp(0, 20)).min(3600);
    let next = now + chrono::Duration::seconds(delay_secs);
    (next - occurred_at <= GIVE_UP_AFTER).then_some(next)
}

/// Runs until `shutdown` resolves, polling every `interval`.
pub async fn run(
    store: std::sync::Arc<dyn Store>,
    source: String,
    interval: Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let http = reqwest::Client::builder()
        .timeout(SEND_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("HTTP client builds");
    loop {
        if let Err(err) = deliver_due(store.as_ref(), &http, &source).await {
            tracing::warn!(error = %err, "webhook delivery round failed");
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// Sends every delivery that is due now; returns how many were attempted.
pub async fn deliver_due(
    store: &dyn Store,
    http: &reqwest::Client,
    source: &str,
) -> anyhow::Result<usize> {
    let now = Utc::now();
    let lock_until = now + chrono::Duration::from_std(CLAIM_LOCK)?;
    let due = store.claim_due_deliveries(now, lock_until, BATCH).await?;
    let count = due.len();
    for delivery in due {
        let outcome = send(http, source, &delivery).await;
        if let DeliveryOutcome::Failed { error, .. } = &outcome {
            tracing::info!(delivery = %delivery.webhook_delivery_id, %error, "webhook delivery failed");
        }
        store
            .record_delivery(delivery.webhook_delivery_id, &outcome)
            .await?;
    }
    Ok(count)
}

async fn send(http: &reqwest::Client, source: &str, d: &DueDelivery) -> DeliveryOutcome {
    let event = CloudEvent::new(
        d.event_id,
        source,
        &d.event_type,
        d.occurred_at,
        &d.subject,
        d.data.0.clone(),
    );
    let body = serde_json::to_vec(&event).expect("events serialise");
    let timestamp = Utc::now().timestamp();
    let id = d.event_id.to_string();
    let failed = |status: Option<u16>, error: String| DeliveryOutcome::Failed {
        status,
        error,
        retry_at: retry_at(d.attempts + 1, d.occurred_at, Utc::now()),
    };
    let signature = match signature::sign(&d.webhook_secret, &id, timestamp, &body) {
        Ok(s) => s,
        Err(err) => return failed(None, format!("signing secret unusable: {err}")),
    };
    let response = http
        .post(&d.webhook_url)
        .header("content-type", "application/cloudevents+json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await;
    match response {
        Ok(r) if r.status().is_success() => DeliveryOutcome::Delivered {
            status: r.status().as_u16(),
        },
        Ok(r) => failed(
            Some(r.status().as_u16()),
            format!("answered {}", r.status()),
        ),
        Err(err) => failed(None, err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_caps_at_an_hour_and_stops_after_a_day() {
        let t0 = Utc::now();
        assert_eq!(retry_at(0, t0, t0), Some(t0 + chrono::Duration::seconds(5)));
        assert_eq!(
            retry_at(3, t0, t0),
            Some(t0 + chrono::Duration::seconds(40))
        );
        assert_eq!(
            retry_at(15, t0, t0),
            Some(t0 + chrono::Duration::seconds(3600))
        );
        let late = t0 + chrono::Duration::hours(23) + chrono::Duration::minutes(30);
        assert_eq!(retry_at(15, t0, late), None);
    }
}
