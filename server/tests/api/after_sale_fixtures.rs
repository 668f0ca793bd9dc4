//! Orders to change after the sale: a product's policy set through the operator API, the
//! customer's, partner's and operator's change requests, and reads of what they left.

use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::{json, Value};
use server::providers::{
    sandbox::SandboxPayments, OpenedAtProvider, PaymentProvider, PaymentRequest, ProviderPayment,
    ProviderRefund, ProviderRefundState, ProvisionedAccount, RefundRequest,
};

use crate::{
    checkout_fixtures::{key, Shop},
    helpers::{TestApp, TestResponse},
};

/// Sets `product`'s after-sale policy (`null` removes it), keeping its other fields.
pub async fn set_policy(app: &TestApp, product: &str, policy: Value) -> TestResponse {
    set_product_field(app, product, "after_sale", policy).await
}

/// `PUT /admin/v1/products/{product}` with its current fields and `field` set to `value`.
pub async fn set_product_field(
    app: &TestApp,
    product: &str,
    field: &str,
    value: Value,
) -> TestResponse {
    let mut body = app
        .admin_get_ok(&format!("/admin/v1/products/{product}"))
        .await["data"]
        .clone();
    let fields = body.as_object_mut().unwrap();
    for gone in ["product_id", "created_at", "updated_at", "images"] {
        fields.remove(gone);
    }
    fields.insert(field.into(), value);
    app.admin_put(&format!("/admin/v1/products/{product}"), &body)
        .await
}

/// The generous policy most tests sell under: all back until 48 h before, half until 24 h,
/// date changes until 24 h before.
pub fn generous() -> Value {
    json!({
        "refund_rules": [
            { "until": "PT48H", "refund_percent": "100" },
            { "until": "PT24H", "refund_percent": "50" }
        ],
        "rebook_until": "PT24H"
    })
}

/// The customer's order as they read it now.
pub async fn order_of(app: &TestApp, shop: &Shop, order_id: &str) -> Value {
    shop.partner
        .get_ok(app, &format!("/v2/me/fulfillment/orders/{order_id}"))
        .await["data"]
        .clone()
}

/// The ids of the order's tickets in `status`.
pub fn tickets_in(order: &Value, status: &str) -> Vec<String> {
    order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == status)
        .map(|t| t["ticket_id"].as_str().unwrap().to_owned())
        .collect()
}

/// A customer's change (`cancellation`, `withdrawal`, `rebooking`) with `key`.
pub async fn customer_change(
    app: &TestApp,
    shop: &Shop,
    order_id: &str,
    what: &str,
    body: &Value,
    key: &str,
) -> TestResponse {
    app.send(
        app.request(
            Method::POST,
            &format!("/v2/me/fulfillment/orders/{order_id}/{what}"),
        )
        .bearer_auth(&shop.partner.token)
        .header("idempotency-key", key)
        .json(body),
    )
    .await
}

/// The customer cancels with a fresh key.
pub async fn cancel(app: &TestApp, shop: &Shop, order_id: &str, body: &Value) -> TestResponse {
    customer_change(app, shop, order_id, "cancellation", body, &key()).await
}

/// A partner backend's change of an order with a fresh key.
pub async fn partner_change(
    app: &TestApp,
    backend: &str,
    order_id: &str,
    what: &str,
    body: &Value,
) -> TestResponse {
    app.send(
        app.request(Method::POST, &format!("/v2/orders/{order_id}/{what}"))
            .bearer_auth(backend)
            .header("idempotency-key", key())
            .json(body),
    )
    .await
}

/// A decimal string of a Money or a number field.
pub fn amount(value: &Value) -> rust_decimal::Decimal {
    value["value"]
        .as_str()
        .or(value.as_str())
        .expect("an amount")
        .parse()
        .unwrap()
}

/// What the refunds of `ScriptedRefunds` do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RefundScript {
    #[default]
    Succeed,
    /// The provider cannot be reached (an error: the refund stays PENDING, sent again later).
    Error,
    /// The provider answers that the refund failed.
    Fail,
}

/// The sandbox, except that its refunds follow a script.
pub struct ScriptedRefunds {
    sandbox: SandboxPayments,
    script: Arc<Mutex<RefundScript>>,
}

/// The handle that steers an app's `ScriptedRefunds`.
#[derive(Clone, Default)]
pub struct RefundHandle(Arc<Mutex<RefundScript>>);

impl RefundHandle {
    pub fn set(&self, script: RefundScript) {
        *self.0.lock().unwrap() = script;
    }
}

/// A fresh app (settings changed by `customize`) whose payment provider's refunds follow the
/// returned handle.
pub async fn spawn_with_refunds(
    customize: impl FnOnce(&mut server::config::Config),
) -> (TestApp, RefundHandle) {
    let handle = RefundHandle::default();
    let script = handle.0.clone();
    let app = crate::helpers::spawn_app_with_state(customize, move |state| {
        let sandbox = SandboxPayments::new(
            state.config.base_url(),
            state.sandbox_pay.clone(),
            state.sandbox_kyc.clone(),
        );
        state.commerce.payments = Arc::new(ScriptedRefunds { sandbox, script });
    })
    .await;
    (app, handle)
}

#[async_trait::async_trait]
impl PaymentProvider for ScriptedRefunds {
    fn name(&self) -> &'static str {
        "sandbox"
    }
    async fn create_payment(&self, r: &PaymentRequest) -> anyhow::Result<Option<OpenedAtProvider>> {
        self.sandbox.create_payment(r).await
    }
    async fn payment(&self, reference: &str) -> anyhow::Result<ProviderPayment> {
        self.sandbox.payment(reference).await
    }
    async fn cancel_payment(&self, reference: &str) -> anyhow::Result<ProviderPayment> {
        self.sandbox.cancel_payment(reference).await
    }
    async fn refund(&self, request: &RefundRequest) -> anyhow::Result<ProviderRefund> {
        let script = *self.script.lock().unwrap();
        match script {
            RefundScript::Succeed => self.sandbox.refund(request).await,
            RefundScript::Error => anyhow::bail!("the provider answered 503"),
            RefundScript::Fail => Ok(ProviderRefund {
                provider_ref: format!("sbx_re_failed_{}", request.refund_id.simple()),
                state: ProviderRefundState::Failed,
            }),
        }
    }
    async fn provision_account(
        &self,
        name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount> {
        self.sandbox.provision_account(name, email).await
    }
    async fn kyc_url(&self, account: &str) -> anyhow::Result<url::Url> {
        self.sandbox.kyc_url(account).await
    }
}
