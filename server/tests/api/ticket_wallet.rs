//! Google Wallet save links: offered only when the operator configured an issuer and a
//! service-account key; the JWT carries the passes and verifies with the account's public key.

use std::collections::BTreeSet;

use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use serde_json::Value;

use crate::{
    checkout_fixtures::{shop, spawn_shop},
    helpers::spawn_app_with,
    ticket_fixtures::paid_order,
};

/// A throwaway RSA key, as a service account's would be.
const RSA_PEM: &str = include_str!("fixtures/identity_rsa.pem");
const ISSUER: &str = "3388000000022222222";
const ACCOUNT: &str = "passes@boxoffice-test.iam.gserviceaccount.com";

#[tokio::test]
async fn without_a_configured_issuer_no_wallet_pass_is_offered() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;
    shop.partner
        .get(
            &app,
            &format!("/v2/me/fulfillment/orders/{}/wallet/google", order.order_id),
        )
        .await
        .assert_problem(404, "wallet-not-configured");
}

#[tokio::test]
async fn the_save_link_carries_a_pass_per_ticket_signed_by_the_service_account() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("service-account.json");
    let account = serde_json::json!({ "type": "service_account", "client_email": ACCOUNT, "private_key": RSA_PEM });
    std::fs::write(&key_file, account.to_string()).unwrap();
    let app = spawn_app_with(|c| {
        c.google_wallet_issuer_id = Some(ISSUER.into());
        c.google_wallet_key_file = Some(key_file.clone());
    })
    .await;
    let shop = shop(&app, Some(5)).await;
    let order = paid_order(&app, &shop, "nl-NL", 2).await;
    let path = format!("/v2/me/fulfillment/orders/{}/wallet/google", order.order_id);
    let link = shop.partner.get_ok(&app, &path).await["data"]["save_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let jwt = link
        .strip_prefix("https://pay.google.com/gp/v/save/")
        .expect("a Google Wallet save link");

    let public = rsa::RsaPrivateKey::from_pkcs8_pem(RSA_PEM)
        .unwrap()
        .to_public_key()
        .to_public_key_pem(LineEnding::LF)
        .unwrap();
    let key = jsonwebtoken::DecodingKey::from_rsa_pem(public.as_bytes()).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&["google"]);
    validation.set_required_spec_claims::<&str>(&[]);
    validation.validate_exp = false;
    let claims: Value = jsonwebtoken::decode(jwt, &key, &validation)
        .expect("signed by the service account")
        .claims;
    assert_eq!(claims["iss"], ACCOUNT);
    assert_eq!(claims["typ"], "savetowallet");
    assert_eq!(claims["origins"][0], app.base_url.as_str());
    let class = &claims["payload"]["eventTicketClasses"][0];
    let class_id = class["id"].as_str().unwrap();
    assert!(class_id.starts_with(&format!("{ISSUER}.")), "{class_id}");
    assert_eq!(class["eventName"]["defaultValue"]["language"], "nl-NL");
    assert_eq!(
        class["eventName"]["defaultValue"]["value"],
        "Bezoek aan Zoo"
    );
    let objects = claims["payload"]["eventTicketObjects"].as_array().unwrap();
    let codes: BTreeSet<&str> = objects
        .iter()
        .inspect(|o| {
            assert_eq!(o["classId"], class_id);
            assert_eq!(o["barcode"]["type"], "QR_CODE");
            assert!(o["id"].as_str().unwrap().starts_with(&format!("{ISSUER}.")));
        })
        .map(|o| o["barcode"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(codes, order.codes.iter().map(String::as_str).collect());

    // Another customer's order is not theirs to save.
    let other = app.backend_token(&shop.partner.client).await;
    let code = app
        .headless_code(&other, "user-2", Some(&shop.partner.campaign))
        .await;
    let bearer = app
        .exchange_code(&shop.partner.client, &code)
        .await
        .assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    app.send(app.request(reqwest::Method::GET, &path).bearer_auth(bearer))
        .await
        .assert_problem(404, "not-found");
}
