//! A merchant's gate and tickets to scan at it: today's (valid now), next week's (not yet),
//! with the gate's bearer and the scans it sends.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{customer, key, pay, Shop, ZONE},
    helpers::{TestApp, TestResponse},
    partner_fixtures::{shift, today_in},
};

/// A gate as created, with a bearer of its own.
pub struct TestGate {
    pub gate_id: String,
    pub client_id: String,
    pub client_secret: String,
    pub pairing_url: String,
    pub token: String,
}

/// Creates a gate of the shop's merchant with `body` (a name is added when it has none).
pub async fn gate_with(app: &TestApp, shop: &Shop, mut body: Value) -> TestGate {
    if body.get("name").is_none() {
        body["name"] = json!("Main entrance");
    }
    let created = app
        .admin_post(
            &format!("/admin/v1/merchants/{}/gates", shop.merchant),
            &body,
        )
        .await
        .assert_status(201)["data"]
        .clone();
    let text = |field: &str| created[field].as_str().unwrap().to_owned();
    let token = gate_token(app, &text("client_id"), &text("client_secret"))
        .await
        .assert_status(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    TestGate {
        gate_id: text("gate_id"),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        pairing_url: text("pairing_url"),
        token,
    }
}

/// A gate of the shop's merchant admitting every product, with the default margins.
pub async fn gate(app: &TestApp, shop: &Shop) -> TestGate {
    gate_with(app, shop, json!({})).await
}

/// `POST /oauth/token` with client credentials.
pub async fn gate_token(app: &TestApp, client_id: &str, client_secret: &str) -> TestResponse {
    app.send(app.request(Method::POST, "/oauth/token").form(&[
        ("grant_type", "client_credentials"),
        ("client_id", client_id),
        ("client_secret", client_secret),
    ]))
    .await
}

/// A paid order of `quantity` tickets of the shop's product for the day `days` from today in
/// the merchant's zone, bought in the partner's session; its read (tickets with `qr`).
pub async fn paid_for(app: &TestApp, shop: &Shop, days: i64, quantity: u32) -> Value {
    let mut body = json!({
        "date": shift(today_in(ZONE), days).to_string(),
        "flexible_date": false,
        "lines": [{ "product_id": shop.product, "quantity": quantity }],
    });
    body.as_object_mut()
        .unwrap()
        .extend(customer().as_object().unwrap().clone());
    let placed = app
        .send(
            app.request(Method::POST, "/v2/checkouts/express")
                .bearer_auth(&shop.partner.token)
                .header("x-campaign-id", &shop.partner.campaign)
                .header("idempotency-key", key())
                .json(&body),
        )
        .await
        .assert_status(200)["data"]
        .clone();
    pay(app, placed["payment_url"].as_str().unwrap(), "pay").await;
    order(app, shop, placed["order_id"].as_str().unwrap()).await
}

/// The order as its customer reads it.
pub async fn order(app: &TestApp, shop: &Shop, order_id: &str) -> Value {
    shop.partner
        .get_ok(app, &format!("/v2/me/fulfillment/orders/{order_id}"))
        .await["data"]
        .clone()
}

/// The printed code of the order's `index`th ticket.
pub fn code(order: &Value, index: usize) -> String {
    order["tickets"][index]["code"].as_str().unwrap().to_owned()
}

/// The QR content of the order's `index`th ticket: its signed token.
pub fn qr(order: &Value, index: usize) -> String {
    order["tickets"][index]["qr"].as_str().unwrap().to_owned()
}

/// A fresh nonce.
pub fn nonce() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `POST /v2/redemptions` of `code` under `nonce` with `token`.
pub async fn scan_as(app: &TestApp, token: &str, code: &str, nonce: &str) -> TestResponse {
    app.send(
        app.request(Method::POST, "/v2/redemptions")
            .bearer_auth(token)
            .json(&json!({ "code": code, "nonce": nonce })),
    )
    .await
}

/// `POST /v2/redemptions` of `code` at `gate` under a fresh nonce.
pub async fn scan(app: &TestApp, gate: &TestGate, code: &str) -> TestResponse {
    scan_as(app, &gate.token, code, &nonce()).await
}

/// `DELETE /v2/redemptions/{id}` by `gate`.
pub async fn undo(app: &TestApp, gate: &TestGate, id: &str) -> TestResponse {
    app.send(
        app.request(Method::DELETE, &format!("/v2/redemptions/{id}"))
            .bearer_auth(&gate.token),
    )
    .await
}

/// `POST /v2/redemptions/batch` at `gate`.
pub async fn upload(app: &TestApp, gate: &TestGate, scans: Value) -> TestResponse {
    app.send(
        app.request(Method::POST, "/v2/redemptions/batch")
            .bearer_auth(&gate.token)
            .json(&json!({ "scans": scans })),
    )
    .await
}

/// The JWKS the server publishes.
pub async fn jwks(app: &TestApp) -> Value {
    app.get("/.well-known/jwks.json").await.assert_status(200)
}

/// The printed code a ticket's QR content names, after verifying it as our signed token.
#[track_caller]
pub fn printed_code_of(jwks: &Value, qr_content: &str) -> String {
    let claims = verified_claims(jwks, qr_content)
        .unwrap_or_else(|| panic!("a QR token signed by the server: {qr_content}"));
    claims["code"].as_str().unwrap().to_owned()
}

/// The claims of a compact JWS, after checking its EdDSA signature with `ed25519-dalek`
/// against the served JWKS: a verification that shares no code with the server's
/// (`jsonwebtoken`). `None` when it does not verify.
pub fn verified_claims(jwks: &Value, jws: &str) -> Option<Value> {
    serde_json::from_slice(&verified_payload(jwks, jws)?).ok()
}

/// The payload of a compact JWS whose EdDSA signature verifies against the served JWKS (as
/// `verified_claims`), whatever it holds.
pub fn verified_payload(jwks: &Value, jws: &str) -> Option<Vec<u8>> {
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
    let mut parts = jws.split('.');
    let (header, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
    let head: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    if head["alg"] != "EdDSA" {
        return None;
    }
    let key = jwks["keys"]
        .as_array()?
        .iter()
        .find(|k| k["kid"] == head["kid"] && k["crv"] == "Ed25519")?;
    let x: [u8; 32] = URL_SAFE_NO_PAD
        .decode(key["x"].as_str()?)
        .ok()?
        .try_into()
        .ok()?;
    let signature: [u8; 64] = URL_SAFE_NO_PAD.decode(signature).ok()?.try_into().ok()?;
    ed25519_dalek::VerifyingKey::from_bytes(&x)
        .ok()?
        .verify_strict(
            format!("{header}.{payload}").as_bytes(),
            &ed25519_dalek::Signature::from_bytes(&signature),
        )
        .ok()?;
    URL_SAFE_NO_PAD.decode(payload).ok()
}
