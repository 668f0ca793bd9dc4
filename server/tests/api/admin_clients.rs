//! Operator API for partner clients: secrets shown once and stored hashed, origins validated,
//! allowed campaigns replaced as a whole.

use reqwest::Method;
use serde_json::{json, Value};
use server::{
    secrets,
    store::{ClientSecrets, PartnerClientInput},
};

use crate::helpers::{
    error_code, spawn_app, spawn_app_with_two_campaigns, upsert_partner_customer,
};

fn id(value: &Value) -> String {
    value["partner_client_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_client_is_created_read_updated_listed_and_deleted() {
    let (app, c1, c2) = spawn_app_with_two_campaigns().await;
    let response = app
        .admin_post(
            "/admin/v1/clients",
            &json!({
                "name": "Shop",
                "campaign_ids": [c1],
                "frame_origins": ["https://Shop.example", "http://localhost:*", "https://shop.example"],
                "return_origins": ["https://shop.example:8443"],
                "webhook_url": "https://shop.example/hooks"
            }),
        )
        .await;
    assert_eq!(response.header("cache-control"), Some("no-store"));
    let created = response.assert_status(201)["data"].clone();
    let client_id = created["client_id"].as_str().unwrap();
    assert!(client_id.starts_with("pc_"), "{client_id}");
    assert_eq!(created["campaign_ids"], json!([c1]));
    assert_eq!(
        created["frame_origins"],
        json!(["https://shop.example", "http://localhost:*"]),
        "lower-cased, repeats dropped"
    );
    assert_eq!(
        created["return_origins"],
        json!(["https://shop.example:8443"])
    );
    assert_eq!(created["webhook_url"], "https://shop.example/hooks");
    let secret = created["client_secret"].as_str().unwrap();
    assert_eq!(secret.len(), 43);
    assert!(created["webhook_secret"]
        .as_str()
        .unwrap()
        .starts_with("whsec_"));

    let path = format!("/admin/v1/clients/{}", id(&created));
    let read = app.admin_get(&path).await;
    let body = read.assert_status(200);
    assert_eq!(body["data"]["name"], "Shop");
    assert_eq!(body["data"]["client_id"], client_id);
    for hidden in ["client_secret", "webhook_secret", "secret_hash"] {
        assert!(body["data"].get(hidden).is_none(), "{hidden} in a read");
    }
    assert!(!read.text.contains(secret));

    let updated = app
        .admin_put_ok(
            &path,
            &json!({ "name": "Shop 2", "client_id": client_id, "campaign_ids": [c2, c1] }),
        )
        .await;
    let mut campaigns = vec![c1.clone(), c2.clone()];
    campaigns.sort();
    assert_eq!(updated["data"]["campaign_ids"], json!(campaigns));
    assert_eq!(updated["data"]["name"], "Shop 2");
    assert_eq!(updated["data"]["frame_origins"], json!([]));
    assert_eq!(updated["data"]["webhook_url"], Value::Null);

    let listed = app.admin_get("/admin/v1/clients").await;
    let body = listed.assert_status(200);
    assert_eq!(body["data"][0]["client_id"], client_id);
    assert_eq!(body["data"][0]["campaign_ids"], json!(campaigns));
    assert!(body["data"][0].get("client_secret").is_none());
    assert!(!listed.text.contains(secret));

    app.admin_delete_for_good(&path, &json!({ "name": "Shop 3" }))
        .await;
}

#[tokio::test]
async fn the_secret_is_stored_as_its_hash_and_verifies_through_the_store() {
    let app = spawn_app().await;
    let created = app.admin_create_client(&json!({ "name": "Shop" })).await;
    let client_id = created["client_id"].as_str().unwrap();
    let secret = created["client_secret"].as_str().unwrap();
    let webhook_secret = created["webhook_secret"].as_str().unwrap();

    let record = app.stored_client(client_id).await;
    assert_ne!(
        record.secret_hash,
        secret.as_bytes(),
        "not the secret itself"
    );
    assert_eq!(record.secret_hash, secrets::hash_secret(secret));
    assert!(secrets::verify_secret(secret, &record.secret_hash));
    assert!(!secrets::verify_secret(
        &secrets::new_client_secret(),
        &record.secret_hash
    ));
    assert_eq!(record.webhook_secret.as_deref(), Some(webhook_secret));
    let debug = format!("{record:?}");
    assert!(debug.contains(client_id));
    assert!(
        !debug.contains(webhook_secret),
        "Debug hides secrets: {debug}"
    );

    assert!(app
        .state
        .store
        .partner_client_by_client_id("pc_unknown")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn rotating_a_secret_shows_a_new_one_and_the_old_one_stops_verifying() {
    let app = spawn_app().await;
    let created = app.admin_create_client(&json!({ "name": "Shop" })).await;
    let client_id = created["client_id"].as_str().unwrap();
    let old = created["client_secret"].as_str().unwrap();
    let path = format!("/admin/v1/clients/{}", id(&created));

    let response = app.admin_post(&format!("{path}/secret"), &json!({})).await;
    assert_eq!(response.header("cache-control"), Some("no-store"));
    let rotated = response.assert_status(200)["data"].clone();
    assert_eq!(rotated["client_id"], client_id);
    let new = rotated["client_secret"].as_str().unwrap();
    assert_ne!(new, old);
    let record = app.stored_client(client_id).await;
    assert!(secrets::verify_secret(new, &record.secret_hash));
    assert!(!secrets::verify_secret(old, &record.secret_hash));
    let read = app.admin_get(&path).await;
    assert!(!read.text.contains(new));

    let old_webhook = created["webhook_secret"].as_str().unwrap();
    let rotated = app
        .admin_post(&format!("{path}/webhook-secret"), &json!({}))
        .await
        .assert_status(200);
    let new_webhook = rotated["data"]["webhook_secret"].as_str().unwrap();
    assert!(new_webhook.starts_with("whsec_"));
    assert_ne!(new_webhook, old_webhook);
    let record = app.stored_client(client_id).await;
    assert_eq!(record.webhook_secret.as_deref(), Some(new_webhook));
    assert!(
        secrets::verify_secret(new, &record.secret_hash),
        "the client secret is untouched"
    );
}

#[tokio::test]
async fn a_taken_client_id_is_a_conflict() {
    let app = spawn_app().await;
    let created = app
        .admin_create_client(&json!({ "name": "Acme", "client_id": " acme-shop " }))
        .await;
    assert_eq!(created["client_id"], "acme-shop");
    app.assert_admin_conflict(
        Method::POST,
        "/admin/v1/clients",
        &json!({ "name": "Other", "client_id": "acme-shop" }),
    )
    .await;
}

#[tokio::test]
async fn the_client_id_cannot_be_changed_by_an_update() {
    let app = spawn_app().await;
    let created = app
        .admin_create_client(&json!({ "name": "Acme", "client_id": "acme-shop" }))
        .await;
    let path = format!("/admin/v1/clients/{}", id(&created));
    let problem = app
        .admin_put(&path, &json!({ "name": "Acme", "client_id": "acme-2" }))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(error_code(&problem, "client_id"), "immutable");
    let read = app.admin_get_ok(&path).await;
    assert_eq!(read["data"]["client_id"], "acme-shop");
}

#[tokio::test]
async fn invalid_client_input_names_every_bad_field() {
    let app = spawn_app().await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/clients",
            &json!({
                "name": " ",
                "client_id": "has space",
                "frame_origins": ["https://ok.example", "https://x/path"],
                "return_origins": ["shop.example", "https://u@shop.example"],
                "webhook_url": "ftp://shop.example/hooks"
            }),
            &[
                "client_id",
                "frame_origins[1]",
                "name",
                "return_origins[0]",
                "return_origins[1]",
                "webhook_url",
            ],
        )
        .await;
    assert_eq!(error_code(&problem, "frame_origins[1]"), "origin");
    let listed = app.admin_get_ok("/admin/v1/clients").await;
    assert_eq!(listed["data"], json!([]));
}

#[tokio::test]
async fn an_unknown_campaign_is_named_and_nothing_is_written() {
    let app = spawn_app().await;
    let c1 = app.create_campaign("one").await;
    let unknown = uuid::Uuid::new_v4();
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/clients",
            &json!({ "name": "Shop", "client_id": "shop", "campaign_ids": [c1, unknown] }),
            &["campaign_ids[1]"],
        )
        .await;
    assert_eq!(error_code(&problem, "campaign_ids[1]"), "unknown_reference");
    assert!(
        app.state
            .store
            .partner_client_by_client_id("shop")
            .await
            .unwrap()
            .is_none(),
        "the client insert was rolled back"
    );
}

#[tokio::test]
async fn an_update_replaces_the_allowed_campaigns_as_a_whole() {
    let app = spawn_app().await;
    let c1: uuid::Uuid = app.create_campaign("one").await.parse().unwrap();
    let c2: uuid::Uuid = app.create_campaign("two").await.parse().unwrap();
    let created = app
        .admin_create_client(&json!({ "name": "Shop", "campaign_ids": [c1] }))
        .await;
    let pc: uuid::Uuid = id(&created).parse().unwrap();
    let store = &app.state.store;
    assert!(store.client_may_use_campaign(pc, c1).await.unwrap());
    assert!(!store.client_may_use_campaign(pc, c2).await.unwrap());

    let path = format!("/admin/v1/clients/{pc}");
    app.admin_put_ok(&path, &json!({ "name": "Shop", "campaign_ids": [c2] }))
        .await;
    assert!(!store.client_may_use_campaign(pc, c1).await.unwrap());
    assert!(store.client_may_use_campaign(pc, c2).await.unwrap());

    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "name": "Renamed", "campaign_ids": [c1, uuid::Uuid::new_v4()] }),
        &["campaign_ids[1]"],
    )
    .await;
    let read = app.admin_get_ok(&path).await;
    assert_eq!(
        read["data"]["name"], "Shop",
        "the failed update changed nothing"
    );
    assert_eq!(read["data"]["campaign_ids"], json!([c2]));
    assert!(!store.client_may_use_campaign(pc, c1).await.unwrap());
}

#[tokio::test]
async fn the_list_pages_clients_with_all_their_campaigns() {
    let (app, c1, c2) = spawn_app_with_two_campaigns().await;
    for i in 0..3 {
        app.admin_create_client(&json!({ "name": format!("shop {i}"), "campaign_ids": [c1, c2] }))
            .await;
    }
    for limit in [1, 2, 100] {
        let clients = app.admin_collect("/admin/v1/clients", limit).await;
        assert_eq!(clients.len(), 3, "limit {limit}");
        for client in &clients {
            assert_eq!(
                client["campaign_ids"].as_array().unwrap().len(),
                2,
                "limit {limit}"
            );
        }
    }
}

#[tokio::test]
async fn upserting_with_a_given_secret_is_idempotent_on_the_client_id() {
    let app = spawn_app().await;
    let campaign: uuid::Uuid = app.create_campaign("demo").await.parse().unwrap();
    let input = PartnerClientInput {
        name: "Demo partner".into(),
        client_id: None,
        campaign_ids: vec![campaign],
        frame_origins: vec!["http://localhost:*".into()],
        return_origins: vec!["http://localhost:*".into()],
        webhook_url: None,
        hold_limits: None,
        theme: None,
        settlement: Default::default(),
    };
    let secrets_for = |secret: &str| ClientSecrets {
        secret_hash: secrets::hash_secret(secret),
        webhook_secret: secrets::new_webhook_secret(),
    };
    let store = &app.state.store;
    let first = store
        .upsert_partner_client("demo-partner", &input, &secrets_for("demo-secret"))
        .await
        .unwrap();
    let webhook_secret = app.stored_client("demo-partner").await.webhook_secret;
    let again = store
        .upsert_partner_client("demo-partner", &input, &secrets_for("demo-secret"))
        .await
        .unwrap();
    assert_eq!(again.partner_client_id, first.partner_client_id);
    assert_eq!(again.campaign_ids, vec![campaign]);
    let record = app.stored_client("demo-partner").await;
    assert_eq!(record.webhook_secret, webhook_secret, "kept on upsert");
    assert!(secrets::verify_secret("demo-secret", &record.secret_hash));
    assert_eq!(store.list_partner_clients(None, 10).await.unwrap().len(), 1);

    store
        .upsert_partner_client("demo-partner", &input, &secrets_for("changed"))
        .await
        .unwrap();
    let record = app.stored_client("demo-partner").await;
    assert!(secrets::verify_secret("changed", &record.secret_hash));
    assert!(!secrets::verify_secret("demo-secret", &record.secret_hash));
}

#[tokio::test]
async fn an_unknown_client_is_not_found() {
    let app = spawn_app().await;
    let path = format!("/admin/v1/clients/{}", uuid::Uuid::new_v4());
    app.assert_admin_unknown(&path, &json!({ "name": "x" }))
        .await;
    for rotation in ["secret", "webhook-secret"] {
        app.admin_post(&format!("{path}/{rotation}"), &json!({}))
            .await
            .assert_problem(404, "not-found");
    }
}

#[tokio::test]
async fn a_client_with_customers_cannot_be_deleted() {
    let app = spawn_app().await;
    let created = app.admin_create_client(&json!({ "name": "Shop" })).await;
    let pc: uuid::Uuid = id(&created).parse().unwrap();
    upsert_partner_customer(app.state.store.as_ref(), pc, "user-1").await;
    app.admin_delete(&format!("/admin/v1/clients/{pc}"))
        .await
        .assert_problem(409, "conflict");
}

#[tokio::test]
async fn client_routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    app.assert_documented(&[
        ("/admin/v1/clients", &["get", "post"]),
        (
            "/admin/v1/clients/{partner_client_id}",
            &["get", "put", "delete"],
        ),
        ("/admin/v1/clients/{partner_client_id}/secret", &["post"]),
        (
            "/admin/v1/clients/{partner_client_id}/webhook-secret",
            &["post"],
        ),
    ])
    .await;
}

/// A readable theme with every field set, as an operator sends it.
fn good_theme() -> Value {
    json!({
        "accent": "#0B5CAD", "accent_text": "#FFFFFF", "background": "#fbfaf7", "text": "#1d1d1f",
        "corner_radius": 12, "font_stack": "\"Source Sans 3\", Arial, sans-serif",
        "color_scheme": "auto"
    })
}

#[tokio::test]
async fn a_good_theme_is_stored_and_read_back_and_can_be_cleared() {
    let app = spawn_app().await;
    let created = app
        .admin_create_client(&json!({ "name": "Shop", "theme": good_theme() }))
        .await;
    let mut stored = good_theme();
    stored["accent"] = json!("#0b5cad");
    stored["accent_text"] = json!("#ffffff");
    assert_eq!(created["theme"], stored, "colours are kept lower-case");

    let path = format!("/admin/v1/clients/{}", id(&created));
    assert_eq!(app.admin_get_ok(&path).await["data"]["theme"], stored);
    let dark = json!({ "color_scheme": "dark", "background": "#101418", "text": "#f0f0f0" });
    let updated = app
        .admin_put_ok(&path, &json!({ "name": "Shop", "theme": dark }))
        .await;
    assert_eq!(updated["data"]["theme"]["color_scheme"], "dark");
    assert_eq!(updated["data"]["theme"]["accent"], Value::Null);
    let cleared = app.admin_put_ok(&path, &json!({ "name": "Shop" })).await;
    assert_eq!(
        cleared["data"]["theme"],
        Value::Null,
        "absent: the frame's own look"
    );
}

#[tokio::test]
async fn a_theme_with_bad_colours_radius_or_font_names_each_field() {
    let app = spawn_app().await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/clients",
            &json!({ "name": "Shop", "theme": {
                "accent": "blue", "accent_text": "#ffff", "background": "#12345g",
                "corner_radius": 25, "font_stack": "Arial; } body { display: none"
            }}),
            &[
                "theme.accent",
                "theme.accent_text",
                "theme.background",
                "theme.corner_radius",
                "theme.font_stack",
            ],
        )
        .await;
    assert_eq!(error_code(&problem, "theme.accent"), "hex_colour");
    assert_eq!(error_code(&problem, "theme.corner_radius"), "range");
    assert_eq!(
        app.admin_get_ok("/admin/v1/clients").await["data"],
        json!([])
    );
}

#[tokio::test]
async fn a_font_stack_that_could_leave_its_css_is_refused() {
    let app = spawn_app().await;
    for stack in [
        "</style><script>alert(1)</script>",
        "Arial}html{background:url(https://evil.example/x)",
        "\"Arial",
        "Arial\\7d",
        "Arial, serif; color: red",
    ] {
        let problem = app
            .assert_admin_invalid(
                Method::POST,
                "/admin/v1/clients",
                &json!({ "name": "Shop", "theme": { "font_stack": stack } }),
                &["theme.font_stack"],
            )
            .await;
        assert_eq!(
            error_code(&problem, "theme.font_stack"),
            "font_stack",
            "{stack}"
        );
    }
}

#[tokio::test]
async fn low_contrast_is_refused_naming_the_field() {
    let app = spawn_app().await;
    let created = app.admin_create_client(&json!({ "name": "Shop" })).await;
    let path = format!("/admin/v1/clients/{}", id(&created));
    for (theme, field) in [
        // Grey text on the default white: 2.8:1.
        (json!({ "text": "#999999" }), "theme.text"),
        // A pale accent under the default white label.
        (json!({ "accent": "#ffe08a" }), "theme.accent"),
        (
            json!({ "accent": "#1f3a5f", "accent_text": "#3a5a80" }),
            "theme.accent_text",
        ),
        // The accent as a control against the background: under 3:1.
        (
            json!({ "accent": "#f0f0f0", "accent_text": "#000000", "background": "#ffffff" }),
            "theme.accent",
        ),
    ] {
        let problem = app
            .assert_admin_invalid(
                Method::PUT,
                &path,
                &json!({ "name": "Shop", "theme": theme }),
                &[field],
            )
            .await;
        assert_eq!(error_code(&problem, field), "contrast", "{theme}");
        let message = problem["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains(":1"), "the ratio is told: {message}");
    }
    assert_eq!(app.admin_get_ok(&path).await["data"]["theme"], Value::Null);
}

#[tokio::test]
async fn a_color_scheme_must_be_light_dark_or_auto_and_fit_the_background() {
    let app = spawn_app().await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/clients",
            &json!({ "name": "Shop", "theme": { "color_scheme": "sepia" } }),
            &["theme.color_scheme"],
        )
        .await;
    assert_eq!(error_code(&problem, "theme.color_scheme"), "invalid");
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/clients",
            &json!({ "name": "Shop", "theme": {
                "color_scheme": "dark", "background": "#ffffff", "text": "#111111",
                "accent": "#1f3a5f", "accent_text": "#ffffff"
            }}),
            &["theme.background"],
        )
        .await;
    assert_eq!(error_code(&problem, "theme.background"), "color_scheme");
}
