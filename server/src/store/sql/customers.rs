// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

#[async_trait::async_trait]
impl crate::store::CustomerStore for SqlStore {
    async fn upsert_customer_by_reference(
        &self,
        partner_client_id: uuid::Uuid,
        reference: &str,
        profile: &crate::store::CustomerProfile,
    ) -> crate::store::StoreResult<crate::store::Customer> {
        // One statement, so two first sessions of one user at once still make one customer.
        sqlx::query_as(
            "INSERT INTO customer (customer_id, partner_client_id, reference, email, first_name,
                 last_name, locale, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
             ON CONFLICT (partner_client_id, reference) DO UPDATE SET
                 email = COALESCE(excluded.email, customer.email),
                 first_name = COALESCE(excluded.first_name, customer.first_name),
                 last_name = COALESCE(excluded.last_name, customer.last_name),
                 locale = COALESCE(excluded.locale, customer.locale),
                 updated_at = excluded.updated_at
             RETURNING *",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(partner_client_id)
        .bind(reference)
        .bind(&profile.email)
        .bind(&profile.first_name)
        .bind(&profile.last_name)
        .bind(&profile.locale)
        .bind(chrono::Utc::now())
        .fetch_one(&self.pool)
        .await
        .map_err(|e| crate::store::StoreError::classify(e, "partner_client_id"))
    }

    async fn customer(
        &self,
        customer_id: uuid::Uuid,
    ) -> crate::store::StoreResult<Option<crate::store::Customer>> {
        Ok(sqlx::query_as("SELECT * FROM customer WHERE customer_id = $1")
            .bind(customer_id)
            .fetch_optional(&self.pool)
            .await?)
    }
}
