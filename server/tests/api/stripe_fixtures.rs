//! A fake Stripe for the Stripe provider's tests: localstripe with the stand-in for Stripe.js
//! (`end2end/stripe/fake_stripe.py`), one process per test (its webhooks and data are the
//! test's own), stopped when the test ends; and an app that pays through it.

use serde_json::Value;
use server::config::{Config, PaymentProviderKind};
use tokio::io::AsyncBufReadExt;

use crate::helpers::{spawn_app_with, TestApp};

pub const SECRET_KEY: &str = "sk_test_boxoffice";
pub const PUBLISHABLE_KEY: &str = "pk_test_boxoffice";
pub const WEBHOOK_SECRET: &str = "whsec_boxoffice_test";

/// localstripe's test cards (end2end/stripe/README.md).
pub const CARD_OK: &str = "4242424242424242";
pub const CARD_DECLINED: &str = "4000000000000341";
pub const CARD_3DS: &str = "4000002760003184";

pub struct FakeStripe {
    pub url: String,
    http: reqwest::Client,
    _process: tokio::process::Child,
}

impl FakeStripe {
    /// Starts one; its Python is `BOXOFFICE_LOCALSTRIPE_PYTHON` (`.ci/install-tools stripe`
    /// makes it; `.ci/env.sh` names it).
    pub async fn start() -> Self {
        let python = std::env::var("BOXOFFICE_LOCALSTRIPE_PYTHON").unwrap_or_else(|_| {
            format!(
                "{}/.cache/boxoffice-tools/localstripe-venv/bin/python",
                std::env::var("HOME").unwrap_or_default()
            )
        });
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../end2end/stripe/fake_stripe.py"
        );
        let mut process = tokio::process::Command::new(&python)
            .arg(script)
            .args(["--port", "0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|err| {
                panic!("starting the fake Stripe with {python} failed ({err}); run .ci/install-tools stripe")
            });
        let stdout = process.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("the fake Stripe started within 30 s")
            .unwrap()
            .expect("the fake Stripe printed its address");
        let url = line
            .strip_prefix("listening on ")
            .expect("`listening on URL`")
            .to_owned();
        Self {
            url,
            http: reqwest::Client::new(),
            _process: process,
        }
    }

    /// Has it send its events to `app`'s webhook, signed with `secret`.
    pub async fn send_webhooks_to(&self, app: &TestApp, secret: &str) {
        let response = self
            .http
            .post(format!("{}/_config/webhooks/boxoffice", self.url))
            .form(&[
                ("url", app.url("/webhooks/stripe")),
                ("secret", secret.to_owned()),
            ])
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{}",
            response.text().await.unwrap()
        );
    }

    /// An API object, read with the secret key.
    pub async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.url))
            .bearer_auth(SECRET_KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// A POST with the secret key; the status and the body.
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.url))
            .bearer_auth(SECRET_KEY)
            .form(form)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// Confirms the PaymentIntent of `client_secret` with `card`, as Stripe.js does from the
    /// payment page; the status and the body.
    pub async fn pay(&self, client_secret: &str, card: &str) -> (u16, Value) {
        let intent = client_secret.split("_secret_").next().unwrap();
        let response = self
            .http
            .post(format!("{}/js.stripe.com/v3/confirm/{intent}", self.url))
            .form(&[
                ("client_secret", client_secret),
                ("card[number]", card),
                ("card[exp_month]", "12"),
                ("card[exp_year]", "2034"),
                ("card[cvc]", "123"),
            ])
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// Completes (or fails) the 3-D Secure step of `client_secret`'s PaymentIntent.
    pub async fn authenticate(&self, client_secret: &str, success: bool) -> Value {
        let intent = client_secret.split("_secret_").next().unwrap();
        self.http
            .post(format!(
                "{}/v1/payment_intents/{intent}/_authenticate?success={success}",
                self.url
            ))
            .form(&[("key", PUBLISHABLE_KEY), ("client_secret", client_secret)])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Points `config` at `stripe` as its payment provider, asking Stripe about open payments
/// after `reconcile_after` seconds.
pub fn use_stripe(config: &mut Config, stripe_url: &str, reconcile_after: u64) {
    config.payment_provider = PaymentProviderKind::Stripe;
    config.stripe.stripe_secret_key = Some(SECRET_KEY.into());
    config.stripe.stripe_publishable_key = Some(PUBLISHABLE_KEY.into());
    config.stripe.stripe_webhook_secret = vec![WEBHOOK_SECRET.into()];
    config.stripe.stripe_api_base = stripe_url.parse().unwrap();
    config.stripe.stripe_js_url = format!("{stripe_url}/js.stripe.com/v3/standin.js")
        .parse()
        .unwrap();
    // localstripe takes cards only.
    config.stripe.stripe_payment_methods = vec!["card".into()];
    config.stripe.stripe_reconcile_after_secs = reconcile_after;
}

/// An app paying through `stripe`, whose webhooks reach it.
pub async fn spawn_stripe_app(stripe: &FakeStripe) -> TestApp {
    let app = spawn_app_with(|c| use_stripe(c, &stripe.url, 3600)).await;
    stripe.send_webhooks_to(&app, WEBHOOK_SECRET).await;
    app
}

/// The payment page's path (with its key) of a `payment_url`.
pub fn page_path<'a>(app: &TestApp, payment_url: &'a str) -> &'a str {
    payment_url
        .strip_prefix(&app.base_url)
        .expect("the payment page is this server's")
}

/// The client secret the payment page hands Stripe.js.
pub fn client_secret_on(page: &str) -> String {
    let start = page
        .find("data-client-secret=\"")
        .unwrap_or_else(|| panic!("no client secret on the page: {page}"))
        + "data-client-secret=\"".len();
    page[start..].split('"').next().unwrap().to_owned()
}

/// Waits (up to 20 s) until `read` answers `Some`.
pub async fn eventually<T, F, Fut>(what: &str, mut read: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..200 {
        if let Some(value) = read().await {
            return value;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{what} did not happen within 20 s");
}
