//! `Store`: what is not one aggregate's (the health check, the backend's name).

use super::{SqlStore, ThisDialect};
use crate::store::{dialect::Dialect, Store, StoreResult};

#[async_trait::async_trait]
impl Store for SqlStore {
    async fn ping(&self) -> StoreResult<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    fn backend(&self) -> &'static str {
        ThisDialect::NAME
    }
}
