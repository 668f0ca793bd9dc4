use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Money;

/// One priced day of a product's calendar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CalendarEntry {
    pub date: NaiveDate,
    /// The day can be bought now: not past in the merchant's zone, capacity left, and for a
    /// timeslotted product a slot with room that has not started.
    pub available: bool,
    /// Places left that day in the product's availability group (shared with the products of
    /// that group); null when the capacity is unlimited.
    pub remaining: Option<i64>,
    pub effective_price: Money,
    pub list_price: Money,
    /// Present when the day is discounted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_amount: Option<Money>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::percentage"
    )]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<f64>, example = 20.0))]
    pub discount_percentage: Option<Decimal>,
}

/// The body of POST /v2/fulfillment/timeslots.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TimeslotQuery {
    pub product_id: Uuid,
    /// The visit date, in the merchant's zone.
    pub date: NaiveDate,
    /// Places wanted (1 to 50, default 1); a slot is available when this many fit.
    #[cfg_attr(feature = "ssr", schema(minimum = 1, maximum = 50))]
    pub quantity: Option<u32>,
}

/// An entry window on the requested date.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TimeslotEntry {
    pub timeslot_id: Uuid,
    /// RFC 3339 with the merchant's offset at that moment.
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime, example = "2026-03-29T10:00:00+02:00"))]
    pub start_time: DateTime<FixedOffset>,
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime, example = "2026-03-29T10:30:00+02:00"))]
    pub end_time: DateTime<FixedOffset>,
    /// Places left: the slot's, capped by the day's; null when both are unlimited.
    pub remaining: Option<i64>,
    /// Not started yet, the product sells that day, and `quantity` places fit.
    pub available: bool,
}
