//! Operator API for customer wallets.

use serde_json::json;

use crate::helpers::{error_code, error_fields, spawn_app};

#[tokio::test]
async fn a_wallet_is_created_replaced_and_read() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let alice = app.create_customer("alice").await;
    let path = format!("/admin/v1/wallets/{alice}/{campaign}");
    app.admin_get(&path).await.assert_problem(404, "not-found");

    let created = app
        .admin_put(&path, &json!({ "balance": "25", "currency": "EUR" }))
        .await
        .assert_status(201);
    assert_eq!(created["data"]["balance"], "25.00");
    assert_eq!(created["data"]["currency"], "EUR");
    assert_eq!(created["data"]["customer_id"], json!(alice));
    assert_eq!(created["data"]["campaign_id"], campaign);

    let replaced = app
        .admin_put(&path, &json!({ "balance": "0", "currency": "EUR" }))
        .await
        .assert_status(200);
    assert_eq!(replaced["data"]["balance"], "0.00");

    let read = app.admin_get_ok(&path).await;
    assert_eq!(read["data"], replaced["data"]);
    let stored = app
        .state
        .store
        .wallet(alice, campaign.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(stored.balance.is_zero());
}

#[tokio::test]
async fn invalid_wallet_input_names_every_bad_field() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let alice = app.create_customer("alice").await;
    let path = format!("/admin/v1/wallets/{alice}/{campaign}");
    let problem = app
        .admin_put(&path, &json!({ "balance": "-1", "currency": "eur" }))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        ["balance", "currency"].map(String::from).into()
    );
    let problem = app
        .admin_put(&path, &json!({ "balance": "1.001", "currency": "EUR" }))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(error_code(&problem, "balance"), "precision");
    app.admin_put(&path, &json!({ "balance": 10, "currency": "EUR" }))
        .await
        .assert_invalid(&["balance"]);
    app.admin_get(&path).await.assert_problem(404, "not-found");

    app.admin_get(&format!("/admin/v1/wallets/{alice}/not-a-uuid"))
        .await
        .assert_invalid(&["campaign_id"]);
}

#[tokio::test]
async fn a_wallet_of_an_unknown_customer_or_campaign_is_not_found() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let alice = app.create_customer("alice").await;
    let body = json!({ "balance": "5", "currency": "EUR" });
    let problem = app
        .admin_put(
            &format!("/admin/v1/wallets/{}/{campaign}", uuid::Uuid::new_v4()),
            &body,
        )
        .await
        .assert_problem(404, "not-found");
    assert!(problem["detail"].as_str().unwrap().contains("customer"));
    let problem = app
        .admin_put(
            &format!("/admin/v1/wallets/{alice}/{}", uuid::Uuid::new_v4()),
            &body,
        )
        .await
        .assert_problem(404, "not-found");
    assert!(problem["detail"].as_str().unwrap().contains("campaign"));
}

#[tokio::test]
async fn wallet_routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    app.assert_documented(&[(
        "/admin/v1/wallets/{customer_id}/{campaign_id}",
        &["get", "put"],
    )])
    .await;
}
