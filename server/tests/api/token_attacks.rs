//! Bearer tokens that must be refused: forged, mis-signed, expired, or of the wrong kind.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap())
}

/// Valid public-bearer claims for a session that does not exist, to sign in many ways.
fn claims(app: &TestApp, overrides: Value) -> Value {
    let now = chrono::Utc::now().timestamp();
    let mut claims = json!({
        "iss": app.state.authn.tokens.issuer(),
        "aud": "boxoffice-public",
        "sub": uuid::Uuid::new_v4(),
        "iat": now,
        "exp": now + 600,
        "jti": uuid::Uuid::new_v4(),
        "sid": uuid::Uuid::new_v4(),
        "client_id": "shop",
        "mode": "headless",
    });
    for (k, v) in overrides.as_object().unwrap() {
        if v.is_null() {
            claims.as_object_mut().unwrap().remove(k);
        } else {
            claims[k] = v.clone();
        }
    }
    claims
}

/// Asserts that `GET /v2/me` refuses `token` as invalid.
async fn assert_me_refuses(app: &TestApp, token: &str) {
    app.me(token).await.assert_problem(401, "token-invalid");
}

#[tokio::test]
async fn unsigned_and_hs256_tokens_are_refused() {
    let app = spawn_app().await;
    let jwks = app.get("/.well-known/jwks.json").await.assert_status(200);
    let kid = jwks["keys"][0]["kid"].as_str().unwrap().to_owned();
    let body = b64(&claims(&app, json!({})));

    let none = format!(
        "{}.{body}.",
        b64(&json!({ "alg": "none", "typ": "JWT", "kid": kid }))
    );
    assert_me_refuses(&app, &none).await;

    // The classic confusion attack: HS256 keyed with the published public key.
    let public_key = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["x"].as_str().unwrap())
        .unwrap();
    let header = jsonwebtoken::Header {
        kid: Some(kid),
        ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256)
    };
    let hs256 = jsonwebtoken::encode(
        &header,
        &claims(&app, json!({})),
        &jsonwebtoken::EncodingKey::from_secret(&public_key),
    )
    .unwrap();
    assert_me_refuses(&app, &hs256).await;

    for malformed in ["not.a.jwt", "garbage"] {
        assert_me_refuses(&app, malformed).await;
    }
}

#[tokio::test]
async fn wrong_or_missing_audience_and_issuer_are_refused() {
    let app = spawn_app().await;
    for overrides in [
        json!({ "aud": "boxoffice-backend" }),
        json!({ "aud": "someone-else" }),
        json!({ "aud": null }),
        json!({ "iss": null }),
        json!({ "iss": "https://evil.example" }),
        json!({ "exp": null }),
    ] {
        let token = app
            .state
            .authn
            .tokens
            .sign(&claims(&app, overrides.clone()))
            .unwrap();
        assert_me_refuses(&app, &token).await;
    }
}

#[tokio::test]
async fn an_expired_token_says_so() {
    let app = spawn_app().await;
    let past = chrono::Utc::now().timestamp() - 3600;
    let token = app
        .state
        .authn
        .tokens
        .sign(&claims(&app, json!({ "iat": past - 60, "exp": past })))
        .unwrap();
    let response = app.me(&token).await;
    response.assert_problem(401, "token-expired");
    assert_eq!(
        response.header("www-authenticate"),
        Some(r#"Bearer error="invalid_token""#)
    );
}

#[tokio::test]
async fn a_well_signed_token_for_an_unknown_session_is_refused() {
    let app = spawn_app().await;
    let token = app
        .state
        .authn
        .tokens
        .sign(&claims(&app, json!({})))
        .unwrap();
    assert_me_refuses(&app, &token).await;
}

#[tokio::test]
async fn each_kind_of_bearer_works_only_where_it_belongs() {
    let app = spawn_app().await;
    let (campaign, client) = app.campaign_with_client("shop").await;
    let backend = app.backend_token(&client).await;
    let public = app.public_token(&client, &campaign).await;
    let merchant = {
        let now = chrono::Utc::now().timestamp();
        app.state
            .authn
            .tokens
            .sign(&json!({ "iss": app.state.authn.tokens.issuer(), "aud": "boxoffice-merchant", "sub": uuid::Uuid::new_v4(), "iat": now, "exp": now + 600, "jti": uuid::Uuid::new_v4() }))
            .unwrap()
    };

    for other_kind in [&backend, &merchant] {
        assert_me_refuses(&app, other_kind).await;
    }
    app.me(&public).await.assert_status(200);

    for other_kind in [&public, &merchant] {
        app.start_headless_session(other_kind)
            .await
            .assert_problem(401, "token-invalid");
    }
    app.start_headless_session(&backend)
        .await
        .assert_status(201);

    for other_kind in [public, backend] {
        app.send(
            app.request(
                Method::GET,
                "/prod/merchant-accounts/onboarding?debtorCode=D1",
            )
            .bearer_auth(other_kind),
        )
        .await
        .assert_problem(401, "token-invalid");
    }
}

#[tokio::test]
async fn the_jwks_publishes_the_signing_key_as_an_okp_key() {
    let app = spawn_app().await;
    let response = app.get("/.well-known/jwks.json").await;
    assert_eq!(
        response.header("content-type"),
        Some("application/jwk-set+json")
    );
    let key = &response.json()["keys"][0];
    assert_eq!(key["kty"], "OKP");
    assert_eq!(key["crv"], "Ed25519");
    assert_eq!(key["alg"], "EdDSA");
    assert!(key.get("d").is_none(), "no private part");
    let token = app
        .state
        .authn
        .tokens
        .sign(&claims(&app, json!({})))
        .unwrap();
    let header = jsonwebtoken::decode_header(&token).unwrap();
    assert_eq!(header.kid.as_deref(), key["kid"].as_str());
}

/// A backend bearer lives only as long as the secret it was issued under: rotating the
/// client's secret or deleting the client ends it at once (docs/security.md).
#[tokio::test]
async fn a_backend_bearer_ends_when_its_clients_secret_is_rotated_or_the_client_deleted() {
    let app = spawn_app().await;
    let (campaign, client) = app.campaign_with_client("shop").await;
    let id = app.partner_client_id(&client.client_id).await;

    let before = app.backend_token(&client).await;
    app.start_headless_session(&before).await.assert_status(201);
    let rotated = app
        .admin_post(&format!("/admin/v1/clients/{id}/secret"), &json!({}))
        .await
        .assert_status(200);
    app.start_headless_session(&before)
        .await
        .assert_problem(401, "token-invalid");

    // The new secret's bearer works.
    let renewed = crate::helpers::TestClient {
        client_id: client.client_id.clone(),
        secret: rotated["data"]["client_secret"]
            .as_str()
            .unwrap()
            .to_owned(),
    };
    let after = app.backend_token(&renewed).await;
    app.start_headless_session(&after).await.assert_status(201);

    // A deleted client's bearer ends with it (a client that never started a session, so
    // nothing keeps it from being deleted).
    let gone = app.create_client("gone", &[&campaign]).await;
    let bearer = app.backend_token(&gone).await;
    let gone_id = app.partner_client_id(&gone.client_id).await;
    assert_eq!(
        app.admin_delete(&format!("/admin/v1/clients/{gone_id}"))
            .await
            .status,
        204
    );
    app.start_headless_session(&bearer)
        .await
        .assert_problem(401, "token-invalid");
}
