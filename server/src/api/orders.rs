//! `/v2/me/...`: the signed-in customer's orders (with tickets) and loyalty ledger.

use app::wire::{Envelope, LoyaltyEntry, Order};
use axum::extract::State;
use chrono::{DateTime, Utc};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    after_sale::page::order_read,
    auth::PublicUser,
    error::{Error, ProblemType, Result},
    http::{
        campaign::SessionCampaign,
        cursor::{paginate, PageParams},
        envelope::{Data, RenderedPage},
        extract::{ApiPath, ApiQuery},
        openapi::{Problem400, Problem401, Problem403, Problem404, SessionCampaignHeader},
    },
    state::AppState,
    store::{Campaign, LoyaltyEntryKey, OrderRecord, OrderVersion},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_orders))
        .routes(routes!(get_order))
        .routes(routes!(list_loyalty_entries))
}

/// The customer's orders in the campaign, newest first by `last_mutation_date`.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders", tag = "orders", security(("public_bearer" = [])),
    params(PageParams, SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<Vec<Order>>)),
              Problem400, Problem401, Problem403))]
async fn list_orders(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<RenderedPage> {
    let (customer, campaign_id) = (user.customer_id, campaign.campaign_id);
    let page = paginate(
        &state.cursors,
        &params,
        "v2/me/fulfillment/orders",
        &format!("campaign_id={campaign_id}"),
        |o: &OrderVersion| (o.last_mutation_date, o.customer_order_id),
        |after: Option<(DateTime<Utc>, Uuid)>, limit| {
            state
                .store
                .order_versions_of_customer(customer, campaign_id, after, limit)
        },
    )
    .await?;
    let orders = state
        .commerce
        .customer_copies
        .orders(&state.commerce, &page.items)
        .await?;
    Ok(RenderedPage::of_items(orders, page.limit, page.next_token))
}

/// One of the customer's orders, with its tickets once paid, its refunds and what it allows
/// now (`after_sale`: cancel, change the date, withdraw).
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}", tag = "orders", security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<Order>)),
              Problem401, Problem404))]
async fn get_order(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Data<Order>> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    Ok(Data::ok(order_read(&state, order).await?))
}

/// The order `order_id` when it is the bearer's customer's, in the session's campaign; any
/// other order is answered as if it did not exist.
pub async fn owned_order(
    state: &AppState,
    user: &PublicUser,
    campaign: &Campaign,
    order_id: Uuid,
) -> Result<OrderRecord> {
    state
        .store
        .order(order_id)
        .await?
        .filter(|o| {
            o.customer_id == Some(user.customer_id) && o.campaign_id == campaign.campaign_id
        })
        .ok_or_else(|| {
            Error::new(
                ProblemType::NotFound,
                format!("Order {order_id} was not found."),
            )
        })
}

/// The customer's loyalty ledger in the campaign, newest first.
#[utoipa::path(get, path = "/v2/me/loyalty/ledger/entries", tag = "orders", security(("public_bearer" = [])),
    params(PageParams, SessionCampaignHeader),
    responses((status = 200, body = inline(Envelope<Vec<LoyaltyEntry>>)),
              Problem400, Problem401))]
async fn list_loyalty_entries(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<RenderedPage> {
    let (customer, campaign_id) = (user.customer_id, campaign.campaign_id);
    let page = paginate(
        &state.cursors,
        &params,
        "v2/me/loyalty/ledger/entries",
        &format!("campaign_id={campaign_id}"),
        |e: &LoyaltyEntryKey| (e.occurred_at, e.loyalty_entry_id),
        |after: Option<(DateTime<Utc>, Uuid)>, limit| {
            state
                .store
                .loyalty_entry_keys(customer, campaign_id, after, limit)
        },
    )
    .await?;
    let ids: Vec<Uuid> = page.items.iter().map(|e| e.loyalty_entry_id).collect();
    let entries = state
        .commerce
        .customer_copies
        .ledger(&state.commerce, &ids)
        .await?;
    Ok(RenderedPage::of_items(entries, page.limit, page.next_token))
}
