//! Operator API for the identity issuer allow-list.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{error_code, spawn_app};

const TEMPLATE: &str = "https://id.retailer.example/{apiKey}/.well-known/jwks.json";

fn issuer(iss: &str) -> Value {
    json!({ "issuer": iss, "jwks_url_template": TEMPLATE, "api_keys": ["site-1"] })
}

#[tokio::test]
async fn an_issuer_is_created_read_updated_listed_found_by_issuer_and_deleted() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Retail").await;
    let created = app
        .admin_post_created(
            "/admin/v1/identity-issuers",
            &json!({ "issuer": " https://id.retailer.example ", "jwks_url_template": TEMPLATE,
                     "audience": "boxoffice", "api_keys": [" site-1 ", "site-2", "site-1"],
                     "campaign_ids": [campaign] }),
        )
        .await["data"]
        .clone();
    assert_eq!(created["issuer"], "https://id.retailer.example");
    assert_eq!(created["api_keys"], json!(["site-1", "site-2"]));
    assert_eq!(created["campaign_ids"], json!([campaign]));
    assert_eq!(created["jwks_url_template"], TEMPLATE);
    assert_eq!(created["audience"], "boxoffice");
    let id = created["identity_issuer_id"].as_str().unwrap();
    let path = format!("/admin/v1/identity-issuers/{id}");

    let read = app.admin_get_ok(&path).await;
    assert_eq!(read["data"], created);

    let found = app
        .state
        .store
        .identity_issuer_by_issuer("https://id.retailer.example")
        .await
        .unwrap()
        .expect("found by issuer");
    assert_eq!(found.identity_issuer_id.to_string(), id);
    assert_eq!(found.audience.as_deref(), Some("boxoffice"));

    let updated = app
        .admin_put_ok(
            &path,
            &json!({ "issuer": "https://id2.retailer.example",
                     "jwks_url_template": "https://id2.retailer.example/jwks?key={apiKey}",
                     "audience": " ", "api_keys": ["site-3"] }),
        )
        .await;
    assert_eq!(updated["data"]["api_keys"], json!(["site-3"]));
    assert_eq!(
        updated["data"]["campaign_ids"],
        json!([]),
        "the campaigns are replaced"
    );
    assert_eq!(updated["data"]["issuer"], "https://id2.retailer.example");
    assert_eq!(updated["data"]["audience"], Value::Null, "blank means none");
    let store = &app.state.store;
    assert!(store
        .identity_issuer_by_issuer("https://id.retailer.example")
        .await
        .unwrap()
        .is_none());
    assert!(store
        .identity_issuer_by_issuer("https://id2.retailer.example")
        .await
        .unwrap()
        .is_some());

    let listed = app.admin_get_ok("/admin/v1/identity-issuers").await;
    assert_eq!(listed["data"], json!([updated["data"]]));

    app.admin_delete_for_good(&path, &issuer("x")).await;
}

#[tokio::test]
async fn an_issuer_is_listed_once() {
    let app = spawn_app().await;
    app.admin_post_created("/admin/v1/identity-issuers", &issuer("https://a.example"))
        .await;
    app.assert_admin_conflict(
        Method::POST,
        "/admin/v1/identity-issuers",
        &issuer("https://a.example"),
    )
    .await;
    let other = app
        .admin_post_created("/admin/v1/identity-issuers", &issuer("https://b.example"))
        .await;
    let path = format!(
        "/admin/v1/identity-issuers/{}",
        other["data"]["identity_issuer_id"].as_str().unwrap()
    );
    app.assert_admin_conflict(Method::PUT, &path, &issuer("https://a.example"))
        .await;
}

#[tokio::test]
async fn invalid_issuer_input_names_every_bad_field() {
    let app = spawn_app().await;
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/identity-issuers",
        &json!({ "issuer": "", "jwks_url_template": "not a url" }),
        &["issuer", "jwks_url_template"],
    )
    .await;

    for (template, code) in [
        ("https://id.example/{apikey}/jwks", "placeholder"),
        ("https://id.example/{apiKey}/{kid}", "placeholder"),
        ("ftp://id.example/{apiKey}", "url"),
        ("/{apiKey}/jwks.json", "url"),
        ("{apiKey}", "url"),
    ] {
        let problem = app
            .admin_post(
                "/admin/v1/identity-issuers",
                &json!({ "issuer": "https://id.example", "jwks_url_template": template }),
            )
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(
            error_code(&problem, "jwks_url_template"),
            code,
            "{template}"
        );
    }
    let listed = app.admin_get_ok("/admin/v1/identity-issuers").await;
    assert_eq!(listed["data"], json!([]));
}

#[tokio::test]
async fn issuer_routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    app.assert_documented(&[
        ("/admin/v1/identity-issuers", &["get", "post"]),
        (
            "/admin/v1/identity-issuers/{identity_issuer_id}",
            &["get", "put", "delete"],
        ),
    ])
    .await;
}

#[tokio::test]
async fn an_issuer_lists_its_api_keys_and_existing_campaigns() {
    let app = spawn_app().await;
    let post = |body: Value| {
        let app = &app;
        async move { app.admin_post("/admin/v1/identity-issuers", &body).await }
    };
    // A template that depends on the apiKey needs the list of apiKeys to trust.
    for api_keys in [json!(null), json!([])] {
        let problem = post(
            json!({ "issuer": "https://id.example", "jwks_url_template": TEMPLATE,
                                    "api_keys": api_keys }),
        )
        .await
        .assert_invalid(&["api_keys"]);
        assert_eq!(error_code(&problem, "api_keys"), "required");
    }
    // apiKeys are bounded in length and charset, as the claim is.
    let long = "k".repeat(129);
    post(
        json!({ "issuer": "https://id.example", "jwks_url_template": TEMPLATE,
                 "api_keys": ["ok", long, "a/b"] }),
    )
    .await
    .assert_invalid(&["api_keys[1]", "api_keys[2]"]);
    // A fixed JWKS URL takes no apiKeys: the claim plays no part.
    let problem = post(json!({ "issuer": "https://id.example",
                               "jwks_url_template": "https://id.example/jwks", "api_keys": ["k"] }))
    .await
    .assert_invalid(&["api_keys"]);
    assert_eq!(error_code(&problem, "api_keys"), "not_allowed");
    post(json!({ "issuer": "https://id.example", "jwks_url_template": "https://id.example/jwks" }))
        .await
        .assert_status(201);
    // Campaigns must exist.
    let campaign = app.create_campaign("Retail").await;
    let unknown = uuid::Uuid::new_v4();
    post(
        json!({ "issuer": "https://id2.example", "jwks_url_template": TEMPLATE,
                 "api_keys": ["k"], "campaign_ids": [campaign, unknown] }),
    )
    .await
    .assert_invalid(&["campaign_ids[1]"]);
}
