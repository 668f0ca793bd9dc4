//! `/admin/v1/settlement/entries` and `/admin/v1/statements`: the operator reads every
//! party's ledger entries and statements (docs/settlement.md). Thin: the rules are in
//! `crate::settlement`.

use app::wire::{Envelope, LedgerEntry};
use axum::{http::HeaderMap, response::Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::Result,
    http::{envelope::Page, extract::ApiQuery, openapi::Problem400},
    settlement::read::{self, Format},
    state::AppState,
    store::LedgerFilter,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_entries))
        .routes(routes!(get_statement))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EntriesQuery {
    merchant_id: Option<Uuid>,
    partner_client_id: Option<Uuid>,
    /// Booked at or after (RFC 3339).
    from: Option<DateTime<Utc>>,
    /// Booked before (RFC 3339).
    to: Option<DateTime<Utc>>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    next_token: Option<String>,
}

/// Every ledger entry the filters admit, in booking order, cursor-paged.
#[utoipa::path(get, path = "/admin/v1/settlement/entries",
    params(EntriesQuery),
    responses((status = 200, body = inline(Envelope<Vec<LedgerEntry>>)), Problem400))]
async fn list_entries(
    Admin(state): Admin,
    ApiQuery(query): ApiQuery<EntriesQuery>,
) -> Result<Page<LedgerEntry>> {
    let filter = LedgerFilter {
        partner_client_id: query.partner_client_id,
        merchant_id: query.merchant_id,
        from: query.from,
        to: query.to,
    };
    let endpoint = "admin/settlement/entries";
    let (store, limit, next) = (state.store.as_ref(), query.limit, query.next_token);
    read::entries((store, &state.cursors), endpoint, &filter, limit, next).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct StatementQuery {
    /// `partner:{partner_client_id}`, `merchant:{merchant_id}` or `platform`.
    #[param(
        example = "platform",
        pattern = "^(platform|(partner|merchant):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    )]
    party: String,
    /// The month, YYYY-MM, in the settlement zone.
    #[param(example = "2026-11", pattern = "^[0-9]{4}-(0[1-9]|1[0-2])$")]
    period: String,
}

/// A party's statement of a month (as `GET /v2/settlement/statements` for a partner): JSON or
/// CSV by `Accept`, signed in `Boxoffice-Signature`.
#[utoipa::path(get, path = "/admin/v1/statements",
    params(StatementQuery),
    responses((status = 200, content((Object = "application/json"), (String = "text/csv")),
               headers(("Boxoffice-Signature" = String, description = "Detached JWS (EdDSA) over the body"))),
              Problem400))]
async fn get_statement(
    Admin(state): Admin,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StatementQuery>,
) -> Result<Response> {
    let (party, period) = read::party_and_period(&query.party, &query.period)?;
    read::statement(
        state.store.as_ref(),
        &state.authn.tokens,
        state.config.settlement_timezone,
        party,
        period,
        Format::of(&headers),
        Utc::now(),
    )
    .await
}
