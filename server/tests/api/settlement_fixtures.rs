//! Settlement test fixtures (docs/settlement.md): a shop settled with VAT, a commission and a
//! platform fee, the merchant's settlement fields, the partner's ledger entries, and the
//! identities every entry and statement row must hold.

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::{
    after_sale_fixtures::{generous, set_policy},
    checkout_fixtures::{spawn_shop, Shop},
    helpers::{TestApp, TestResponse},
    partner_fixtures::write_calendar,
};

pub fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

pub fn dec(value: &Value) -> Decimal {
    d(value
        .as_str()
        .unwrap_or_else(|| panic!("a decimal string: {value}")))
}

/// The shop's merchant at 9 % VAT with a 3 % platform fee, its campaign paying the partner
/// 10 % commission, its product under the generous after-sale policy; and the partner's
/// backend bearer.
pub async fn settled_shop() -> (TestApp, Shop, String) {
    let (app, shop) = spawn_shop(Some(20)).await;
    let backend = settle(&app, &shop).await;
    (app, shop, backend)
}

/// Sets the shop up as `settled_shop` says; the partner's backend bearer.
pub async fn settle(app: &TestApp, shop: &Shop) -> String {
    set_merchant(
        app,
        &shop.merchant,
        json!({
            "tax": { "rates": [{ "name": "BTW 9%", "rate_percent": "9" }] },
            "legal_name": "Stichting Zoo",
            "vat_id": "NL123456789B01",
            "platform_fee": { "percent": "3" }
        }),
    )
    .await
    .assert_status(200);
    app.admin_put_ok(
        &format!("/admin/v1/campaigns/{}", shop.partner.campaign),
        &json!({ "name": "Summer", "commission": { "percent": "10" } }),
    )
    .await;
    set_policy(app, &shop.product, generous())
        .await
        .assert_status(200);
    app.backend_token(&shop.partner.client).await
}

/// `product` sold on `day` alone at `price` (list price 15.00), `places` of them.
pub async fn price_day(
    app: &TestApp,
    product: &str,
    day: chrono::NaiveDate,
    price: &str,
    places: i32,
) {
    write_calendar(app, product, (day, day), (price, "15.00"), Some(places)).await;
}

/// Replaces the merchant's settlement fields with `fields`, keeping the rest of it.
pub async fn set_merchant(app: &TestApp, merchant: &str, fields: Value) -> TestResponse {
    let mut body = app
        .admin_get_ok(&format!("/admin/v1/merchants/{merchant}"))
        .await["data"]
        .clone();
    let object = body.as_object_mut().unwrap();
    for gone in [
        "merchant_id",
        "search_text",
        "created_at",
        "updated_at",
        "payment_account",
        "images",
    ] {
        object.remove(gone);
    }
    object.extend(fields.as_object().unwrap().clone());
    app.admin_put(&format!("/admin/v1/merchants/{merchant}"), &body)
        .await
}

/// The partner's entries (all pages).
pub async fn entries(app: &TestApp, backend: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut path = "/v2/settlement/entries?limit=2".to_owned();
    loop {
        let page = app
            .send(app.request(Method::GET, &path).bearer_auth(backend))
            .await
            .assert_status(200);
        all.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["meta"]["pagination"]["next_token"].as_str() {
            Some(next) => path = format!("/v2/settlement/entries?limit=2&next_token={next}"),
            None => return all,
        }
    }
}

/// Asserts `gross = Σ tax + commission + fee + payout` and `net = gross − Σ tax`.
#[track_caller]
pub fn assert_balances(entry: &Value) {
    let tax: Decimal = entry["tax"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| dec(&t["amount"]))
        .sum();
    let parts = tax
        + dec(&entry["commission"])
        + dec(&entry["platform_fee"])
        + dec(&entry["merchant_payout"]);
    assert_eq!(dec(&entry["gross"]), parts, "{entry}");
    assert_eq!(dec(&entry["net"]), dec(&entry["gross"]) - tax, "{entry}");
}

/// A statement's rows summed: `field` over every row.
pub fn row_sum(statement: &Value, field: &str) -> Decimal {
    rows(statement).map(|r| dec(&r[field])).sum()
}

/// A statement's VAT over every row and rate, and the rates it names.
pub fn row_taxes(statement: &Value) -> (Decimal, Vec<String>) {
    let taxes: Vec<&Value> = rows(statement)
        .flat_map(|r| r["tax"].as_array().unwrap().iter())
        .collect();
    let total = taxes.iter().map(|t| dec(&t["amount"])).sum();
    let rates = taxes
        .iter()
        .map(|t| t["rate_percent"].as_str().unwrap().to_owned())
        .collect();
    (total, rates)
}

fn rows(statement: &Value) -> impl Iterator<Item = &Value> {
    statement["rows"].as_array().unwrap().iter()
}
