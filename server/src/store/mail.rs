use app::wire::MailStatus;
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
    /// Marks the mail `status`; with `body_text`, its stored text is replaced too (a delivered
    /// mail keeps no secret it carried).
    async fn set_mail_status(
        &self,
        mail_id: Uuid,
        status: MailStatus,
        body_text: Option<&str>,
    ) -> StoreResult<()>;
}
