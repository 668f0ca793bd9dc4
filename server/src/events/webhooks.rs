//! The webhook delivery worker: sends due deliveries signed per Standard Webhooks, at least
//! once, with exponential back-off (with jitter) for 24 hours (`retry.rs`, as mails are). Every
//! node may run a worker: deliveries are claimed in the database under a lease
//! (`store/sql/claim.rs`, as mails are), and only the claim's holder sends them and records the
//! outcome.
//!
//! Each partner is served by its own task, a few sends at a time, so a slow or unreachable
//! partner delays only its own deliveries. A claim's lease outlasts the work done under it:
//! no send starts once less than a send's timeout (and a margin for recording it) is left,
//! and what is left unsent is given back for the next claim.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    time::{Duration, Instant},
};

use chrono::Utc;
use futures::StreamExt;
use uuid::Uuid;

use super::{signature, CloudEvent};
use crate::outbound::OutboundPolicy;
use crate::retry::{retry_at, Lease};
use crate::store::{DeliveryOutcome, DueDelivery, Store};

/// The longest one send may take, connection, response and the capped body read included.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a claimed delivery is ours before another worker may take it over; no send starts
/// once less than a send's timeout and time to record its outcome is left of it.
const LEASE: Lease = Lease {
    length: Duration::from_secs(120),
    reserve: Duration::from_secs(40),
};
/// Deliveries of one partner claimed at once, and sent at once.
const PARTNER_BATCH: u32 = 8;
const PARTNER_CONCURRENCY: usize = 4;
/// Partners served at once by one node (so at most 64 sends at once).
const MAX_PARTNERS: usize = 16;
/// Of a partner's answer, at most this much is read (only of a failure, for its error text).
const RESPONSE_BODY_CAP: usize = 512;
/// Stored of that: the start of the text.
const RESPONSE_TEXT_CAP: usize = 200;
/// The HTTP client of the deliveries: bounded in time, never following a redirect, and under
/// the public-only policy connecting to no name that resolves to a non-public address (a
/// literal address was refused when the URL was saved; docs/security.md, "Outbound requests").
pub fn http_client(policy: OutboundPolicy) -> reqwest::Client {
    crate::outbound::client(policy, SEND_TIMEOUT)
}

/// Runs until `shutdown` resolves, looking every `interval` for partners with due deliveries
/// and starting a task for each that has none running; then gives the running ones a send's
/// timeout to finish.
pub async fn run(
    store: Arc<dyn Store>,
    source: String,
    interval: Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
    policy: OutboundPolicy,
) {
    let http = http_client(policy);
    let mut tasks = tokio::task::JoinSet::new();
    let mut serving: HashMap<tokio::task::Id, Uuid> = HashMap::new();
    let mut busy: HashSet<Uuid> = HashSet::new();
    loop {
        while let Some(done) = tasks.try_join_next_with_id() {
            let id = match done {
                Ok((id, ())) => id,
                Err(err) => {
                    tracing::warn!(error = %err, "a webhook delivery task failed");
                    err.id()
                }
            };
            if let Some(partner) = serving.remove(&id) {
                busy.remove(&partner);
            }
        }
        let room = MAX_PARTNERS.saturating_sub(busy.len());
        if room > 0 {
            // Ask for more than there is room for: some may be partners being served already.
            match store
                .partners_with_due_deliveries(Utc::now(), MAX_PARTNERS as u32 * 2)
                .await
            {
                Ok(partners) => {
                    let idle: Vec<Uuid> = partners
                        .into_iter()
                        .filter(|p| !busy.contains(p))
                        .take(room)
                        .collect();
                    for partner in idle {
                        let (store, http, source) = (store.clone(), http.clone(), source.clone());
                        let handle = tasks.spawn(async move {
                            if let Err(err) =
                                deliver_partner(store.as_ref(), &http, &source, partner).await
                            {
                                tracing::warn!(error = %err, %partner, "webhook delivery round failed");
                            }
                        });
                        serving.insert(handle.id(), partner);
                        busy.insert(partner);
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "looking for due webhook deliveries failed")
                }
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => break,
        }
    }
    // Sends in flight may finish (one send's timeout); what is cut short is sent again once
    // its lease ends, as at least once allows.
    let drained = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(SEND_TIMEOUT + Duration::from_secs(2), drained)
        .await
        .is_err()
    {
        tasks.abort_all();
    }
}

/// Sends every delivery due now, each partner's beside the others'; returns how many were
/// claimed. (The worker does this continuously, per partner, in [`run`].)
pub async fn deliver_due(
    store: &dyn Store,
    http: &reqwest::Client,
    source: &str,
) -> anyhow::Result<usize> {
    let partners = store
        .partners_with_due_deliveries(Utc::now(), MAX_PARTNERS as u32)
        .await?;
    let rounds = partners
        .into_iter()
        .map(|partner| deliver_partner(store, http, source, partner));
    let mut count = 0;
    for round in futures::future::join_all(rounds).await {
        count += round?;
    }
    Ok(count)
}

/// Claims up to a batch of `partner`'s due deliveries and sends them, a few at a time; returns
/// how many were claimed.
pub async fn deliver_partner(
    store: &dyn Store,
    http: &reqwest::Client,
    source: &str,
    partner: Uuid,
) -> anyhow::Result<usize> {
    let claimed_at = Instant::now();
    let now = Utc::now();
    let due = store
        .claim_due_deliveries(Some(partner), now, LEASE.until(now), PARTNER_BATCH)
        .await?;
    let count = due.len();
    let results: Vec<_> = futures::stream::iter(due)
        .map(|delivery| async move {
            if !LEASE.may_start(claimed_at) {
                return store
                    .release_delivery(delivery.webhook_delivery_id, delivery.claim_id)
                    .await;
            }
            let outcome = send(http, source, &delivery).await;
            if let DeliveryOutcome::Failed { error, .. } = &outcome {
                tracing::info!(delivery = %delivery.webhook_delivery_id, %error, "webhook delivery failed");
            }
            store
                .record_delivery(delivery.webhook_delivery_id, delivery.claim_id, &outcome)
                .await
        })
        .buffer_unordered(PARTNER_CONCURRENCY)
        .collect()
        .await;
    for result in results {
        result?;
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
        // A success's body is never read.
        Ok(r) if r.status().is_success() => DeliveryOutcome::Delivered {
            status: r.status().as_u16(),
        },
        Ok(r) => {
            let status = r.status();
            let text = response_text(r).await;
            let error = if text.is_empty() {
                format!("answered {status}")
            } else {
                format!("answered {status}: {text}")
            };
            failed(Some(status.as_u16()), without_url(&error, &d.webhook_url))
        }
        Err(err) => failed(None, error_text(err, &d.webhook_url)),
    }
}

/// The start of a failed answer's body, for its error text: at most [`RESPONSE_BODY_CAP`]
/// bytes are read, whatever the partner sends.
async fn response_text(mut response: reqwest::Response) -> String {
    let mut bytes = Vec::new();
    while bytes.len() < RESPONSE_BODY_CAP {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = RESPONSE_BODY_CAP - bytes.len();
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    String::from_utf8_lossy(&bytes)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(RESPONSE_TEXT_CAP)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The error and its causes, without the URL: a webhook URL may carry the partner's secrets
/// (a token in its path or query), and error texts are stored and logged.
fn error_text(err: reqwest::Error, url: &str) -> String {
    without_url(&crate::error::with_causes(&err.without_url()), url)
}

/// `text` with every occurrence of `url` (and of its form without a trailing slash) removed.
fn without_url(text: &str, url: &str) -> String {
    let trimmed = url.trim_end_matches('/');
    if trimmed.is_empty() {
        return text.to_owned();
    }
    text.replace(url, "<webhook URL>")
        .replace(trimmed, "<webhook URL>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_texts_never_carry_the_webhook_url() {
        let url = "https://hooks.example/in/s3cr3t-token?key=abc";
        let text = without_url(&format!("error sending request for url ({url})"), url);
        assert!(!text.contains("s3cr3t"), "{text}");
        assert_eq!(text, "error sending request for url (<webhook URL>)");
    }
}
