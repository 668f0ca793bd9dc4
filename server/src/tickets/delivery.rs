//! The ticket mails' delivery worker. A mail row is claimed under a lease (as webhook
//! deliveries are, `store/sql/ticket_mail.rs`), so one node sends it while the lease lasts;
//! the outcome is recorded only under the same claim. A failure is tried again with the
//! webhooks' back-off (5 s doubling, capped at an hour, given up after a day); a refusal for
//! good (a 5xx answer, no address) is FAILED at once, readable at `GET /admin/v1/mails`.
//!
//! Exactly once holds as far as SMTP allows: a node that dies after the SMTP server accepted a
//! mail and before it recorded that leaves the row to be sent again when its lease ends.

use std::time::Duration;

use chrono::Utc;
use lettre::message::Mailbox;

use super::{compose_mail, order_doc, Tickets};
use crate::{
    events::webhooks::retry_at,
    mail::Mailer,
    store::{MailOutcome, TicketMailRecord},
};

/// How long a claimed mail is ours before another node may take it over.
const LEASE: Duration = Duration::from_secs(120);
/// Mails claimed at once.
const BATCH: u32 = 8;

/// Runs until `shutdown` resolves, sending due mails every `interval` (only with SMTP
/// configured: without it the mails wait in the outbox).
pub async fn run(
    state: Tickets,
    mailer: Mailer,
    interval: Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    if mailer.sender().is_none() {
        return;
    }
    loop {
        loop {
            match deliver_due(&state, &mailer).await {
                Ok(n) if n == BATCH as usize => continue,
                Ok(_) => break,
                Err(err) => {
                    tracing::warn!(error = ?err, "ticket mail delivery round failed");
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
pub async fn deliver_due(state: &Tickets, mailer: &Mailer) -> anyhow::Result<usize> {
    let Some(from) = mailer.sender().cloned() else {
        return Ok(0);
    };
    let now = Utc::now();
    let due = state
        .store
        .claim_due_ticket_mails(now, now + chrono::Duration::from_std(LEASE)?, BATCH)
        .await?;
    for mail in &due {
        let outcome = attempt(state, mailer, mail, &from).await;
        if let MailOutcome::Failed { error, retry_at } = &outcome {
            tracing::info!(ticket_mail = %mail.ticket_mail_id, %error, retry = retry_at.is_some(), "ticket mail not sent");
        }
        let claim = mail.claim_id.unwrap_or_default();
        state
            .store
            .record_ticket_mail(mail.ticket_mail_id, claim, &outcome)
            .await?;
    }
    Ok(due.len())
}

async fn attempt(
    state: &Tickets,
    mailer: &Mailer,
    mail: &TicketMailRecord,
    from: &Mailbox,
) -> MailOutcome {
    let failed = |error: String, permanent: bool| MailOutcome::Failed {
        error,
        retry_at: if permanent {
            None
        } else {
            retry_at(mail.attempts + 1, mail.created_at, Utc::now())
        },
    };
    let doc = match order_doc::load(state, mail.customer_order_id).await {
        Ok(Some(doc)) => doc,
        Ok(None) => return failed("the order is not paid".into(), true),
        Err(err) => return failed(format!("reading the order failed: {err}"), false),
    };
    let Some(to) = doc.recipient.as_deref() else {
        return failed("the order has no e-mail address".into(), true);
    };
    let Ok(to) = to.parse::<Mailbox>() else {
        return failed("the order's e-mail address is not valid".into(), true);
    };
    let message = match compose_mail(state, &doc).await {
        Ok(Some(composed)) => composed.message(from.clone(), to),
        Ok(None) => return failed("the order has no ticket page".into(), true),
        Err(err) => return failed(format!("composing failed: {err}"), false),
    };
    let message = match message {
        Ok(m) => m,
        Err(err) => return failed(format!("composing failed: {err}"), true),
    };
    match mailer.deliver(message).await {
        Ok(()) => MailOutcome::Sent,
        Err(err) => failed(err.text, err.permanent),
    }
}
