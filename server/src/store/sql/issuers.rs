//! `IssuerStore`: identity issuers allowed to exchange their tokens.

use chrono::Utc;
use uuid::Uuid;

use super::SqlStore;
use crate::store::{IdentityIssuer, IdentityIssuerInput, IssuerStore, StoreError, StoreResult};

#[async_trait::async_trait]
impl IssuerStore for SqlStore {
    async fn create_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<IdentityIssuer> {
        sqlx::query_as(
            "INSERT INTO identity_issuer (identity_issuer_id, issuer, jwks_url_template, audience,
                 created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)
             RETURNING *",
        )
        .bind(identity_issuer_id)
        .bind(&input.issuer)
        .bind(&input.jwks_url_template)
        .bind(&input.audience)
        .bind(Utc::now())
        .fetch_one(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "An identity issuer with this issuer"))
    }

    async fn identity_issuer(
        &self,
        identity_issuer_id: Uuid,
    ) -> StoreResult<Option<IdentityIssuer>> {
        Ok(
            sqlx::query_as("SELECT * FROM identity_issuer WHERE identity_issuer_id = $1")
                .bind(identity_issuer_id)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn identity_issuer_by_issuer(&self, issuer: &str) -> StoreResult<Option<IdentityIssuer>> {
        Ok(
            sqlx::query_as("SELECT * FROM identity_issuer WHERE issuer = $1")
                .bind(issuer)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn update_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<Option<IdentityIssuer>> {
        sqlx::query_as(
            "UPDATE identity_issuer SET issuer = $2, jwks_url_template = $3, audience = $4,
                 updated_at = $5
             WHERE identity_issuer_id = $1
             RETURNING *",
        )
        .bind(identity_issuer_id)
        .bind(&input.issuer)
        .bind(&input.jwks_url_template)
        .bind(&input.audience)
        .bind(Utc::now())
        .fetch_optional(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "An identity issuer with this issuer"))
    }

    async fn delete_identity_issuer(&self, identity_issuer_id: Uuid) -> StoreResult<bool> {
        let deleted = sqlx::query("DELETE FROM identity_issuer WHERE identity_issuer_id = $1")
            .bind(identity_issuer_id)
            .execute(&self.writer)
            .await
            .map_err(|e| StoreError::classify_delete(e, "The identity issuer"))?;
        Ok(deleted.rows_affected() > 0)
    }

    async fn list_identity_issuers(
        &self,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<IdentityIssuer>> {
        Ok(sqlx::query_as(
            "SELECT * FROM identity_issuer WHERE ($1 IS NULL OR identity_issuer_id > $1)
             ORDER BY identity_issuer_id LIMIT $2",
        )
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }
}
