//! What the partner's and the operator's settlement routes serve (docs/settlement.md): pages
//! of ledger entries and signed statements. The routes only say whose.

use app::wire::LedgerEntry;
use axum::{
    http::{header, HeaderMap, HeaderValue},
    response::{IntoResponse, Response},
};
use chrono::{DateTime, Utc};

use super::statement::{self, Party, Period};
use crate::{
    auth::tokens::TokenService,
    error::{Error, Result},
    http::{
        cursor::{paginate, CursorSigner, PageParams},
        envelope::Page,
    },
    store::{LedgerFilter, Store},
};

/// The header a statement's detached JWS comes in.
pub const SIGNATURE_HEADER: &str = "boxoffice-signature";
/// The JWS header type of a statement's signature.
const SIGNATURE_TYPE: &str = "boxoffice-statement+jws";
/// How many entries a statement reads per query.
const READ_BATCH: u32 = 1_000;

/// A page of the entries `filter` admits, in booking order: `limit` of them (1 to 100,
/// default 20) after the cursor `next_token`.
pub async fn entries(
    (store, cursors): (&dyn Store, &CursorSigner),
    endpoint: &str,
    filter: &LedgerFilter,
    limit: Option<u32>,
    next_token: Option<String>,
) -> Result<Page<LedgerEntry>> {
    let page = PageParams { limit, next_token };
    let key = |t: Option<DateTime<Utc>>| t.map(|t| t.to_rfc3339()).unwrap_or_default();
    let bound = format!(
        "partner={:?}&merchant={:?}&from={}&to={}",
        filter.partner_client_id,
        filter.merchant_id,
        key(filter.from),
        key(filter.to)
    );
    paginate(
        cursors,
        &page,
        endpoint,
        &bound,
        |e: &LedgerEntry| e.entry_id,
        |after, limit| store.ledger_entries(filter, after, limit),
    )
    .await
}

/// Every entry `filter` admits.
async fn all_entries(store: &dyn Store, filter: &LedgerFilter) -> Result<Vec<LedgerEntry>> {
    let mut all = Vec::new();
    loop {
        let batch = store
            .ledger_entries(
                filter,
                all.last().map(|e: &LedgerEntry| e.entry_id),
                READ_BATCH,
            )
            .await?;
        let done = batch.len() < READ_BATCH as usize;
        all.extend(batch);
        if done {
            return Ok(all);
        }
    }
}

/// The forms a statement is served in, by `Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

impl Format {
    /// CSV when the request accepts `text/csv` and not JSON first; JSON otherwise.
    pub fn of(headers: &HeaderMap) -> Format {
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let at = |kind: &str| accept.find(kind);
        match (at("text/csv"), at("application/json")) {
            (Some(csv), Some(json)) if json < csv => Format::Json,
            (Some(_), _) => Format::Csv,
            _ => Format::Json,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// `party`'s statement of `period` in `format`, signed: the same bytes for the same request
/// once the period has closed.
pub async fn statement(
    store: &dyn Store,
    tokens: &TokenService,
    zone: chrono_tz::Tz,
    party: Party,
    period: Period,
    format: Format,
    now: DateTime<Utc>,
) -> Result<Response> {
    let filter = statement::filter(party, period, zone);
    let entries = all_entries(store, &filter).await?;
    let cancelled = store.cancelled_tickets(&filter).await?;
    let document = statement::statement(party, period, zone, &entries, &cancelled, now);
    let body = match format {
        Format::Json => {
            let mut body = serde_json::to_vec_pretty(&document).map_err(anyhow::Error::from)?;
            body.push(b'\n');
            body
        }
        Format::Csv => statement::csv(&document)?,
    };
    let signature = tokens.sign_detached(SIGNATURE_TYPE, &body)?;
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::VARY, HeaderValue::from_static("accept"));
    headers.insert(
        SIGNATURE_HEADER,
        HeaderValue::from_str(&signature).map_err(anyhow::Error::from)?,
    );
    Ok(response)
}

/// Reads `party` and `period` from the query's text, each refused with a problem naming it.
pub fn party_and_period(party: &str, period: &str) -> Result<(Party, Period)> {
    let party = party
        .parse()
        .map_err(|why: String| Error::invalid_field("party", "pattern", why))?;
    let period = period
        .parse()
        .map_err(|why: String| Error::invalid_field("period", "pattern", why))?;
    Ok((party, period))
}
