//! The customer's loyalty ledger.

use app::wire::LoyaltyKind;
use chrono::Utc;
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{LoyaltyTx, StoreError, StoreResult};

#[async_trait::async_trait]
impl LoyaltyTx for SqlCheckoutTx {
    async fn add_loyalty_entry(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        order_id: Option<Uuid>,
        kind: LoyaltyKind,
        points: i64,
        description: &str,
    ) -> StoreResult<i64> {
        self.flush().await?;
        // The customer row serialises entries of one account, so each sees the last balance.
        sqlx::query("UPDATE customer SET updated_at = updated_at WHERE customer_id = $1")
            .bind(customer_id)
            .execute(&mut *self.tx)
            .await?;
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT balance_after FROM loyalty_entry WHERE customer_id = $1 AND campaign_id = $2
             ORDER BY occurred_at DESC, loyalty_entry_id DESC LIMIT 1",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .fetch_optional(&mut *self.tx)
        .await?;
        // Points are taken back only as far as the balance goes (a customer who spent them
        // keeps the spending); the entry records what was taken. Nothing to take: no entry.
        let last = last.unwrap_or(0);
        let points = if points < 0 {
            points.max(-last)
        } else {
            points
        };
        if points == 0 {
            return Ok(last);
        }
        let balance = last + points;
        sqlx::query(
            "INSERT INTO loyalty_entry (loyalty_entry_id, customer_id, campaign_id, occurred_at, kind, points,
                 balance_after, description, customer_order_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(crate::ids::time_ordered_id())
        .bind(customer_id)
        .bind(campaign_id)
        .bind(Utc::now())
        .bind(kind.as_str())
        .bind(points)
        .bind(balance)
        .bind(description)
        .bind(order_id)
        .execute(&mut *self.tx)
        .await
        .map_err(|e| StoreError::classify(e, "loyalty entry"))?;
        Ok(balance)
    }
}
