//! `/v2/settlement/…`: a partner's backend reads its own ledger entries and monthly
//! statements (docs/settlement.md). Thin: the rules are in `crate::settlement`.

use app::wire::{Envelope, LedgerEntry};
use axum::{extract::State, http::HeaderMap, response::Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    auth::BackendClient,
    error::{Error, Result},
    http::{
        envelope::{Data, Page},
        extract::{ApiPath, ApiQuery},
        openapi::{Problem400, Problem401, Problem404},
    },
    settlement::{
        read::{self, Format},
        statement::Party,
    },
    state::AppState,
    store::LedgerFilter,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_entries))
        .routes(routes!(get_entry))
        .routes(routes!(get_statement))
}

/// The partner the backend bearer belongs to.
async fn partner_of(state: &AppState, client: &BackendClient) -> Result<Uuid> {
    Ok(state
        .store
        .partner_client_by_client_id(&client.client_id)
        .await?
        .ok_or_else(|| Error::not_found("The partner client"))?
        .client
        .partner_client_id)
}

/// Which of the partner's entries.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EntriesQuery {
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

/// The partner's ledger entries in booking order: a `sale` per order line paid, a `refund`
/// (negative) per line money went back for, a `rebooking` per line a date change moved to
/// another price. Cursor-paged.
#[utoipa::path(get, path = "/v2/settlement/entries", tag = "settlement",
    security(("backend_bearer" = [])),
    params(EntriesQuery),
    responses((status = 200, body = inline(Envelope<Vec<LedgerEntry>>)), Problem400, Problem401))]
async fn list_entries(
    client: BackendClient,
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<EntriesQuery>,
) -> Result<Page<LedgerEntry>> {
    let filter = LedgerFilter {
        partner_client_id: Some(partner_of(&state, &client).await?),
        merchant_id: None,
        from: query.from,
        to: query.to,
    };
    let (store, limit, next) = (state.store.as_ref(), query.limit, query.next_token);
    read::entries(
        (store, &state.cursors),
        "settlement/entries",
        &filter,
        limit,
        next,
    )
    .await
}

/// One of the partner's ledger entries; another partner's is 404.
#[utoipa::path(get, path = "/v2/settlement/entries/{entry_id}", tag = "settlement",
    security(("backend_bearer" = [])),
    params(("entry_id" = Uuid, Path)),
    responses((status = 200, body = inline(Envelope<LedgerEntry>)), Problem401, Problem404))]
async fn get_entry(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(entry_id): ApiPath<Uuid>,
) -> Result<Data<LedgerEntry>> {
    let partner = partner_of(&state, &client).await?;
    let entry = state
        .store
        .ledger_entry(entry_id)
        .await?
        .filter(|e| e.partner_client_id == Some(partner));
    entry
        .map(Data::ok)
        .ok_or_else(|| Error::not_found("The ledger entry"))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct StatementQuery {
    /// The month, YYYY-MM, in the settlement zone.
    #[param(example = "2026-11", pattern = "^[0-9]{4}-(0[1-9]|1[0-2])$")]
    period: String,
}

/// The partner's statement of a month: per sku and currency, tickets sold and cancelled, gross
/// sales, refunds, net, VAT per rate, commission, platform fee and payout. A document of its
/// own (`application/json`, or `text/csv` by `Accept`), not in the envelope; its detached
/// JWS signature is in `Boxoffice-Signature`.
#[utoipa::path(get, path = "/v2/settlement/statements", tag = "settlement",
    security(("backend_bearer" = [])),
    params(StatementQuery),
    responses((status = 200, content((Object = "application/json"), (String = "text/csv")),
               headers(("Boxoffice-Signature" = String, description = "Detached JWS (EdDSA) over the body"))),
              Problem400, Problem401))]
async fn get_statement(
    client: BackendClient,
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StatementQuery>,
) -> Result<Response> {
    let partner = partner_of(&state, &client).await?;
    let (_, period) = read::party_and_period("platform", &query.period)?;
    read::statement(
        state.store.as_ref(),
        &state.authn.tokens,
        state.config.settlement_timezone,
        Party::Partner(partner),
        period,
        Format::of(&headers),
        Utc::now(),
    )
    .await
}
