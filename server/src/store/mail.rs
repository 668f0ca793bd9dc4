use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// A mail as recorded in the outbox.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MailRecord {
    pub mail_id: Uuid,
    pub recipient: String,
    pub subject: String,
    pub body_text: String,
    /// OUTBOX (not delivered by SMTP), SENT or FAILED.
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

#[async_trait::async_trait]
pub trait MailStore {
    async fn record_mail(
        &self,
        recipient: &str,
        subject: &str,
        body_text: &str,
    ) -> StoreResult<Uuid>;
    async fn set_mail_status(&self, mail_id: Uuid, status: &str) -> StoreResult<()>;
    /// The newest mails to `recipient`, newest first (operators and tests read the outbox).
    async fn mails_to(&self, recipient: &str, limit: u32) -> StoreResult<Vec<MailRecord>>;
}
