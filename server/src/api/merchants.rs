//! `GET /v2/merchants` and `GET /v2/merchants/{merchant_id}`: the merchants of the campaign.

use app::wire::{self, Envelope};
use axum::extract::State;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    catalog::merchants::{merchant_in_campaign, to_wire},
    error::Result,
    http::{
        campaign::SessionCampaign,
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiPath, ApiQuery},
        locale::RequestLocale,
        openapi::{
            LanguageHeader, Problem400, Problem401, Problem403, Problem404, SessionCampaignHeader,
        },
    },
    state::AppState,
    store::Merchant,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_merchants))
        .routes(routes!(get_merchant))
}

/// Paging of the merchant list (its only filter is the campaign).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MerchantListParams {
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`; valid only with the same
    /// limit and campaign.
    next_token: Option<String>,
}

/// The merchants of the campaign (those with a product in it), in key (id) order, paged by
/// cursor. The absence of `meta.pagination.next_token` is the only end signal.
#[utoipa::path(get, path = "/v2/merchants", tag = "catalog", security(("public_bearer" = [])),
    params(MerchantListParams,
        SessionCampaignHeader,
        LanguageHeader),
    responses((status = 200, body = inline(Envelope<Vec<wire::Merchant>>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn list_merchants(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    ApiQuery(params): ApiQuery<MerchantListParams>,
) -> Result<Page<wire::Merchant>> {
    let campaign_id = campaign.campaign_id;
    let reads = state.reads();
    let page = PageParams {
        limit: params.limit,
        next_token: params.next_token,
    };
    let page = paginate(
        &state.cursors,
        &page,
        "v2/merchants",
        &format!("campaign_id={campaign_id}"),
        |m: &Merchant| m.merchant_id,
        |after, limit| async move {
            let (catalog, store) = reads;
            let page = catalog.merchant_page(store, campaign_id, after, limit);
            page.await.map(|merchants| merchants.to_vec())
        },
    )
    .await?;
    Ok(Page {
        items: page.items.iter().map(|m| to_wire(m, locale)).collect(),
        limit: page.limit,
        next_token: page.next_token,
    })
}

/// One merchant of the campaign, localized; 404 `merchant-not-found` when it is unknown or not
/// in the campaign.
#[utoipa::path(get, path = "/v2/merchants/{merchant_id}", tag = "catalog", security(("public_bearer" = [])),
    params(("merchant_id" = Uuid, Path),
        SessionCampaignHeader,
        LanguageHeader),
    responses((status = 200, body = inline(Envelope<wire::Merchant>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn get_merchant(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    ApiPath(merchant_id): ApiPath<Uuid>,
) -> Result<Data<wire::Merchant>> {
    let merchant = merchant_in_campaign(state.reads(), merchant_id, campaign.campaign_id).await?;
    Ok(Data::ok(to_wire(&merchant, locale)))
}
