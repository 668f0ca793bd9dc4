use uuid::Uuid;

use super::StoreResult;

#[async_trait::async_trait]
pub trait MailStore {
    async fn record_mail(
        &self,
        recipient: &str,
        subject: &str,
        body_text: &str,
    ) -> StoreResult<Uuid>;
    async fn set_mail_status(&self, mail_id: Uuid, status: &str) -> StoreResult<()>;
}
