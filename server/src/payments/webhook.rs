//! `POST /webhooks/stripe`: what Stripe reports, verified and processed once.
//!
//! The `Stripe-Signature` is checked over the raw body first (`providers::stripe::signature`);
//! a bad one answers 400 and nothing is stored. An event already processed (its id is
//! stored, table `provider_event`) answers 200 at once; any other is applied, then stored, so
//! a failure in between answers 500 and Stripe sends it again. Applying is safe in any order
//! and any number of times: every change is a conditional transition (`super::apply`).
//! Events are read leniently: a fake server's carry an old `api_version` and lack fields.

use axum::{
    body::Bytes,
    extract::State,
    http::HeaderMap,
    response::{IntoResponse, Response},
    Json,
};
use chrono::Utc;
use serde_json::json;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{apply, refunds};
use crate::{
    checkout::Commerce,
    error::{Error, ProblemType, Result},
    providers::{
        stripe::{
            self,
            objects::{Account, Charge, Event, PaymentIntent, Refund},
            signature,
        },
        ProviderPaymentState, ProviderRefundState,
    },
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stripe_webhook))
}

/// Receives Stripe's events (configure this URL as the webhook endpoint at Stripe, with its
/// signing secret in `BOXOFFICE_STRIPE_WEBHOOK_SECRET`; docs/payments.md).
#[utoipa::path(post, path = "/webhooks/stripe", tag = "payments",
    request_body(content = Object, content_type = "application/json", description = "A Stripe Event"),
    params(("Stripe-Signature" = String, Header, description = "Stripe's signature of the body")),
    responses((status = 200, description = "Processed (or processed before)", body = Object),
              (status = 400, body = app::wire::Problem, content_type = "application/problem+json"),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn stripe_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response> {
    let header = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok());
    // No signature is a bad request whatever the provider; a signed one reaches a server
    // that does not pay through Stripe as an unknown route.
    if header.is_none() {
        return Err(Error::new(
            ProblemType::WebhookSignatureInvalid,
            signature::SignatureError::Malformed.detail(),
        ));
    }
    let Some(provider) = &state.commerce.stripe else {
        return Err(Error::new(
            ProblemType::NotFound,
            "Stripe is not this server's payment provider.",
        ));
    };
    signature::verify(
        header,
        &body,
        &provider.settings().stripe_webhook_secret,
        Utc::now().timestamp(),
    )
    .map_err(|err| Error::new(ProblemType::WebhookSignatureInvalid, err.detail()))?;
    let event: Event = serde_json::from_slice(&body).map_err(|_| {
        Error::new(
            ProblemType::RequestValidationFailed,
            "The body is not a Stripe event.",
        )
    })?;
    let commerce = &state.commerce;
    if commerce
        .store
        .provider_event_seen(stripe::NAME, &event.id)
        .await?
    {
        return Ok(Json(json!({"received": true, "duplicate": true})).into_response());
    }
    process(&state, &event).await?;
    commerce
        .store
        .record_provider_event(stripe::NAME, &event.id, &event.event_type, Utc::now())
        .await?;
    Ok(Json(json!({"received": true})).into_response())
}

/// Applies one event; unknown types and objects that are none of ours are acknowledged.
async fn process(state: &AppState, event: &Event) -> Result<()> {
    let commerce = &state.commerce;
    let object = event.data.object.clone();
    match event.event_type.as_str() {
        "payment_intent.succeeded"
        | "payment_intent.canceled"
        | "payment_intent.payment_failed"
        | "payment_intent.processing"
        | "payment_intent.requires_action" => {
            let intent: PaymentIntent = parse(object)?;
            payment_intent(commerce, &event.event_type, &intent).await
        }
        "charge.refunded" => {
            let charge: Charge = parse(object)?;
            for refund in charge.refunds.map(|list| list.data).unwrap_or_default() {
                refund_changed(commerce, &refund).await?;
            }
            Ok(())
        }
        "refund.created" | "refund.updated" | "refund.failed" | "charge.refund.updated" => {
            let refund: Refund = parse(object)?;
            refund_changed(commerce, &refund).await
        }
        "account.updated" => {
            let account: Account = parse(object)?;
            account_updated(state, &account).await
        }
        other => {
            tracing::debug!(event_type = other, event = %event.id, "Stripe event not used");
            Ok(())
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(object: serde_json::Value) -> Result<T> {
    serde_json::from_value(object).map_err(|err| {
        Error::new(
            ProblemType::RequestValidationFailed,
            format!("The event's object is not what its type says: {err}"),
        )
    })
}

async fn payment_intent(state: &Commerce, event_type: &str, intent: &PaymentIntent) -> Result<()> {
    let mut payment = state
        .store
        .payment_by_provider_ref(stripe::NAME, &intent.id)
        .await?;
    if payment.is_none() {
        // A PaymentIntent created whose order's transaction then failed is never stored:
        // found by its metadata only if it is ours after all.
        if let Some(id) = intent
            .metadata
            .get("payment_id")
            .and_then(|id| id.parse::<Uuid>().ok())
        {
            payment = state
                .store
                .payment(id)
                .await?
                .filter(|p| p.provider_ref.as_deref() == Some(intent.id.as_str()));
        }
    }
    let Some(payment) = payment else {
        tracing::info!(payment_intent = %intent.id, event_type, "a Stripe payment that is none of ours; acknowledged");
        return Ok(());
    };
    // The event's type says what happened, whatever its object's later state: an event that
    // arrives late says nothing a later one has not.
    let at_provider = match event_type {
        "payment_intent.succeeded" => ProviderPaymentState::Succeeded,
        "payment_intent.canceled" => ProviderPaymentState::Canceled,
        _ => ProviderPaymentState::Open {
            last_error: intent
                .last_payment_error
                .as_ref()
                .and_then(|e| e.message.clone()),
        },
    };
    apply(state, &payment, &at_provider).await?;
    Ok(())
}

async fn refund_changed(state: &Commerce, refund: &Refund) -> Result<()> {
    let ours = refund
        .metadata
        .get("refund_id")
        .and_then(|id| id.parse::<Uuid>().ok());
    let provider_state = match refund.status.as_deref() {
        Some("succeeded") => ProviderRefundState::Succeeded,
        Some("failed" | "canceled") => ProviderRefundState::Failed,
        _ => ProviderRefundState::Pending,
    };
    if !refunds::record(state, ours, &refund.id, provider_state).await? {
        tracing::info!(refund = %refund.id, "a Stripe refund that is none of ours; acknowledged");
    }
    Ok(())
}

async fn account_updated(state: &AppState, account: &Account) -> Result<()> {
    let Some(stored) = state
        .store
        .set_account_charges_enabled(&account.id, account.charges_enabled)
        .await?
    else {
        tracing::info!(account = %account.id, "a Stripe account that is none of ours; acknowledged");
        return Ok(());
    };
    if account.charges_enabled {
        state
            .store
            .transition_merchant_account(
                stored.merchant_account_id,
                app::wire::MerchantAccountStatus::VERIFY,
            )
            .await?;
    }
    Ok(())
}
