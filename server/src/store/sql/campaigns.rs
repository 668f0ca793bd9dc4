//! `CampaignStore`.

use chrono::Utc;
use uuid::Uuid;

use super::SqlStore;
use crate::store::{Campaign, CampaignInput, CampaignStore, DbDecimal, StoreError, StoreResult};

#[async_trait::async_trait]
impl CampaignStore for SqlStore {
    async fn create_campaign(
        &self,
        campaign_id: Uuid,
        input: &CampaignInput,
    ) -> StoreResult<Campaign> {
        let now = Utc::now();
        sqlx::query_as(
            "INSERT INTO campaign (campaign_id, name, loyalty_points_per_unit, created_at, updated_at,
                 commission)
             VALUES ($1, $2, $3, $4, $4, $5)
             RETURNING *",
        )
        .bind(campaign_id)
        .bind(&input.name)
        .bind(DbDecimal(input.loyalty_points_per_unit))
        .bind(now)
        .bind(input.commission.clone().map(sqlx::types::Json))
        .fetch_one(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "campaign"))
    }

    async fn campaign(&self, campaign_id: Uuid) -> StoreResult<Option<Campaign>> {
        self.row_by_key("SELECT * FROM campaign WHERE campaign_id = $1", campaign_id)
            .await
    }

    async fn update_campaign(
        &self,
        campaign_id: Uuid,
        input: &CampaignInput,
    ) -> StoreResult<Option<Campaign>> {
        Ok(sqlx::query_as(
            "UPDATE campaign SET name = $2, loyalty_points_per_unit = $3, updated_at = $4,
                 commission = $5
             WHERE campaign_id = $1
             RETURNING *",
        )
        .bind(campaign_id)
        .bind(&input.name)
        .bind(DbDecimal(input.loyalty_points_per_unit))
        .bind(Utc::now())
        .bind(input.commission.clone().map(sqlx::types::Json))
        .fetch_optional(&self.writer)
        .await?)
    }

    async fn list_campaigns(&self, after: Option<Uuid>, limit: u32) -> StoreResult<Vec<Campaign>> {
        Ok(sqlx::query_as(
            "SELECT * FROM campaign WHERE ($1 IS NULL OR campaign_id > $1)
             ORDER BY campaign_id LIMIT $2",
        )
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }
}
