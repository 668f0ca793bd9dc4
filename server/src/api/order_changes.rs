//! `/v2/me/fulfillment/orders/{order_id}/…`: the customer cancels tickets, withdraws from the
//! contract or changes the date of their own order (docs/api-checkout.md, "After the sale").
//! Thin: the rules are in `crate::after_sale`.

use app::wire::{
    AfterSaleOutcome, CancellationRequest, Envelope, RebookingRequest, WithdrawalRequest,
};
use axum::{extract::State, http::HeaderMap, response::Response};
use chrono::Utc;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    checkouts::{idempotency_key, keyed_response},
    orders::owned_order,
};
use crate::{
    after_sale::{change::Changed, requests},
    error::Result,
    http::{
        campaign::SessionCampaign,
        extract::{ApiJson, ApiPath},
        openapi::{
            Problem400, Problem401, Problem404, Problem409, Problem422, SessionCampaignHeader,
        },
    },
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(cancel_tickets))
        .routes(routes!(withdraw))
        .routes(routes!(change_date))
}

/// The answer of a change: 200 (or 208 replayed, with the first answer).
pub(crate) fn answer(changed: Changed) -> Response {
    let status = changed.status();
    let (body, replayed) = changed.into_body();
    keyed_response(status, body, replayed)
}

/// Cancels some or all valid tickets under the policy the order was paid under: 200 with the
/// order as it now is and the `refund`. Refused with 409 `order-not-cancellable` past every
/// deadline (the detail names it), 409 `ticket-not-cancellable` for a ticket cancelled or
/// used already. Emits `orders.TicketsCancelled`; mails the customer.
#[utoipa::path(post, path = "/v2/me/fulfillment/orders/{order_id}/cancellation", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader,
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = CancellationRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409))]
async fn cancel_tickets(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<CancellationRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let changed =
        requests::customer_cancellation(&state.commerce, order, request, key, Utc::now()).await?;
    Ok(answer(changed))
}

/// Withdraws from the contract (EU) for the lines that carry the right, within its period:
/// a full refund and an acknowledgement mail stating when it was received. 409
/// `order-not-withdrawable` outside the period or for dated tickets.
#[utoipa::path(post, path = "/v2/me/fulfillment/orders/{order_id}/withdrawal", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader,
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = WithdrawalRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409))]
async fn withdraw(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<WithdrawalRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let changed =
        requests::withdrawal(&state.commerce, order, request, Some(key), Utc::now()).await?;
    Ok(answer(changed))
}

/// Moves the visit to another day or slot (`date` as in the express checkout) before the
/// policy's `rebook_until`: new tickets in the same order, the old ones CANCELLED with
/// `replaced_by`, a cheaper day's difference refunded; a dearer day answers 202 with the
/// difference's `payment_url` and moves once it is paid. No room: 422
/// `checkout-product-not-fulfillable` and nothing changed. Emits `orders.OrderRebooked`.
#[utoipa::path(post, path = "/v2/me/fulfillment/orders/{order_id}/rebooking", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader,
        ("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per change")),
    request_body = RebookingRequest,
    responses((status = 200, body = inline(Envelope<AfterSaleOutcome>)),
              (status = 202, body = inline(Envelope<AfterSaleOutcome>), description = "A dearer day: the new places are held and the visit moves once the difference is paid at `payment_url`"),
              (status = 208, body = inline(Envelope<AfterSaleOutcome>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem404, Problem409, Problem422))]
async fn change_date(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<RebookingRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let return_url = crate::after_sale::page::after_paying(&state, order_id).await?;
    let changed = requests::rebooking(
        &state.commerce,
        order,
        crate::after_sale::Actor::Customer,
        request,
        Some(key),
        return_url,
        Utc::now(),
    )
    .await?;
    Ok(answer(changed))
}
