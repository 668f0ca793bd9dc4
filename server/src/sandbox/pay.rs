//! The sandbox payment page. `GET /pay/{payment_id}?key=…` is a page of the app (styled and
//! localized like the frame; `app::frame::screens::pay`), which reads the payment through
//! [`payment_page`]. Its Pay, Decline and Cancel buttons post here: the choice settles the
//! payment and sends the customer to the partner's return URL with `payment_id` added and the
//! partner's own parameters kept.
//!
//! Both answer only with the payment's key (`providers::sandbox::PaymentPageKey`, checked in
//! constant time) and only for the sandbox's own payments: a missing or wrong key, an unknown
//! payment, another provider's payment and a switched-off sandbox are the same `404
//! not-found` (the GET's key is checked before the page renders, `payments::page::gate`), so
//! the id alone, which partners see in events and return URLs, shows and settles nothing.

use app::frame::server::PaymentPage;
use axum::{
    extract::State,
    http::{header, StatusCode},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use url::Url;
use utoipa::OpenApi;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    api::token_request::TokenForm,
    checkout::lifecycle::{settle_payment, PaymentOutcome},
    error::{Error, ProblemType, Result},
    http::{
        extract::{ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    providers::sandbox::NAME as SANDBOX,
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(PaymentPageDoc::openapi()).routes(routes!(complete_payment))
}

/// The page the frame serves at `GET /pay/{payment_id}`, in the document beside the route
/// that settles it.
#[derive(utoipa::OpenApi)]
#[openapi(paths(payment_page_doc))]
struct PaymentPageDoc;

/// The one answer to a payment that is unknown, or asked for without its key, or while the
/// sandbox is off.
pub fn unknown() -> Error {
    Error::new(ProblemType::NotFound, "No such payment page.")
}

/// Whether `key` opens `payment_id`'s page (never while the sandbox is off).
pub fn key_matches(state: &AppState, payment_id: Uuid, key: Option<&str>) -> bool {
    match (&state.sandbox_pay, key) {
        (Some(page_key), Some(key)) => page_key.verify(payment_id, key),
        _ => false,
    }
}

/// The query of a sandbox page: its key.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageKey {
    /// The page's key, from the URL it was handed out in (`payment_url`, `kyc_url`).
    pub key: Option<String>,
}

/// What the sandbox's payment page shows of `payment_id`; `None` when there is no such
/// payment or `key` is not its key.
pub async fn payment_page(
    state: &AppState,
    payment_id: Uuid,
    key: &str,
) -> Result<Option<PaymentPage>> {
    if !key_matches(state, payment_id, Some(key)) {
        return Ok(None);
    }
    let Some(payment) = state.store.payment(payment_id).await? else {
        return Ok(None);
    };
    if payment.provider != SANDBOX {
        return Ok(None);
    }
    let Some(order) = state.store.order(payment.customer_order_id).await? else {
        return Ok(None);
    };
    Ok(Some(PaymentPage {
        payment_id,
        order_display_id: order.display_id,
        amount: app::wire::Money::new(payment.amount, payment.currency),
        status: payment.status,
        back_url: return_to(&payment.return_url, payment_id),
        action: format!("/pay/{payment_id}?key={key}"),
    }))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct PayForm {
    /// The customer's choice.
    action: PayAction,
}

#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
enum PayAction {
    Pay,
    Decline,
    Cancel,
}

/// The sandbox payment page (a page of the app, `app::frame::screens::pay`): the order, its
/// total, and the Pay, Decline and Cancel buttons that post to this address. Documented here;
/// served by the frame, whose gate (`payments::page::gate`) answers a missing or wrong key
/// with 404.
#[utoipa::path(get, path = "/pay/{payment_id}", tag = "sandbox", operation_id = "payment_page",
    params(("payment_id" = Uuid, Path), PageKey),
    responses((status = 200, content_type = "text/html", body = String), Problem404))]
#[allow(dead_code)] // documents the frame's page; never called
pub fn payment_page_doc() {}

/// Settles the payment as the customer chose and redirects to the partner's return URL.
#[utoipa::path(post, path = "/pay/{payment_id}", tag = "sandbox",
    params(("payment_id" = Uuid, Path), PageKey),
    request_body(content = PayForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "To the return URL with payment_id",
               headers(("Location" = String, description = "The partner's return URL with `payment_id`"))),
              Problem400, Problem404))]
async fn complete_payment(
    State(state): State<AppState>,
    ApiPath(payment_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<PageKey>,
    TokenForm(form): TokenForm<PayForm>,
) -> Result<Response> {
    if !key_matches(&state, payment_id, query.key.as_deref()) {
        return Err(unknown());
    }
    let outcome = match form.action {
        PayAction::Pay => PaymentOutcome::Paid,
        PayAction::Decline => PaymentOutcome::Declined,
        PayAction::Cancel => PaymentOutcome::Cancelled,
    };
    let Some(payment) = state.store.payment(payment_id).await? else {
        return Err(unknown());
    };
    // Another provider's payment shares the page key's purpose, never its settlement.
    if payment.provider != SANDBOX {
        return Err(unknown());
    }
    // A second submit (or a payment that ran out meanwhile) changes nothing; the customer is
    // still sent back, and the partner reads the outcome from the checkout.
    settle_payment(&state.commerce, payment_id, outcome).await?;
    Ok((
        StatusCode::SEE_OTHER,
        [(header::LOCATION, return_to(&payment.return_url, payment_id))],
    )
        .into_response())
}

/// `return_url` with `payment_id` set, keeping every other parameter of the partner's.
pub fn return_to(return_url: &str, payment_id: Uuid) -> String {
    let Ok(mut url) = Url::parse(return_url) else {
        return return_url.to_owned();
    };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != "payment_id")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("payment_id", &payment_id.to_string());
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_return_url_keeps_the_partners_parameters() {
        let id = Uuid::from_u128(7);
        assert_eq!(
            return_to("https://shop.example/done?order=42&x=a%20b", id),
            format!("https://shop.example/done?order=42&x=a+b&payment_id={id}")
        );
        assert_eq!(
            return_to("https://shop.example/done?payment_id=forged", id),
            format!("https://shop.example/done?payment_id={id}")
        );
        assert_eq!(
            return_to("https://shop.example/done", id),
            format!("https://shop.example/done?payment_id={id}")
        );
        // embed.js's default return URL is the page's whole address, fragment included.
        assert_eq!(
            return_to("https://shop.example/done?boxoffice_checkout=c#tickets", id),
            format!("https://shop.example/done?boxoffice_checkout=c&payment_id={id}#tickets")
        );
    }
}
