//! Rotating the bearer signing key: both keys are in the JWKS during the rotation, bearers
//! signed before keep working, and another node takes the new key when it first meets a bearer
//! signed with it (docs/security.md, "Keys").

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

/// The `kid` in a JWT's header.
fn kid_of(token: &str) -> String {
    let header = token.split('.').next().unwrap();
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).unwrap()).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

async fn jwks_kids(app: &TestApp) -> Vec<String> {
    let jwks = app.get("/.well-known/jwks.json").await.assert_status(200);
    jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_rotation_publishes_both_keys_and_keeps_earlier_bearers_working() {
    let app = spawn_app().await;
    let (_, client) = app.campaign_with_client("shop").await;
    let before = app.backend_token(&client).await;
    let old_kid = kid_of(&before);
    assert_eq!(jwks_kids(&app).await, std::slice::from_ref(&old_kid));

    let rotated = app
        .admin_post("/admin/v1/keys/jwt/rotate", &json!({}))
        .await
        .assert_status(200);
    let new_kid = rotated["data"]["kid"].as_str().unwrap().to_owned();
    assert_eq!(rotated["data"]["retired_kid"], old_kid.as_str());
    assert_ne!(new_kid, old_kid);

    let mut kids = jwks_kids(&app).await;
    kids.sort();
    let mut both = vec![old_kid, new_kid.clone()];
    both.sort();
    assert_eq!(kids, both, "both keys are published during the rotation");
    app.start_headless_session(&before).await.assert_status(201);
    let after = app.backend_token(&client).await;
    assert_eq!(
        kid_of(&after),
        new_kid,
        "new bearers are signed with the new key"
    );
    app.start_headless_session(&after).await.assert_status(201);
}

#[tokio::test]
async fn another_node_takes_the_new_key_when_it_first_meets_it() {
    let first = spawn_app().await;
    if first.backend() != "postgres" {
        eprintln!("two nodes share a Postgres database only; skipped on SQLite");
        return;
    }
    let second = first.second_node(|_| {}).await;
    let (_, client) = first.campaign_with_client("shop").await;
    first
        .admin_post("/admin/v1/keys/jwt/rotate", &json!({}))
        .await
        .assert_status(200);
    let signed_with_new = first.backend_token(&client).await;
    assert_eq!(
        jwks_kids(&second).await.len(),
        1,
        "the second node has not met it yet"
    );
    second
        .start_headless_session(&signed_with_new)
        .await
        .assert_status(201);
    assert_eq!(jwks_kids(&second).await.len(), 2, "and now publishes both");
}
