//! Webhook and JWKS URLs must not reach this machine or private networks unless
//! `BOXOFFICE_ALLOW_PRIVATE_OUTBOUND` allows it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

const LOCAL_URLS: &[&str] = &[
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://[::1]/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.7/hook",
    "http://192.168.1.1/hook",
    "http://0.0.0.0/hook",
];

/// Asserts that the operator route `path` refuses every one of `LOCAL_URLS` as
/// `non_public_address` in `field` of the body `body_with` makes of it.
async fn assert_local_urls_refused(
    app: &TestApp,
    path: &str,
    field: &str,
    body_with: impl Fn(&str) -> Value,
) {
    for url in LOCAL_URLS {
        let problem = app
            .assert_admin_invalid(Method::POST, path, &body_with(url), &[field])
            .await;
        // An IPv6 literal is also outside the document's URL pattern (code `url`).
        let codes: Vec<&Value> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["field"] == field)
            .map(|e| &e["code"])
            .collect();
        assert!(
            codes.contains(&&json!("non_public_address")),
            "{url}: {codes:?}"
        );
    }
}

#[tokio::test]
async fn webhook_urls_to_local_or_private_addresses_are_refused() {
    let app = spawn_app_with(|c| c.allow_private_outbound = false).await;
    assert_local_urls_refused(
        &app,
        "/admin/v1/clients",
        "webhook_url",
        |url| json!({ "name": "Shop", "webhook_url": url }),
    )
    .await;
    let created = app
        .admin_post_created(
            "/admin/v1/clients",
            &json!({ "name": "Shop", "webhook_url": "https://shop.example/hooks" }),
        )
        .await;
    let path = format!(
        "/admin/v1/clients/{}",
        created["data"]["partner_client_id"].as_str().unwrap()
    );
    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "name": "Shop", "webhook_url": "http://127.0.0.1:9/hook" }),
        &["webhook_url"],
    )
    .await;
}

#[tokio::test]
async fn jwks_templates_to_local_or_private_addresses_are_refused() {
    let app = spawn_app_with(|c| c.allow_private_outbound = false).await;
    let issuers = "/admin/v1/identity-issuers";
    assert_local_urls_refused(&app, issuers, "jwks_url_template", |url| {
        let template = format!("{url}?apiKey={{apiKey}}");
        json!({ "issuer": "https://id.example", "jwks_url_template": template,
                "api_keys": ["k1"] })
    })
    .await;
    app.admin_post_created(
        "/admin/v1/identity-issuers",
        &json!({ "issuer": "https://id.example",
                 "jwks_url_template": "https://id.example/{apiKey}/jwks", "api_keys": ["k1"] }),
    )
    .await;
}

#[tokio::test]
async fn local_urls_are_accepted_when_private_outbound_is_allowed() {
    // The tests' configuration allows them: their receivers are local servers.
    let app = spawn_app().await;
    app.admin_post_created(
        "/admin/v1/clients",
        &json!({ "name": "Shop", "webhook_url": "http://127.0.0.1:8080/hook" }),
    )
    .await;
}
