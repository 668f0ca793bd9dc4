//! `AvailabilityStore`: availability groups and their days' capacity.

use chrono::{NaiveDate, Utc};
use uuid::Uuid;

use super::{SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, AvailabilityGroup, AvailabilityGroupInput, AvailabilityStore, DayCapacity,
    StoreError, StoreResult,
};

#[async_trait::async_trait]
impl AvailabilityStore for SqlStore {
    async fn create_availability_group(
        &self,
        availability_group_id: Uuid,
        input: &AvailabilityGroupInput,
    ) -> StoreResult<AvailabilityGroup> {
        sqlx::query_as(
            "INSERT INTO availability_group (availability_group_id, merchant_id, name, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $4)
             RETURNING *",
        )
        .bind(availability_group_id)
        .bind(input.merchant_id)
        .bind(&input.name)
        .bind(Utc::now())
        .fetch_one(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "merchant_id"))
    }

    async fn availability_group(
        &self,
        availability_group_id: Uuid,
    ) -> StoreResult<Option<AvailabilityGroup>> {
        self.row_by_key(
            "SELECT * FROM availability_group WHERE availability_group_id = $1",
            availability_group_id,
        )
        .await
    }

    async fn update_availability_group(
        &self,
        availability_group_id: Uuid,
        input: &AvailabilityGroupInput,
    ) -> StoreResult<Option<AvailabilityGroup>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let current: Option<Uuid> = sqlx::query_scalar(
            "SELECT merchant_id FROM availability_group WHERE availability_group_id = $1",
        )
        .bind(availability_group_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(current_merchant) = current else {
            return Ok(None);
        };
        if current_merchant != input.merchant_id {
            let used: Option<Uuid> = sqlx::query_scalar(
                "SELECT product_id FROM product WHERE availability_group_id = $1 LIMIT 1",
            )
            .bind(availability_group_id)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(product_id) = used {
                return Err(StoreError::Conflict(format!(
                    "the group is used by product {product_id} of merchant {current_merchant}; \
                     it cannot move to another merchant"
                )));
            }
        }
        let group = sqlx::query_as(
            "UPDATE availability_group SET merchant_id = $2, name = $3, updated_at = $4
             WHERE availability_group_id = $1
             RETURNING *",
        )
        .bind(availability_group_id)
        .bind(input.merchant_id)
        .bind(&input.name)
        .bind(Utc::now())
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "merchant_id"))?;
        tx.commit().await?;
        Ok(group)
    }

    async fn list_availability_groups(
        &self,
        merchant_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<AvailabilityGroup>> {
        Ok(sqlx::query_as(
            "SELECT * FROM availability_group
             WHERE ($1 IS NULL OR availability_group_id > $1)
               AND ($2 IS NULL OR merchant_id = $2)
             ORDER BY availability_group_id LIMIT $3",
        )
        .bind(after)
        .bind(merchant_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn day_capacity(
        &self,
        availability_group_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Option<DayCapacity>> {
        Ok(sqlx::query_as(
            "SELECT capacity, reserved FROM availability_day
             WHERE availability_group_id = $1 AND day = $2",
        )
        .bind(availability_group_id)
        .bind(day)
        .fetch_optional(&self.pool)
        .await?)
    }
}
