//! The benchmark's yardsticks (`BOXOFFICE_BENCH_BASELINE=1`): absent by default; the catalog
//! baseline answers the bytes it was given; the express baseline writes a real, readable order
//! per key, never oversells, and keeps nothing of a refused request.

use reqwest::Method;
use serde_json::json;

use crate::{
    checkout_fixtures::{key, reserved_on_visit_day, shop, visit_day},
    helpers::{spawn_app, spawn_app_with, TestApp, TestResponse},
};

async fn baseline_express(app: &TestApp, key: &str) -> TestResponse {
    app.send(
        app.request(Method::POST, "/bench/baseline/express")
            .header("idempotency-key", key),
    )
    .await
}

#[tokio::test]
async fn the_baselines_are_not_mounted_by_default() {
    let app = spawn_app().await;
    app.assert_not_found("/bench/baseline").await;
    baseline_express(&app, &key())
        .await
        .assert_problem(404, "not-found");
}

#[tokio::test]
async fn the_catalog_baseline_answers_the_bytes_it_was_given() {
    let app = spawn_app_with(|c| c.bench_baseline = true).await;
    let body = r#"{"data":[{"title":"Café"}],"meta":{"correlation_id":"x"}}"#;
    let put = app
        .send(
            app.request(Method::PUT, "/bench/baseline")
                .header("content-type", "application/json")
                .body(body),
        )
        .await;
    assert_eq!(put.status.as_u16(), 204);
    let got = app.get("/bench/baseline").await;
    assert_eq!(got.status.as_u16(), 200);
    assert_eq!(got.text, body);
    assert_eq!(got.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn the_express_baseline_writes_real_orders_and_never_oversells() {
    let app = spawn_app_with(|c| c.bench_baseline = true).await;
    let shop = shop(&app, Some(2)).await;
    let not_set = baseline_express(&app, &key()).await;
    not_set.assert_problem(404, "not-found");

    let set = app
        .send(
            app.request(Method::PUT, "/bench/baseline/express")
                .json(&json!({
                    "campaign_id": shop.partner.campaign, "product_id": shop.product,
                    "visit_date": visit_day(), "quantity": 1,
                    "return_url": "http://localhost:5173/done",
                })),
        )
        .await;
    assert_eq!(set.status.as_u16(), 204, "{}", set.text);

    let first_key = key();
    let first = baseline_express(&app, &first_key).await.assert_status(200);
    assert!(first["data"]["payment_url"]
        .as_str()
        .is_some_and(|u| u.contains("/pay/")));
    let checkout = app
        .get(&format!(
            "/v2/checkouts/{}",
            first["data"]["checkout_id"].as_str().unwrap()
        ))
        .await
        .assert_status(200);
    assert_eq!(checkout["data"]["status"], "CONFIRMED");
    assert_eq!(
        checkout["data"]["order_id"], first["data"]["order_id"],
        "the order is the checkout's"
    );

    baseline_express(&app, &key()).await.assert_status(200);
    let refused_key = key();
    baseline_express(&app, &refused_key)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);
    baseline_express(&app, &first_key)
        .await
        .assert_problem(409, "idempotency-key-reused");
    // The refused key was given back: it fails again for the same reason, not as reused.
    baseline_express(&app, &refused_key)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
}
