//! Operator API for the identity issuer allow-list.

use serde_json::{json, Value};

use crate::helpers::{error_code, error_fields, spawn_app};

const TEMPLATE: &str = "https://id.retailer.example/{apiKey}/.well-known/jwks.json";

fn issuer(iss: &str) -> Value {
    json!({ "issuer": iss, "jwks_url_template": TEMPLATE })
}

#[tokio::test]
async fn an_issuer_is_created_read_updated_listed_found_by_issuer_and_deleted() {
    let app = spawn_app().await;
    let created = app
        .admin_post(
            "/admin/v1/identity-issuers",
            &json!({ "issuer": " https://id.retailer.example ", "jwks_url_template": TEMPLATE,
                     "audience": "boxoffice" }),
        )
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(created["issuer"], "https://id.retailer.example");
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
        .admin_put(
            &path,
            &json!({ "issuer": "https://id2.retailer.example",
                     "jwks_url_template": "https://id2.retailer.example/jwks?key={apiKey}",
                     "audience": " " }),
        )
        .await
        .assert_status(200);
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
    app.admin_post("/admin/v1/identity-issuers", &issuer("https://a.example"))
        .await
        .assert_status(201);
    app.admin_post("/admin/v1/identity-issuers", &issuer("https://a.example"))
        .await
        .assert_problem(409, "conflict");
    let other = app
        .admin_post("/admin/v1/identity-issuers", &issuer("https://b.example"))
        .await
        .assert_status(201);
    let path = format!(
        "/admin/v1/identity-issuers/{}",
        other["data"]["identity_issuer_id"].as_str().unwrap()
    );
    app.admin_put(&path, &issuer("https://a.example"))
        .await
        .assert_problem(409, "conflict");
}

#[tokio::test]
async fn invalid_issuer_input_names_every_bad_field() {
    let app = spawn_app().await;
    let problem = app
        .admin_post(
            "/admin/v1/identity-issuers",
            &json!({ "issuer": "", "jwks_url_template": "not a url" }),
        )
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        ["issuer", "jwks_url_template"].map(String::from).into()
    );

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
