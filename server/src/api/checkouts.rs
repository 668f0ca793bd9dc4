//! `/v2/checkouts`: reserve, confirm, read, and the one-call express checkout. Thin: the
//! rules are in `crate::checkout`.

use app::wire::{
    Checkout, CheckoutRequest, ConfirmRequest, Envelope, ExpressCheckoutRequest, PlacedOrder,
};
use axum::{
    extract::State,
    http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use chrono::Utc;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    auth::{MaybePublicUser, PublicUser},
    checkout::{
        basket,
        confirm::confirm,
        create::create,
        express::{express, Express},
        extend::extend,
        lifecycle::release_reservation,
        read,
        reserve::Buyer,
        view::checkout_view,
    },
    error::{Error, ProblemType, Result},
    http::{
        campaign::{self, SessionCampaign},
        correlation,
        envelope::Data,
        extract::{ApiJson, ApiPath},
        locale::RequestLocale,
        openapi::{
            Problem400, Problem401, Problem403, Problem404, Problem409, Problem422, Problem502,
            SessionCampaignHeader,
        },
        rate_limit::RequestAddress,
    },
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(express_checkout))
        .routes(routes!(create_checkout))
        .routes(routes!(get_checkout, release_checkout))
        .routes(routes!(confirm_checkout))
        .routes(routes!(extend_checkout))
}

const IDEMPOTENCY_KEY: &str = "idempotency-key";
static REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// A bearer's buyer: what its checkouts are held by and attributed to (`checkout::holds`).
fn buyer(user: &PublicUser, RequestAddress(address): RequestAddress) -> Buyer {
    Buyer {
        customer_id: Some(user.customer_id),
        partner_client_id: user.partner_client_id,
        session_id: Some(user.session_id),
        address,
    }
}

/// Who acts on an existing checkout (`read::visible` checks what they may do with it).
fn caller(user: Option<PublicUser>) -> read::Caller {
    user.map_or_else(read::Caller::default, |user| read::Caller {
        customer_id: Some(user.customer_id),
        partner_client_id: user.partner_client_id,
    })
}

/// Reserves the basket for 15 minutes and returns the priced review: the authoritative
/// totals and `requires_shipping_address`. Emits `checkouts.CheckoutStarted`. Refused with
/// 409 `checkout-hold-limit-reached` when the buyer already holds as much as one buyer may.
#[utoipa::path(post, path = "/v2/checkouts", tag = "checkout", security(("public_bearer" = [])),
    params(SessionCampaignHeader),
    request_body = CheckoutRequest,
    responses((status = 201, body = inline(Envelope<Checkout>)),
              Problem400, Problem401, Problem403, Problem404, Problem409, Problem422, Problem502))]
async fn create_checkout(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    address: RequestAddress,
    body: Result<ApiJson<CheckoutRequest>>,
) -> Result<Data<Checkout>> {
    let ApiJson(request) = body.map_err(basket::line_problem)?;
    let checkout = create(
        &state.commerce,
        campaign.campaign_id,
        buyer(&user, address),
        locale,
        &request,
        Utc::now(),
    )
    .await?;
    Ok(Data::created(checkout))
}

/// Confirms a reserved checkout with the customer's details: the order is placed awaiting
/// payment and `payment_url` is where to send the customer. Emits
/// `checkouts.CheckoutFulfillmentRegistered`.
#[utoipa::path(post, path = "/v2/checkouts/{checkout_id}/confirm", tag = "checkout",
    security((), ("public_bearer" = [])),
    params(("checkout_id" = Uuid, Path)),
    request_body = ConfirmRequest,
    responses((status = 200, body = inline(Envelope<PlacedOrder>)),
              Problem400, Problem401, Problem403, Problem404, Problem409, Problem422, Problem502))]
async fn confirm_checkout(
    MaybePublicUser(user): MaybePublicUser,
    State(state): State<AppState>,
    ApiPath(checkout_id): ApiPath<Uuid>,
    ApiJson(request): ApiJson<ConfirmRequest>,
) -> Result<Data<PlacedOrder>> {
    let placed = confirm(
        &state.commerce,
        checkout_id,
        caller(user),
        &request,
        Utc::now(),
    )
    .await?;
    Ok(Data::ok(placed))
}

/// More time for a reservation, once: its hold ends 10 minutes later, never beyond 30 minutes
/// from the reservation (the payment window). A second extension is 409
/// `checkout-hold-already-extended`; a checkout no longer RESERVED (confirmed, or its hold
/// ended) is 409 `checkout-not-reserved`. Returns the checkout with its new `expires_at`.
#[utoipa::path(post, path = "/v2/checkouts/{checkout_id}/extend", tag = "checkout",
    security((), ("public_bearer" = [])),
    params(("checkout_id" = Uuid, Path)),
    responses((status = 200, body = inline(Envelope<Checkout>)),
              Problem400, Problem401, Problem403, Problem404, Problem409))]
async fn extend_checkout(
    MaybePublicUser(user): MaybePublicUser,
    State(state): State<AppState>,
    ApiPath(checkout_id): ApiPath<Uuid>,
) -> Result<Data<Checkout>> {
    let checkout = extend(&state.commerce, checkout_id, caller(user), Utc::now()).await?;
    Ok(Data::ok(checkout))
}

/// The checkout's status, lines, authoritative totals, payment status and order. A checkout
/// made under a bearer is readable only with that customer's bearer; a guest's by its id.
#[utoipa::path(get, path = "/v2/checkouts/{checkout_id}", tag = "checkout",
    security((), ("public_bearer" = [])),
    params(("checkout_id" = Uuid, Path)),
    responses((status = 200, body = inline(Envelope<Checkout>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn get_checkout(
    MaybePublicUser(user): MaybePublicUser,
    State(state): State<AppState>,
    ApiPath(checkout_id): ApiPath<Uuid>,
) -> Result<Data<Checkout>> {
    let record = read::visible(&state.commerce, checkout_id, caller(user)).await?;
    Ok(Data::ok(checkout_view(&state.commerce, &record).await?))
}

/// Gives up a reservation before its hold runs out: its places, vouchers and wallet amount
/// go back at once (the frame does this when a voucher reprices the basket as a new
/// reservation). Only a RESERVED checkout can be released; releasing one that already expired
/// is a no-op. Emits `checkouts.CheckoutExpired`.
#[utoipa::path(delete, path = "/v2/checkouts/{checkout_id}", tag = "checkout",
    security((), ("public_bearer" = [])),
    params(("checkout_id" = Uuid, Path)),
    responses((status = 204, description = "Released (or already expired)"),
              Problem400, Problem401, Problem403, Problem404, Problem409))]
async fn release_checkout(
    MaybePublicUser(user): MaybePublicUser,
    State(state): State<AppState>,
    ApiPath(checkout_id): ApiPath<Uuid>,
) -> Result<Response> {
    let record = read::visible(&state.commerce, checkout_id, caller(user)).await?;
    release_reservation(&state.commerce, &record).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Reserves and confirms in one call and returns the payment URL (no totals: read them from
/// `GET /v2/checkouts/{checkout_id}` after the redirect). Guests are welcome. A retry with the
/// same Idempotency-Key replays the success with 208 and `Idempotent-Replayed: true`, or
/// re-attempts cleanly after a failure. Emits `checkouts.CheckoutStarted` and
/// `checkouts.CheckoutFulfillmentRegistered`.
#[utoipa::path(post, path = "/v2/checkouts/express", tag = "checkout",
    security((), ("public_bearer" = [])),
    params(("Idempotency-Key" = Uuid, Header, description = "Required; a UUID per purchase attempt"),
        ("x-campaign-id" = Option<Uuid>, Header, description = "Required for guests; defaults to the session's")),
    request_body = ExpressCheckoutRequest,
    responses((status = 200, body = inline(Envelope<PlacedOrder>)),
              (status = 208, body = inline(Envelope<PlacedOrder>), description = "Replay of the original success; treat as 200"),
              Problem400, Problem401, Problem403, Problem404, Problem409, Problem422, Problem502))]
async fn express_checkout(
    MaybePublicUser(user): MaybePublicUser,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    address: RequestAddress,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let (campaign_id, buyer) = match user {
        Some(user) => {
            let scope =
                SessionCampaign::resolve(&state, user, campaign::optional_campaign_id(&headers)?)
                    .await?;
            (scope.campaign.campaign_id, buyer(&scope.user, address))
        }
        None => {
            let id = campaign::campaign_id(&headers)?;
            (
                campaign::existing(&state, id).await?.campaign_id,
                Buyer {
                    address: address.0,
                    ..Buyer::default()
                },
            )
        }
    };
    crate::http::extract::require_json(&headers)?;
    let request: ExpressCheckoutRequest =
        crate::http::extract::parse_json(&body).map_err(basket::line_problem)?;
    // The work runs to its end even when the client hangs up, so its outcome is stored under
    // the key and a retry gets the replay instead of waiting out the lock.
    let correlation_id = correlation::current();
    let work = tokio::spawn(correlation::scope(correlation_id, async move {
        express(
            &state.commerce,
            campaign_id,
            buyer,
            locale,
            key,
            request,
            Utc::now(),
        )
        .await
    }));
    let outcome = work
        .await
        .map_err(|e| anyhow::anyhow!("express checkout task: {e}"))??;
    Ok(match outcome {
        Express::Placed(body) => keyed_response(StatusCode::OK, body, false),
        Express::Replayed(body) => keyed_response(StatusCode::OK, body, true),
    })
}

/// The answer of a request made once per Idempotency-Key: its JSON `body` with `status`, or,
/// replayed, with 208 and `Idempotent-Replayed: true`.
pub(crate) fn keyed_response(status: StatusCode, body: Vec<u8>, replayed: bool) -> Response {
    let json = HeaderValue::from_static("application/json");
    if replayed {
        (
            StatusCode::ALREADY_REPORTED,
            [
                (header::CONTENT_TYPE, json),
                (REPLAYED.clone(), HeaderValue::from_static("true")),
            ],
            body,
        )
            .into_response()
    } else {
        (status, [(header::CONTENT_TYPE, json)], body).into_response()
    }
}

/// The Idempotency-Key header: 400 `idempotency-key-missing` when absent, 400
/// `request-validation-failed` when it is not a UUID.
pub(crate) fn idempotency_key(headers: &HeaderMap) -> Result<Uuid> {
    let value = headers.get(IDEMPOTENCY_KEY).ok_or_else(|| {
        Error::new(
            ProblemType::IdempotencyKeyMissing,
            "Send an Idempotency-Key header (a UUID) with every express checkout.",
        )
    })?;
    value
        .to_str()
        .ok()
        .and_then(|v| Uuid::parse_str(v.trim()).ok())
        .ok_or_else(|| {
            Error::invalid_field(
                "Idempotency-Key",
                "invalid",
                "Idempotency-Key must be a UUID",
            )
        })
}
