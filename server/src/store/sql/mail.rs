//! `MailStore`: the outbound mail queue.

use app::wire::MailStatus;
use chrono::Utc;
use uuid::Uuid;

use super::SqlStore;
use crate::store::{MailStore, StoreResult};

#[async_trait::async_trait]
impl MailStore for SqlStore {
    async fn record_mail(
        &self,
        recipient: &str,
        subject: &str,
        body_text: &str,
    ) -> StoreResult<Uuid> {
        let mail_id = Uuid::new_v4();
        sqlx::query(
            "INSERT INTO mail (mail_id, recipient, subject, body_text, status, created_at)
             VALUES ($1, $2, $3, $4, 'OUTBOX', $5)",
        )
        .bind(mail_id)
        .bind(recipient)
        .bind(subject)
        .bind(body_text)
        .bind(Utc::now())
        .execute(&self.writer)
        .await?;
        Ok(mail_id)
    }

    async fn set_mail_status(
        &self,
        mail_id: Uuid,
        status: MailStatus,
        body_text: Option<&str>,
    ) -> StoreResult<()> {
        let sent_at = (status == MailStatus::Sent).then(Utc::now);
        sqlx::query(
            "UPDATE mail SET status = $2, sent_at = $3, body_text = COALESCE($4, body_text)
             WHERE mail_id = $1",
        )
        .bind(mail_id)
        .bind(status.as_str())
        .bind(sent_at)
        .bind(body_text)
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}
