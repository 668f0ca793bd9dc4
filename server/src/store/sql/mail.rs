//! `MailStore`: the one outbox of mails, and the insert every writer of a mail shares.

use std::sync::OnceLock;

use app::wire::{MailKind, MailStatus};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::claim::Queue;
use super::{Batch, SqlStore};
use crate::store::{MailFilter, MailOutcome, MailRecord, MailStore, NewMail, StoreResult};

/// The mails, claimed by the mail worker (`mail/outbox.rs`).
const MAILS: Queue = Queue {
    table: "mail",
    key: "mail_id",
};

const COLUMNS: &str = "mail_id, kind, customer_order_id, merchant_account_id, recipient, subject,
    body_text, secret, status, attempts, next_attempt_at, claim_id, last_error, created_at, sent_at";

/// Adds the insert of `mail` to `batch`, due now (or claimed, when it says so): the one way
/// a mail enters the outbox, inside the transaction that causes it.
pub(super) fn insert_mail(batch: &mut Batch, mail: &NewMail) {
    let content = mail.content.as_ref();
    batch
        .statement(
            "INSERT INTO mail (mail_id, kind, customer_order_id, merchant_account_id, recipient,
                 subject, body_text, secret, status, next_attempt_at, locked_until, claim_id,
                 created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'PENDING', $9, $10, $11, $9)",
        )
        .bind(mail.mail_id)
        .bind(mail.kind.as_str())
        .bind(mail.customer_order_id)
        .bind(mail.merchant_account_id)
        .bind(content.map(|c| c.recipient.clone()))
        .bind(content.map(|c| c.subject.clone()))
        .bind(content.map(|c| c.body_text.clone()))
        .bind(content.and_then(|c| c.secret.clone()))
        .bind(Utc::now())
        .bind(mail.claim.map(|c| c.until))
        .bind(mail.claim.map(|c| c.claim_id));
}

/// The claim of due mails: only of the kinds this build renders, so a node of an older build
/// leaves a newer kind to the nodes that know it.
fn claim_sql() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| {
        let kinds: Vec<String> = MailKind::ALL
            .iter()
            .map(|k| format!("'{}'", k.as_str()))
            .collect();
        MAILS.claim_due(&format!("q.kind IN ({})", kinds.join(", ")), COLUMNS)
    })
}

#[async_trait::async_trait]
impl MailStore for SqlStore {
    async fn claim_due_mails(
        &self,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<MailRecord>> {
        Ok(sqlx::query_as(claim_sql())
            .bind(now)
            .bind(lock_until)
            .bind(crate::ids::random_id())
            .bind(i64::from(limit))
            .fetch_all(&self.writer)
            .await?)
    }

    async fn claimed_mail(&self, mail_id: Uuid, claim_id: Uuid) -> StoreResult<Option<MailRecord>> {
        // From the writer: the claim was committed there a moment ago.
        Ok(sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM mail WHERE mail_id = $1 AND claim_id = $2"
        ))
        .bind(mail_id)
        .bind(claim_id)
        .fetch_optional(&self.writer)
        .await?)
    }

    async fn record_mail_attempt(
        &self,
        mail_id: Uuid,
        claim_id: Uuid,
        outcome: &MailOutcome,
    ) -> StoreResult<bool> {
        let (status, error, next, kept_body) = match outcome {
            MailOutcome::Sent { kept_body } => (MailStatus::Sent, None, None, kept_body.clone()),
            MailOutcome::Failed { error, retry_at } => (
                if retry_at.is_some() {
                    MailStatus::Pending
                } else {
                    MailStatus::Failed
                },
                Some(error.clone()),
                *retry_at,
                None,
            ),
        };
        // A sent mail keeps no secret: its body is the kept one, and the secret goes.
        let done = sqlx::query(
            "UPDATE mail SET status = $3, attempts = attempts + 1, last_error = $4,
                 next_attempt_at = COALESCE($5, next_attempt_at), locked_until = NULL,
                 claim_id = NULL, sent_at = CASE WHEN $3 = 'SENT' THEN $6 ELSE sent_at END,
                 body_text = COALESCE($7, body_text),
                 secret = CASE WHEN $3 = 'SENT' THEN NULL ELSE secret END
             WHERE mail_id = $1 AND claim_id = $2 AND status = 'PENDING'",
        )
        .bind(mail_id)
        .bind(claim_id)
        .bind(status.as_str())
        .bind(error)
        .bind(next)
        .bind(Utc::now())
        .bind(kept_body)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn release_mail(&self, mail_id: Uuid, claim_id: Uuid) -> StoreResult<()> {
        sqlx::query(&MAILS.release())
            .bind(mail_id)
            .bind(claim_id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    async fn mails(
        &self,
        filter: MailFilter,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<MailRecord>> {
        let (after_date, after_id) = after.unzip();
        Ok(sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM mail
             WHERE ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR status = $2)
               AND ($3 IS NULL OR customer_order_id = $3)
               AND ($4 IS NULL OR created_at < $4
                    OR (created_at = $4 AND mail_id < $5))
             ORDER BY created_at DESC, mail_id DESC LIMIT $6"
        ))
        .bind(filter.kind.map(MailKind::as_str))
        .bind(filter.status.map(MailStatus::as_str))
        .bind(filter.order_id)
        .bind(after_date)
        .bind(after_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn mails_of_reference(
        &self,
        reference: &str,
        limit: u32,
    ) -> StoreResult<Vec<MailRecord>> {
        Ok(sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM mail
             WHERE customer_order_id IN (
                 SELECT o.customer_order_id FROM customer_order o
                 JOIN customer c ON c.customer_id = o.customer_id
                 WHERE c.reference = $1)
             ORDER BY created_at DESC, mail_id DESC LIMIT $2"
        ))
        .bind(reference)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }
}
