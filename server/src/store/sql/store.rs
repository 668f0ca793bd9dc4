// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

#[async_trait::async_trait]
impl crate::store::Store for SqlStore {
    async fn ping(&self) -> crate::store::StoreResult<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }
}
