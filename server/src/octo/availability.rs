//! Availability in OCTO's shapes: the calendar (`POST /availability/calendar`, one item a
//! day) and the bookable starts (`POST /availability`, one item a day for a day ticket, one a
//! timeslot for a timeslotted one), read from the same calendar, places and timeslots as the
//! partner API's (`catalog`), at the prices customers pay. An availability's id is its local
//! start with the merchant's offset (`2026-12-08T00:00:00+01:00`), the convention of the OCTO
//! document, and it is what a reservation's `availabilityId` names.

use std::collections::HashSet;

use chrono::{DateTime, Days, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{
    catalog::{pricing, unit_id},
    error::{OctoError, OctoResult},
    reseller::{Reseller, CONTENT, PRICING},
};
use crate::{
    catalog::{products::calendar_day, timeslots::product_timeslots},
    settlement::sold::Sold,
    state::AppState,
    store::{CalendarDay, Campaign, Product},
    time::{day_start, in_zone, local_date},
};

/// At most this many days in one request (OCTO's own bound is a year).
pub const MAX_DAYS: u64 = 366;

/// A day of a product: whether it sells, the places it has left and in all, its prices.
#[derive(Debug, Clone, Copy)]
struct Day {
    date: NaiveDate,
    available: bool,
    vacancies: Option<i64>,
    capacity: Option<i64>,
    price: Decimal,
    list_price: Decimal,
}

impl Day {
    /// OCTO's status: CLOSED when it does not sell (past, no price, no open slot), SOLD_OUT
    /// when no place is left, FREESALE without a capacity, LIMITED under half left.
    fn status(&self) -> &'static str {
        match (self.available, self.vacancies, self.capacity) {
            (false, Some(0), _) => "SOLD_OUT",
            (false, ..) => "CLOSED",
            (true, None, _) => "FREESALE",
            (true, Some(left), Some(all)) if left * 2 < all => "LIMITED",
            (true, ..) => "AVAILABLE",
        }
    }
}

/// The dates from `from` through `until`, refused when reversed or longer than [`MAX_DAYS`].
pub fn dates(from: NaiveDate, until: NaiveDate) -> OctoResult<Vec<NaiveDate>> {
    let span = (until - from).num_days();
    if span < 0 {
        return Err(OctoError::bad_request(
            "localDateEnd must not be before localDateStart",
        ));
    }
    if span.unsigned_abs() >= MAX_DAYS {
        return Err(OctoError::bad_request(format!(
            "cannot request more than {MAX_DAYS} days of availability"
        )));
    }
    Ok(from
        .iter_days()
        .take(span.unsigned_abs() as usize + 1)
        .collect())
}

/// `product`'s days over `dates` (in order), judged at `now`.
async fn days_of(
    state: &AppState,
    r: &Reseller,
    product: &Product,
    dates: &[NaiveDate],
    now: DateTime<Utc>,
) -> OctoResult<Vec<Day>> {
    let (Some(first), Some(last)) = (dates.first(), dates.last()) else {
        return Ok(Vec::new());
    };
    let zone = r.merchant.zone()?;
    let today = local_date(zone, now);
    if product.no_date {
        // Sold on the day of sale, without a calendar: every day from today.
        return Ok(dates
            .iter()
            .map(|&date| Day {
                date,
                available: date >= today,
                vacancies: None,
                capacity: None,
                price: product.unit_price,
                list_price: product.list_price,
            })
            .collect());
    }
    let (catalog, store) = state.reads();
    let sold = Sold::of(&r.merchant, product.product_id);
    let priced: Vec<CalendarDay> = catalog
        .calendar(store, product.product_id, (*first, *last))
        .await
        .map_err(crate::error::Error::from)?
        .iter()
        .map(|d| sold.day(d.clone()))
        .collect();
    let open: HashSet<NaiveDate> = if product.requires_timeslot {
        let group = product.availability_group_id;
        catalog
            .open_slot_days(store, group, (*first, *last), now)
            .await
            .map_err(crate::error::Error::from)?
            .as_ref()
            .clone()
    } else {
        HashSet::new()
    };
    Ok(dates
        .iter()
        .map(|&date| match priced.iter().find(|d| d.date == date) {
            Some(day) => Day {
                date,
                available: calendar_day(day, open.contains(&date))
                    .purchasable(today, product.requires_timeslot),
                vacancies: crate::catalog::products::remaining(day.capacity, day.reserved),
                capacity: day.capacity.map(i64::from),
                price: day.price,
                list_price: day.list_price,
            },
            None => Day {
                date,
                available: false,
                vacancies: Some(0),
                capacity: None,
                price: product.unit_price,
                list_price: product.list_price,
            },
        })
        .collect())
}

/// The prices of one ticket on `day`, as OCTO's pricing of its unit.
fn unit_pricing(r: &Reseller, campaign: &Campaign, product: &Product, day: &Day) -> Value {
    let gross = day.price + product.booking_costs;
    let original = day.list_price.max(day.price) + product.booking_costs;
    pricing(&r.merchant, campaign, product, (gross, original))
}

fn with_unit(mut pricing: Value, product: &Product) -> Value {
    pricing["unitId"] = json!(unit_id(product));
    pricing
}

/// `POST /availability/calendar`: one item a day.
pub async fn calendar(
    state: &AppState,
    r: &Reseller,
    campaign: &Campaign,
    product: &Product,
    dates: &[NaiveDate],
) -> OctoResult<Vec<Value>> {
    let days = days_of(state, r, product, dates, Utc::now()).await?;
    Ok(days
        .iter()
        .map(|day| {
            let mut item = json!({
                "localDate": day.date.to_string(),
                "available": day.available,
                "status": day.status(),
                "vacancies": day.vacancies,
                "capacity": day.capacity,
                "openingHours": [],
            });
            if r.capabilities.has(PRICING) {
                let price = unit_pricing(r, campaign, product, day);
                item["unitPricingFrom"] = json!([with_unit(price.clone(), product)]);
                item["pricingFrom"] = price;
            }
            item
        })
        .collect())
}

/// A start as OCTO names it: local time with the merchant's offset.
pub fn availability_id(start: DateTime<FixedOffset>) -> String {
    start.to_rfc3339()
}

/// `POST /availability`: the bookable starts over `dates`, a day ticket's days (all day) or a
/// timeslotted product's windows, for `quantity` tickets.
pub async fn starts(
    state: &AppState,
    r: &Reseller,
    campaign: &Campaign,
    product: &Product,
    dates: &[NaiveDate],
    quantity: u32,
) -> OctoResult<Vec<Value>> {
    let now = Utc::now();
    let zone = r.merchant.zone()?;
    let days = days_of(state, r, product, dates, now).await?;
    let mut out = Vec::new();
    for day in &days {
        let price = r
            .capabilities
            .has(PRICING)
            .then(|| unit_pricing(r, campaign, product, day));
        let text = product.localized(r.locale);
        let content = r
            .capabilities
            .has(CONTENT)
            .then_some((text.title, text.conditions));
        if product.requires_timeslot {
            let slots =
                product_timeslots(state.reads(), product, zone, day.date, quantity, now).await?;
            for slot in slots {
                let available = day.available && slot.available;
                let slot_day = Day {
                    available,
                    vacancies: slot.remaining,
                    ..*day
                };
                out.push(item(
                    (slot.start_time, slot.end_time, false),
                    &slot_day,
                    slot.start_time.with_timezone(&Utc),
                    price.clone(),
                    product,
                    content,
                ));
            }
        } else {
            let (start, end) = day_bounds(zone, day.date)?;
            let cutoff = end.with_timezone(&Utc);
            out.push(item(
                (start, end, true),
                day,
                cutoff,
                price,
                product,
                content,
            ));
        }
    }
    Ok(out)
}

/// A day's start and the next day's, with the merchant's offsets at each.
fn day_bounds(
    zone: Tz,
    date: NaiveDate,
) -> OctoResult<(DateTime<FixedOffset>, DateTime<FixedOffset>)> {
    let next = date
        .checked_add_days(Days::new(1))
        .ok_or_else(|| OctoError::bad_request("a date too far ahead"))?;
    match (day_start(zone, date), day_start(zone, next)) {
        (Some(start), Some(end)) => Ok((in_zone(start, zone), in_zone(end, zone))),
        _ => Err(OctoError::bad_request(
            "a date without a start in the merchant's zone",
        )),
    }
}

fn item(
    (start, end, all_day): (DateTime<FixedOffset>, DateTime<FixedOffset>, bool),
    day: &Day,
    cutoff: DateTime<Utc>,
    price: Option<Value>,
    product: &Product,
    content: Option<(&str, &str)>,
) -> Value {
    let mut item = json!({
        "id": availability_id(start),
        "localDateTimeStart": start.to_rfc3339(),
        "localDateTimeEnd": end.to_rfc3339(),
        "utcCutoffAt": cutoff.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "allDay": all_day,
        "available": day.available,
        "status": day.status(),
        "vacancies": day.vacancies,
        "capacity": day.capacity,
        "maxUnits": day.vacancies.map(|v| v.min(i64::from(crate::checkout::basket::MAX_QUANTITY))),
        "openingHours": [],
    });
    if let Some(price) = price {
        item["unitPricing"] = json!([with_unit(price.clone(), product)]);
        item["pricing"] = price;
    }
    if let Some((title, description)) = content {
        item["title"] = json!(title);
        item["shortDescription"] = json!(description);
    }
    item
}

/// A timeslot's visit as a reservation asks for it: its local start, without offset.
pub fn slot_visit<T: TimeZone>(start: DateTime<T>, zone: Tz) -> String {
    start
        .with_timezone(&zone)
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

/// The visit a reservation asks for by `availability_id` (a start with its offset), as the
/// checkout takes it: the merchant-local day for a day ticket, the local date and time for a
/// timeslotted one. `None` when it is no start of this product.
pub fn visit_of(availability_id: &str, zone: Tz, product: &Product) -> Option<(NaiveDate, String)> {
    let start = DateTime::parse_from_rfc3339(availability_id).ok()?;
    let local = start.with_timezone(&zone).naive_local();
    if product.requires_timeslot {
        Some((local.date(), slot_visit(start, zone)))
    } else if local.time() == NaiveTime::MIN {
        Some((local.date(), local.date().to_string()))
    } else {
        None
    }
}
