//! Entry windows of an availability group, given as local times in the merchant's zone and
//! stored as UTC instants.

use chrono::{DateTime, Days, FixedOffset, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::{Error, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404, Problem409},
    },
    state::AppState,
    store::{days, NewTimeslot, MAX_CALENDAR_DAYS},
    time::{in_zone, local_date, local_to_utc},
    validate::Checks,
};

/// The most windows one day may have (one per quarter hour).
pub const MAX_TIMES_PER_DAY: usize = 96;
/// Days after `from` that a read without `until` covers.
pub const DEFAULT_SPAN_DAYS: u64 = 60;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(write_timeslots, read_timeslots))
}

/// One entry window, as local wall-clock times.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeWindow {
    #[schema(example = "09:30", pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub start: String,
    /// After `start` on the same day.
    #[schema(example = "10:00", pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub end: String,
}

/// The windows to open on every day of `from..=until`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeslotsInput {
    pub from: NaiveDate,
    /// Inclusive; at most 366 days in all.
    pub until: NaiveDate,
    /// Local times in the merchant's zone; at most 96, with distinct starts.
    #[schema(min_items = 1, max_items = 96)]
    pub times: Vec<TimeWindow>,
    /// Places per slot; null or absent is unlimited.
    #[schema(minimum = 0)]
    pub capacity: Option<i32>,
}

/// A window that was not written because a local time of it does not exist that day.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SkippedTimeslot {
    pub date: NaiveDate,
    #[schema(example = "02:30")]
    pub start: String,
    #[schema(example = "03:00")]
    pub end: String,
    #[schema(example = "nonexistent_local_time")]
    pub reason: &'static str,
}

/// What a timeslot write did.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct TimeslotsWritten {
    timeslots_written: u64,
    /// Windows skipped on days when clocks go forward through them.
    skipped: Vec<SkippedTimeslot>,
}

/// A timeslot with its times in the merchant's zone.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct TimeslotView {
    timeslot_id: Uuid,
    /// The local date the slot starts on.
    date: NaiveDate,
    /// RFC 3339 with the merchant's offset at that moment.
    #[schema(value_type = String, example = "2026-03-29T10:00:00+02:00")]
    start_time: DateTime<FixedOffset>,
    #[schema(value_type = String, example = "2026-03-29T11:00:00+02:00")]
    end_time: DateTime<FixedOffset>,
    /// Null is unlimited.
    capacity: Option<i32>,
    reserved: i32,
}

/// Checks the input, returning the windows as times of day.
fn validate(input: &TimeslotsInput) -> Result<Vec<(NaiveTime, NaiveTime)>> {
    let mut checks = Checks::default();
    checks.date_range("until", input.from, input.until, MAX_CALENDAR_DAYS);
    if input.times.is_empty() {
        checks.fail("times", "required", "times must list at least one window");
    } else if input.times.len() > MAX_TIMES_PER_DAY {
        checks.fail(
            "times",
            "too_many",
            format!("times may list at most {MAX_TIMES_PER_DAY} windows"),
        );
    }
    let mut windows = Vec::with_capacity(input.times.len());
    for (i, window) in input.times.iter().enumerate() {
        let start = checks.time_of_day(&format!("times[{i}].start"), &window.start);
        let end = checks.time_of_day(&format!("times[{i}].end"), &window.end);
        if let (Some(start), Some(end)) = (start, end) {
            checks.check(
                end > start,
                &format!("times[{i}].end"),
                "not_after_start",
                format!("times[{i}].end must be after times[{i}].start on the same day"),
            );
            windows.push((start, end));
        }
    }
    checks.distinct(input.times.iter().map(|w| w.start.as_str()), |i| {
        format!("times[{i}].start")
    });
    if let Some(capacity) = input.capacity {
        checks.check(
            capacity >= 0,
            "capacity",
            "negative",
            "capacity must not be negative (null is unlimited)",
        );
    }
    checks.finish()?;
    Ok(windows)
}

/// Every window on every day as instants in `zone`. A window whose start or end does not exist
/// locally that day (clocks going forward) is skipped and reported; a time that occurs twice
/// (clocks going back) takes its earlier instant.
pub(crate) fn expand(
    zone: Tz,
    from: NaiveDate,
    until: NaiveDate,
    windows: &[(NaiveTime, NaiveTime)],
) -> (Vec<NewTimeslot>, Vec<SkippedTimeslot>) {
    let mut slots = Vec::new();
    let mut skipped = Vec::new();
    for day in days(from, until) {
        for &(start, end) in windows {
            match (local_to_utc(zone, day, start), local_to_utc(zone, day, end)) {
                (Some(start_time), Some(end_time)) => slots.push(NewTimeslot {
                    day,
                    start_time,
                    end_time,
                }),
                _ => skipped.push(SkippedTimeslot {
                    date: day,
                    start: start.format("%H:%M").to_string(),
                    end: end.format("%H:%M").to_string(),
                    reason: "nonexistent_local_time",
                }),
            }
        }
    }
    (slots, skipped)
}

/// The zone of the merchant owning a group; 404 when there is no such group.
async fn group_zone(state: &AppState, group_id: Uuid) -> Result<Tz> {
    let group = state
        .store
        .availability_group(group_id)
        .await?
        .ok_or_else(|| Error::not_found("The availability group"))?;
    let merchant = state
        .store
        .merchant(group.merchant_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("availability group {group_id} has no merchant"))?;
    Ok(merchant.zone()?)
}

/// Opens the given windows (local times in the merchant's zone) on every day of
/// `from..=until`, upserting on the start instant: an existing slot keeps its id and its
/// reservations and takes the new end and capacity. On a day when clocks go forward, a window
/// whose time does not exist is skipped and listed in `skipped`; on a day when they go back, a
/// repeated time takes its first occurrence. A capacity below what a slot already has reserved
/// fails the whole request with 409 and changes nothing.
#[utoipa::path(put, path = "/admin/v1/availability-groups/{availability_group_id}/timeslots",
    params(("availability_group_id" = Uuid, Path)), request_body = TimeslotsInput,
    responses((status = 200, body = inline(app::wire::Envelope<TimeslotsWritten>)),
              Problem400, Problem404, Problem409))]
async fn write_timeslots(
    Admin(state): Admin,
    ApiPath(group_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<TimeslotsInput>,
) -> Result<Data<TimeslotsWritten>> {
    let windows = validate(&input)?;
    let zone = group_zone(&state, group_id).await?;
    let (slots, skipped) = expand(zone, input.from, input.until, &windows);
    let timeslots_written = state
        .store
        .write_timeslots(group_id, &slots, input.capacity)
        .await?;
    state.commerce.catalog.changed();
    Ok(Data::ok(TimeslotsWritten {
        timeslots_written,
        skipped,
    }))
}

/// The date range of a timeslot read.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct TimeslotQuery {
    /// First local date (default: today in the merchant's zone).
    from: Option<NaiveDate>,
    /// Last local date, inclusive (default: from + 60 days); at most 366 days in all.
    until: Option<NaiveDate>,
}

/// Lists a group's timeslots on local dates `from..=until`, ordered by start, with times in
/// the merchant's offset.
#[utoipa::path(get, path = "/admin/v1/availability-groups/{availability_group_id}/timeslots",
    params(("availability_group_id" = Uuid, Path), TimeslotQuery),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<TimeslotView>>)),
              Problem400, Problem404))]
async fn read_timeslots(
    Admin(state): Admin,
    ApiPath(group_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<TimeslotQuery>,
) -> Result<Data<Vec<TimeslotView>>> {
    let zone = group_zone(&state, group_id).await?;
    let from = query.from.unwrap_or_else(|| local_date(zone, Utc::now()));
    let until = query.until.unwrap_or_else(|| {
        from.checked_add_days(Days::new(DEFAULT_SPAN_DAYS))
            .unwrap_or(NaiveDate::MAX)
    });
    let mut checks = Checks::default();
    checks.date_range("until", from, until, MAX_CALENDAR_DAYS);
    checks.finish()?;
    let slots = state.store.timeslots(group_id, from, until).await?;
    Ok(Data::ok(
        slots
            .into_iter()
            .map(|s| TimeslotView {
                timeslot_id: s.timeslot_id,
                date: s.day,
                start_time: in_zone(s.start_time, zone),
                end_time: in_zone(s.end_time, zone),
                capacity: s.capacity,
                reserved: s.reserved,
            })
            .collect(),
    ))
}
