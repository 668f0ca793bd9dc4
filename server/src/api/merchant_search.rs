//! `GET /v2/merchants/search` and `GET /v2/merchants/broadsearch`: merchants of the campaign by
//! relevance, or by distance when geo-filtered; paged only when `limit` is sent. Scoring is in
//! `catalog::search` and docs/api-catalog.md.

use app::wire::{Envelope, Locale, MerchantMatch, Meta, Pagination};
use axum::{extract::State, response::Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    catalog::{
        geo::MAX_RADIUS_KM,
        search::{self, Hit, Near, Position, Query},
    },
    error::{Error, Result},
    http::{
        campaign::SessionCampaign,
        cursor::{paginate, PageParams},
        envelope,
        extract::ApiQuery,
        locale::RequestLocale,
        openapi::{
            LanguageHeader, Problem400, Problem401, Problem403, Problem404, SessionCampaignHeader,
        },
    },
    state::AppState,
    text::{fold, words},
    validate::Checks,
};

/// At most this many words in `q`: each costs a pass over the index.
const MAX_QUERY_WORDS: usize = 10;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search_merchants))
        .routes(routes!(broadsearch_merchants))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct SearchParams {
    /// Words to find in the merchant's name (any language); case and diacritics do not matter.
    /// Optional: without it (or blank) every merchant passing the other filters matches; else
    /// at most 200 characters with a letter or a digit, and at most 10 words.
    // A character that is neither white space nor ASCII punctuation, so any script's letters
    // and digits: JSON Schema patterns are ECMA-262's, where `\w` and `\W` are ASCII's (a
    // validating client would refuse "Ü" and "東京", which the server takes), and Unicode
    // classes (`\p{L}`) are no regular expression to Python's `re`, which validators of the
    // document use. That a symbol alone is no word is the server's to say (400 `no_words`).
    #[param(max_length = 200, pattern = r"^\s*$|[^\s!-/:-@\[-`{-~]")]
    q: Option<String>,
    /// With `longitude`: order by distance from this point and report `distance_km`.
    #[param(minimum = -90, maximum = 90)]
    latitude: Option<f64>,
    /// With `latitude`.
    #[param(minimum = -180, maximum = 180)]
    longitude: Option<f64>,
    /// Only merchants within this many kilometres of the point (needs latitude and longitude).
    #[param(exclusive_minimum = 0, maximum = 20015.1)]
    radius_km: Option<f64>,
    /// Only merchants of this category (case- and diacritic-insensitive, whole value).
    #[param(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")]
    category: Option<String>,
    /// Page size 1 to 100; without it every match comes in one response, unpaged.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor of the previous page; needs the same limit, filters and campaign.
    next_token: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct BroadSearchParams {
    /// Words to find in the merchant's name, city or category, or in the titles of its products
    /// in the campaign (any language); case and diacritics do not matter. Required: at most
    /// 200 characters with a letter or a digit, and at most 10 words.
    #[param(
        required = true,
        min_length = 1,
        max_length = 200,
        pattern = r"[^\s!-/:-@\[-`{-~]"
    )]
    q: Option<String>,
    /// Page size 1 to 100; without it every match comes in one response, unpaged.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor of the previous page; needs the same limit, q and campaign.
    next_token: Option<String>,
}

/// A checked search request.
struct Search {
    words: Vec<String>,
    category: Option<String>,
    near: Option<Near>,
    broad: bool,
    page: PageParams,
}

impl Search {
    /// The filters a cursor is bound to, in one canonical string.
    fn scope(&self, campaign_id: Uuid) -> String {
        let near = self
            .near
            .map(|n| format!("{},{},{:?}", n.latitude, n.longitude, n.radius_km))
            .unwrap_or_default();
        format!(
            "campaign_id={campaign_id};q={};category={};near={near}",
            self.words.join(" "),
            self.category.as_deref().unwrap_or_default()
        )
    }
}

fn query_words(checks: &mut Checks, q: &str) -> Vec<String> {
    checks.text("q", q, 1, 200);
    let mut found = words(q);
    found.sort();
    found.dedup();
    if !q.trim().is_empty() && found.is_empty() {
        checks.fail("q", "no_words", "q must contain a letter or a digit");
    }
    checks.check(
        found.len() <= MAX_QUERY_WORDS,
        "q",
        "too_many_words",
        format!("q may have at most {MAX_QUERY_WORDS} words"),
    );
    found
}

fn paging(checks: &mut Checks, page: &PageParams) {
    checks.check(
        page.next_token.is_none() || page.limit.is_some(),
        "next_token",
        "requires_limit",
        "next_token pages a search sent with limit; send the same limit with it",
    );
}

impl SearchParams {
    fn check(self) -> Result<Search> {
        let mut checks = Checks::default();
        let words = match self.q.as_deref() {
            Some(q) if !q.trim().is_empty() => query_words(&mut checks, q),
            _ => Vec::new(),
        };
        let category = self.category.as_deref().map(|c| {
            checks.text("category", c, 1, 100);
            fold(c.trim())
        });
        let near = match (self.latitude, self.longitude) {
            (Some(latitude), Some(longitude)) => {
                checks.in_range("latitude", latitude, -90.0, 90.0);
                checks.in_range("longitude", longitude, -180.0, 180.0);
                if let Some(r) = self.radius_km {
                    checks.check(
                        r.is_finite() && r > 0.0 && r <= MAX_RADIUS_KM,
                        "radius_km",
                        "out_of_range",
                        format!("radius_km must be above 0 and at most {MAX_RADIUS_KM}"),
                    );
                }
                Some(Near {
                    latitude,
                    longitude,
                    radius_km: self.radius_km,
                })
            }
            (lat, lon) => {
                for (field, given) in [("latitude", lat), ("longitude", lon)] {
                    if given.is_none() && (lat.is_some() || lon.is_some()) {
                        checks.fail(field, "required", "latitude and longitude go together");
                    }
                }
                if self.radius_km.is_some() && lat.is_none() && lon.is_none() {
                    checks.fail(
                        "radius_km",
                        "requires_location",
                        "radius_km needs latitude and longitude",
                    );
                }
                None
            }
        };
        let page = PageParams {
            limit: self.limit,
            next_token: self.next_token,
        };
        paging(&mut checks, &page);
        checks.finish()?;
        Ok(Search {
            words,
            category,
            near,
            broad: false,
            page,
        })
    }
}

impl BroadSearchParams {
    fn check(self) -> Result<Search> {
        let mut checks = Checks::default();
        let words = match self.q.as_deref() {
            Some(q) if !q.trim().is_empty() => query_words(&mut checks, q),
            _ => {
                checks.fail("q", "required", "q is required: the words to search for");
                Vec::new()
            }
        };
        let page = PageParams {
            limit: self.limit,
            next_token: self.next_token,
        };
        paging(&mut checks, &page);
        checks.finish()?;
        Ok(Search {
            words,
            category: None,
            near: None,
            broad: true,
            page,
        })
    }
}

async fn run(
    state: &AppState,
    campaign_id: Uuid,
    locale: Locale,
    endpoint: &str,
    search: Search,
) -> Result<Response> {
    let index = state.commerce.catalog.search_index(&state.store).await?;
    let hits = index.search(&Query {
        campaign_id,
        words: &search.words,
        broad: search.broad,
        category: search.category.as_deref(),
        near: search.near,
    });
    if search.page.limit.is_none() {
        return Ok(envelope::around(
            &search::json_array(&hits, locale, &state.commerce.catalog.base),
            &envelope::meta(),
        ));
    }
    let page = paginate(
        &state.cursors,
        &search.page,
        endpoint,
        &search.scope(campaign_id),
        |hit: &Hit<'_>| hit.position(),
        |after: Option<Position>, limit| {
            let rest = search::after(&hits, after.as_ref());
            let items: Vec<Hit<'_>> = rest.iter().take(limit as usize).copied().collect();
            std::future::ready(Ok::<_, Error>(items))
        },
    )
    .await?;
    let meta = Meta {
        item_count: Some(page.items.len() as u64),
        pagination: Some(Pagination {
            limit: page.limit,
            next_token: page.next_token,
        }),
        ..envelope::meta()
    };
    Ok(envelope::around(
        &search::json_array(&page.items, locale, &state.commerce.catalog.base),
        &meta,
    ))
}

/// Merchants of the campaign whose name matches `q`, best first; nearest first with
/// `distance_km` when `latitude` and `longitude` are sent. Without `limit`, every match in one
/// response without `meta.pagination`.
#[utoipa::path(get, path = "/v2/merchants/search", tag = "catalog", security(("public_bearer" = [])),
    params(SearchParams,
        SessionCampaignHeader,
        LanguageHeader),
    responses((status = 200, body = inline(Envelope<Vec<MerchantMatch>>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn search_merchants(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    ApiQuery(params): ApiQuery<SearchParams>,
) -> Result<Response> {
    let search = params.check()?;
    run(
        &state,
        campaign.campaign_id,
        locale,
        "v2/merchants/search",
        search,
    )
    .await
}

/// Merchants of the campaign matching `q` in their name, city or category, or in the title of
/// a product of theirs in the campaign; best first. Without `limit`, every match in one
/// response without `meta.pagination`.
#[utoipa::path(get, path = "/v2/merchants/broadsearch", tag = "catalog", security(("public_bearer" = [])),
    params(BroadSearchParams,
        SessionCampaignHeader,
        LanguageHeader),
    responses((status = 200, body = inline(Envelope<Vec<MerchantMatch>>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn broadsearch_merchants(
    SessionCampaign { campaign, .. }: SessionCampaign,
    State(state): State<AppState>,
    RequestLocale(locale): RequestLocale,
    ApiQuery(params): ApiQuery<BroadSearchParams>,
) -> Result<Response> {
    let search = params.check()?;
    run(
        &state,
        campaign.campaign_id,
        locale,
        "v2/merchants/broadsearch",
        search,
    )
    .await
}
