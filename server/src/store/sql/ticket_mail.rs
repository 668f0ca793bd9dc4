//! `TicketMailStore`: ticket mails written into the outbox (`mail/`) on request, and the
//! ticket pages' key nonces.

use app::wire::MailKind;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::mail::insert_mail;
use super::{Batch, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, NewMail, ResendLimit, ResendOutcome, StoreResult, TicketMailStore,
};

#[async_trait::async_trait]
impl TicketMailStore for SqlStore {
    async fn queue_ticket_mail(
        &self,
        order_id: Uuid,
        kind: MailKind,
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
                "SELECT created_at FROM mail
                 WHERE customer_order_id = $1 AND kind = $2 AND created_at > $3
                 ORDER BY created_at",
            )
            .bind(order_id)
            .bind(kind.as_str())
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
        let mail = NewMail::of_order(kind, order_id);
        let mut batch = Batch::default();
        insert_mail(&mut batch, &mail);
        ThisBackend::flush(&mut batch, &mut tx).await?;
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
        Ok(ResendOutcome::Queued(mail.mail_id))
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
