//! The identity bearer exchange against a real JWKS server on port 0.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use axum::{routing::get, Json, Router};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::Method;
use rsa::{pkcs8::DecodePrivateKey, traits::PublicKeyParts};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp, TestResponse};

const ISSUER: &str = "https://idp.retail.example/";
const RSA_PEM: &str = include_str!("fixtures/identity_rsa.pem");

/// A JWKS endpoint serving `keys`, counting requests.
struct JwksServer {
    url_template: String,
    hits: Arc<AtomicUsize>,
}

async fn jwks_server(keys: Value) -> JwksServer {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let router = Router::new().route(
        "/keys",
        get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let keys = keys.clone();
            async move { Json(keys) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    JwksServer {
        url_template: format!("http://{address}/keys?apiKey={{apiKey}}"),
        hits,
    }
}

fn rsa_jwk(kid: &str) -> Value {
    let key = rsa::RsaPrivateKey::from_pkcs8_pem(RSA_PEM).unwrap();
    json!({
        "kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
        "n": URL_SAFE_NO_PAD.encode(key.n().to_bytes_be()),
        "e": URL_SAFE_NO_PAD.encode(key.e().to_bytes_be()),
    })
}

fn rs256_token(kid: &str, claims: Value) -> String {
    let header = Header {
        kid: Some(kid.to_owned()),
        ..Header::new(Algorithm::RS256)
    };
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let der = rsa::RsaPrivateKey::from_pkcs8_pem(RSA_PEM)
        .unwrap()
        .to_pkcs1_der()
        .unwrap();
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_rsa_der(der.as_bytes())).unwrap()
}

fn identity_claims(extra: Value) -> Value {
    let now = chrono::Utc::now().timestamp();
    let mut claims = json!({
        "iss": ISSUER, "apiKey": "retail-key", "iat": now, "exp": now + 300,
        "accountuid": "acc-123", "loyalty_card": "LC-9",
    });
    for (k, v) in extra.as_object().unwrap() {
        claims[k] = v.clone();
    }
    claims
}

async fn exchange(app: &TestApp, campaign: Option<&str>, body: Value) -> TestResponse {
    let mut request = app
        .request(Method::POST, "/v1/session/identity")
        .json(&body);
    if let Some(c) = campaign {
        request = request.header("x-campaign-id", c);
    }
    app.send(request).await
}

/// The issuer, trusted for the apiKey `retail-key` in `campaign`.
fn trusted(jwks_url_template: String, campaign: &str) -> server::store::IdentityIssuerInput {
    server::store::IdentityIssuerInput {
        issuer: ISSUER.to_owned(),
        jwks_url_template,
        audience: None,
        api_keys: Some(vec!["retail-key".to_owned()]),
        campaign_ids: vec![campaign.parse().unwrap()],
    }
}

/// Stores the issuer straight in the store, trusted in `campaign` with keys at `jwks_url_template`
/// (the operator route would refuse the local URLs some tests need).
async fn trust_issuer(app: &TestApp, jwks_url_template: String, campaign: &str) {
    app.state
        .store
        .create_identity_issuer(uuid::Uuid::new_v4(), &trusted(jwks_url_template, campaign))
        .await
        .unwrap();
}

async fn setup(keys: Value) -> (TestApp, String, JwksServer) {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Retail").await;
    let server = jwks_server(keys).await;
    trust_issuer(&app, server.url_template.clone(), &campaign).await;
    (app, campaign, server)
}

/// A token signed with `k1` carrying the default identity claims.
fn valid_token() -> String {
    rs256_token("k1", identity_claims(json!({})))
}

/// Exchanges `token` as the body's `identity_token`.
async fn exchange_token(app: &TestApp, campaign: Option<&str>, token: &str) -> TestResponse {
    exchange(app, campaign, json!({ "identity_token": token })).await
}

#[tokio::test]
async fn a_verified_identity_token_becomes_a_session_with_its_claims() {
    let (app, campaign, server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    let response = exchange_token(&app, Some(&campaign), &valid_token()).await;
    let body = response.assert_status(200);
    assert_eq!(response.header("cache-control"), Some("no-store"));
    let bearer = body["data"]["access_token"].as_str().unwrap();
    let me = app.me(bearer).await.assert_status(200);
    assert_eq!(me["data"]["integrator_params"]["accountuid"], "acc-123");
    assert_eq!(me["data"]["integrator_params"]["loyalty_card"], "LC-9");
    assert_eq!(me["data"]["campaign_id"], campaign.as_str());
    assert_eq!(me["data"]["mode"], "identity");

    // The same account again is the same customer, and the keys came from the cache.
    let again = exchange_token(&app, Some(&campaign), &valid_token()).await;
    let bearer2 = again.assert_status(200)["data"]["access_token"].clone();
    let me2 = app.me(bearer2.as_str().unwrap()).await.assert_status(200);
    assert_eq!(me["data"]["customer_id"], me2["data"]["customer_id"]);
    assert_eq!(server.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn es256_tokens_verify_too() {
    use p256::pkcs8::EncodePrivateKey;
    let signing = p256::ecdsa::SigningKey::random(&mut rand::rngs::OsRng);
    let public = signing.verifying_key().to_encoded_point(false);
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "kid": "ec1", "alg": "ES256",
        "x": URL_SAFE_NO_PAD.encode(public.x().unwrap()),
        "y": URL_SAFE_NO_PAD.encode(public.y().unwrap()),
    });
    let (app, campaign, _server) = setup(json!({ "keys": [jwk] })).await;
    let der = signing.to_pkcs8_der().unwrap();
    let header = Header {
        kid: Some("ec1".into()),
        ..Header::new(Algorithm::ES256)
    };
    let token = jsonwebtoken::encode(
        &header,
        &identity_claims(json!({})),
        &EncodingKey::from_ec_der(der.as_bytes()),
    )
    .unwrap();
    exchange_token(&app, Some(&campaign), &token)
        .await
        .assert_status(200);
}

#[tokio::test]
async fn a_token_from_an_issuer_off_the_allow_list_makes_no_request() {
    let (app, campaign, server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    let token = rs256_token(
        "k1",
        identity_claims(json!({ "iss": "https://stranger.example/" })),
    );
    exchange_token(&app, Some(&campaign), &token)
        .await
        .assert_problem(401, "identity-token-rejected");
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn bad_signature_unknown_kid_expired_and_missing_accountuid_are_rejected() {
    let (app, campaign, server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    let good = valid_token();
    let (head, rest) = good.split_once('.').unwrap();
    let (body, _) = rest.split_once('.').unwrap();
    let forged_body = URL_SAFE_NO_PAD.encode(
        serde_json::to_vec(&identity_claims(json!({ "accountuid": "someone-else" }))).unwrap(),
    );
    let bad_signature = format!("{head}.{forged_body}.{}", good.rsplit('.').next().unwrap());
    assert_ne!(body, forged_body);
    let past = chrono::Utc::now().timestamp() - 3600;
    for token in [
        bad_signature,
        rs256_token("unknown-kid", identity_claims(json!({}))),
        rs256_token(
            "k1",
            identity_claims(json!({ "iat": past - 60, "exp": past })),
        ),
        rs256_token("k1", identity_claims(json!({ "accountuid": "" }))),
    ] {
        exchange_token(&app, Some(&campaign), &token)
            .await
            .assert_problem(401, "identity-token-rejected");
    }
    // The unknown kid refetched the keys once; further unknown kids within a minute do not.
    let before = server.hits.load(Ordering::SeqCst);
    let other_kid = rs256_token("other-unknown", identity_claims(json!({})));
    exchange_token(&app, Some(&campaign), &other_kid)
        .await
        .assert_problem(401, "identity-token-rejected");
    assert_eq!(server.hits.load(Ordering::SeqCst), before);
}

#[tokio::test]
async fn an_unreachable_provider_is_a_bad_gateway() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Retail").await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let unreachable = format!("http://{address}/keys?apiKey={{apiKey}}");
    trust_issuer(&app, unreachable, &campaign).await;
    exchange_token(&app, Some(&campaign), &valid_token())
        .await
        .assert_problem(502, "identity-provider-unavailable");
}

#[tokio::test]
async fn the_campaign_header_and_the_body_are_checked() {
    let (app, campaign, _server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    let token = valid_token();
    exchange_token(&app, None, &token)
        .await
        .assert_problem(400, "request-validation-failed");
    exchange_token(&app, Some("not-a-uuid"), &token)
        .await
        .assert_problem(400, "request-validation-failed");
    let unknown_campaign = uuid::Uuid::new_v4().to_string();
    exchange_token(&app, Some(&unknown_campaign), &token)
        .await
        .assert_problem(404, "campaign-not-found");
    exchange_token(&app, Some(&campaign), "")
        .await
        .assert_problem(400, "request-validation-failed");
    exchange(&app, Some(&campaign), json!({}))
        .await
        .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn an_issuer_opens_sessions_only_in_the_campaigns_tied_to_it() {
    let (app, _tied, server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    let other = app.create_campaign("Another retailer's").await;
    let token = valid_token();
    exchange_token(&app, Some(&other), &token)
        .await
        .assert_problem(401, "identity-token-rejected");
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        0,
        "refused before any fetch"
    );
}

#[tokio::test]
async fn an_api_key_the_issuer_does_not_list_is_refused_before_any_fetch() {
    let (app, campaign, server) = setup(json!({ "keys": [rsa_jwk("k1")] })).await;
    // Another tenant of the same provider signs with its own keys under its own apiKey: its
    // accountuid must not become one of our retailer's customers.
    let long = "k".repeat(2000);
    for api_key in [
        json!("attacker-tenant"),
        json!(long),
        json!(null),
        json!(42),
    ] {
        let token = rs256_token("k1", identity_claims(json!({ "apiKey": api_key })));
        exchange_token(&app, Some(&campaign), &token)
            .await
            .assert_problem(401, "identity-token-rejected");
    }
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
    let (keys, fetches) = app.state.authn.identity.cached_entries();
    assert_eq!(
        (keys, fetches),
        (0, 0),
        "nothing is remembered for refused apiKeys"
    );
}

#[tokio::test]
async fn an_oversized_key_set_is_not_read() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Retail").await;
    // A valid key set padded past 64 KB.
    let padded = json!({ "keys": [rsa_jwk("k1")], "padding": "x".repeat(70 * 1024) });
    let server = jwks_server(padded).await;
    trust_issuer(&app, server.url_template.clone(), &campaign).await;
    exchange_token(&app, Some(&campaign), &valid_token())
        .await
        .assert_problem(502, "identity-provider-unavailable");
}

#[tokio::test]
async fn a_local_jwks_url_is_not_fetched_unless_private_outbound_is_allowed() {
    let app = crate::helpers::spawn_app_with(|c| c.allow_private_outbound = false).await;
    let campaign = app.create_campaign("Retail").await;
    let server = jwks_server(json!({ "keys": [rsa_jwk("k1")] })).await;
    // Saved before the policy was in force (or by a name that later resolved locally).
    trust_issuer(&app, server.url_template.clone(), &campaign).await;
    exchange_token(&app, Some(&campaign), &valid_token())
        .await
        .assert_problem(502, "identity-provider-unavailable");
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
}
