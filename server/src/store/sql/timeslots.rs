//! `TimeslotStore`.

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{push_ids, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, NewTimeslot, StoreError, StoreResult, Timeslot, TimeslotStore,
};

/// Rows per INSERT, well inside both backends' limits on bound parameters.
const TIMESLOT_ROWS_PER_STATEMENT: usize = 500;

#[async_trait::async_trait]
impl TimeslotStore for SqlStore {
    async fn write_timeslots(
        &self,
        availability_group_id: Uuid,
        slots: &[NewTimeslot],
        capacity: Option<i32>,
    ) -> StoreResult<u64> {
        let conflict = "capacity is below what is already reserved on a timeslot";
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let mut written = 0;
        for chunk in slots.chunks(TIMESLOT_ROWS_PER_STATEMENT) {
            let mut query = sqlx::QueryBuilder::<Db>::new(
                "INSERT INTO timeslot (timeslot_id, availability_group_id, day, start_time, end_time, capacity) ",
            );
            query.push_values(chunk, |mut row, slot| {
                row.push_bind(crate::ids::random_id())
                    .push_bind(availability_group_id)
                    .push_bind(slot.day)
                    .push_bind(slot.start_time)
                    .push_bind(slot.end_time)
                    .push_bind(capacity);
            });
            // As for calendar days: a slot whose reservations the new capacity would not hold is
            // skipped by the condition, and the shortfall in rows affected reveals it.
            query.push(
                " ON CONFLICT (availability_group_id, start_time) DO UPDATE
                  SET day = excluded.day, end_time = excluded.end_time, capacity = excluded.capacity,
                      closed = FALSE
                  WHERE excluded.capacity IS NULL OR timeslot.reserved <= excluded.capacity",
            );
            let affected = query
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::check_as_conflict(e, conflict))?
                .rows_affected();
            if affected < chunk.len() as u64 {
                let starts: std::collections::HashSet<_> =
                    chunk.iter().map(|s| s.start_time).collect();
                let (first, last) = (chunk[0].day, chunk[chunk.len() - 1].day);
                let over: Vec<(DateTime<Utc>, i32)> = sqlx::query_as(
                    "SELECT start_time, reserved FROM timeslot
                     WHERE availability_group_id = $1 AND day BETWEEN $2 AND $3 AND reserved > $4
                     ORDER BY start_time",
                )
                .bind(availability_group_id)
                .bind(first.min(last))
                .bind(first.max(last))
                .bind(capacity)
                .fetch_all(&mut *tx)
                .await?;
                return Err(StoreError::Conflict(
                    match over.into_iter().find(|(start, _)| starts.contains(start)) {
                        Some((start, reserved)) => format!(
                            "capacity {} is below the {reserved} places already reserved on the timeslot starting {}; nothing was changed",
                            capacity.unwrap_or_default(),
                            start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                        ),
                        None => conflict.to_owned(),
                    },
                ));
            }
            written += affected;
        }
        tx.commit().await?;
        Ok(written)
    }

    async fn timeslots(
        &self,
        availability_group_id: Uuid,
        from: NaiveDate,
        until: NaiveDate,
    ) -> StoreResult<Vec<Timeslot>> {
        Ok(sqlx::query_as(
            "SELECT * FROM timeslot
             WHERE availability_group_id = $1 AND day BETWEEN $2 AND $3
             ORDER BY start_time",
        )
        .bind(availability_group_id)
        .bind(from)
        .bind(until)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn open_timeslot_days(
        &self,
        group_ids: &[Uuid],
        from: NaiveDate,
        until: Option<NaiveDate>,
        after: DateTime<Utc>,
    ) -> StoreResult<Vec<(Uuid, NaiveDate)>> {
        if group_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT DISTINCT availability_group_id, day FROM timeslot
             WHERE (capacity IS NULL OR reserved < capacity) AND day >= ",
        );
        query.push_bind(from);
        if let Some(until) = until {
            query.push(" AND day <= ").push_bind(until);
        }
        query.push(" AND start_time > ").push_bind(after);
        query.push(" AND availability_group_id IN (");
        push_ids(&mut query, group_ids.iter().copied());
        query.push(") ORDER BY availability_group_id, day");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }
}
