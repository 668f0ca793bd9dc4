//! The customer's wallet in a campaign.

use chrono::Utc;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{DbDecimal, StoreResult, WalletTx};

#[async_trait::async_trait]
impl WalletTx for SqlCheckoutTx {
    async fn lock_wallet(&mut self, customer_id: Uuid, campaign_id: Uuid) -> StoreResult<Decimal> {
        self.flush().await?;
        // An UPDATE takes the row lock on Postgres and returns the latest committed balance;
        // on SQLite the transaction already holds the write lock. (Balances are compared in
        // Rust: SQLite keeps decimals as text, which does not compare as numbers.)
        let balance: Option<DbDecimal> = sqlx::query_scalar(
            "UPDATE wallet SET updated_at = updated_at
             WHERE customer_id = $1 AND campaign_id = $2
             RETURNING balance",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .fetch_optional(&mut *self.tx)
        .await?;
        Ok(balance.map(|b| b.0).unwrap_or_default())
    }

    async fn set_wallet_balance(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        balance: Decimal,
    ) -> StoreResult<()> {
        self.flush().await?;
        sqlx::query(
            "UPDATE wallet SET balance = $3, updated_at = $4
             WHERE customer_id = $1 AND campaign_id = $2",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(DbDecimal(balance))
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }
}
