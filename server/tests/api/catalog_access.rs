//! Bearer and campaign rules of every /v2 catalog call but the product list (docs/api-catalog.md,
//! "Who may call, and in which campaign"):
//! the public bearer is required, and the campaign is x-campaign-id or else the session's.

use reqwest::Method;
use serde_json::json;

use crate::{
    catalog_fixtures::create_merchant,
    helpers::TestApp,
    partner_fixtures::{id_of, spawn_partner, token_without_campaign, Partner},
};

const AMS: &str = "Europe/Amsterdam";

/// GET `path` with an optional bearer and x-campaign-id.
async fn get(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    campaign: Option<&str>,
) -> crate::helpers::TestResponse {
    let mut request = app.request(Method::GET, path);
    if let Some(t) = token {
        request = request.bearer_auth(t);
    }
    if let Some(c) = campaign {
        request = request.header("x-campaign-id", c);
    }
    app.send(request).await
}

/// Every bearer-protected catalog read of a merchant with a product in `p`'s campaign.
async fn paths(app: &TestApp, p: &Partner) -> Vec<String> {
    let (merchant, product) = p.merchant_with_product(app, "Artis", AMS).await;
    vec![
        "/v2/merchants".to_owned(),
        format!("/v2/merchants/{merchant}"),
        "/v2/merchants/search?q=artis".to_owned(),
        "/v2/merchants/broadsearch?q=artis".to_owned(),
        format!("/v2/products/{}/calendar", id_of(&product, "product_id")),
    ]
}

#[tokio::test]
async fn every_catalog_read_needs_a_valid_public_bearer() {
    let (app, p) = spawn_partner().await;
    let backend = app.backend_token(&p.client).await;
    for path in paths(&app, &p).await {
        get(&app, &path, None, Some(&p.campaign))
            .await
            .assert_problem(401, "token-invalid");
        get(&app, &path, Some("not.a.jwt"), Some(&p.campaign))
            .await
            .assert_problem(401, "token-invalid");
        get(&app, &path, Some(&backend), Some(&p.campaign))
            .await
            .assert_problem(401, "token-invalid");
        get(&app, &path, Some(&p.token), None)
            .await
            .assert_status(200);
    }
    let timeslots = app
        .send(
            app.request(Method::POST, "/v2/fulfillment/timeslots")
                .json(&json!({ "product_id": uuid::Uuid::new_v4(), "date": "2030-01-01" })),
        )
        .await;
    timeslots.assert_problem(401, "token-invalid");
}

#[tokio::test]
async fn the_campaign_comes_from_the_header_or_else_the_session() {
    let (app, p) = spawn_partner().await;
    let second = app.create_campaign("Second").await;
    let forbidden = app.create_campaign("Not this client's").await;
    let client = app
        .create_client("wide-shop", &[&p.campaign, &second])
        .await;
    let bare = token_without_campaign(&app, &client).await;
    let paths = paths(&app, &p).await;

    for path in &paths {
        // Session without a campaign: the header decides, and it is required.
        let problem = get(&app, path, Some(&bare), None)
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(problem["errors"][0]["field"], "x-campaign-id", "{path}");
        get(&app, path, Some(&bare), Some(&p.campaign))
            .await
            .assert_status(200);
        get(&app, path, Some(&bare), Some("nope"))
            .await
            .assert_problem(400, "request-validation-failed");
        get(
            &app,
            path,
            Some(&bare),
            Some(&uuid::Uuid::new_v4().to_string()),
        )
        .await
        .assert_problem(404, "campaign-not-found");
        get(&app, path, Some(&bare), Some(&forbidden))
            .await
            .assert_problem(403, "forbidden");

        // Session with a campaign: the header may repeat it but not change it.
        get(&app, path, Some(&p.token), Some(&p.campaign))
            .await
            .assert_status(200);
        get(&app, path, Some(&p.token), Some(&second))
            .await
            .assert_problem(403, "forbidden");
    }
}

#[tokio::test]
async fn records_outside_the_campaign_are_not_found() {
    let (app, p) = spawn_partner().await;
    let other = app.create_campaign("Other").await;
    let merchant = create_merchant(&app, "Artis", AMS).await;
    let elsewhere = p
        .product(&app, &merchant, "Other campaign", |b| {
            b["campaign_ids"] = json!([other])
        })
        .await;
    let id = id_of(&elsewhere, "product_id");
    p.get(&app, &format!("/v2/products/{id}/calendar"))
        .await
        .assert_problem(404, "product-not-found");
    p.post(
        &app,
        "/v2/fulfillment/timeslots",
        &json!({ "product_id": id, "date": "2030-01-01" }),
    )
    .await
    .assert_problem(404, "product-not-found");
    p.get(
        &app,
        &format!("/v2/products/{}/calendar", uuid::Uuid::new_v4()),
    )
    .await
    .assert_problem(404, "product-not-found");
    p.get(&app, &format!("/v2/merchants/{merchant}"))
        .await
        .assert_problem(404, "merchant-not-found");
    p.assert_finds_nothing(&app, "/v2/merchants/search?q=artis")
        .await;
}

#[tokio::test]
async fn a_client_that_lost_the_campaign_is_refused_at_once() {
    let (app, p) = spawn_partner().await;
    p.get_ok(&app, "/v2/merchants").await;
    // The operator takes the campaign away from the client; its live session ends there, at
    // once on the node that made the change (other nodes: `two_nodes`).
    let other = app.create_campaign("Other").await;
    let store = &app.state.store;
    let client = store.partner_client_by_client_id(&p.client.client_id);
    let pc = client.await.unwrap().unwrap().client.partner_client_id;
    app.admin_put_ok(
        &format!("/admin/v1/clients/{pc}"),
        &json!({ "name": "Shop", "campaign_ids": [other] }),
    )
    .await;
    p.get(&app, "/v2/merchants")
        .await
        .assert_problem(403, "forbidden");
}
