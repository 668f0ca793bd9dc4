//! Webhook and JWKS URLs must not reach this machine or private networks unless
//! `BOXOFFICE_ALLOW_PRIVATE_OUTBOUND` allows it.

use serde_json::json;

use crate::helpers::{error_code, spawn_app, spawn_app_with};

const LOCAL_URLS: &[&str] = &[
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://[::1]/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.7/hook",
    "http://192.168.1.1/hook",
    "http://0.0.0.0/hook",
];

#[tokio::test]
async fn webhook_urls_to_local_or_private_addresses_are_refused() {
    let app = spawn_app_with(|c| c.allow_private_outbound = false).await;
    for url in LOCAL_URLS {
        let problem = app
            .admin_post(
                "/admin/v1/clients",
                &json!({ "name": "Shop", "webhook_url": url }),
            )
            .await
            .assert_invalid(&["webhook_url"]);
        assert_eq!(
            error_code(&problem, "webhook_url"),
            "non_public_address",
            "{url}"
        );
    }
    let created = app
        .admin_post(
            "/admin/v1/clients",
            &json!({ "name": "Shop", "webhook_url": "https://shop.example/hooks" }),
        )
        .await
        .assert_status(201);
    let path = format!(
        "/admin/v1/clients/{}",
        created["data"]["partner_client_id"].as_str().unwrap()
    );
    app.admin_put(
        &path,
        &json!({ "name": "Shop", "webhook_url": "http://127.0.0.1:9/hook" }),
    )
    .await
    .assert_invalid(&["webhook_url"]);
}

#[tokio::test]
async fn jwks_templates_to_local_or_private_addresses_are_refused() {
    let app = spawn_app_with(|c| c.allow_private_outbound = false).await;
    for url in LOCAL_URLS {
        let template = format!("{url}?apiKey={{apiKey}}");
        let problem = app
            .admin_post(
                "/admin/v1/identity-issuers",
                &json!({ "issuer": "https://id.example", "jwks_url_template": template,
                         "api_keys": ["k1"] }),
            )
            .await
            .assert_invalid(&["jwks_url_template"]);
        assert_eq!(
            error_code(&problem, "jwks_url_template"),
            "non_public_address",
            "{url}"
        );
    }
    app.admin_post(
        "/admin/v1/identity-issuers",
        &json!({ "issuer": "https://id.example",
                 "jwks_url_template": "https://id.example/{apiKey}/jwks", "api_keys": ["k1"] }),
    )
    .await
    .assert_status(201);
}

#[tokio::test]
async fn local_urls_are_accepted_when_private_outbound_is_allowed() {
    // The tests' configuration allows them: their receivers are local servers.
    let app = spawn_app().await;
    app.admin_post(
        "/admin/v1/clients",
        &json!({ "name": "Shop", "webhook_url": "http://127.0.0.1:8080/hook" }),
    )
    .await
    .assert_status(201);
}
