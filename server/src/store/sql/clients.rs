// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

#[async_trait::async_trait]
impl crate::store::ClientStore for SqlStore {
    async fn client_by_client_id(
        &self,
        client_id: &str,
    ) -> crate::store::StoreResult<Option<crate::store::PartnerClient>> {
        let client: Option<crate::store::PartnerClient> = sqlx::query_as(
            "SELECT partner_client_id, client_id, name, secret_hash, frame_origins, return_origins, created_at
             FROM partner_client WHERE client_id = $1",
        )
        .bind(client_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(mut client) = client else {
            return Ok(None);
        };
        client.campaign_ids = sqlx::query_scalar(
            "SELECT campaign_id FROM partner_client_campaign WHERE partner_client_id = $1 ORDER BY campaign_id",
        )
        .bind(client.partner_client_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(client))
    }

    async fn client_id_of(
        &self,
        partner_client_id: uuid::Uuid,
    ) -> crate::store::StoreResult<Option<String>> {
        Ok(sqlx::query_scalar("SELECT client_id FROM partner_client WHERE partner_client_id = $1")
            .bind(partner_client_id)
            .fetch_optional(&self.pool)
            .await?)
    }

    async fn upsert_client(&self, seed: &crate::store::ClientSeed) -> crate::store::StoreResult<uuid::Uuid> {
        let now = chrono::Utc::now();
        let mut tx = dialect::begin_write(&self.pool).await?;
        let id: uuid::Uuid = sqlx::query_scalar(
            "INSERT INTO partner_client (partner_client_id, client_id, name, secret_hash, frame_origins,
                 return_origins, webhook_url, webhook_secret, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (client_id) DO UPDATE SET name = excluded.name, secret_hash = excluded.secret_hash,
                 frame_origins = excluded.frame_origins, return_origins = excluded.return_origins,
                 webhook_url = excluded.webhook_url, webhook_secret = excluded.webhook_secret,
                 updated_at = excluded.updated_at
             RETURNING partner_client_id",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(&seed.client_id)
        .bind(&seed.name)
        .bind(&seed.secret_hash)
        .bind(sqlx::types::Json(&seed.frame_origins))
        .bind(sqlx::types::Json(&seed.return_origins))
        .bind(&seed.webhook_url)
        .bind(&seed.webhook_secret)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM partner_client_campaign WHERE partner_client_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for campaign_id in &seed.campaign_ids {
            sqlx::query("INSERT INTO partner_client_campaign (partner_client_id, campaign_id) VALUES ($1, $2)")
                .bind(id)
                .bind(campaign_id)
                .execute(&mut *tx)
                .await
                .map_err(|e| crate::store::StoreError::classify(e, "campaign_ids"))?;
        }
        tx.commit().await?;
        Ok(id)
    }
}

#[async_trait::async_trait]
impl crate::store::CustomerStore for SqlStore {
    async fn upsert_customer(
        &self,
        key: crate::store::CustomerKey<'_>,
        details: &crate::store::CustomerDetails,
    ) -> crate::store::StoreResult<uuid::Uuid> {
        let (partner, reference, issuer, external, conflict) = match key {
            crate::store::CustomerKey::Partner { partner_client_id, reference } => {
                (Some(partner_client_id), Some(reference), None, None, "(partner_client_id, reference)")
            }
            crate::store::CustomerKey::Identity { identity_issuer_id, accountuid } => {
                (None, None, Some(identity_issuer_id), Some(accountuid), "(identity_issuer_id, external_id)")
            }
        };
        let now = chrono::Utc::now();
        let sql = format!(
            "INSERT INTO customer (customer_id, partner_client_id, reference, identity_issuer_id, external_id,
                 email, first_name, last_name, locale, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             ON CONFLICT {conflict} DO UPDATE SET
                 email = COALESCE(excluded.email, customer.email),
                 first_name = COALESCE(excluded.first_name, customer.first_name),
                 last_name = COALESCE(excluded.last_name, customer.last_name),
                 locale = COALESCE(excluded.locale, customer.locale),
                 updated_at = excluded.updated_at
             RETURNING customer_id"
        );
        Ok(sqlx::query_scalar(&sql)
            .bind(uuid::Uuid::new_v4())
            .bind(partner)
            .bind(reference)
            .bind(issuer)
            .bind(external)
            .bind(&details.email)
            .bind(&details.first_name)
            .bind(&details.last_name)
            .bind(&details.locale)
            .bind(now)
            .fetch_one(&self.pool)
            .await?)
    }
}

#[async_trait::async_trait]
impl crate::store::IssuerStore for SqlStore {
    async fn identity_issuer(
        &self,
        issuer: &str,
    ) -> crate::store::StoreResult<Option<crate::store::IdentityIssuer>> {
        Ok(sqlx::query_as(
            "SELECT identity_issuer_id, issuer, jwks_url_template, audience FROM identity_issuer WHERE issuer = $1",
        )
        .bind(issuer)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn create_identity_issuer(
        &self,
        issuer: &str,
        jwks_url_template: &str,
        audience: Option<&str>,
    ) -> crate::store::StoreResult<uuid::Uuid> {
        let id = uuid::Uuid::new_v4();
        let now = chrono::Utc::now();
        sqlx::query(
            "INSERT INTO identity_issuer (identity_issuer_id, issuer, jwks_url_template, audience, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(id)
        .bind(issuer)
        .bind(jwks_url_template)
        .bind(audience)
        .bind(now)
        .execute(&self.pool)
        .await
        .map_err(|e| crate::store::StoreError::classify(e, "issuer"))?;
        Ok(id)
    }
}
