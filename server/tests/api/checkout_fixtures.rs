//! A shop to check out in (campaign, partner, merchant, a ticket with a calendar), calls to
//! the checkout API, and providers that refuse or fail on command.

use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use reqwest::Method;
use serde_json::{json, Value};
use server::{
    providers::{
        sandbox::SandboxPayments, Booking, FulfillmentError, FulfillmentProvider, Inventory,
        OpenedAtProvider, PaymentProvider, PaymentRequest, ProviderPayment, ProviderRefund,
        ProvisionedAccount, RefundRequest,
    },
    store::CheckoutTx,
};

use crate::{
    catalog_fixtures::create_merchant,
    helpers::{TestApp, TestResponse},
    partner_fixtures::{id_of, partner, shift, today_in, Partner},
};

pub const ZONE: &str = "Europe/Amsterdam";

/// A partner and a merchant with one dated ticket priced 12.50 (list 15.00, booking costs
/// 0.50) for the next 30 days, `capacity` places a day.
pub struct Shop {
    pub partner: Partner,
    pub merchant: String,
    pub product: String,
    pub group: String,
}

pub async fn shop(app: &TestApp, capacity: Option<i32>) -> Shop {
    let partner = partner(app).await;
    let merchant = create_merchant(app, "Zoo", ZONE).await;
    let today = today_in(ZONE);
    let (product, group) = partner
        .product_on_calendar(
            app,
            (&merchant, "Zoo"),
            (today, shift(today, 30)),
            ("12.50", "15.00"),
            capacity,
        )
        .await;
    Shop {
        partner,
        merchant,
        product,
        group,
    }
}

/// A fresh app with a `shop` of `capacity` places a day.
pub async fn spawn_shop(capacity: Option<i32>) -> (TestApp, Shop) {
    let app = crate::helpers::spawn_app().await;
    let shop = shop(&app, capacity).await;
    (app, shop)
}

/// The visit day the tests book: a week ahead in the merchant's zone.
pub fn visit_day() -> NaiveDate {
    shift(today_in(ZONE), 7)
}

pub fn basket(product: &str, quantity: u32) -> Value {
    json!({
        "date": visit_day().to_string(),
        "flexible_date": false,
        "lines": [{ "product_id": product, "quantity": quantity }],
    })
}

pub fn express_body(product: &str, quantity: u32) -> Value {
    let mut body = basket(product, quantity);
    let extra = json!({
        "email": "ada@example.com",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "return_url": "http://localhost:5173/done?basket=7",
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

pub fn customer() -> Value {
    json!({
        "email": "ada@example.com",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "return_url": "http://localhost:5173/done?basket=7",
    })
}

/// `POST /v2/checkouts/express` as a guest of `campaign` (or with `token`).
pub async fn express(
    app: &TestApp,
    campaign: &str,
    token: Option<&str>,
    key: &str,
    body: &Value,
) -> TestResponse {
    let mut request = app
        .request(Method::POST, "/v2/checkouts/express")
        .header("x-campaign-id", campaign)
        .header("idempotency-key", key)
        .json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    app.send(request).await
}

/// One ticket of the shop's product bought by a guest in one call, with a fresh key.
pub async fn express_one_as_guest(app: &TestApp, shop: &Shop) -> TestResponse {
    let body = express_body(&shop.product, 1);
    express(app, &shop.partner.campaign, None, &key(), &body).await
}

/// One ticket of the shop's product bought in one call in the partner's session, fresh key.
pub async fn express_one_in_session(app: &TestApp, shop: &Shop) -> TestResponse {
    let (campaign, token) = (&shop.partner.campaign, Some(shop.partner.token.as_str()));
    express(
        app,
        campaign,
        token,
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
}

/// Asserts that copies of one express request made one order: every copy either succeeded
/// (200, or 208 for a replay) with the same body or was refused as `idempotency-key-in-use`,
/// and at least one succeeded; returns the successes' bodies.
#[track_caller]
pub fn assert_one_order(responses: &[TestResponse]) -> Vec<String> {
    let mut bodies = Vec::new();
    for r in responses {
        match r.status.as_u16() {
            200 | 208 => bodies.push(r.text.clone()),
            _ => {
                r.assert_problem(409, "idempotency-key-in-use");
            }
        }
    }
    assert!(!bodies.is_empty());
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "every success is the same order"
    );
    bodies
}

/// Chooses `action` (pay, decline, cancel) on the sandbox page; returns the redirect target.
pub async fn pay(app: &TestApp, payment_url: &str, action: &str) -> String {
    let path = payment_url
        .strip_prefix(&app.base_url)
        .expect("a sandbox URL of this server");
    let page = app
        .send(
            app.request(Method::GET, path)
                .header("accept-language", "en-GB"),
        )
        .await;
    assert_eq!(page.status.as_u16(), 200);
    assert!(
        page.text.contains(&format!(r#"action="{path}""#))
            && page.text.contains(">Pay<")
            && page.text.contains(">Decline<"),
        "{}",
        page.text
    );
    let response = app.post_form(path, &[("action", action)]).await;
    assert_eq!(response.status.as_u16(), 303, "{}", response.text);
    response.header("location").unwrap().to_owned()
}

/// Places reserved in the shop's group on `visit_day()`, read from the store.
pub async fn reserved_on_visit_day(app: &TestApp, shop: &Shop) -> i64 {
    crate::db_reads::reserved_on_day(app, shop.group.parse().unwrap(), visit_day()).await
}

/// What the scripted providers do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Script {
    #[default]
    Succeed,
    /// Fulfilment: refuse the booking (422). Payment: give no redirect (502).
    Refuse,
    /// Fail (502), after the fulfilment took the capacity.
    Fail,
}

/// A fulfilment provider over our inventory that refuses or fails on command, after it took
/// the capacity: what a failure after reservation looks like.
#[derive(Clone, Default)]
pub struct ScriptedFulfillment(pub Arc<Mutex<Script>>);

#[async_trait::async_trait]
impl FulfillmentProvider for ScriptedFulfillment {
    async fn reserve(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError> {
        Inventory.reserve(tx, booking).await?;
        let script = *self.0.lock().unwrap();
        match script {
            Script::Succeed => Ok(()),
            Script::Refuse => Err(FulfillmentError::Refused(
                "closed for a private event".into(),
            )),
            Script::Fail => Err(FulfillmentError::Failed(anyhow::anyhow!(
                "provider timed out"
            ))),
        }
    }

    async fn release(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError> {
        Inventory.release(tx, booking).await
    }

    async fn confirm(&self, booking: &Booking) -> Result<(), FulfillmentError> {
        Inventory.confirm(booking).await
    }
}

/// How a test's payment provider creates a payment; everything else it leaves to the sandbox
/// (see `SandboxExcept`).
#[async_trait::async_trait]
pub trait CreatePayment: Send + Sync {
    async fn create_payment(
        &self,
        sandbox: &SandboxPayments,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>>;
}

/// The sandbox of `state`, except that `create` creates the payments.
pub struct SandboxExcept<C> {
    pub sandbox: SandboxPayments,
    pub create: C,
}

impl<C> SandboxExcept<C> {
    pub fn new(state: &server::state::AppState, create: C) -> Self {
        let sandbox = SandboxPayments::new(
            state.config.base_url(),
            state.sandbox_pay.clone(),
            state.sandbox_kyc.clone(),
        );
        Self { sandbox, create }
    }
}

#[async_trait::async_trait]
impl<C: CreatePayment> PaymentProvider for SandboxExcept<C> {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    async fn create_payment(
        &self,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>> {
        self.create.create_payment(&self.sandbox, request).await
    }

    async fn payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        self.sandbox.payment(provider_ref).await
    }

    async fn cancel_payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        self.sandbox.cancel_payment(provider_ref).await
    }

    async fn refund(&self, request: &RefundRequest) -> anyhow::Result<ProviderRefund> {
        self.sandbox.refund(request).await
    }

    async fn provision_account(
        &self,
        legal_name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount> {
        self.sandbox.provision_account(legal_name, email).await
    }

    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<url::Url> {
        self.sandbox.kyc_url(provider_account_id).await
    }
}

/// Payment creation that fails or gives no redirect on command.
pub struct ScriptedPayments(pub Arc<Mutex<Script>>);

#[async_trait::async_trait]
impl CreatePayment for ScriptedPayments {
    async fn create_payment(
        &self,
        sandbox: &SandboxPayments,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>> {
        let script = *self.0.lock().unwrap();
        match script {
            Script::Succeed => sandbox.create_payment(request).await,
            Script::Refuse => Ok(None),
            Script::Fail => anyhow::bail!("the provider answered 500"),
        }
    }
}

/// Handles to steer the scripted providers of an app from `spawn_scripted`.
pub struct Scripts {
    pub fulfillment: Arc<Mutex<Script>>,
    pub payments: Arc<Mutex<Script>>,
}

impl Scripts {
    pub fn fulfillment(&self, script: Script) {
        *self.fulfillment.lock().unwrap() = script;
    }

    pub fn payments(&self, script: Script) {
        *self.payments.lock().unwrap() = script;
    }
}

/// An app whose provider `scripted` and whose payments follow `Scripts`.
pub async fn spawn_scripted() -> (TestApp, Scripts) {
    let scripts = Scripts {
        fulfillment: Arc::default(),
        payments: Arc::default(),
    };
    let (f, p) = (scripts.fulfillment.clone(), scripts.payments.clone());
    let app = crate::helpers::spawn_app_with_state(
        |_| {},
        move |state| {
            let mut providers = (*state.commerce.fulfillment).clone();
            providers.register("scripted", Arc::new(ScriptedFulfillment(f)));
            state.commerce.fulfillment = Arc::new(providers);
            state.commerce.payments = Arc::new(SandboxExcept::new(state, ScriptedPayments(p)));
        },
    )
    .await;
    (app, scripts)
}

/// A fresh idempotency key.
pub fn key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Reserves `quantity` tickets of the shop's product for its partner's customer; the new
/// checkout's `data`.
pub async fn reserve(app: &TestApp, shop: &Shop, quantity: u32) -> Value {
    shop.partner
        .post(app, "/v2/checkouts", &basket(&shop.product, quantity))
        .await
        .assert_status(201)["data"]
        .clone()
}

/// The shop's partner's view of checkout `checkout_id` (its `data`), asserted 200.
pub async fn read_checkout(app: &TestApp, shop: &Shop, checkout_id: &str) -> Value {
    shop.partner
        .get_ok(app, &format!("/v2/checkouts/{checkout_id}"))
        .await["data"]
        .clone()
}

/// Reserves like `reserve`; only the new checkout's id.
pub async fn reserve_id(app: &TestApp, shop: &Shop, quantity: u32) -> String {
    id_of(&reserve(app, shop, quantity).await, "checkout_id")
}

/// Asserts that checkout `checkout_id` expired exactly once (one `CheckoutExpired` event) and
/// can no longer be confirmed.
pub async fn assert_expired_once(app: &TestApp, shop: &Shop, checkout_id: &str) {
    assert_eq!(
        count_events(app, shop, "checkouts.CheckoutExpired").await,
        1
    );
    confirm(app, shop, checkout_id)
        .await
        .assert_problem(409, "checkout-not-reserved");
}

/// Confirms a checkout of the shop's partner with the `customer()` details.
pub async fn confirm(app: &TestApp, shop: &Shop, checkout_id: &str) -> TestResponse {
    shop.partner
        .post(
            app,
            &format!("/v2/checkouts/{checkout_id}/confirm"),
            &customer(),
        )
        .await
}

/// The types of the events the partner has received, oldest first.
pub async fn event_types(app: &TestApp, shop: &Shop) -> Vec<String> {
    events(app, shop)
        .await
        .into_iter()
        .map(|(t, _)| t)
        .collect()
}

/// How many events of type `kind` the partner has received.
pub async fn count_events(app: &TestApp, shop: &Shop, kind: &str) -> usize {
    events(app, shop)
        .await
        .into_iter()
        .filter(|(t, _)| t == kind)
        .count()
}

/// The events the partner polls, as (type, subject): every page, following `next_token`
/// until a page has none.
pub async fn events(app: &TestApp, shop: &Shop) -> Vec<(String, String)> {
    event_items(app, shop)
        .await
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["subject"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The events the partner polls, whole, oldest first.
pub async fn event_items(app: &TestApp, shop: &Shop) -> Vec<Value> {
    crate::db_reads::wait_until_events_settle(app).await;
    let backend = app.backend_token(&shop.partner.client).await;
    let mut out = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let path = match &next {
            Some(token) => format!("/v2/events?limit=100&next_token={token}"),
            None => "/v2/events?limit=100".to_owned(),
        };
        let page = app
            .send(app.request(Method::GET, &path).bearer_auth(&backend))
            .await
            .assert_status(200);
        let items = page["data"].as_array().unwrap();
        if items.is_empty() {
            return out;
        }
        out.extend(items.iter().cloned());
        match page["meta"]["pagination"]["next_token"].as_str() {
            Some(token) => next = Some(token.to_owned()),
            None => return out,
        }
    }
}
