//! `GET /v2/products/{product_id}/calendar` and `POST /v2/fulfillment/timeslots`: what can be
//! bought on which day and in which entry window.

use app::wire::{CalendarEntry, Envelope, TimeslotEntry, TimeslotQuery};
use axum::{extract::State, response::Response};
use chrono::{Days, NaiveDate, Utc};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    catalog::{
        calendar::product_calendar_json, products::product_in_campaign,
        timeslots::product_timeslots,
    },
    error::Result,
    http::{
        campaign::SessionCampaign,
        envelope::{self, Data},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem401, Problem403, Problem404, SessionCampaignHeader},
    },
    state::AppState,
    store::MAX_CALENDAR_DAYS,
    time::local_date,
    validate::Checks,
};

/// Days after `from` that a calendar read without `until` covers.
pub const DEFAULT_SPAN_DAYS: u64 = 60;
/// The most places one timeslot query may ask for (the basket's per-line limit).
pub const MAX_QUANTITY: u32 = 50;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(calendar))
        .routes(routes!(timeslots))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CalendarParams {
    /// First day (default: today in the merchant's zone).
    from: Option<NaiveDate>,
    /// Last day, inclusive (default: from + 60 days); at most 366 days in all.
    until: Option<NaiveDate>,
}

/// The product's priced days in `from..=until`, each with whether it can be bought now, the
/// places its availability group has left (null: unlimited), its price and list price, and
/// its discount when it has one. A product sold without a date has `[]`.
#[utoipa::path(get, path = "/v2/products/{product_id}/calendar", tag = "catalog", security(("public_bearer" = [])),
    params(("product_id" = Uuid, Path), CalendarParams,
        SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<Vec<CalendarEntry>>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn calendar(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(product_id): ApiPath<Uuid>,
    ApiQuery(params): ApiQuery<CalendarParams>,
) -> Result<Response> {
    let (product, merchant) =
        product_in_campaign(state.reads(), product_id, campaign.campaign_id).await?;
    let now = Utc::now();
    let today = local_date(merchant.zone()?, now);
    let from = params.from.unwrap_or(today);
    let until = params.until.unwrap_or_else(|| {
        from.checked_add_days(Days::new(DEFAULT_SPAN_DAYS))
            .unwrap_or(NaiveDate::MAX)
    });
    let mut checks = Checks::default();
    checks.date_range("until", from, until, MAX_CALENDAR_DAYS);
    checks.finish()?;
    let answer = product_calendar_json(
        state.reads(),
        &product,
        &merchant,
        today,
        (from, until),
        now,
    )
    .await?;
    Ok(envelope::around(&answer, &envelope::meta()))
}

/// The entry windows of the product on `date` (merchant-local), ordered by start, with times
/// in RFC 3339 at the merchant's offset. A window is available when it has not started, the
/// product sells that day, and `quantity` (default 1) fits. A product that needs no timeslot
/// has `[]`: the date alone suffices.
#[utoipa::path(post, path = "/v2/fulfillment/timeslots", tag = "catalog", security(("public_bearer" = [])),
    request_body = TimeslotQuery,
    params(SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<Vec<TimeslotEntry>>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn timeslots(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    ApiJson(query): ApiJson<TimeslotQuery>,
) -> Result<Data<Vec<TimeslotEntry>>> {
    let quantity = query.quantity.unwrap_or(1);
    let mut checks = Checks::default();
    checks.check(
        (1..=MAX_QUANTITY).contains(&quantity),
        "quantity",
        "out_of_range",
        format!("quantity must be between 1 and {MAX_QUANTITY}"),
    );
    checks.finish()?;
    let (product, merchant) =
        product_in_campaign(state.reads(), query.product_id, campaign.campaign_id).await?;
    let entries = product_timeslots(
        state.reads(),
        &product,
        merchant.zone()?,
        query.date,
        quantity,
        Utc::now(),
    )
    .await?;
    Ok(Data::ok(entries))
}
