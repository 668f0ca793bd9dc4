//! `IssuerStore`: identity issuers allowed to exchange their tokens, and the campaigns each
//! may open sessions in.

use chrono::Utc;
use uuid::Uuid;

use super::references::CampaignLinks;
use super::{Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, issuers::IdentityIssuerRow, IdentityIssuer, IdentityIssuerInput, IssuerStore,
    StoreError, StoreResult,
};

/// The campaigns an issuer's tokens may open sessions in.
const CAMPAIGNS: CampaignLinks = CampaignLinks {
    table: "identity_issuer_campaign",
    owner_column: "identity_issuer_id",
};

const CONFLICT: &str = "An identity issuer with this issuer";

/// The campaigns of an issuer, in id order.
async fn issuer_campaigns(
    conn: &mut <Db as sqlx::Database>::Connection,
    identity_issuer_id: Uuid,
) -> StoreResult<Vec<Uuid>> {
    Ok(sqlx::query_scalar(
        "SELECT campaign_id FROM identity_issuer_campaign WHERE identity_issuer_id = $1
         ORDER BY campaign_id",
    )
    .bind(identity_issuer_id)
    .fetch_all(&mut *conn)
    .await?)
}

/// The issuer `filter` (with its one parameter `key`) selects, with its campaigns.
async fn issuer_where<K>(
    conn: &mut <Db as sqlx::Database>::Connection,
    filter: &str,
    key: K,
) -> StoreResult<Option<IdentityIssuer>>
where
    K: for<'q> sqlx::Encode<'q, Db> + sqlx::Type<Db> + Send + 'static,
{
    let row: Option<IdentityIssuerRow> =
        sqlx::query_as(&format!("SELECT * FROM identity_issuer WHERE {filter}"))
            .bind(key)
            .fetch_optional(&mut *conn)
            .await?;
    match row {
        Some(row) => {
            let campaigns = issuer_campaigns(conn, row.identity_issuer_id).await?;
            Ok(Some(row.with_campaigns(campaigns)))
        }
        None => Ok(None),
    }
}

#[async_trait::async_trait]
impl IssuerStore for SqlStore {
    async fn create_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<IdentityIssuer> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        sqlx::query(
            "INSERT INTO identity_issuer (identity_issuer_id, issuer, jwks_url_template, audience,
                 api_keys, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(identity_issuer_id)
        .bind(&input.issuer)
        .bind(&input.jwks_url_template)
        .bind(&input.audience)
        .bind(input.api_keys.as_ref().map(sqlx::types::Json))
        .bind(Utc::now())
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, CONFLICT))?;
        CAMPAIGNS
            .replace(&mut tx, identity_issuer_id, &input.campaign_ids)
            .await?;
        let issuer = issuer_where(&mut tx, "identity_issuer_id = $1", identity_issuer_id)
            .await?
            .expect("the issuer was just inserted");
        tx.commit().await?;
        Ok(issuer)
    }

    async fn identity_issuer(
        &self,
        identity_issuer_id: Uuid,
    ) -> StoreResult<Option<IdentityIssuer>> {
        let mut conn = self.pool.acquire().await?;
        issuer_where(&mut conn, "identity_issuer_id = $1", identity_issuer_id).await
    }

    async fn identity_issuer_by_issuer(&self, issuer: &str) -> StoreResult<Option<IdentityIssuer>> {
        let mut conn = self.pool.acquire().await?;
        issuer_where(&mut conn, "issuer = $1", issuer.to_owned()).await
    }

    async fn update_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<Option<IdentityIssuer>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let updated = sqlx::query(
            "UPDATE identity_issuer SET issuer = $2, jwks_url_template = $3, audience = $4,
                 api_keys = $5, updated_at = $6
             WHERE identity_issuer_id = $1",
        )
        .bind(identity_issuer_id)
        .bind(&input.issuer)
        .bind(&input.jwks_url_template)
        .bind(&input.audience)
        .bind(input.api_keys.as_ref().map(sqlx::types::Json))
        .bind(Utc::now())
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, CONFLICT))?;
        if updated.rows_affected() == 0 {
            return Ok(None);
        }
        CAMPAIGNS
            .replace(&mut tx, identity_issuer_id, &input.campaign_ids)
            .await?;
        let issuer = issuer_where(&mut tx, "identity_issuer_id = $1", identity_issuer_id).await?;
        tx.commit().await?;
        Ok(issuer)
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
        let mut conn = self.pool.acquire().await?;
        let rows: Vec<IdentityIssuerRow> = sqlx::query_as(
            "SELECT * FROM identity_issuer WHERE ($1 IS NULL OR identity_issuer_id > $1)
             ORDER BY identity_issuer_id LIMIT $2",
        )
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&mut *conn)
        .await?;
        let mut issuers = Vec::with_capacity(rows.len());
        for row in rows {
            let campaigns = issuer_campaigns(&mut conn, row.identity_issuer_id).await?;
            issuers.push(row.with_campaigns(campaigns));
        }
        Ok(issuers)
    }
}
