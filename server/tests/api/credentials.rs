//! Client credentials, sessions, code exchange and PKCE (docs/credentials.md, steps 1 to 3a).

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use reqwest::Method;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::helpers::{spawn_app, spawn_app_with, TestApp, TestClient};

async fn app_with_client() -> (TestApp, TestClient, String) {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Summer").await;
    let client = app.create_client("shop", &[&campaign]).await;
    (app, client, campaign)
}

/// The form of a client-credentials grant for `client`.
fn credentials_form(client: &TestClient) -> [(&'static str, &str); 3] {
    [
        ("grant_type", "client_credentials"),
        ("client_id", &client.client_id),
        ("client_secret", &client.secret),
    ]
}

#[tokio::test]
async fn client_credentials_work_as_form_json_and_basic() {
    let (app, client, _) = app_with_client().await;
    let form = app
        .post_form("/oauth/token", &credentials_form(&client))
        .await;
    let body = form.assert_status(200);
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 900);
    assert_eq!(form.header("cache-control"), Some("no-store"));

    let json = app
        .send(app.request(Method::POST, "/oauth/token").json(&json!({
            "grant_type": "client_credentials", "client_id": client.client_id, "client_secret": client.secret
        })))
        .await;
    json.assert_status(200);

    let basic = app
        .send(
            app.request(Method::POST, "/oauth/token")
                .basic_auth(&client.client_id, Some(&client.secret))
                .form(&[("grant_type", "client_credentials")]),
        )
        .await;
    basic.assert_status(200);
}

#[tokio::test]
async fn client_credential_errors_speak_both_problem_json_and_oauth() {
    let (app, client, _) = app_with_client().await;
    for (grant, client_id, secret, status, problem, oauth_error) in [
        (
            "client_credentials",
            client.client_id.as_str(),
            "wrong",
            401,
            "client-authentication-failed",
            "invalid_client",
        ),
        (
            "client_credentials",
            "nobody",
            "x",
            401,
            "client-authentication-failed",
            "invalid_client",
        ),
        (
            "password",
            "a",
            "b",
            400,
            "unsupported-grant-type",
            "unsupported_grant_type",
        ),
    ] {
        let response = app
            .post_form(
                "/oauth/token",
                &[
                    ("grant_type", grant),
                    ("client_id", client_id),
                    ("client_secret", secret),
                ],
            )
            .await;
        let body = response.assert_oauth_problem(status, problem, oauth_error);
        assert!(body["error_description"].is_string(), "{client_id}");
    }

    app.post_form(
        "/oauth/token",
        &[("client_id", "a"), ("client_secret", "b")],
    )
    .await
    .assert_oauth_problem(400, "request-validation-failed", "invalid_request");

    // Basic authentication and credentials in the form at once.
    app.send(
        app.request(Method::POST, "/oauth/token")
            .basic_auth(&client.client_id, Some(&client.secret))
            .form(&credentials_form(&client)),
    )
    .await
    .assert_oauth_problem(400, "request-validation-failed", "invalid_request");

    let text = app
        .send_raw(
            app.request(Method::POST, "/oauth/token"),
            "text/plain",
            "grant_type=client_credentials",
        )
        .await;
    text.assert_problem(415, "unsupported-media-type");
}

#[tokio::test]
async fn a_headless_session_code_is_exchanged_once_for_a_public_bearer() {
    let (app, client, campaign) = app_with_client().await;
    let backend = app.backend_token(&client).await;
    let user = json!({ "reference": "u-42", "email": "u42@example.com", "locale": "en-GB" });
    let started = app
        .start_session(
            &backend,
            &json!({ "integration": "headless", "user": user, "campaign_id": campaign }),
        )
        .await
        .assert_status(201);
    assert_eq!(started["data"]["pkce_required"], false);
    assert!(started["data"].get("frame_url").is_none());
    let expires: chrono::DateTime<chrono::Utc> = started["data"]["code_expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let ttl = expires - chrono::Utc::now();
    assert!(ttl > chrono::Duration::seconds(280) && ttl <= chrono::Duration::seconds(300));
    let code = started["data"]["session_code"].as_str().unwrap();
    assert!(code.len() >= 43, "256 random bits");

    let exchanged = app.exchange_code(&client, code).await;
    let token = exchanged.assert_status(200);
    assert_eq!(exchanged.header("cache-control"), Some("no-store"));
    assert_eq!(token["data"]["token_type"], "Bearer");
    assert_eq!(token["data"]["expires_in"], 1800);
    assert!(token["data"]["expires_at"].is_string());
    let bearer = token["data"]["access_token"].as_str().unwrap();

    let me = app.me(bearer).await.assert_status(200);
    assert_eq!(me["data"]["campaign_id"], campaign.as_str());
    assert_eq!(me["data"]["mode"], "headless");
    assert_eq!(me["data"]["client_id"], "shop");

    app.assert_code_invalid(&client, code).await;
}

#[tokio::test]
async fn a_replayed_code_revokes_the_bearer_it_produced() {
    let (app, client, campaign) = app_with_client().await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", Some(&campaign)).await;
    let bearer = app.exchange_code(&client, &code).await.assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    app.me(&bearer).await.assert_status(200);
    app.assert_code_invalid(&client, &code).await;
    app.me(&bearer).await.assert_problem(401, "token-invalid");
}

#[tokio::test]
async fn fifty_parallel_redemptions_of_one_code_yield_exactly_one_bearer() {
    let (app, client, campaign) = app_with_client().await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", Some(&campaign)).await;
    let attempts = (0..50).map(|_| app.exchange_code(&client, &code));
    let results = futures::future::join_all(attempts).await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    let refused = results.iter().filter(|r| r.status == 400).count();
    assert_eq!((ok, refused), (1, 49));
}

#[tokio::test]
async fn an_expired_code_is_told_apart_from_an_invalid_one() {
    let app = spawn_app_with(|c| c.session_code_ttl_secs = 1).await;
    let (_, client) = app.campaign_with_client("shop").await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", None).await;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    app.exchange_code(&client, &code)
        .await
        .assert_oauth_problem(400, "session-code-expired", "invalid_grant");
    app.exchange_code(&client, "never-issued")
        .await
        .assert_problem(400, "session-code-invalid");
}

#[tokio::test]
async fn only_the_creating_client_may_redeem_and_webframe_codes_only_in_the_frame() {
    let (app, client, campaign) = app_with_client().await;
    let other = app.create_client("other-shop", &[&campaign]).await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", None).await;
    app.assert_code_invalid(&other, &code).await;
    app.exchange_code(&client, &code).await.assert_status(200);

    let webframe =
        json!({ "integration": "webframe", "user": { "reference": "u" }, "campaign_id": campaign });
    let started = app
        .start_session(&backend, &webframe)
        .await
        .assert_status(201);
    assert_eq!(
        started["data"]["frame_url"],
        format!("{}/frame", app.base_url)
    );
    let frame_code = started["data"]["session_code"].as_str().unwrap();
    app.assert_code_invalid(&client, frame_code).await;
}

#[tokio::test]
async fn session_campaign_must_exist_and_be_allowed_for_the_client() {
    let (app, client, _) = app_with_client().await;
    let foreign = app.create_campaign("Not yours").await;
    let backend = app.backend_token(&client).await;
    app.start_session(
        &backend,
        &json!({ "integration": "headless", "user": { "reference": "u" }, "campaign_id": foreign }),
    )
    .await
    .assert_problem(403, "forbidden");
    app.start_session(&backend, &json!({ "integration": "headless", "user": { "reference": "u" }, "campaign_id": uuid::Uuid::new_v4() }))
        .await
        .assert_problem(404, "campaign-not-found");
    app.start_session(
        &backend,
        &json!({ "integration": "kiosk", "user": { "reference": "" } }),
    )
    .await
    .assert_invalid_first("integration");
    app.start_session(&backend, &json!({ "integration": "headless", "user": { "reference": " ", "email": "nope", "locale": "es-ES" } }))
        .await
.assert_invalid(&["user.reference", "user.email", "user.locale"]);
}

fn pkce_pair() -> (String, String) {
    let verifier = format!(
        "verifier-{}-{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

#[tokio::test]
async fn pkce_binds_the_code_to_its_verifier() {
    let (app, client, _) = app_with_client().await;
    let backend = app.backend_token(&client).await;
    let (verifier, challenge) = pkce_pair();
    let with_challenge = json!({ "integration": "headless", "user": { "reference": "u" }, "code_challenge": challenge, "code_challenge_method": "S256" });
    let exchange = |code: String, verifier: Option<String>| {
        let mut body = json!({ "session_code": code, "client_id": client.client_id, "client_secret": client.secret });
        if let Some(v) = verifier {
            body["code_verifier"] = v.into();
        }
        app.send(app.request(Method::POST, "/v1/session/token").json(&body))
    };

    let code = app.session_code(&backend, with_challenge.clone()).await;
    exchange(code.clone(), Some(pkce_pair().0))
        .await
        .assert_problem(400, "pkce-verification-failed");
    exchange(code.clone(), None)
        .await
        .assert_problem(400, "pkce-verification-failed");
    exchange(code, Some(verifier)).await.assert_status(200);

    let plain = app.headless_code(&backend, "u", None).await;
    exchange(plain, Some(pkce_pair().0))
        .await
        .assert_problem(400, "pkce-verification-failed");

    app.start_session(&backend, &json!({ "integration": "headless", "user": { "reference": "u" }, "code_challenge": challenge, "code_challenge_method": "plain" }))
        .await
        .assert_problem(400, "request-validation-failed");
    app.start_session(&backend, &json!({ "integration": "webframe", "user": { "reference": "u" }, "code_challenge": challenge, "code_challenge_method": "S256" }))
        .await
        .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn the_rfc_6749_twin_exchanges_with_field_code() {
    let (app, client, _) = app_with_client().await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", None).await;
    let response = app
        .post_form(
            "/v1/oauth/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("client_id", client.client_id.as_str()),
                ("client_secret", client.secret.as_str()),
            ],
        )
        .await;
    let token = response.assert_status(200);
    assert!(
        token["access_token"].is_string(),
        "bare RFC 6749 body: {token}"
    );
    assert_eq!(response.header("cache-control"), Some("no-store"));
    for (client_id, secret, status, problem, oauth_error) in [
        (
            client.client_id.as_str(),
            client.secret.as_str(),
            400,
            "session-code-invalid",
            "invalid_grant",
        ),
        (
            "shop",
            "nope",
            401,
            "client-authentication-failed",
            "invalid_client",
        ),
    ] {
        let form = [
            ("code", code.as_str()),
            ("client_id", client_id),
            ("client_secret", secret),
        ];
        app.post_form("/v1/oauth/token", &form)
            .await
            .assert_oauth_problem(status, problem, oauth_error);
    }
}
