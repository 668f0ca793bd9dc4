//! Operator API for customer wallets.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{error_code, spawn_app, spawn_app_with_customer};

#[tokio::test]
async fn a_wallet_is_created_replaced_and_read() {
    let (app, campaign, alice) = spawn_app_with_customer().await;
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
        .admin_put_ok(&path, &json!({ "balance": "0", "currency": "EUR" }))
        .await;
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
    let (app, campaign, alice) = spawn_app_with_customer().await;
    let path = format!("/admin/v1/wallets/{alice}/{campaign}");
    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "balance": "-1", "currency": "eur" }),
        &["balance", "currency"],
    )
    .await;
    let problem = app
        .admin_put(&path, &json!({ "balance": "1.001", "currency": "EUR" }))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(error_code(&problem, "balance"), "precision");
    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "balance": 10, "currency": "EUR" }),
        &["balance"],
    )
    .await;
    app.admin_get(&path).await.assert_problem(404, "not-found");

    app.admin_get(&format!("/admin/v1/wallets/{alice}/not-a-uuid"))
        .await
        .assert_invalid(&["campaign_id"]);
}

#[tokio::test]
async fn a_wallet_of_an_unknown_customer_or_campaign_is_not_found() {
    let (app, campaign, alice) = spawn_app_with_customer().await;
    let body = json!({ "balance": "5", "currency": "EUR" });
    let (stranger, no_campaign) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    for (path, unknown) in [
        (
            format!("/admin/v1/wallets/{stranger}/{campaign}"),
            "customer",
        ),
        (
            format!("/admin/v1/wallets/{alice}/{no_campaign}"),
            "campaign",
        ),
    ] {
        let problem = app
            .admin_put(&path, &body)
            .await
            .assert_problem(404, "not-found");
        assert!(problem["detail"].as_str().unwrap().contains(unknown));
    }
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
