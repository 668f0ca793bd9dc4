//! `Store`: what is not one aggregate's (the health check, the backend's name).

use super::{SqlStore, ThisBackend};
use crate::store::{backend::Backend, Store, StoreResult};

#[async_trait::async_trait]
impl Store for SqlStore {
    async fn ping(&self) -> StoreResult<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    fn backend(&self) -> &'static str {
        ThisBackend::NAME
    }
}
