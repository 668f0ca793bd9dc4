//! `/v2/orders/{order_id}…`: a partner's backend reads, cancels, withdraws from and changes the
//! date of the orders made through its sessions, for its customers (docs/integration.md,
//! "After the sale"). Another partner's order is 404. Thin: the rules are in
//! `crate::after_sale`.

use app::wire::{
    AfterSaleOutcome, Envelope, ManagedCancellationRequest, Order, RebookingRequest,
    WithdrawalRequest,
};
use axum::{extract::State, http::HeaderMap, response::Response};
use chrono::Utc;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{checkouts::idempotency_key, order_changes::answer};
use crate::{
    after_sale::{page::order_read, requests},
    auth::BackendClient,
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath},
        openapi::{Problem400, Problem401, Problem404, Problem409, Problem422},
    },
    state::AppState,
    store::OrderRecord,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_partner_order))
        .routes(routes!(cancel_partner_tickets))
        .routes(routes!(withdraw_for_customer))
        .routes(routes!(change_date_for_customer))
}

/// The order `order_id` when a session of `client` made it; any other is answered as if it
/// did not exist.
pub(super) async fn partners_order(
    state: &AppState,
    client: &BackendClient,
    order_id: Uuid,
) -> Result<OrderRecord> {
    let not_found = || {
        Error::new(
            ProblemType::NotFound,
            format!("Order {order_id} was not found."),
        )
    };
    let partner = state
        .store
        .partner_client_by_client_id(&client.client_id)
        .await?
        .ok_or_else(not_found)?;
    let order = state.store.order(order_id).await?.ok_or_else(not_found)?;
    let checkout = state
        .store
        .checkout(order.checkout_id)
        .await?
        .ok_or_else(not_found)?;
    if checkout.partner_client_id != Some(partner.client.partner_client_id) {
        return Err(not_found());
    }
    Ok(order)
}

/// One order made through the partner's sessions, with its tickets, refunds and what it
/// allows now (`after_sale`).
#[utoipa::path(get, path = "/v2/orders/{order_id}", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path)),
    responses((status = 200, body = inline(Envelope<Order>)), Problem401, Problem404))]
async fn get_partner_order(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Data<Order>> {
    let order = partners_order(&state, &client, order_id).await?;
    Ok(Data::ok(order_read(&state, order).await?))
}

/// Cancels some or all valid tickets for the customer, at the policy's `refund_percent` or a
/// lower one (`refund-above-policy` when higher: goodwill is the operator's). Emits
/// `orders.TicketsCancelled` (reason `PARTNER`).
#[utoipa::path(post, path = "/v2/orders/{order_id}/cancellation", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path),
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = ManagedCancellationRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409))]
async fn cancel_partner_tickets(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<ManagedCancellationRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = partners_order(&state, &client, order_id).await?;
    let changed = requests::managed_cancellation(
        &state.commerce,
        order,
        crate::after_sale::Actor::Partner,
        request,
        Some(key),
        Utc::now(),
    )
    .await?;
    Ok(answer(changed))
}

/// The customer's withdrawal from the contract (EU), made by the partner's backend for a
/// headless integration's own "withdraw" control.
#[utoipa::path(post, path = "/v2/orders/{order_id}/withdrawal", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path),
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = WithdrawalRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409))]
async fn withdraw_for_customer(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<WithdrawalRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = partners_order(&state, &client, order_id).await?;
    let changed =
        requests::withdrawal(&state.commerce, order, request, Some(key), Utc::now()).await?;
    Ok(answer(changed))
}

/// Moves the visit to another day or slot for the customer, before the policy's
/// `rebook_until`. Emits `orders.OrderRebooked`.
#[utoipa::path(post, path = "/v2/orders/{order_id}/rebooking", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path),
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = RebookingRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 202, body = inline(Envelope<AfterSaleOutcome>), description = "A dearer day: the new places are held and the visit moves once the difference is paid at `payment_url`"),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409, Problem422))]
async fn change_date_for_customer(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<RebookingRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = partners_order(&state, &client, order_id).await?;
    let return_url = crate::after_sale::page::after_paying(&state, order_id).await?;
    let changed = requests::rebooking(
        &state.commerce,
        order,
        crate::after_sale::Actor::Partner,
        request,
        Some(key),
        return_url,
        Utc::now(),
    )
    .await?;
    Ok(answer(changed))
}
