//! The mail worker, one for every kind: it claims due mails under a lease (the claim SQL is the
//! webhook deliveries', `store/sql/claim.rs`), so one node sends a mail while its lease lasts;
//! renders each by its kind (`render.rs`), sends it and records the outcome, only under the
//! same claim. A failure is tried again with the webhooks' back-off (`retry.rs`: 5 s doubling,
//! capped at an hour, given up after a day); a refusal for good (a 5xx answer, no address) is
//! FAILED at once, listed at `GET /admin/v1/mails?status=FAILED`.
//!
//! Exactly once holds as far as SMTP allows: a node that dies after the SMTP server accepted a
//! mail and before it recorded that leaves the row to be sent again when its lease ends.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use chrono::Utc;
use uuid::Uuid;

use super::{render::render, DeliveryError, Mailer, SMTP_TIMEOUT};
use crate::{
    retry::{retry_at, Lease},
    store::{MailClaim, MailOutcome, MailRecord, Store},
    tickets::Tickets,
};

/// What the outbox works with, as the router's state hands it over: the store that holds the
/// mails, the SMTP mailer, and what renders the ticket mails.
#[derive(Clone)]
pub struct Outbox {
    pub store: Arc<dyn Store>,
    pub mailer: Mailer,
    pub tickets: Tickets,
}

/// How long a claimed mail is ours before another node may take it over; no send starts once
/// less than an SMTP delivery's timeout and time to record it is left.
const LEASE: Lease = Lease {
    length: Duration::from_secs(120),
    reserve: Duration::from_secs(SMTP_TIMEOUT.as_secs() + 10),
};
/// Mails claimed at once.
const BATCH: u32 = 8;

/// Runs until `shutdown` resolves, sending due mails every `interval` (only with SMTP
/// configured: without it the mails wait in the outbox).
pub async fn run(
    state: Outbox,
    interval: Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    if state.mailer.sender().is_none() {
        return;
    }
    loop {
        loop {
            match deliver_due(&state).await {
                Ok(n) if n == BATCH as usize => continue,
                Ok(_) => break,
                Err(err) => {
                    tracing::warn!(error = ?err, "mail delivery round failed");
                    break;
                }
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => break,
        }
    }
}

/// Claims and sends the mails due now; returns how many were claimed.
pub async fn deliver_due(state: &Outbox) -> anyhow::Result<usize> {
    let claimed_at = Instant::now();
    let now = Utc::now();
    let due = state
        .store
        .claim_due_mails(now, LEASE.until(now), BATCH)
        .await?;
    for mail in &due {
        let Some(claim_id) = mail.claim_id else {
            continue;
        };
        if LEASE.may_start(claimed_at) {
            send_claimed(state, mail, claim_id).await?;
        } else {
            state.store.release_mail(mail.mail_id, claim_id).await?;
        }
    }
    Ok(due.len())
}

/// A claim for a mail its writer sends at once after the commit (`NewMail::claim`), when SMTP
/// is configured; `None` without it, and the mail waits in the outbox.
pub fn claim_to_send_now(state: &Outbox) -> Option<MailClaim> {
    state.mailer.sender()?;
    Some(MailClaim {
        claim_id: crate::ids::random_id(),
        until: LEASE.until(Utc::now()),
    })
}

/// Sends the mail `mail_id` written under `claim` at once, as the worker would; `None` when the
/// claim no longer holds it (its lease ended first, and the worker has it).
pub async fn send_now(
    state: &Outbox,
    mail_id: Uuid,
    claim: MailClaim,
) -> anyhow::Result<Option<MailOutcome>> {
    let Some(mail) = state.store.claimed_mail(mail_id, claim.claim_id).await? else {
        return Ok(None);
    };
    Ok(Some(send_claimed(state, &mail, claim.claim_id).await?))
}

/// One attempt at `mail` under `claim_id`, recorded (and counted in `mail_attempts_total`).
async fn send_claimed(
    state: &Outbox,
    mail: &MailRecord,
    claim_id: Uuid,
) -> anyhow::Result<MailOutcome> {
    let outcome = attempt(state, mail).await;
    let counted = match &outcome {
        MailOutcome::Sent { .. } => "sent",
        MailOutcome::Failed { error, retry_at } => {
            tracing::info!(mail = %mail.mail_id, kind = %mail.kind, %error, retry = retry_at.is_some(), "mail not sent");
            if retry_at.is_some() {
                "retried"
            } else {
                "failed"
            }
        }
    };
    metrics::counter!("mail_attempts_total", "kind" => mail.kind.as_str(), "outcome" => counted)
        .increment(1);
    state
        .store
        .record_mail_attempt(mail.mail_id, claim_id, &outcome)
        .await?;
    Ok(outcome)
}

async fn attempt(state: &Outbox, mail: &MailRecord) -> MailOutcome {
    let failed = |err: DeliveryError| MailOutcome::Failed {
        error: err.text,
        retry_at: if err.permanent {
            None
        } else {
            retry_at(mail.attempts + 1, mail.created_at, Utc::now())
        },
    };
    let Some(from) = state.mailer.sender().cloned() else {
        return failed(DeliveryError::transient("no SMTP server is configured"));
    };
    let rendered = match render(&state.tickets, mail, from).await {
        Ok(rendered) => rendered,
        Err(err) => return failed(err),
    };
    match state.mailer.deliver(rendered.message).await {
        Ok(()) => MailOutcome::Sent {
            kept_body: rendered.kept_body,
        },
        // An SMTP server's refusal may quote the address; the error is stored and logged.
        Err(err) => failed(DeliveryError {
            text: err.text.replace(&rendered.recipient, "<recipient>"),
            ..err
        }),
    }
}
