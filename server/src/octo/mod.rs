//! OCTO, the open booking standard resellers and channel managers speak, per merchant at
//! `/octo/{merchant_id}/…` (docs/octo.md). One more face on the same catalog, holds,
//! checkout, orders and events: the rules stay in `catalog`, `checkout` and `after_sale`;
//! here are OCTO's shapes (`catalog`, `availability`, `booking_view`), its errors (`error`)
//! and who may call (`reseller`). Every path answers with and without the document's
//! trailing slash. These routes are outside `/openapi.json`: OCTO's own document is their
//! contract (`../shared/spec/octo/openapi.yaml`).

mod availability;
mod booking_view;
mod bookings;
mod catalog;
mod change_date;
mod change_hold;
mod error;
mod reseller;
mod update;

use axum::{
    body::Bytes,
    extract::{Path, RawQuery, State},
    response::Response,
    routing::{get, post, MethodRouter},
    Json, Router,
};
use chrono::{NaiveDate, Utc};
use serde::{de::DeserializeOwned, Deserialize};
use serde_json::{json, Value};
use std::collections::HashMap;

use crate::{
    state::AppState,
    store::{Campaign, OctoBooking, OctoBookingFilter, ProductFilter},
};
use error::{OctoError, OctoResult};
use reseller::Reseller;

pub fn router() -> Router<AppState> {
    let routes: [(&str, MethodRouter<AppState>); 11] = [
        ("supplier", get(supplier)),
        ("products", get(products)),
        ("products/{id}", get(product)),
        ("availability/calendar", post(calendar)),
        ("availability", post(check)),
        ("bookings", post(reserve).get(list_bookings)),
        ("bookings/{uuid}", get(get_booking).patch(update_booking)),
        ("bookings/{uuid}/confirm", post(confirm)),
        ("bookings/{uuid}/extend", post(extend)),
        ("bookings/{uuid}/cancel", post(cancel)),
        ("capabilities", get(capabilities)),
    ];
    let mut router = Router::new();
    for (path, route) in routes {
        router = router
            .route(&format!("/octo/{{merchant_id}}/{path}"), route.clone())
            .route(&format!("/octo/{{merchant_id}}/{path}/"), route);
    }
    router
}

/// A request body as OCTO's requests are read: JSON, unknown members ignored (OCTO clients
/// send the capabilities' members to every supplier); a body that does not parse is
/// `BAD_REQUEST` naming why, as is text holding U+0000 (which no store keeps).
fn body<T: DeserializeOwned>(bytes: &Bytes) -> OctoResult<T> {
    crate::http::extract::reject_nul_in_json(bytes)?;
    serde_json::from_slice(bytes)
        .map_err(|e| OctoError::bad_request(format!("The body is not a valid request: {e}")))
}

async fn campaign(state: &AppState, r: &Reseller) -> OctoResult<Campaign> {
    let (catalog, store) = state.reads();
    catalog
        .definitions
        .campaign(store, r.campaign_id)
        .await
        .map_err(crate::error::Error::from)?
        .ok_or_else(|| OctoError::forbidden("The campaign no longer exists."))
}

async fn supplier(State(state): State<AppState>, r: Reseller) -> Response {
    let endpoint = format!(
        "{}/octo/{}",
        state.config.public_url.as_str().trim_end_matches('/'),
        r.merchant.merchant_id
    );
    r.answer(Json(catalog::supplier(&r, &endpoint)))
}

/// The local start times of `product`'s entry windows over the coming week (`00:00` for a
/// day ticket, and for a timeslotted one without any yet).
async fn start_times(
    state: &AppState,
    r: &Reseller,
    product: &crate::store::Product,
) -> OctoResult<Vec<String>> {
    if !product.requires_timeslot {
        return Ok(vec!["00:00".to_owned()]);
    }
    let zone = r.merchant.zone()?;
    let today = crate::time::local_date(zone, Utc::now());
    let (catalog, store) = state.reads();
    let mut times = std::collections::BTreeSet::new();
    for day in today.iter_days().take(7) {
        let slots = catalog
            .timeslots(store, product.availability_group_id, day)
            .await
            .map_err(crate::error::Error::from)?;
        for slot in slots.iter() {
            times.insert(
                slot.start_time
                    .with_timezone(&zone)
                    .format("%H:%M")
                    .to_string(),
            );
        }
    }
    if times.is_empty() {
        times.insert("00:00".to_owned());
    }
    Ok(times.into_iter().collect())
}

async fn products(State(state): State<AppState>, r: Reseller) -> OctoResult<Response> {
    let campaign = campaign(&state, &r).await?;
    let filter = ProductFilter {
        merchant_id: Some(r.merchant.merchant_id),
        campaign_id: Some(r.campaign_id),
    };
    let listed = state
        .store
        .list_products(filter, None, u32::MAX)
        .await
        .map_err(crate::error::Error::from)?;
    let mut out = Vec::new();
    for p in listed.into_iter().filter(catalog::sold_through_octo) {
        let p = crate::settlement::sold::Sold::of(&r.merchant, p.product_id).product(p);
        let times = start_times(&state, &r, &p).await?;
        out.push(catalog::product(&r, &campaign, &p, times));
    }
    Ok(r.answer(Json(out)))
}

async fn product(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
) -> OctoResult<Response> {
    let id = params.get("id").map(String::as_str).unwrap_or_default();
    let product = bookings::product_of(&state, &r, id).await?;
    let campaign = campaign(&state, &r).await?;
    let times = start_times(&state, &r, &product).await?;
    Ok(r.answer(Json(catalog::product(&r, &campaign, &product, times))))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UnitQuantity {
    #[allow(dead_code)]
    id: String,
    quantity: u32,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AvailabilityBody {
    product_id: String,
    option_id: String,
    #[serde(default)]
    local_date: Option<NaiveDate>,
    #[serde(default)]
    local_date_start: Option<NaiveDate>,
    #[serde(default)]
    local_date_end: Option<NaiveDate>,
    #[serde(default)]
    availability_ids: Option<Vec<String>>,
    #[serde(default)]
    units: Vec<UnitQuantity>,
}

impl AvailabilityBody {
    /// The days asked for: `localDate`, `localDateStart`..`localDateEnd`, or the days of
    /// `availabilityIds`.
    fn dates(&self) -> OctoResult<Vec<NaiveDate>> {
        match (
            self.local_date,
            self.local_date_start,
            self.local_date_end,
            &self.availability_ids,
        ) {
            (Some(day), None, None, _) => Ok(vec![day]),
            (None, Some(from), Some(until), _) => availability::dates(from, until),
            (None, None, None, Some(ids)) if !ids.is_empty() => {
                let mut days: Vec<NaiveDate> = ids
                    .iter()
                    .map(|id| {
                        chrono::DateTime::parse_from_rfc3339(id)
                            .map(|d| d.date_naive())
                            .map_err(|_| OctoError::invalid_availability(id))
                    })
                    .collect::<OctoResult<_>>()?;
                days.sort_unstable();
                days.dedup();
                Ok(days)
            }
            _ => Err(OctoError::bad_request(
                "either localDate, localDateStart/localDateEnd or availabilityIds is required",
            )),
        }
    }
}

async fn calendar(
    State(state): State<AppState>,
    r: Reseller,
    bytes: Bytes,
) -> OctoResult<Response> {
    let request: AvailabilityBody = body(&bytes)?;
    let product = bookings::product_of(&state, &r, &request.product_id).await?;
    bookings::check_option(&request.option_id)?;
    let campaign = campaign(&state, &r).await?;
    let days = request.dates()?;
    let items = availability::calendar(&state, &r, &campaign, &product, &days).await?;
    Ok(r.answer(Json(items)))
}

async fn check(State(state): State<AppState>, r: Reseller, bytes: Bytes) -> OctoResult<Response> {
    let request: AvailabilityBody = body(&bytes)?;
    let product = bookings::product_of(&state, &r, &request.product_id).await?;
    bookings::check_option(&request.option_id)?;
    let campaign = campaign(&state, &r).await?;
    let days = request.dates()?;
    let quantity = request.units.iter().map(|u| u.quantity).sum::<u32>().max(1);
    let mut items = availability::starts(&state, &r, &campaign, &product, &days, quantity).await?;
    if let Some(ids) = &request.availability_ids {
        items.retain(|item| ids.iter().any(|id| item["id"] == json!(id)));
    }
    Ok(r.answer(Json(items)))
}

/// The booking `booking` as OCTO shows it, read afresh.
async fn booking_json(state: &AppState, r: &Reseller, booking: &OctoBooking) -> OctoResult<Value> {
    let store = state.store.as_ref();
    let missing = || OctoError::invalid_booking(&booking.uuid.to_string());
    let checkout =
        crate::checkout::read::visible(&state.commerce, booking.checkout_id, bookings::caller(r))
            .await?;
    let lines = store
        .checkout_lines(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?;
    let line = lines.first().ok_or_else(missing)?;
    let product = state
        .reads()
        .0
        .definitions
        .product(store, line.product_id)
        .await
        .map_err(crate::error::Error::from)?
        .ok_or_else(missing)?;
    let (order, passes_url) = match store
        .order_of_checkout(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?
    {
        Some(order) => {
            let passes =
                crate::tickets::apple_passes_url(&state.tickets, order.customer_order_id).await?;
            (
                Some(crate::after_sale::page::order_read(state, order).await?),
                passes,
            )
        }
        None => (None, None),
    };
    let slot_start = match line.timeslot_id {
        Some(id) => store
            .timeslots_by_id(&[id])
            .await
            .map_err(crate::error::Error::from)?
            .first()
            .map(|s| s.start_time),
        None => None,
    };
    // A ticket as sold: the line's price with its costs, against its list price.
    let unit_pricing = if r.capabilities.has(reseller::PRICING) {
        let campaign = campaign(state, r).await?;
        let gross = line.unit_price + line.booking_costs + line.visit_guarantee_cost;
        let original =
            line.list_price.max(line.unit_price) + line.booking_costs + line.visit_guarantee_cost;
        Some(catalog::pricing(
            &r.merchant,
            &campaign,
            &product,
            (gross, original),
        ))
    } else {
        None
    };
    Ok(booking_view::booking(
        r,
        &booking_view::Parts {
            booking,
            checkout: &checkout,
            line,
            product: &product,
            order: order.as_ref(),
            slot_start,
            test_mode: state.commerce.payments.name() == "sandbox",
            unit_pricing,
            passes_url,
        },
    ))
}

async fn answer_booking(state: &AppState, r: &Reseller, uuid: &str) -> OctoResult<Response> {
    let booking = bookings::booking_of(state, r, uuid).await?;
    Ok(r.answer(Json(booking_json(state, r, &booking).await?)))
}

async fn reserve(State(state): State<AppState>, r: Reseller, bytes: Bytes) -> OctoResult<Response> {
    let uuid = bookings::reserve(&state, &r, body(&bytes)?).await?;
    answer_booking(&state, &r, &uuid.to_string()).await
}

fn uuid_of(params: &HashMap<String, String>) -> &str {
    params.get("uuid").map(String::as_str).unwrap_or_default()
}

async fn get_booking(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
) -> OctoResult<Response> {
    answer_booking(&state, &r, uuid_of(&params)).await
}

async fn confirm(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
    bytes: Bytes,
) -> OctoResult<Response> {
    let booking = bookings::booking_of(&state, &r, uuid_of(&params)).await?;
    bookings::confirm(&state, &r, booking, body(&bytes)?).await?;
    answer_booking(&state, &r, uuid_of(&params)).await
}

async fn extend(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
    bytes: Bytes,
) -> OctoResult<Response> {
    let booking = bookings::booking_of(&state, &r, uuid_of(&params)).await?;
    let request: bookings::ExtendBody = if bytes.is_empty() {
        Default::default()
    } else {
        body(&bytes)?
    };
    bookings::extend_booking(&state, &r, &booking, request).await?;
    answer_booking(&state, &r, uuid_of(&params)).await
}

async fn cancel(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
) -> OctoResult<Response> {
    let booking = bookings::booking_of(&state, &r, uuid_of(&params)).await?;
    bookings::cancel(&state, &r, &booking).await?;
    answer_booking(&state, &r, uuid_of(&params)).await
}

/// `PATCH /bookings/{uuid}` (`update`).
async fn update_booking(
    State(state): State<AppState>,
    r: Reseller,
    Path(params): Path<HashMap<String, String>>,
    bytes: Bytes,
) -> OctoResult<Response> {
    update::update(&state, &r, uuid_of(&params), body(&bytes)?).await?;
    answer_booking(&state, &r, uuid_of(&params)).await
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BookingsQuery {
    #[serde(default)]
    reseller_reference: Option<String>,
    #[serde(default)]
    supplier_reference: Option<String>,
    #[serde(default)]
    local_date: Option<NaiveDate>,
}

async fn list_bookings(
    State(state): State<AppState>,
    r: Reseller,
    RawQuery(raw): RawQuery,
) -> OctoResult<Response> {
    let raw = raw.unwrap_or_default();
    crate::http::extract::reject_nul_in_pairs(raw.as_bytes())?;
    let query: HashMap<String, String> = form_urlencoded::parse(raw.as_bytes())
        .into_owned()
        .collect();
    let query: BookingsQuery = serde_json::to_value(&query)
        .and_then(serde_json::from_value)
        .map_err(|e| OctoError::bad_request(format!("The query is not valid: {e}")))?;
    let filter = OctoBookingFilter {
        reseller_reference: query.reseller_reference,
        supplier_reference: query.supplier_reference,
        local_date: query.local_date,
    };
    let found = state
        .store
        .octo_bookings(r.partner.partner_client_id, r.merchant.merchant_id, &filter)
        .await
        .map_err(crate::error::Error::from)?;
    let mut out = Vec::with_capacity(found.len());
    for booking in &found {
        out.push(booking_json(&state, &r, booking).await?);
    }
    Ok(r.answer(Json(out)))
}

/// `GET /capabilities`: what this server implements.
async fn capabilities(r: Reseller) -> Response {
    let list: Vec<Value> = reseller::SUPPORTED
        .iter()
        .map(|id| json!({ "id": id, "revision": 1, "required": false, "dependencies": [], "docs": null }))
        .collect();
    r.answer(Json(list))
}
