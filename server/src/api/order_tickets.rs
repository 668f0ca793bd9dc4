//! `/v2/me/fulfillment/orders/{order_id}/…`: what the customer can do with a paid order: read
//! its receipt for the partner's page, download its calendar file and have the ticket mail
//! sent again.

use axum::{
    extract::State,
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use app::wire::{Envelope, OrderReceipt};

use super::orders::owned_order;
use crate::{
    checkout::{self, order_view::order_views},
    error::{Error, ProblemType, Result},
    http::{
        campaign::SessionCampaign,
        envelope::Data,
        extract::ApiPath,
        openapi::{Problem401, Problem404, Problem409, SessionCampaignHeader},
    },
    state::AppState,
    tickets::{self, resend::Resend},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(calendar))
        .routes(routes!(resend))
        .routes(routes!(receipt))
        .routes(routes!(google_wallet))
        .routes(routes!(apple_wallet))
}

/// The order's Apple Wallet passes: one ticket's `.pkpass`, or a `.pkpasses` bundle of one
/// per ticket, when the operator configured Apple Wallet; otherwise
/// `404 wallet-not-configured`.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/wallet/apple", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, content_type = "application/vnd.apple.pkpass", body = Vec<u8>,
               description = "One ticket's pass; several tickets are one `application/vnd.apple.pkpasses` bundle."),
              Problem401, Problem404))]
async fn apple_wallet(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Response> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let Some(wallet) = &state.tickets.apple_wallet else {
        return Err(Error::new(
            ProblemType::WalletNotConfigured,
            "This server offers no Apple Wallet passes.",
        ));
    };
    let doc = paid_doc(&state, order.customer_order_id).await?;
    Ok(wallet.passes(&doc)?.into_response())
}

/// The documents' view of a paid order, or 404 while it has no tickets.
async fn paid_doc(state: &AppState, order_id: Uuid) -> Result<tickets::order_doc::OrderDoc> {
    tickets::order_doc::load(&state.tickets, order_id)
        .await?
        .ok_or_else(|| {
            Error::new(
                ProblemType::NotFound,
                format!("Order {order_id} has no tickets yet."),
            )
        })
}

/// A link that saves a paid order's tickets.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct WalletLink {
    /// Open it (a link or Google's button): Google Wallet shows the tickets to save.
    pub save_url: String,
}

/// The order's "save to Google Wallet" link, when the operator configured Google Wallet;
/// otherwise `404 wallet-not-configured`.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/wallet/google", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<WalletLink>)),
              Problem401, Problem404))]
async fn google_wallet(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Data<WalletLink>> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let Some(wallet) = &state.tickets.google_wallet else {
        return Err(Error::new(
            ProblemType::WalletNotConfigured,
            "This server offers no Google Wallet passes.",
        ));
    };
    let doc = paid_doc(&state, order.customer_order_id).await?;
    Ok(Data::ok(WalletLink {
        save_url: wallet.save_url(&doc)?,
    }))
}

/// The paid order's receipt: its total and lines, and a JWS over them the partner's page
/// verifies with `/.well-known/jwks.json`. The frame sends it in `boxoffice:order-paid`.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/receipt", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<OrderReceipt>)),
              Problem401, Problem404, Problem409))]
async fn receipt(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Data<OrderReceipt>> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    if !order.status.is_paid() {
        return Err(Error::new(
            ProblemType::Conflict,
            format!(
                "Order {order_id} is {}; only a paid order has a receipt.",
                order.status
            ),
        ));
    }
    let mut views = order_views(state.store.as_ref(), std::slice::from_ref(&order)).await?;
    let entries = state
        .store
        .ledger_entries_of_order(order.customer_order_id)
        .await?;
    Ok(Data::ok(checkout::receipt::receipt(
        &state.authn.tokens,
        &views.remove(0),
        crate::settlement::vat::of_entries(&entries),
        &user.claims.client_id,
        campaign.campaign_id,
    )?))
}

/// The order's visits as an iCalendar file (RFC 5545) in the merchant's time zone, for "Add to
/// calendar". The same file is attached to the ticket mail.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/calendar.ics", tag = "orders",
    operation_id = "order_calendar",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, content_type = "text/calendar", body = String),
              Problem401, Problem404))]
async fn calendar(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Response> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    let doc = paid_doc(&state, order.customer_order_id).await?;
    let url = tickets::page_url(&state.tickets, order_id).await?;
    let body = tickets::calendar::ics(&doc, &tickets::uid_host(&state.tickets), url.as_deref());
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/calendar; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=\"tickets.ics\""),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response())
}

/// Sends the order's ticket mail again, to the order's address. Three times per order an hour;
/// then 429 with `Retry-After`.
#[utoipa::path(post, path = "/v2/me/fulfillment/orders/{order_id}/resend", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 202, description = "The mail is on its way."),
              (status = 429, body = app::wire::Problem, content_type = "application/problem+json",
               description = "Three resends in the last hour; `Retry-After` says when to ask again."),
              Problem401, Problem404, Problem409))]
async fn resend(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Response> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    match tickets::resend::by_customer(&state.tickets, &order).await? {
        Resend::Queued => Ok(StatusCode::ACCEPTED.into_response()),
        Resend::Limited { retry_after_secs } => {
            let mut response = Error::new(
                ProblemType::RateLimited,
                format!(
                    "The tickets of this order were sent again {} times in the last hour; retry in {retry_after_secs} s.",
                    tickets::resend::CUSTOMER_RESENDS
                ),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            Ok(response)
        }
    }
}
