//! The sandbox KYC page: the merchant "verifies" its payment account with one button.
//!
//! Like the payment page it answers only with the account's key: `/sandbox/kyc/{id}?key=…`,
//! where the key is an HMAC of the provider account id (`providers::sandbox::KycPageKey`,
//! checked in constant time), handed out in the onboarding status's `kyc_url`. A missing or
//! wrong key, an unknown account and a switched-off sandbox are the same `404 not-found`, so
//! an account id alone verifies nothing. The page is never cached or referred (its key is in
//! the URL) and never framed (`http::framing`).

use app::wire::MerchantAccountStatus;
use axum::{
    extract::State,
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use html_escape::{encode_double_quoted_attribute, encode_text};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{page::page, pay::PageKey};
use crate::{
    error::{Error, ProblemType, Result},
    http::{
        extract::{ApiPath, ApiQuery},
        openapi::Problem404,
    },
    state::AppState,
    store::MerchantAccount,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(show_kyc, complete_kyc))
}

/// The account whose page `key` opens, or the one 404 of every other case.
async fn keyed_account(
    state: &AppState,
    provider_account_id: &str,
    key: Option<&str>,
) -> Result<MerchantAccount> {
    let unknown = || Error::new(ProblemType::NotFound, "No such verification page.");
    let opens = match (&state.sandbox_kyc, key) {
        (Some(page_key), Some(key)) => page_key.verify(provider_account_id, key),
        _ => false,
    };
    if !opens {
        return Err(unknown());
    }
    state
        .store
        .merchant_account_by_provider_id(provider_account_id)
        .await?
        .ok_or_else(unknown)
}

/// A page whose URL holds a key: not cached, not sent on as a referrer.
fn keyed_page(title: &str, body: &str) -> Response {
    let mut response = (StatusCode::OK, page(title, body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// The KYC page of a sandbox merchant account.
#[utoipa::path(get, path = "/sandbox/kyc/{provider_account_id}", tag = "sandbox",
    params(("provider_account_id" = String, Path), PageKey),
    responses((status = 200, content_type = "text/html", body = String), Problem404))]
async fn show_kyc(
    State(state): State<AppState>,
    ApiPath(provider_account_id): ApiPath<String>,
    ApiQuery(query): ApiQuery<PageKey>,
) -> Result<Response> {
    let account = keyed_account(&state, &provider_account_id, query.key.as_deref()).await?;
    let key = query.key.unwrap_or_default();
    let body = if account.status == MerchantAccountStatus::Verified {
        format!(
            "<h1>{} is verified</h1><p>Nothing left to do.</p>",
            encode_text(&account.legal_name)
        )
    } else {
        format!(
            "<h1>Verify {name}</h1><p>Debtor code {code}. In the sandbox, verification needs no documents.</p>\
             <form method=\"post\" action=\"{action}\"><button type=\"submit\">Verify account</button></form>",
            name = encode_text(&account.legal_name),
            code = encode_text(&account.debtor_code),
            action = encode_double_quoted_attribute(&format!(
                "/sandbox/kyc/{}?key={key}",
                form_urlencoded::byte_serialize(provider_account_id.as_bytes()).collect::<String>()
            )),
        )
    };
    Ok(keyed_page("Account verification", &body))
}

/// Marks the sandbox account verified.
#[utoipa::path(post, path = "/sandbox/kyc/{provider_account_id}", tag = "sandbox",
    params(("provider_account_id" = String, Path), PageKey),
    responses((status = 200, content_type = "text/html", body = String), Problem404))]
async fn complete_kyc(
    State(state): State<AppState>,
    ApiPath(provider_account_id): ApiPath<String>,
    ApiQuery(query): ApiQuery<PageKey>,
) -> Result<Response> {
    let account = keyed_account(&state, &provider_account_id, query.key.as_deref()).await?;
    // Verifying a verified account again changes nothing and shows the same page.
    state
        .store
        .transition_merchant_account(account.merchant_account_id, MerchantAccountStatus::VERIFY)
        .await?;
    let body = format!("<h1>{} is verified</h1>", encode_text(&account.legal_name));
    Ok(keyed_page("Account verified", &body))
}
