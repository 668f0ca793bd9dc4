//! `GET /v2/merchants` and `GET /v2/merchants/{merchant_id}`: the merchants of the campaign.

use app::wire::{self, Envelope, Locale};
use axum::extract::State;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    catalog::merchants::{merchant_in_campaign, merchant_page, to_wire},
    error::Result,
    http::{
        campaign::SessionCampaign,
        cursor::{PageCursor, PageParams},
        envelope::{Data, RenderedPage},
        extract::{ApiPath, ApiQuery},
        locale::RequestLocale,
        openapi::{
            LanguageHeader, Problem400, Problem401, Problem403, Problem404, SessionCampaignHeader,
        },
    },
    state::AppState,
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
) -> Result<RenderedPage> {
    let page = PageParams {
        limit: params.limit,
        next_token: params.next_token,
    };
    merchant_list_page(&state, campaign.campaign_id, &page, locale).await
}

/// The page of the campaign's merchants `page` asks for, as `GET /v2/merchants` answers it
/// (the frame's first screen is rendered with it too: `frame::first_page`).
pub async fn merchant_list_page(
    state: &AppState,
    campaign_id: Uuid,
    page: &PageParams,
    locale: Locale,
) -> Result<RenderedPage> {
    let filters = format!("campaign_id={campaign_id}");
    let (cursor, after) = PageCursor::open(&state.cursors, page, "v2/merchants", &filters)?;
    let answer = merchant_page(state.reads(), campaign_id, after, cursor.limit(), locale).await?;
    Ok(RenderedPage {
        items_json: answer.items_json.clone(),
        item_count: answer.item_count,
        limit: cursor.limit(),
        next_token: answer.last_before_more.map(|last| cursor.next_token(&last)),
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
    Ok(Data::ok(to_wire(
        &merchant,
        locale,
        &state.commerce.catalog.base,
    )))
}
