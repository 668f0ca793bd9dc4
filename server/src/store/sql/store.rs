//! `Store`: what is not one aggregate's (the health check, the backend's name, the close).

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

    async fn close(&self) {
        if let Some(statement) = ThisDialect::ON_CLOSE {
            if let Err(err) = sqlx::query(statement).execute(&self.writer).await {
                tracing::warn!(error = %err, "the closing checkpoint failed; the WAL keeps the data");
            }
        }
        // The readers first: the last connection to close is the writer, which on SQLite can
        // checkpoint and remove the WAL on its way out (a read-only one cannot).
        self.pool.close().await;
        self.writer.close().await;
    }
}
