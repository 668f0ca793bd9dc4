//! `MembershipStore`.

use chrono::{NaiveDate, Utc};
use uuid::Uuid;

use super::references::require_row;
use super::{SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, DbDecimal, Membership, MembershipInput, MembershipStore, StoreError,
    StoreResult,
};

#[async_trait::async_trait]
impl MembershipStore for SqlStore {
    async fn create_membership(
        &self,
        membership_id: Uuid,
        input: &MembershipInput,
    ) -> StoreResult<Membership> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        require_row(&mut tx, "customer", input.customer_id, "customer_id").await?;
        require_row(&mut tx, "campaign", input.campaign_id, "campaign_id").await?;
        let membership = sqlx::query_as(
            "INSERT INTO membership (membership_id, customer_id, campaign_id, name,
                 discount_percentage, valid_until, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             RETURNING *",
        )
        .bind(membership_id)
        .bind(input.customer_id)
        .bind(input.campaign_id)
        .bind(&input.name)
        .bind(DbDecimal(input.discount_percentage))
        .bind(input.valid_until)
        .bind(Utc::now())
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "membership"))?;
        tx.commit().await?;
        Ok(membership)
    }

    async fn list_memberships(
        &self,
        customer_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Membership>> {
        Ok(sqlx::query_as(
            "SELECT * FROM membership
             WHERE ($1 IS NULL OR customer_id = $1) AND ($2 IS NULL OR membership_id > $2)
             ORDER BY membership_id LIMIT $3",
        )
        .bind(customer_id)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn active_memberships(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Vec<Membership>> {
        let mut memberships: Vec<Membership> = sqlx::query_as(
            "SELECT * FROM membership
             WHERE customer_id = $1 AND campaign_id = $2 AND (valid_until IS NULL OR valid_until >= $3)
             ORDER BY membership_id",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(day)
        .fetch_all(&self.pool)
        .await?;
        // Sorted here, not in SQL: SQLite keeps the percentage as text, which would sort "9" above "10".
        memberships.sort_by_key(|m| std::cmp::Reverse(m.discount_percentage));
        Ok(memberships)
    }
}
