//! The sandbox KYC page: the merchant "verifies" its payment account with one button.

use axum::{
    extract::State,
    http::StatusCode,
    response::{Html, IntoResponse},
};
use html_escape::{encode_double_quoted_attribute, encode_text};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::page::page;
use crate::{error::Result, http::extract::ApiPath, state::AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(show_kyc, complete_kyc))
}

fn unknown_account() -> (StatusCode, Html<String>) {
    (
        StatusCode::NOT_FOUND,
        page("Unknown account", "<h1>Unknown account</h1>"),
    )
}

/// The KYC page of a sandbox merchant account.
#[utoipa::path(get, path = "/sandbox/kyc/{provider_account_id}", tag = "sandbox",
    params(("provider_account_id" = String, Path)),
    responses((status = 200, content_type = "text/html", body = String),
              (status = 404, content_type = "text/html", body = String)))]
async fn show_kyc(
    State(state): State<AppState>,
    ApiPath(provider_account_id): ApiPath<String>,
) -> Result<impl IntoResponse> {
    let Some(account) = state
        .store
        .merchant_account_by_provider_id(&provider_account_id)
        .await?
    else {
        return Ok(unknown_account());
    };
    let body = if account.status == "VERIFIED" {
        format!(
            "<h1>{} is verified</h1><p>Nothing left to do.</p>",
            encode_text(&account.legal_name)
        )
    } else {
        format!(
            "<h1>Verify {name}</h1><p>Debtor code {code}. In the sandbox, verification needs no documents.</p>\
             <form method=\"post\" action=\"/sandbox/kyc/{id}\"><button type=\"submit\">Verify account</button></form>",
            name = encode_text(&account.legal_name),
            code = encode_text(&account.debtor_code),
            id = encode_double_quoted_attribute(&provider_account_id),
        )
    };
    Ok((StatusCode::OK, page("Account verification", &body)))
}

/// Marks the sandbox account verified.
#[utoipa::path(post, path = "/sandbox/kyc/{provider_account_id}", tag = "sandbox",
    params(("provider_account_id" = String, Path)),
    responses((status = 200, content_type = "text/html", body = String),
              (status = 404, content_type = "text/html", body = String)))]
async fn complete_kyc(
    State(state): State<AppState>,
    ApiPath(provider_account_id): ApiPath<String>,
) -> Result<(StatusCode, Html<String>)> {
    let Some(account) = state
        .store
        .merchant_account_by_provider_id(&provider_account_id)
        .await?
    else {
        return Ok(unknown_account());
    };
    state
        .store
        .set_merchant_account_status(account.merchant_account_id, "VERIFIED")
        .await?;
    let body = format!("<h1>{} is verified</h1>", encode_text(&account.legal_name));
    Ok((StatusCode::OK, page("Account verified", &body)))
}
