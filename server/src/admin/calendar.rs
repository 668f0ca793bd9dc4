//! Per-day prices of a product and per-day capacity of its availability group.

use chrono::{Days, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404, Problem409},
    },
    state::AppState,
    store::{CalendarDay, CalendarInput, Product, MAX_CALENDAR_DAYS},
    validate::Checks,
};

/// Days after `from` that a read without `until` covers (as the partner calendar).
pub const DEFAULT_SPAN_DAYS: u64 = 60;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(write_calendar, read_calendar))
}

fn validate(input: &CalendarInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.date_range("until", input.from, input.until, MAX_CALENDAR_DAYS);
    checks.non_negative_amount("price", input.price);
    checks.non_negative_amount("list_price", input.list_price);
    if let Some(capacity) = input.capacity {
        checks.check(
            capacity >= 0,
            "capacity",
            "negative",
            "capacity must not be negative (null is unlimited)",
        );
    }
    checks.finish()
}

async fn product(state: &AppState, product_id: Uuid) -> Result<Product> {
    state
        .store
        .product(product_id)
        .await?
        .ok_or_else(|| Error::not_found("The product"))
}

/// How many days a calendar write covered.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct CalendarWritten {
    days_written: u32,
}

/// Sets the price of a product and the capacity of its availability group for every day of
/// `from..=until` (at most 366 days), in one transaction. The capacity is the group's, so it
/// applies to every product sharing the group. A capacity below what is already reserved on
/// any day fails the whole request with 409 and changes nothing.
#[utoipa::path(put, path = "/admin/v1/products/{product_id}/calendar",
    params(("product_id" = Uuid, Path)), request_body = CalendarInput,
    responses((status = 200, body = inline(app::wire::Envelope<CalendarWritten>)),
              Problem400, Problem404, Problem409))]
async fn write_calendar(
    Admin(state): Admin,
    ApiPath(product_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<CalendarInput>,
) -> Result<Data<CalendarWritten>> {
    validate(&input)?;
    if product(&state, product_id).await?.no_date {
        // Its calendar is always empty to partners, so prices written here would be lost.
        return Err(Error::new(
            ProblemType::Conflict,
            "The product is sold without a date (no_date), so it has no calendar.",
        ));
    }
    let days_written = state
        .store
        .write_calendar(product_id, &input)
        .await?
        .ok_or_else(|| Error::not_found("The product"))?;
    state.commerce.catalog.changed();
    Ok(Data::ok(CalendarWritten { days_written }))
}

/// The date range of a calendar read.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CalendarQuery {
    /// First day (default: today in the merchant's zone).
    from: Option<NaiveDate>,
    /// Last day, inclusive (default: from + 60 days); at most 366 days in all.
    until: Option<NaiveDate>,
}

/// Lists a product's priced days with its group's capacity and reservations, in date order.
#[utoipa::path(get, path = "/admin/v1/products/{product_id}/calendar",
    params(("product_id" = Uuid, Path), CalendarQuery),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<CalendarDay>>)),
              Problem400, Problem404))]
async fn read_calendar(
    Admin(state): Admin,
    ApiPath(product_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<CalendarQuery>,
) -> Result<Data<Vec<CalendarDay>>> {
    let product = product(&state, product_id).await?;
    let from = match query.from {
        Some(from) => from,
        None => {
            let merchant = state
                .store
                .merchant(product.merchant_id)
                .await?
                .ok_or_else(|| anyhow::anyhow!("product {product_id} has no merchant"))?;
            crate::time::local_date(merchant.zone()?, Utc::now())
        }
    };
    let until = query.until.unwrap_or_else(|| {
        from.checked_add_days(Days::new(DEFAULT_SPAN_DAYS))
            .unwrap_or(NaiveDate::MAX)
    });
    let mut checks = Checks::default();
    checks.date_range("until", from, until, MAX_CALENDAR_DAYS);
    checks.finish()?;
    let days = state.store.calendar(product_id, from, until).await?;
    Ok(Data::ok(days))
}
