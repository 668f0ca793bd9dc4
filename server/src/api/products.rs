//! `GET /v2/merchants/{merchant_id}/products`: the public, cacheable product list (rules:
//! docs/api-catalog.md, "Products"). A repeated read is served from the per-node cache
//! (`catalog::product_cache`).

use std::sync::Arc;

use app::wire::{self, Envelope, Locale, Problem};
use axum::{
    extract::State,
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use chrono::Utc;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::http::openapi::{LanguageHeader, Problem400, Problem404};
use crate::{
    catalog::{
        product_cache::{ProductListBody, ProductListKey},
        products::product_list,
    },
    error::{ProblemType, Result},
    http::{campaign, conditional::none_match, envelope, extract::ApiPath, locale::RequestLocale},
    state::AppState,
};

const CACHE_CONTROL: HeaderValue = HeaderValue::from_static("public, max-age=7200");
const VARY: HeaderValue = HeaderValue::from_static("Accept-Language, x-campaign-id");

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_products))
}

/// Every product of the merchant in the campaign, whole (no paging), localized by
/// Accept-Language, with stock-aware best prices and availability dates (absent when sold out).
/// Public: no bearer. A merchant without products in the campaign has `[]`. Cacheable for two
/// hours; a matching `If-None-Match` is answered 304.
#[utoipa::path(get, path = "/v2/merchants/{merchant_id}/products", tag = "catalog",
    params(("merchant_id" = Uuid, Path),
        ("x-campaign-id" = Uuid, Header, description = "Campaign (required)"),
        LanguageHeader,
        ("If-None-Match" = Option<String>, Header, description = "ETag of a copy the client holds")),
    responses((status = 200, body = inline(Envelope<Vec<wire::Product>>), headers(("ETag" = String, description = "Strong validator of this list"), ("Cache-Control" = String, description = "public, max-age=7200"), ("Vary" = String, description = "Accept-Language, x-campaign-id"), ("Content-Language" = String))),
              (status = 304, description = "The copy named by If-None-Match is current"),
              Problem400, Problem404,
              (status = 500, body = Problem, content_type = "application/problem+json", description = "urn:boxoffice:error:product-internal-error")))]
async fn list_products(
    State(state): State<AppState>,
    ApiPath(merchant_id): ApiPath<Uuid>,
    RequestLocale(locale): RequestLocale,
    headers: HeaderMap,
) -> Result<Response> {
    let campaign_id = campaign::campaign_id(&headers)?;
    let body = body(&state, merchant_id, campaign_id, locale)
        .await
        .map_err(|e| e.internal_as(ProblemType::ProductInternalError))?;
    Ok(respond(&body, locale, &headers))
}

/// The cached list, or a fresh one (which is then cached).
async fn body(
    state: &AppState,
    merchant_id: Uuid,
    campaign_id: Uuid,
    locale: Locale,
) -> Result<Arc<ProductListBody>> {
    let key = ProductListKey {
        merchant_id,
        campaign_id,
        locale,
    };
    let generation = state.commerce.catalog.generation();
    if let Some(body) = state.commerce.catalog.product_lists.get(&key, generation) {
        // Campaigns are never deleted, so one that existed when the entry was built still does.
        return Ok(body);
    }
    campaign::existing(state, campaign_id).await?;
    let products = product_list(
        state.store.as_ref(),
        merchant_id,
        campaign_id,
        locale,
        &state.commerce.catalog.base,
        Utc::now(),
    )
    .await?;
    let data = serde_json::to_vec(&products).map_err(anyhow::Error::from)?;
    let body = Arc::new(ProductListBody::new(locale, data));
    state
        .commerce
        .catalog
        .product_lists
        .put(key, body.clone(), generation);
    Ok(body)
}

/// 200 with the envelope, or 304 when the client's copy is current; both with the caching
/// headers.
fn respond(body: &ProductListBody, locale: Locale, request: &HeaderMap) -> Response {
    let mut response = if none_match(request, &body.etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        envelope::around(&body.data, &envelope::meta())
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, body.etag.clone());
    headers.insert(header::CACHE_CONTROL, CACHE_CONTROL);
    headers.insert(header::VARY, VARY);
    headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(locale.tag()),
    );
    response
}
