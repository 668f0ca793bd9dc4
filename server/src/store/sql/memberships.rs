// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

#[async_trait::async_trait]
impl crate::store::MembershipStore for SqlStore {
    async fn create_membership(
        &self,
        membership_id: uuid::Uuid,
        input: &crate::store::MembershipInput,
    ) -> crate::store::StoreResult<crate::store::Membership> {
        let mut tx = dialect::begin_write(&self.writer).await?;
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
        .bind(crate::store::DbDecimal(input.discount_percentage))
        .bind(input.valid_until)
        .bind(chrono::Utc::now())
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| crate::store::StoreError::classify(e, "membership"))?;
        tx.commit().await?;
        Ok(membership)
    }

    async fn list_memberships(
        &self,
        customer_id: Option<uuid::Uuid>,
        after: Option<uuid::Uuid>,
        limit: u32,
    ) -> crate::store::StoreResult<Vec<crate::store::Membership>> {
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
        customer_id: uuid::Uuid,
        campaign_id: uuid::Uuid,
        day: chrono::NaiveDate,
    ) -> crate::store::StoreResult<Vec<crate::store::Membership>> {
        let mut memberships: Vec<crate::store::Membership> = sqlx::query_as(
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
