//! `SessionStore`: session codes and their redemption.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, NewSession, Redemption, Session, SessionMode, SessionStore, StoreError,
    StoreResult,
};

/// Moves the counter every node watches for rights taken away from bearers (migration 0011,
/// `auth::cache`): in the transaction that takes them away.
pub(super) const BUMP_AUTH_REVISION: &str =
    "UPDATE auth_revision SET revision = revision + 1 WHERE id = 1";

#[async_trait::async_trait]
impl SessionStore for SqlStore {
    async fn create_session(&self, s: &NewSession) -> StoreResult<Session> {
        let now = Utc::now();
        sqlx::query_as(
            "INSERT INTO partner_session (partner_session_id, code_hash, partner_client_id, customer_id,
                 campaign_id, mode, code_challenge, code_expires_at, redeemed_at, bearer_jti,
                 integrator_params, created_at, prefill)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             RETURNING *",
        )
        .bind(s.partner_session_id)
        .bind(&s.code_hash)
        .bind(s.partner_client_id)
        .bind(s.customer_id)
        .bind(s.campaign_id)
        .bind(s.mode.as_str())
        .bind(&s.code_challenge)
        .bind(s.code_expires_at)
        .bind(s.redeemed_with.map(|_| now))
        .bind(s.redeemed_with)
        .bind(sqlx::types::Json(&s.integrator_params))
        .bind(now)
        .bind(s.prefill.as_ref().map(sqlx::types::Json))
        .fetch_one(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "session"))
    }

    async fn session_by_code(&self, code_hash: &[u8]) -> StoreResult<Option<Session>> {
        self.row_by_key(
            "SELECT * FROM partner_session WHERE code_hash = $1",
            code_hash,
        )
        .await
    }

    async fn session(&self, partner_session_id: Uuid) -> StoreResult<Option<Session>> {
        self.row_by_key(
            "SELECT * FROM partner_session WHERE partner_session_id = $1",
            partner_session_id,
        )
        .await
    }

    async fn auth_revision(&self) -> StoreResult<i64> {
        Ok(
            sqlx::query_scalar("SELECT revision FROM auth_revision WHERE id = 1")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    async fn redeem_session_code(
        &self,
        code_hash: &[u8],
        client: Option<Uuid>,
        jti: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Redemption> {
        use Redemption;
        // The frame redeems webframe codes only; partners redeem their own non-webframe codes.
        let redeemed: Option<Session> = sqlx::query_as(
            "UPDATE partner_session SET redeemed_at = $2, bearer_jti = $3
             WHERE code_hash = $1 AND redeemed_at IS NULL AND code_expires_at > $2
               AND (($4 IS NULL AND mode = $5) OR (partner_client_id = $4 AND mode <> $5))
             RETURNING *",
        )
        .bind(code_hash)
        .bind(now)
        .bind(jti)
        .bind(client)
        .bind(SessionMode::Webframe.as_str())
        .fetch_optional(&self.writer)
        .await?;
        if let Some(session) = redeemed {
            return Ok(Redemption::Redeemed(Box::new(session)));
        }
        let Some(existing) = self.session_by_code(code_hash).await? else {
            return Ok(Redemption::Invalid);
        };
        let redeemer_matches = match client {
            None => existing.mode == SessionMode::Webframe,
            Some(id) => {
                existing.partner_client_id == Some(id) && existing.mode != SessionMode::Webframe
            }
        };
        if !redeemer_matches {
            return Ok(Redemption::Invalid);
        }
        if existing.redeemed_at.is_some() {
            // RFC 6749 §4.1.2: a code used twice may have leaked; its bearer is revoked, on
            // every node within the auth cache's bound.
            let mut tx = ThisBackend::begin_write(&self.writer).await?;
            let revoked = sqlx::query(
                "UPDATE partner_session SET revoked_at = $2
                 WHERE partner_session_id = $1 AND revoked_at IS NULL",
            )
            .bind(existing.partner_session_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            if revoked.rows_affected() > 0 {
                sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            return Ok(Redemption::Replayed);
        }
        Ok(Redemption::Expired)
    }
}
