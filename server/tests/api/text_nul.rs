//! U+0000 in text: PostgreSQL's text cannot store it (SQLite can), so every body, form and
//! query refuses it with 400 naming the field, on both databases alike, before anything is
//! stored (schemathesis found a 500 on PostgreSQL for an availability group's name).

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn text_holding_nul_is_refused_naming_its_field() {
    let app = spawn_app().await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/campaigns",
            &json!({ "name": "Sum\u{0}mer" }),
            &["name"],
        )
        .await;
    assert_eq!(problem["errors"][0]["code"], "nul");

    let merchant = json!({
        "name": "Museum", "category": "museum", "timezone": "Europe/Amsterdam",
        "currency": "EUR", "location": { "latitude": 52.0, "longitude": 4.0 },
        "address": { "street": "Dam 1", "postal_code": "1012", "city": "Amsterdam", "country": "NL" },
        "translations": [{ "locale": "en-GB", "name": "Mu\u{0}seum" }],
    });
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/merchants",
        &merchant,
        &["translations[0].name"],
    )
    .await;
    // Nothing was stored.
    let listed = app.admin_get_ok("/admin/v1/campaigns").await;
    assert_eq!(listed["meta"]["item_count"], 0);

    // A form field and a query parameter alike.
    let token = app
        .post_form(
            "/oauth/token",
            &[
                ("grant_type", "client_credentials"),
                ("client_id", "a\u{0}b"),
                ("client_secret", "x"),
            ],
        )
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(token["errors"][0]["field"], "client_id");
    assert_eq!(token["error"], "invalid_request");
    let listed = app
        .send(app.admin(Method::GET, "/admin/v1/campaigns?next_token=a%00b"))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(listed["errors"][0]["field"], "next_token");

    // An escaped backslash before `u0000` is text, not U+0000.
    let created = app
        .admin_post_created("/admin/v1/campaigns", &json!({ "name": "C:\\u0000" }))
        .await;
    assert_eq!(created["data"]["name"], "C:\\u0000");
}
