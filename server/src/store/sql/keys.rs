//! `KeyStore`: signing keys.

use super::{SqlStore, ThisBackend};
use crate::store::{backend::Backend, KeyPurpose, KeyStore, SigningKey, StoreResult};

#[async_trait::async_trait]
impl KeyStore for SqlStore {
    async fn ensure_active_key(
        &self,
        purpose: KeyPurpose,
        candidate: SigningKey,
    ) -> StoreResult<SigningKey> {
        // The partial unique index on (purpose) WHERE active makes a second node's insert a
        // no-op; both then read the one winner.
        sqlx::query(
            "INSERT INTO signing_key (signing_key_id, purpose, algorithm, secret, public_key, active, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT DO NOTHING",
        )
        .bind(&candidate.signing_key_id)
        .bind(purpose.as_str())
        .bind(&candidate.algorithm)
        .bind(&candidate.secret)
        .bind(&candidate.public_key)
        .bind(true)
        .bind(candidate.created_at)
        .execute(&self.writer)
        .await?;
        Ok(sqlx::query_as(
            "SELECT signing_key_id, algorithm, secret, public_key, active, created_at
             FROM signing_key WHERE purpose = $1 AND active = $2",
        )
        .bind(purpose.as_str())
        .bind(true)
        .fetch_one(&self.pool)
        .await?)
    }

    async fn rotate_key(
        &self,
        purpose: KeyPurpose,
        next: SigningKey,
    ) -> StoreResult<Option<String>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let retired: Option<String> = sqlx::query_scalar(
            "UPDATE signing_key SET active = $2 WHERE purpose = $1 AND active = $3
             RETURNING signing_key_id",
        )
        .bind(purpose.as_str())
        .bind(false)
        .bind(true)
        .fetch_optional(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO signing_key (signing_key_id, purpose, algorithm, secret, public_key, active, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&next.signing_key_id)
        .bind(purpose.as_str())
        .bind(&next.algorithm)
        .bind(&next.secret)
        .bind(&next.public_key)
        .bind(true)
        .bind(next.created_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(retired)
    }

    async fn keys(&self, purpose: KeyPurpose) -> StoreResult<Vec<SigningKey>> {
        Ok(sqlx::query_as(
            "SELECT signing_key_id, algorithm, secret, public_key, active, created_at
             FROM signing_key WHERE purpose = $1 ORDER BY created_at DESC",
        )
        .bind(purpose.as_str())
        .fetch_all(&self.pool)
        .await?)
    }
}
