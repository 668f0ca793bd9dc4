//! `ClientStore`: partner clients, their secrets and allowed campaigns.

use chrono::Utc;
use uuid::Uuid;

use super::references::CampaignLinks;
use super::sessions::BUMP_AUTH_REVISION;
use super::{Args, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, clients::fold_client_rows, clients::PartnerClientRow, ClientSecrets,
    ClientStore, PartnerClient, PartnerClientInput, PartnerClientSecrets, StoreError, StoreResult,
};

/// A client's row as both writes insert it, its values bound by [`ClientRow::bind`].
const INSERT_CLIENT: &str =
    "INSERT INTO partner_client (partner_client_id, client_id, name, secret_hash,
     frame_origins, return_origins, webhook_url, webhook_secret, created_at, updated_at,
     hold_limits, theme, settlement)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12)";

/// What [`INSERT_CLIENT`] writes.
struct ClientRow<'a> {
    partner_client_id: Uuid,
    client_id: &'a str,
    input: &'a PartnerClientInput,
    secrets: &'a ClientSecrets,
}

impl<'a> ClientRow<'a> {
    /// `query` (an [`INSERT_CLIENT`] returning the client's id) with the row's values bound.
    fn bind<'q>(
        &self,
        query: sqlx::query::QueryAs<'q, Db, (Uuid,), Args<'q>>,
    ) -> sqlx::query::QueryAs<'q, Db, (Uuid,), Args<'q>>
    where
        'a: 'q,
    {
        let input = self.input;
        query
            .bind(self.partner_client_id)
            .bind(self.client_id)
            .bind(&input.name)
            .bind(&self.secrets.secret_hash)
            .bind(sqlx::types::Json(&input.frame_origins))
            .bind(sqlx::types::Json(&input.return_origins))
            .bind(&input.webhook_url)
            .bind(&self.secrets.webhook_secret)
            .bind(Utc::now())
            .bind(input.hold_limits.map(sqlx::types::Json))
            .bind(input.theme.as_ref().map(sqlx::types::Json))
            .bind(input.settlement.as_str())
    }
}

/// The campaigns a client may sell in.
const CAMPAIGNS: CampaignLinks = CampaignLinks {
    table: "partner_client_campaign",
    owner_column: "partner_client_id",
};

/// A client joined to its campaigns, one row per campaign (one with no campaign when it has
/// none), ordered so `fold_client_rows` can fold them.
const PARTNER_CLIENT_ROWS: &str = "SELECT pc.*, pcc.campaign_id AS allowed_campaign_id
     FROM partner_client pc
     LEFT JOIN partner_client_campaign pcc ON pcc.partner_client_id = pc.partner_client_id";

async fn partner_client_rows<K>(
    conn: &mut <Db as sqlx::Database>::Connection,
    filter: &str,
    key: K,
) -> StoreResult<Option<PartnerClientSecrets>>
where
    K: for<'q> sqlx::Encode<'q, Db> + sqlx::Type<Db> + Send + 'static,
{
    let rows: Vec<PartnerClientRow> = sqlx::query_as(&format!(
        "{PARTNER_CLIENT_ROWS} WHERE {filter} ORDER BY pcc.campaign_id"
    ))
    .bind(key)
    .fetch_all(&mut *conn)
    .await?;
    Ok(fold_client_rows(rows).pop())
}

#[async_trait::async_trait]
impl ClientStore for SqlStore {
    async fn create_partner_client(
        &self,
        partner_client_id: Uuid,
        client_id: &str,
        input: &PartnerClientInput,
        secrets: &ClientSecrets,
    ) -> StoreResult<PartnerClient> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let row = ClientRow {
            partner_client_id,
            client_id,
            input,
            secrets,
        };
        row.bind(sqlx::query_as(&format!(
            "{INSERT_CLIENT} RETURNING partner_client_id"
        )))
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "A partner client with this client_id"))?;
        CAMPAIGNS
            .replace(&mut tx, partner_client_id, &input.campaign_ids)
            .await?;
        let client = partner_client_rows(&mut tx, "pc.partner_client_id = $1", partner_client_id)
            .await?
            .expect("the client was just inserted");
        tx.commit().await?;
        Ok(client.client)
    }

    async fn upsert_partner_client(
        &self,
        client_id: &str,
        input: &PartnerClientInput,
        secrets: &ClientSecrets,
    ) -> StoreResult<PartnerClient> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let row = ClientRow {
            partner_client_id: crate::ids::random_id(),
            client_id,
            input,
            secrets,
        };
        let (partner_client_id,) = row
            .bind(sqlx::query_as(&format!(
                "{INSERT_CLIENT}
             ON CONFLICT (client_id) DO UPDATE SET
                 name = excluded.name,
                 secret_hash = excluded.secret_hash,
                 frame_origins = excluded.frame_origins,
                 return_origins = excluded.return_origins,
                 webhook_url = excluded.webhook_url,
                 hold_limits = excluded.hold_limits,
                 theme = excluded.theme,
                 settlement = excluded.settlement,
                 webhook_secret = COALESCE(partner_client.webhook_secret, excluded.webhook_secret),
                 updated_at = excluded.updated_at
             RETURNING partner_client_id"
            )))
            .fetch_one(&mut *tx)
            .await?;
        CAMPAIGNS
            .replace(&mut tx, partner_client_id, &input.campaign_ids)
            .await?;
        let client = partner_client_rows(&mut tx, "pc.partner_client_id = $1", partner_client_id)
            .await?
            .expect("the client was just written");
        // Its campaigns may be fewer now: bearers' cached rights go (`auth::cache`).
        sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(client.client)
    }

    async fn partner_client(&self, partner_client_id: Uuid) -> StoreResult<Option<PartnerClient>> {
        let mut conn = self.pool.acquire().await?;
        let client =
            partner_client_rows(&mut conn, "pc.partner_client_id = $1", partner_client_id).await?;
        Ok(client.map(|c| c.client))
    }

    async fn partner_client_by_client_id(
        &self,
        client_id: &str,
    ) -> StoreResult<Option<PartnerClientSecrets>> {
        let mut conn = self.pool.acquire().await?;
        partner_client_rows(&mut conn, "pc.client_id = $1", client_id.to_owned()).await
    }

    async fn update_partner_client(
        &self,
        partner_client_id: Uuid,
        input: &PartnerClientInput,
    ) -> StoreResult<Option<PartnerClient>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let updated = sqlx::query(
            "UPDATE partner_client SET name = $2, frame_origins = $3, return_origins = $4,
                 webhook_url = $5, updated_at = $6, hold_limits = $7, theme = $8,
                 settlement = $9
             WHERE partner_client_id = $1",
        )
        .bind(partner_client_id)
        .bind(&input.name)
        .bind(sqlx::types::Json(&input.frame_origins))
        .bind(sqlx::types::Json(&input.return_origins))
        .bind(&input.webhook_url)
        .bind(Utc::now())
        .bind(input.hold_limits.map(sqlx::types::Json))
        .bind(input.theme.as_ref().map(sqlx::types::Json))
        .bind(input.settlement.as_str())
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Ok(None);
        }
        CAMPAIGNS
            .replace(&mut tx, partner_client_id, &input.campaign_ids)
            .await?;
        // Its campaigns may be fewer now: bearers' cached rights go (`auth::cache`).
        sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
        let client =
            partner_client_rows(&mut tx, "pc.partner_client_id = $1", partner_client_id).await?;
        tx.commit().await?;
        Ok(client.map(|c| c.client))
    }

    async fn list_partner_clients(
        &self,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<PartnerClient>> {
        let rows: Vec<PartnerClientRow> = sqlx::query_as(
            "SELECT pc.*, pcc.campaign_id AS allowed_campaign_id
             FROM (SELECT * FROM partner_client
                   WHERE ($1 IS NULL OR partner_client_id > $1)
                   ORDER BY partner_client_id LIMIT $2) pc
             LEFT JOIN partner_client_campaign pcc ON pcc.partner_client_id = pc.partner_client_id
             ORDER BY pc.partner_client_id, pcc.campaign_id",
        )
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(fold_client_rows(rows)
            .into_iter()
            .map(|c| c.client)
            .collect())
    }

    async fn set_client_secret_hash(
        &self,
        partner_client_id: Uuid,
        secret_hash: &[u8],
    ) -> StoreResult<Option<String>> {
        Ok(sqlx::query_scalar(
            "UPDATE partner_client SET secret_hash = $2, updated_at = $3
             WHERE partner_client_id = $1
             RETURNING client_id",
        )
        .bind(partner_client_id)
        .bind(secret_hash)
        .bind(Utc::now())
        .fetch_optional(&self.writer)
        .await?)
    }

    async fn set_webhook_secret(
        &self,
        partner_client_id: Uuid,
        webhook_secret: &str,
    ) -> StoreResult<Option<String>> {
        Ok(sqlx::query_scalar(
            "UPDATE partner_client SET webhook_secret = $2, updated_at = $3
             WHERE partner_client_id = $1
             RETURNING client_id",
        )
        .bind(partner_client_id)
        .bind(webhook_secret)
        .bind(Utc::now())
        .fetch_optional(&self.writer)
        .await?)
    }

    async fn delete_partner_client(&self, partner_client_id: Uuid) -> StoreResult<bool> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let deleted = sqlx::query("DELETE FROM partner_client WHERE partner_client_id = $1")
            .bind(partner_client_id)
            .execute(&mut *tx)
            .await
            .map_err(|e| StoreError::classify_delete(e, "The partner client"))?;
        if deleted.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn client_may_use_campaign(
        &self,
        partner_client_id: Uuid,
        campaign_id: Uuid,
    ) -> StoreResult<bool> {
        let found: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM partner_client_campaign WHERE partner_client_id = $1 AND campaign_id = $2",
        )
        .bind(partner_client_id)
        .bind(campaign_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }
}
