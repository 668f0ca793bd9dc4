//! The merchant's way into Stripe's onboarding, `GET /stripe/kyc/{account}?key=…` (keyed per
//! account, `keyed::Purpose::KycPage`): answers a fresh Account Link (they last minutes) with
//! a redirect. Stripe sends the merchant back here: with `returned=1` when they finished or
//! left (the page then says where the account stands), and without it when a link ran out
//! (a new one follows). The onboarding status's `kyc_url` is the same kind of link.

use axum::{
    extract::State,
    http::{header, StatusCode},
    response::{Html, IntoResponse, Response},
};
use maud::html;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    error::{Error, ProblemType, Result},
    http::extract::{ApiPath, ApiQuery},
    providers::{payment::unavailable, PaymentProvider},
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(kyc_page))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct KycQuery {
    /// The account's key, from the link Stripe or the onboarding status handed out.
    key: Option<String>,
    /// `1` when Stripe sends the merchant back from its onboarding.
    returned: Option<String>,
}

fn not_found() -> Error {
    Error::new(ProblemType::NotFound, "No such onboarding page.")
}

/// The merchant's onboarding at Stripe: a redirect to a fresh Account Link, or (back from
/// Stripe) where the account stands.
#[utoipa::path(get, path = "/stripe/kyc/{account}", tag = "merchant accounts",
    params(("account" = String, Path, description = "The merchant's Stripe account id"), KycQuery),
    responses((status = 303, description = "To Stripe's onboarding (an Account Link)"),
              (status = 200, content_type = "text/html", body = String, description = "Back from Stripe: where the account stands"),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json"),
              (status = 502, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn kyc_page(
    State(state): State<AppState>,
    ApiPath(account): ApiPath<String>,
    ApiQuery(query): ApiQuery<KycQuery>,
) -> Result<Response> {
    let stripe = state.commerce.stripe.as_ref().ok_or_else(not_found)?;
    let key = query.key.as_deref().ok_or_else(not_found)?;
    if !stripe.kyc_key_matches(&account, key) {
        return Err(not_found());
    }
    let stored = state
        .store
        .merchant_account_by_provider_id(&account)
        .await?
        .ok_or_else(not_found)?;
    if query.returned.is_some() {
        let at_stripe = stripe.account(&account).await.map_err(unavailable)?;
        let ready = at_stripe.charges_enabled;
        let text = if ready {
            "Your account at Stripe is ready: you can take payments."
        } else if at_stripe.details_submitted {
            "Thank you: Stripe is checking your details. Payments open once it has."
        } else {
            "Your onboarding at Stripe is not complete yet."
        };
        let again = stripe.kyc_page(&account);
        return Ok(Html(
            html! {
                (maud::DOCTYPE)
                html lang="en" {
                    head { meta charset="utf-8"; meta name="viewport" content="width=device-width, initial-scale=1";
                           meta name="referrer" content="no-referrer"; title { "Onboarding – " (stored.legal_name) } }
                    body { main {
                        h1 { "Onboarding at Stripe" }
                        p { strong { (stored.legal_name) } }
                        p role="status" { (text) }
                        @if !ready { p { a href=(again) { "Continue at Stripe" } } }
                    } }
                }
            }
            .into_string(),
        )
        .into_response());
    }
    let link = stripe.kyc_url(&account).await.map_err(unavailable)?;
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, link.to_string()),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::REFERRER_POLICY, "no-referrer".to_owned()),
        ],
    )
        .into_response())
}
