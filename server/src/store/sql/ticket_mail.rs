//! `TicketMailStore`: the ticket mails' queue and the ticket pages' key nonces.

use app::wire::MailStatus;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{SqlStore, ThisBackend, ThisDialect};
use crate::store::{
    backend::Backend, dialect::Dialect, MailOutcome, ResendLimit, ResendOutcome, StoreResult,
    TicketMailRecord, TicketMailStore,
};

const COLUMNS: &str = "ticket_mail_id, customer_order_id, kind, status, attempts, next_attempt_at,
    claim_id, last_error, created_at, sent_at";

#[async_trait::async_trait]
impl TicketMailStore for SqlStore {
    async fn claim_due_ticket_mails(
        &self,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>> {
        let claim_id = Uuid::new_v4();
        // One statement is the claim, as for webhook deliveries (sql/events.rs): Postgres
        // skips rows a concurrent claim holds, SQLite's write lock serialises claims, and the
        // update's own condition refuses a row whose lease another claim took meanwhile.
        let claimed: Vec<TicketMailRecord> = sqlx::query_as(&format!(
            "UPDATE ticket_mail SET locked_until = $2, claim_id = $3
             WHERE ticket_mail_id IN (
                 SELECT m.ticket_mail_id FROM ticket_mail m
                 WHERE m.status = 'PENDING' AND m.next_attempt_at <= $1
                   AND (m.locked_until IS NULL OR m.locked_until <= $1)
                 ORDER BY m.next_attempt_at LIMIT $4 {skip_locked})
               AND status = 'PENDING' AND (locked_until IS NULL OR locked_until <= $1)
             RETURNING {COLUMNS}",
            skip_locked = ThisDialect::SKIP_LOCKED,
        ))
        .bind(now)
        .bind(lock_until)
        .bind(claim_id)
        .bind(i64::from(limit))
        .fetch_all(&self.writer)
        .await?;
        Ok(claimed)
    }

    async fn record_ticket_mail(
        &self,
        ticket_mail_id: Uuid,
        claim_id: Uuid,
        outcome: &MailOutcome,
    ) -> StoreResult<bool> {
        let now = Utc::now();
        let (status, error, next) = match outcome {
            MailOutcome::Sent => (MailStatus::Sent, None, None),
            MailOutcome::Failed { error, retry_at } => (
                if retry_at.is_some() {
                    MailStatus::Pending
                } else {
                    MailStatus::Failed
                },
                Some(error.clone()),
                *retry_at,
            ),
        };
        let done = sqlx::query(
            "UPDATE ticket_mail SET status = $3, attempts = attempts + 1, last_error = $4,
                 next_attempt_at = COALESCE($5, next_attempt_at), locked_until = NULL,
                 claim_id = NULL, sent_at = CASE WHEN $3 = 'SENT' THEN $6 ELSE sent_at END
             WHERE ticket_mail_id = $1 AND claim_id = $2 AND status = 'PENDING'",
        )
        .bind(ticket_mail_id)
        .bind(claim_id)
        .bind(status.as_str())
        .bind(error)
        .bind(next)
        .bind(now)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn release_ticket_mail(&self, ticket_mail_id: Uuid, claim_id: Uuid) -> StoreResult<()> {
        sqlx::query(
            "UPDATE ticket_mail SET locked_until = NULL, claim_id = NULL
             WHERE ticket_mail_id = $1 AND claim_id = $2",
        )
        .bind(ticket_mail_id)
        .bind(claim_id)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    async fn ticket_mails(
        &self,
        status: Option<MailStatus>,
        order_id: Option<Uuid>,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>> {
        let (after_date, after_id) = after.unzip();
        Ok(sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM ticket_mail
             WHERE ($1 IS NULL OR status = $1) AND ($2 IS NULL OR customer_order_id = $2)
               AND ($3 IS NULL OR created_at < $3
                    OR (created_at = $3 AND ticket_mail_id < $4))
             ORDER BY created_at DESC, ticket_mail_id DESC LIMIT $5"
        ))
        .bind(status.map(MailStatus::as_str))
        .bind(order_id)
        .bind(after_date)
        .bind(after_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn ticket_mails_of_reference(
        &self,
        reference: &str,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>> {
        Ok(sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM ticket_mail
             WHERE customer_order_id IN (
                 SELECT o.customer_order_id FROM customer_order o
                 JOIN customer c ON c.customer_id = o.customer_id
                 WHERE c.reference = $1)
             ORDER BY created_at DESC, ticket_mail_id DESC LIMIT $2"
        ))
        .bind(reference)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn queue_ticket_mail(
        &self,
        order_id: Uuid,
        kind: &str,
        limit: Option<ResendLimit>,
        new_page_nonce: Option<&[u8]>,
    ) -> StoreResult<ResendOutcome> {
        let now = Utc::now();
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        // Locks the order's row (Postgres; SQLite's write transaction is alone anyway), so two
        // requests for the same order count one after the other.
        sqlx::query(
            "UPDATE customer_order SET last_mutation_date = last_mutation_date
             WHERE customer_order_id = $1",
        )
        .bind(order_id)
        .execute(&mut *tx)
        .await?;
        if let Some(limit) = limit {
            let recent: Vec<DateTime<Utc>> = sqlx::query_scalar(
                "SELECT created_at FROM ticket_mail
                 WHERE customer_order_id = $1 AND kind = $2 AND created_at > $3
                 ORDER BY created_at",
            )
            .bind(order_id)
            .bind(kind)
            .bind(limit.since)
            .fetch_all(&mut *tx)
            .await?;
            if recent.len() as i64 >= limit.count {
                tx.commit().await?;
                return Ok(ResendOutcome::Limited {
                    until: recent[0] + limit.window,
                });
            }
        }
        let ticket_mail_id = Uuid::new_v4();
        sqlx::query(
            "INSERT INTO ticket_mail (ticket_mail_id, customer_order_id, kind, status,
                 next_attempt_at, created_at)
             VALUES ($1, $2, $3, 'PENDING', $4, $4)",
        )
        .bind(ticket_mail_id)
        .bind(order_id)
        .bind(kind)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if let Some(nonce) = new_page_nonce {
            sqlx::query(
                "UPDATE ticket_page_key SET nonce = $2, rotated_at = $3
                 WHERE customer_order_id = $1",
            )
            .bind(order_id)
            .bind(nonce.to_vec())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(ResendOutcome::Queued(ticket_mail_id))
    }

    async fn ticket_page_nonce(&self, order_id: Uuid) -> StoreResult<Option<Vec<u8>>> {
        Ok(
            sqlx::query_scalar("SELECT nonce FROM ticket_page_key WHERE customer_order_id = $1")
                .bind(order_id)
                .fetch_optional(&self.pool)
                .await?,
        )
    }
}
