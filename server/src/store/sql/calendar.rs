//! `CalendarStore`: prices and places per day, for the calendars and the checkout's plan.

use chrono::NaiveDate;
use uuid::Uuid;

use super::{push_ids, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, days, CalendarDay, CalendarInput, CalendarStore, DbDecimal,
    ProductCalendarDay, StoreError, StoreResult,
};

#[async_trait::async_trait]
impl CalendarStore for SqlStore {
    async fn write_calendar(
        &self,
        product_id: Uuid,
        input: &CalendarInput,
    ) -> StoreResult<Option<u32>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let group_id: Option<Uuid> =
            sqlx::query_scalar("SELECT availability_group_id FROM product WHERE product_id = $1")
                .bind(product_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(group_id) = group_id else {
            return Ok(None);
        };
        let days: Vec<NaiveDate> = days(input.from, input.until).collect();

        // The update applies only where the new capacity still holds what is reserved; a day
        // it skips is not counted, so fewer rows than days means a conflict.
        let mut capacity = sqlx::QueryBuilder::<Db>::new(
            "INSERT INTO availability_day (availability_group_id, day, capacity) ",
        );
        capacity.push_values(&days, |mut row, day| {
            row.push_bind(group_id)
                .push_bind(*day)
                .push_bind(input.capacity);
        });
        capacity.push(
            " ON CONFLICT (availability_group_id, day) DO UPDATE SET capacity = excluded.capacity,
                  closed = FALSE
              WHERE excluded.capacity IS NULL OR availability_day.reserved <= excluded.capacity",
        );
        let conflict = "capacity is below what is already reserved on a day of the range";
        let written = capacity
            .build()
            .execute(&mut *tx)
            .await
            .map_err(|e| StoreError::check_as_conflict(e, conflict))?
            .rows_affected();
        if written < days.len() as u64 {
            let first: Option<(NaiveDate, i32)> = sqlx::query_as(
                "SELECT day, reserved FROM availability_day
                 WHERE availability_group_id = $1 AND day BETWEEN $2 AND $3 AND reserved > $4
                 ORDER BY day LIMIT 1",
            )
            .bind(group_id)
            .bind(input.from)
            .bind(input.until)
            .bind(input.capacity)
            .fetch_optional(&mut *tx)
            .await?;
            return Err(StoreError::Conflict(match first {
                Some((day, reserved)) => format!(
                    "capacity {} is below the {reserved} places already reserved on {day}; nothing was changed",
                    input.capacity.unwrap_or_default()
                ),
                None => conflict.to_owned(),
            }));
        }

        let mut prices = sqlx::QueryBuilder::<Db>::new(
            "INSERT INTO calendar_price (product_id, day, price, list_price) ",
        );
        prices.push_values(&days, |mut row, day| {
            row.push_bind(product_id)
                .push_bind(*day)
                .push_bind(DbDecimal(input.price))
                .push_bind(DbDecimal(input.list_price));
        });
        prices.push(
            " ON CONFLICT (product_id, day) DO UPDATE
              SET price = excluded.price, list_price = excluded.list_price",
        );
        prices.build().execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(Some(days.len() as u32))
    }

    async fn calendar(
        &self,
        product_id: Uuid,
        from: NaiveDate,
        until: NaiveDate,
    ) -> StoreResult<Vec<CalendarDay>> {
        Ok(
            sqlx::query_as(concat!(priced_days!(), " ORDER BY calendar_price.day"))
                .bind(product_id)
                .bind(from)
                .bind(until)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    async fn calendars_from(
        &self,
        product_ids: &[Uuid],
        from: NaiveDate,
    ) -> StoreResult<Vec<ProductCalendarDay>> {
        if product_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT calendar_price.product_id, calendar_price.day, calendar_price.price,
                    calendar_price.list_price, availability_day.capacity,
                    COALESCE(availability_day.reserved, 0) AS reserved
             FROM calendar_price
             JOIN product ON product.product_id = calendar_price.product_id
             LEFT JOIN availability_day
               ON availability_day.availability_group_id = product.availability_group_id
              AND availability_day.day = calendar_price.day
             WHERE calendar_price.day >= ",
        );
        query.push_bind(from);
        query.push(" AND calendar_price.product_id IN (");
        push_ids(&mut query, product_ids.iter().copied());
        query.push(") ORDER BY calendar_price.product_id, calendar_price.day");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn products_with_calendar(&self, product_ids: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        if product_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT DISTINCT product_id FROM calendar_price WHERE product_id IN (",
        );
        push_ids(&mut query, product_ids.iter().copied());
        query.push(")");
        Ok(query.build_query_scalar().fetch_all(&self.pool).await?)
    }
}
