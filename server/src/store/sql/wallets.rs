//! `WalletStore`.

use chrono::Utc;
use uuid::Uuid;

use super::references::require_row;
use super::{SqlStore, ThisBackend};
use crate::store::{backend::Backend, DbDecimal, StoreResult, Wallet, WalletInput, WalletStore};

#[async_trait::async_trait]
impl WalletStore for SqlStore {
    async fn put_wallet(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        input: &WalletInput,
    ) -> StoreResult<(Wallet, bool)> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        require_row(&mut tx, "customer", customer_id, "customer_id").await?;
        require_row(&mut tx, "campaign", campaign_id, "campaign_id").await?;
        let existed: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM wallet WHERE customer_id = $1 AND campaign_id = $2")
                .bind(customer_id)
                .bind(campaign_id)
                .fetch_optional(&mut *tx)
                .await?;
        let wallet = sqlx::query_as(
            "INSERT INTO wallet (customer_id, campaign_id, balance, currency, updated_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (customer_id, campaign_id) DO UPDATE SET
                 balance = excluded.balance, currency = excluded.currency,
                 updated_at = excluded.updated_at
             RETURNING *",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(DbDecimal(input.balance))
        .bind(&input.currency)
        .bind(Utc::now())
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok((wallet, existed.is_none()))
    }

    async fn wallet(&self, customer_id: Uuid, campaign_id: Uuid) -> StoreResult<Option<Wallet>> {
        Ok(
            sqlx::query_as("SELECT * FROM wallet WHERE customer_id = $1 AND campaign_id = $2")
                .bind(customer_id)
                .bind(campaign_id)
                .fetch_optional(&self.pool)
                .await?,
        )
    }
}
