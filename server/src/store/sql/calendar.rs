// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

/// The priced days of product `$1` from `$2` to `$3`, with their group's places: the rows
/// of `CalendarDay`.
macro_rules! priced_days {
    () => {
        "SELECT calendar_price.day, calendar_price.price, calendar_price.list_price,
                availability_day.capacity, COALESCE(availability_day.reserved, 0) AS reserved
         FROM calendar_price
         JOIN product ON product.product_id = calendar_price.product_id
         LEFT JOIN availability_day
           ON availability_day.availability_group_id = product.availability_group_id
          AND availability_day.day = calendar_price.day
         WHERE calendar_price.product_id = $1 AND calendar_price.day BETWEEN $2 AND $3"
    };
}

#[async_trait::async_trait]
impl crate::store::CalendarStore for SqlStore {
    async fn write_calendar(
        &self,
        product_id: uuid::Uuid,
        input: &crate::store::CalendarInput,
    ) -> crate::store::StoreResult<Option<u32>> {
        let mut tx = dialect::begin_write(&self.writer).await?;
        let group_id: Option<uuid::Uuid> = sqlx::query_scalar(
            "SELECT availability_group_id FROM product WHERE product_id = $1",
        )
        .bind(product_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(group_id) = group_id else {
            return Ok(None);
        };
        let days: Vec<chrono::NaiveDate> = crate::store::days(input.from, input.until).collect();

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
            " ON CONFLICT (availability_group_id, day) DO UPDATE SET capacity = excluded.capacity
              WHERE excluded.capacity IS NULL OR availability_day.reserved <= excluded.capacity",
        );
        let conflict = "capacity is below what is already reserved on a day of the range";
        let written = capacity
            .build()
            .execute(&mut *tx)
            .await
            .map_err(|e| crate::store::StoreError::check_as_conflict(e, conflict))?
            .rows_affected();
        if written < days.len() as u64 {
            let first: Option<(chrono::NaiveDate, i32)> = sqlx::query_as(
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
            return Err(crate::store::StoreError::Conflict(match first {
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
                .push_bind(crate::store::DbDecimal(input.price))
                .push_bind(crate::store::DbDecimal(input.list_price));
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
        product_id: uuid::Uuid,
        from: chrono::NaiveDate,
        until: chrono::NaiveDate,
    ) -> crate::store::StoreResult<Vec<crate::store::CalendarDay>> {
        Ok(sqlx::query_as(concat!(
            priced_days!(),
            " ORDER BY calendar_price.day"
        ))
        .bind(product_id)
        .bind(from)
        .bind(until)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn calendar_day_and_key(
        &self,
        product_id: uuid::Uuid,
        day: chrono::NaiveDate,
        campaign_id: uuid::Uuid,
        key: uuid::Uuid,
    ) -> crate::store::StoreResult<(Option<crate::store::CalendarDay>, bool)> {
        // One row whether or not the day is priced: the day joined to a row of its own.
        let row: DayAndKey = sqlx::query_as(concat!(
            "SELECT d.day, d.price, d.list_price, d.capacity, d.reserved,
                    EXISTS (SELECT 1 FROM idempotency_record
                            WHERE campaign_id = $4 AND idempotency_key = $5) AS key_seen
             FROM (SELECT 1 AS one) AS always
             LEFT JOIN (",
            priced_days!(),
            ") AS d ON true"
        ))
        .bind(product_id)
        .bind(day)
        .bind(day)
        .bind(campaign_id)
        .bind(key)
        .fetch_one(&self.pool)
        .await?;
        let day = match (row.day, row.price, row.list_price, row.reserved) {
            (Some(date), Some(price), Some(list_price), Some(reserved)) => {
                Some(crate::store::CalendarDay {
                    date,
                    price: price.0,
                    list_price: list_price.0,
                    capacity: row.capacity,
                    reserved,
                })
            }
            _ => None,
        };
        Ok((day, row.key_seen))
    }

    async fn calendars_from(
        &self,
        product_ids: &[uuid::Uuid],
        from: chrono::NaiveDate,
    ) -> crate::store::StoreResult<Vec<crate::store::ProductCalendarDay>> {
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
        let mut ids = query.separated(", ");
        for id in product_ids {
            ids.push_bind(*id);
        }
        query.push(") ORDER BY calendar_price.product_id, calendar_price.day");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn products_with_calendar(
        &self,
        product_ids: &[uuid::Uuid],
    ) -> crate::store::StoreResult<Vec<uuid::Uuid>> {
        if product_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT DISTINCT product_id FROM calendar_price WHERE product_id IN (",
        );
        let mut ids = query.separated(", ");
        for id in product_ids {
            ids.push_bind(*id);
        }
        query.push(")");
        Ok(query.build_query_scalar().fetch_all(&self.pool).await?)
    }
}

/// The row of `calendar_day_and_key`: the day's columns are null when it is not priced.
#[derive(sqlx::FromRow)]
struct DayAndKey {
    day: Option<chrono::NaiveDate>,
    price: Option<crate::store::DbDecimal>,
    list_price: Option<crate::store::DbDecimal>,
    capacity: Option<i32>,
    reserved: Option<i32>,
    key_seen: bool,
}
