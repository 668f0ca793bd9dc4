// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

#[async_trait::async_trait]
impl crate::store::MailStore for SqlStore {
    async fn record_mail(
        &self,
        recipient: &str,
        subject: &str,
        body_text: &str,
    ) -> crate::store::StoreResult<uuid::Uuid> {
        let mail_id = uuid::Uuid::new_v4();
        sqlx::query(
            "INSERT INTO mail (mail_id, recipient, subject, body_text, status, created_at)
             VALUES ($1, $2, $3, $4, 'OUTBOX', $5)",
        )
        .bind(mail_id)
        .bind(recipient)
        .bind(subject)
        .bind(body_text)
        .bind(chrono::Utc::now())
        .execute(&self.writer)
        .await?;
        Ok(mail_id)
    }

    async fn set_mail_status(&self, mail_id: uuid::Uuid, status: &str) -> crate::store::StoreResult<()> {
        let sent_at = (status == "SENT").then(chrono::Utc::now);
        sqlx::query("UPDATE mail SET status = $2, sent_at = $3 WHERE mail_id = $1")
            .bind(mail_id)
            .bind(status)
            .bind(sent_at)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

}
