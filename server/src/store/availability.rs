use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// Capacity that products of one merchant share (adult and child tickets of one gate draw on
/// the same per-day and per-timeslot capacity).
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct AvailabilityGroup {
    pub availability_group_id: Uuid,
    pub merchant_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The writable fields of an availability group (create and full update).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityGroupInput {
    pub merchant_id: Uuid,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
}

/// A group's capacity on one day; `capacity` null is unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct DayCapacity {
    pub capacity: Option<i32>,
    pub reserved: i32,
}

impl DayCapacity {
    /// Places left; `None` is unlimited.
    pub fn remaining(&self) -> Option<i64> {
        self.capacity
            .map(|c| (i64::from(c) - i64::from(self.reserved)).max(0))
    }
}

#[async_trait::async_trait]
pub trait AvailabilityStore {
    /// Creates a group; an unknown merchant is a missing `merchant_id` reference.
    async fn create_availability_group(
        &self,
        availability_group_id: Uuid,
        input: &AvailabilityGroupInput,
    ) -> StoreResult<AvailabilityGroup>;
    async fn availability_group(
        &self,
        availability_group_id: Uuid,
    ) -> StoreResult<Option<AvailabilityGroup>>;
    /// Replaces the writable fields; `None` when no such group exists. Moving a group to
    /// another merchant is a conflict while products of its merchant use it, since a product
    /// only draws on its own merchant's groups.
    async fn update_availability_group(
        &self,
        availability_group_id: Uuid,
        input: &AvailabilityGroupInput,
    ) -> StoreResult<Option<AvailabilityGroup>>;
    /// Groups in id order after `after`, optionally of one merchant.
    async fn list_availability_groups(
        &self,
        merchant_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<AvailabilityGroup>>;
    /// The group's capacity row of `day`; `None` when the day has none (unlimited, nothing
    /// reserved).
    async fn day_capacity(
        &self,
        availability_group_id: Uuid,
        day: chrono::NaiveDate,
    ) -> StoreResult<Option<DayCapacity>>;
}
