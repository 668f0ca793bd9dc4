//! The operator's after-sale routes (docs/operator-api.md, "After the sale"): cancel any order
//! at any refund percent (goodwill), move its date at any time, record a physical order's
//! shipment (its withdrawal period starts), and cancel a day or slot of a product for the
//! merchant. Thin: the rules are in `crate::after_sale`.

use app::wire::{AfterSaleOutcome, Envelope, ManagedCancellationRequest, Order, RebookingRequest};
use axum::{http::HeaderMap, response::Response};
use chrono::{NaiveDate, Utc};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    after_sale::{closure, facts::order_now, requests},
    api::checkouts::idempotency_key,
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath},
        openapi::{Problem400, Problem404, Problem409, Problem422},
    },
    state::AppState,
    store::OrderRecord,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(cancel_order))
        .routes(routes!(rebook_order))
        .routes(routes!(record_shipment))
        .routes(routes!(cancel_day))
}

async fn order(state: &AppState, order_id: Uuid) -> Result<OrderRecord> {
    state.store.order(order_id).await?.ok_or_else(|| {
        Error::new(
            ProblemType::NotFound,
            format!("Order {order_id} was not found."),
        )
    })
}

/// The Idempotency-Key when one was sent (the operator's is optional).
fn optional_key(headers: &HeaderMap) -> Result<Option<Uuid>> {
    if headers.contains_key("idempotency-key") {
        idempotency_key(headers).map(Some)
    } else {
        Ok(None)
    }
}

/// Cancels some or all valid tickets at any `refund_percent` (absent: all of it), whatever
/// the policy says. Emits `orders.TicketsCancelled` (reason `OPERATOR`); mails the customer.
#[utoipa::path(post, path = "/admin/v1/orders/{order_id}/cancellation",
    params(("order_id" = Uuid, Path),
        ("Idempotency-Key" = Option<Uuid>, Header, description = "Optional; a retry with it replays the first answer")),
    request_body = ManagedCancellationRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              Problem400, Problem404, Problem409))]
async fn cancel_order(
    Admin(state): Admin,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<ManagedCancellationRequest>,
) -> Result<Response> {
    let key = optional_key(&headers)?;
    let order = order(&state, order_id).await?;
    let changed = requests::managed_cancellation(
        &state.commerce,
        order,
        crate::after_sale::Actor::Operator,
        request,
        key,
        Utc::now(),
    )
    .await?;
    Ok(crate::api::order_changes::answer(changed))
}

/// Moves an order's visit to another day or slot, also past the policy's deadline.
#[utoipa::path(post, path = "/admin/v1/orders/{order_id}/rebooking",
    params(("order_id" = Uuid, Path),
        ("Idempotency-Key" = Option<Uuid>, Header, description = "Optional; a retry with it replays the first answer")),
    request_body = RebookingRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 202, body = inline(Envelope<AfterSaleOutcome>), description = "A dearer day: the new places are held and the visit moves once the difference is paid at `payment_url`"),
              Problem400, Problem404, Problem409, Problem422))]
async fn rebook_order(
    Admin(state): Admin,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<RebookingRequest>,
) -> Result<Response> {
    let key = optional_key(&headers)?;
    let order = order(&state, order_id).await?;
    let return_url = crate::after_sale::page::after_paying(&state, order_id).await?;
    let changed = requests::rebooking(
        &state.commerce,
        order,
        crate::after_sale::Actor::Operator,
        request,
        key,
        return_url,
        Utc::now(),
    )
    .await?;
    Ok(crate::api::order_changes::answer(changed))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct Shipment {
    /// The day the order left, in the merchant's zone; not in the future.
    shipped_on: NaiveDate,
}

/// Records the day a physical order was shipped: its withdrawal period counts from it.
/// Returns the order as its customer reads it now.
#[utoipa::path(post, path = "/admin/v1/orders/{order_id}/shipment",
    params(("order_id" = Uuid, Path)),
    request_body = Shipment,
    responses((status = 200, body = inline(Envelope<Order>)), Problem400, Problem404, Problem409))]
async fn record_shipment(
    Admin(state): Admin,
    ApiPath(order_id): ApiPath<Uuid>,
    ApiJson(shipment): ApiJson<Shipment>,
) -> Result<Data<Order>> {
    let order = order(&state, order_id).await?;
    let now = Utc::now();
    let merchant = state
        .commerce
        .catalog
        .definitions
        .merchant(state.store.as_ref(), order.merchant_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("order {order_id} has no merchant"))?;
    let today = crate::time::local_date(merchant.zone()?, now);
    if shipment.shipped_on > today {
        return Err(Error::invalid_field(
            "shipped_on",
            "future",
            format!("shipped_on is after today ({today}) in the merchant's time zone"),
        ));
    }
    if !order.status.is_paid() {
        return Err(Error::new(
            ProblemType::Conflict,
            format!(
                "Order {} is {}: only a paid order ships.",
                order.display_id, order.status
            ),
        ));
    }
    let mut tx = state.store.begin_checkout().await?;
    tx.set_shipped_on(order_id, shipment.shipped_on).await?;
    tx.commit().await?;
    let order = self::order(&state, order_id).await?;
    Ok(Data::ok(order_now(&state.commerce, order, now).await?))
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct DayCancellation {
    /// Only this slot of the day; absent: the whole day of the product's availability group.
    #[serde(default)]
    timeslot_id: Option<Uuid>,
}

/// Cancels a day (or one slot) of a product for the merchant: it is closed for sale at once,
/// then every order with valid tickets on it is refunded in full, its customer mailed and its
/// partner told (`orders.TicketsCancelled`, reason `MERCHANT_CLOSED`). Asking again finishes
/// what a failure left.
#[utoipa::path(post, path = "/admin/v1/products/{product_id}/calendar/{date}/cancellation",
    params(("product_id" = Uuid, Path), ("date" = NaiveDate, Path)),
    request_body = DayCancellation,
    responses((status = 200, body = inline(Envelope<closure::Closed>)), Problem400, Problem404))]
async fn cancel_day(
    Admin(state): Admin,
    ApiPath((product_id, date)): ApiPath<(Uuid, NaiveDate)>,
    ApiJson(request): ApiJson<DayCancellation>,
) -> Result<Data<closure::Closed>> {
    let closed = closure::close(
        &state.commerce,
        product_id,
        date,
        request.timeslot_id,
        Utc::now(),
    )
    .await?;
    Ok(Data::ok(closed))
}
