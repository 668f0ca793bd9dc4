use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// The most days one calendar write or read may span.
pub const MAX_CALENDAR_DAYS: i64 = 366;

/// Prices of one product and capacity of its availability group for every day of
/// `from..=until`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarInput {
    pub from: NaiveDate,
    /// Inclusive; at most 366 days after `from` counted inclusively.
    pub until: NaiveDate,
    /// Not negative, two decimals at most.
    #[schema(value_type = String, example = "12.50", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str")]
    pub price: Decimal,
    #[schema(value_type = String, example = "15.00", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str")]
    pub list_price: Decimal,
    /// Places per day in the product's availability group, shared with every product of that
    /// group; null or absent is unlimited.
    #[schema(minimum = 0)]
    pub capacity: Option<i32>,
}

/// One sellable day of a product: its prices and its group's capacity that day.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct CalendarDay {
    #[sqlx(rename = "day")]
    pub date: NaiveDate,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "12.5")]
    #[serde(with = "rust_decimal::serde::str")]
    pub price: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "15")]
    #[serde(with = "rust_decimal::serde::str")]
    pub list_price: Decimal,
    /// Null is unlimited.
    pub capacity: Option<i32>,
    pub reserved: i32,
}

/// A calendar day of one of several products read together.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ProductCalendarDay {
    pub product_id: Uuid,
    #[sqlx(flatten)]
    pub day: CalendarDay,
}

/// The days of `from..=until`.
pub fn days(from: NaiveDate, until: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    from.iter_days().take_while(move |d| *d <= until)
}

#[async_trait::async_trait]
pub trait CalendarStore {
    /// Upserts the product's price and its group's capacity for every day of the range, in one
    /// transaction; returns the number of days, or `None` when no such product exists. A
    /// capacity below what a day already has reserved fails the whole write as a `Conflict`
    /// naming the day, and nothing is changed.
    async fn write_calendar(
        &self,
        product_id: Uuid,
        input: &CalendarInput,
    ) -> StoreResult<Option<u32>>;
    /// The product's priced days in `from..=until`, in date order, with the group's capacity
    /// and reservations (a day without a capacity row is unlimited with nothing reserved).
    async fn calendar(
        &self,
        product_id: Uuid,
        from: NaiveDate,
        until: NaiveDate,
    ) -> StoreResult<Vec<CalendarDay>>;
    /// The priced days on or after `from` of each of `product_ids`, with their groups' capacity
    /// and reservations, ordered by product and day: what stock-aware availability is computed
    /// from, in one query for a whole product list.
    async fn calendars_from(
        &self,
        product_ids: &[Uuid],
        from: NaiveDate,
    ) -> StoreResult<Vec<ProductCalendarDay>>;
    /// Which of `product_ids` have a calendar at all (a priced day, past or not): a product with
    /// only past days is sold out, one without any is sold without dates.
    async fn products_with_calendar(&self, product_ids: &[Uuid]) -> StoreResult<Vec<Uuid>>;
}
