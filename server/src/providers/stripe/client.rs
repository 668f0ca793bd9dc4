//! Boxoffice's HTTP client of Stripe's API. The requests are async-stripe's generated ones
//! (`stripe_core`, `stripe_connect`: typed from Stripe's OpenAPI document, so a wrong parameter
//! name does not compile), built into method, path and form body by their `StripeRequest`
//! and sent here with reqwest: Stripe's form encoding, the API version the parameters were
//! generated for, an `Idempotency-Key` on every POST, a timeout per attempt, and retries of
//! network errors and 5xx answers only (a 4xx is final: retrying cannot change it). The answers
//! are read leniently (`super::objects`).

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use stripe_client_core::{StripeMethod, StripeRequest};
use url::Url;

use super::objects::{ApiError, ErrorBody};

/// Attempts of one call: the first and two retries.
const ATTEMPTS: u32 = 3;
/// Time allowed to one attempt.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);

/// Why a call to Stripe failed.
#[derive(Debug, thiserror::Error)]
pub enum StripeError {
    /// Stripe answered with an error (`status` 4xx, or 5xx after the retries).
    #[error("Stripe answered {status}: {}", .error.message.as_deref().unwrap_or("no message"))]
    Api { status: u16, error: ApiError },
    /// Stripe could not be reached, or answered what is not Stripe's JSON.
    #[error("calling Stripe failed: {0}")]
    Transport(String),
}

/// Stripe's API at `base`, under the platform's secret key.
#[derive(Clone)]
pub struct StripeApi {
    http: reqwest::Client,
    base: Url,
    secret: SecretString,
}

impl std::fmt::Debug for StripeApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeApi")
            .field("base", &self.base.as_str())
            .finish_non_exhaustive()
    }
}

impl StripeApi {
    pub fn new(base: Url, secret: SecretString) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("Boxoffice/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self { http, base, secret })
    }

    /// Sends `request`. A POST carries `idempotency_key` (the same on every retry, so Stripe
    /// does what it asks at most once, also when Boxoffice retries after a crash with the same
    /// key); `account` is sent as `Stripe-Account`.
    pub async fn send<T: DeserializeOwned>(
        &self,
        request: &impl StripeRequest,
        idempotency_key: &str,
    ) -> Result<T, StripeError> {
        let built = request.build();
        let mut url = self
            .base
            .join(&format!("v1{}", built.path))
            .map_err(|err| StripeError::Transport(err.to_string()))?;
        if let Some(query) = &built.query {
            url.set_query(Some(query));
        }
        let method = match built.method {
            StripeMethod::Get => reqwest::Method::GET,
            StripeMethod::Post => reqwest::Method::POST,
            StripeMethod::Delete => reqwest::Method::DELETE,
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut call = self
                .http
                .request(method.clone(), url.clone())
                .bearer_auth(self.secret.expose_secret())
                .header("Stripe-Version", stripe_client_core::VERSION.as_str());
            if method == reqwest::Method::POST {
                call = call
                    .header("Idempotency-Key", idempotency_key)
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(built.body.clone().unwrap_or_default());
            }
            let outcome = match call.send().await {
                Ok(response) => read(response).await,
                Err(err) => Err(StripeError::Transport(err.without_url().to_string())),
            };
            match outcome {
                Err(err) if attempt < ATTEMPTS && retryable(&err) => {
                    tracing::warn!(error = %err, attempt, path = %built.path, "Stripe call failed; retrying");
                    tokio::time::sleep(Duration::from_millis(250 << attempt)).await;
                }
                outcome => return outcome,
            }
        }
    }
}

/// Network errors and 5xx answers; never a 4xx.
fn retryable(err: &StripeError) -> bool {
    match err {
        StripeError::Transport(_) => true,
        StripeError::Api { status, .. } => *status >= 500,
    }
}

async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, StripeError> {
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|err| StripeError::Transport(err.to_string()))?;
    if status.is_success() {
        return serde_json::from_slice(&bytes)
            .map_err(|err| StripeError::Transport(format!("unreadable answer: {err}")));
    }
    let error = serde_json::from_slice::<ErrorBody>(&bytes)
        .map(|body| body.error)
        .unwrap_or_default();
    Err(StripeError::Api {
        status: status.as_u16(),
        error,
    })
}
