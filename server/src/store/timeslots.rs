use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use uuid::Uuid;

use super::StoreResult;

/// An entry window of an availability group, as stored (UTC instants).
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Timeslot {
    pub timeslot_id: Uuid,
    pub availability_group_id: Uuid,
    /// The merchant-local date the slot starts on.
    pub day: NaiveDate,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    /// Null is unlimited.
    pub capacity: Option<i32>,
    pub reserved: i32,
}

/// A slot to write: its local date and its instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewTimeslot {
    pub day: NaiveDate,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
}

#[async_trait::async_trait]
pub trait TimeslotStore {
    /// Upserts `slots` of the group on (group, start time) with `capacity`, in one
    /// transaction; an existing slot keeps its id and reservations. A capacity below what a
    /// slot already has reserved fails the whole write as a `Conflict` naming the slot, and
    /// nothing is changed. Returns how many slots were written.
    async fn write_timeslots(
        &self,
        availability_group_id: Uuid,
        slots: &[NewTimeslot],
        capacity: Option<i32>,
    ) -> StoreResult<u64>;
    /// The group's slots whose local date is in `from..=until`, ordered by start.
    async fn timeslots(
        &self,
        availability_group_id: Uuid,
        from: NaiveDate,
        until: NaiveDate,
    ) -> StoreResult<Vec<Timeslot>>;
    /// The (group, local date) pairs from `from` on (through `until` when given) on which a slot
    /// of one of `group_ids` starts after `after` and has a place left.
    async fn open_timeslot_days(
        &self,
        group_ids: &[Uuid],
        from: NaiveDate,
        until: Option<NaiveDate>,
        after: DateTime<Utc>,
    ) -> StoreResult<Vec<(Uuid, NaiveDate)>>;
}
