//! Wallet passes, offered only when the operator configured them: Google Wallet save links
//! (the JWT carries the passes and verifies with the service account's public key) and Apple
//! Wallet passes (signed over their manifest with a certificate of a test CA made here).

use std::{
    collections::BTreeSet,
    io::{Cursor, Read},
};

use openssl::{
    asn1::Asn1Time,
    bn::BigNum,
    hash::MessageDigest,
    pkcs7::{Pkcs7, Pkcs7Flags},
    pkey::{PKey, Private},
    rsa::Rsa,
    stack::Stack,
    x509::{
        extension::BasicConstraints, store::X509StoreBuilder, X509Builder, X509NameBuilder, X509,
    },
};
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use serde_json::Value;

use crate::{
    checkout_fixtures::{shop, spawn_shop},
    helpers::{spawn_app_with, TestApp},
    smtp_server,
    ticket_fixtures::{link_of_next_mail, paid_order},
};

/// A throwaway RSA key, as a service account's would be.
const RSA_PEM: &str = include_str!("fixtures/identity_rsa.pem");
const ISSUER: &str = "3388000000022222222";
const ACCOUNT: &str = "passes@boxoffice-test.iam.gserviceaccount.com";

#[tokio::test]
async fn without_the_operators_settings_no_wallet_pass_is_offered() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;
    for wallet in ["google", "apple"] {
        shop.partner
            .get(
                &app,
                &format!(
                    "/v2/me/fulfillment/orders/{}/wallet/{wallet}",
                    order.order_id
                ),
            )
            .await
            .assert_problem(404, "wallet-not-configured");
    }
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
    let keys = crate::gate_fixtures::jwks(&app).await;
    let codes: BTreeSet<String> = codes
        .into_iter()
        .map(|qr| crate::gate_fixtures::printed_code_of(&keys, qr))
        .collect();
    assert_eq!(codes, order.codes.iter().cloned().collect());

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

/// A certificate for `cn` with a fresh RSA key, signed by `issuer` (itself when `None`), a CA
/// when `ca`.
fn certificate(
    cn: &str,
    issuer: Option<(&X509, &PKey<Private>)>,
    ca: bool,
) -> (X509, PKey<Private>) {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", cn).unwrap();
    let name = name.build();
    let mut builder = X509Builder::new().unwrap();
    builder.set_version(2).unwrap();
    let serial = BigNum::from_u32(rand_serial()).unwrap();
    builder
        .set_serial_number(&serial.to_asn1_integer().unwrap())
        .unwrap();
    builder.set_subject_name(&name).unwrap();
    builder
        .set_issuer_name(issuer.map_or(&name, |(cert, _)| cert.subject_name()))
        .unwrap();
    builder.set_pubkey(&key).unwrap();
    builder
        .set_not_before(&Asn1Time::days_from_now(0).unwrap())
        .unwrap();
    builder
        .set_not_after(&Asn1Time::days_from_now(2).unwrap())
        .unwrap();
    if ca {
        builder
            .append_extension(BasicConstraints::new().critical().ca().build().unwrap())
            .unwrap();
    }
    builder
        .sign(issuer.map_or(&key, |(_, k)| k), MessageDigest::sha256())
        .unwrap();
    (builder.build(), key)
}

/// GETs a file (with `token`, when given): its content type and bytes (asserted 200).
async fn download(app: &TestApp, token: Option<&str>, path: &str) -> (String, Vec<u8>) {
    let mut request = app.request(reqwest::Method::GET, path);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (kind, response.bytes().await.unwrap().to_vec())
}

fn rand_serial() -> u32 {
    uuid::Uuid::new_v4().as_u128() as u32 >> 1
}

/// Asserts that `pass` is a pass whose manifest names every file with its SHA-1 and whose
/// signature over the manifest verifies up to `root`; returns its pass.json.
fn verified_pass(pass: &[u8], root: &X509) -> Value {
    let mut zip = zip::ZipArchive::new(Cursor::new(pass)).unwrap();
    let mut files = std::collections::BTreeMap::new();
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).unwrap();
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).unwrap();
        files.insert(file.name().to_owned(), bytes);
    }
    let manifest_bytes = files.remove("manifest.json").expect("a manifest");
    let signature = files.remove("signature").expect("a signature");
    let manifest: serde_json::Map<String, Value> = serde_json::from_slice(&manifest_bytes).unwrap();
    assert_eq!(
        manifest.keys().collect::<BTreeSet<_>>(),
        files.keys().collect::<BTreeSet<_>>(),
        "the manifest names every file"
    );
    for (name, bytes) in &files {
        let hex: String = openssl::sha::sha1(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(manifest[name], hex.as_str(), "{name}'s hash");
    }
    let mut store = X509StoreBuilder::new().unwrap();
    store.add_cert(root.clone()).unwrap();
    let store = store.build();
    Pkcs7::from_der(&signature)
        .unwrap()
        .verify(
            &Stack::new().unwrap(),
            &store,
            Some(&manifest_bytes),
            None,
            Pkcs7Flags::BINARY,
        )
        .expect("the signature verifies up to the test root");
    let strings = String::from_utf8(files["nl.lproj/pass.strings"].clone()).unwrap();
    assert!(strings.contains("\"visit\" = \"Bezoek\";"), "{strings}");
    assert!(files.contains_key("icon.png"));
    serde_json::from_slice(&files["pass.json"]).unwrap()
}

/// An app with Apple Wallet configured by certificates of a test CA written to `dir`, and
/// the CA's root, which verifies its passes; its mails go to the returned test server.
async fn apple_app(
    dir: &tempfile::TempDir,
) -> (TestApp, X509, tokio::sync::mpsc::UnboundedReceiver<String>) {
    let (root, root_key) = certificate("Test Root", None, true);
    let (wwdr, wwdr_key) = certificate("Test WWDR", Some((&root, &root_key)), true);
    let (pass_cert, pass_key) = certificate(
        "Pass Type ID: pass.test.tickets",
        Some((&wwdr, &wwdr_key)),
        false,
    );
    let write = |name: &str, pem: Vec<u8>| {
        let path = dir.path().join(name);
        std::fs::write(&path, pem).unwrap();
        path
    };
    let (cert_file, key_file, wwdr_file) = (
        write("pass.pem", pass_cert.to_pem().unwrap()),
        write("pass.key", pass_key.private_key_to_pem_pkcs8().unwrap()),
        write("wwdr.pem", wwdr.to_pem().unwrap()),
    );
    let (smtp_url, received) = smtp_server::start().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 50;
        c.apple_pass_type_id = Some("pass.test.tickets".into());
        c.apple_team_id = Some("TEAM123456".into());
        c.apple_pass_cert = Some(cert_file.clone());
        c.apple_pass_key = Some(key_file.clone());
        c.apple_wwdr_cert = Some(wwdr_file.clone());
    })
    .await;
    (app, root, received)
}

#[tokio::test]
async fn apple_passes_are_signed_with_the_operators_certificate_and_list_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let (app, root, mut received) = apple_app(&dir).await;
    let shop = shop(&app, Some(5)).await;
    let path = |order: &str| format!("/v2/me/fulfillment/orders/{order}/wallet/apple");

    // One ticket: one .pkpass.
    let one = paid_order(&app, &shop, "nl-NL", 1).await;
    let response = download(&app, Some(&shop.partner.token), &path(&one.order_id)).await;
    assert_eq!(response.0, "application/vnd.apple.pkpass");
    let pass = verified_pass(&response.1, &root);
    assert_eq!(pass["passTypeIdentifier"], "pass.test.tickets");
    assert_eq!(pass["teamIdentifier"], "TEAM123456");
    assert_eq!(pass["barcodes"][0]["format"], "PKBarcodeFormatQR");
    let keys = crate::gate_fixtures::jwks(&app).await;
    let qr = pass["barcodes"][0]["message"].as_str().unwrap();
    assert_eq!(
        crate::gate_fixtures::printed_code_of(&keys, qr),
        one.codes[0]
    );
    assert_eq!(pass["barcodes"][0]["altText"], one.codes[0].as_str());
    assert!(pass["locations"][0]["latitude"].as_f64().is_some());

    // The ticket page the mail links to offers the pass too, keyed like the page, and only
    // the wallet configured.
    let page = app.get(&link_of_next_mail(&app, &mut received).await).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("Toevoegen aan Apple Wallet"));
    assert!(!page.text.contains("Google Wallet"));
    let href = page
        .text
        .split("href=\"")
        .filter_map(|rest| rest.split('"').next())
        .find(|href| href.contains("/wallet/apple?key="))
        .expect("a link to the passes")
        .replace("&amp;", "&");
    let (kind, bytes) = download(&app, None, &href).await;
    assert_eq!(kind, "application/vnd.apple.pkpass");
    assert_eq!(verified_pass(&bytes, &root)["barcodes"][0]["message"], qr);
    let (page_path, _) = href.split_once("?key=").unwrap();
    app.assert_not_found(&format!("{page_path}?key=0")).await;

    // Two tickets: a bundle of two passes.
    let two = paid_order(&app, &shop, "nl-NL", 2).await;
    let (kind, bundle) = download(&app, Some(&shop.partner.token), &path(&two.order_id)).await;
    assert_eq!(kind, "application/vnd.apple.pkpasses");
    let mut zip = zip::ZipArchive::new(Cursor::new(bundle)).unwrap();
    let mut codes = BTreeSet::new();
    for i in 0..zip.len() {
        let mut bytes = Vec::new();
        zip.by_index(i).unwrap().read_to_end(&mut bytes).unwrap();
        let pass = verified_pass(&bytes, &root);
        let qr = pass["barcodes"][0]["message"].as_str().unwrap();
        codes.insert(crate::gate_fixtures::printed_code_of(&keys, qr));
    }
    assert_eq!(codes, two.codes.iter().cloned().collect());
}

#[tokio::test]
async fn an_octo_unit_item_carries_its_own_apple_pass_where_passes_are_configured() {
    let dir = tempfile::tempdir().unwrap();
    let (app, root, _received) = apple_app(&dir).await;
    let shop = shop(&app, Some(5)).await;
    crate::settlement_fixtures::settle(&app, &shop).await;
    crate::octo::on_account(&app, &shop).await;
    let token = app.backend_token(&shop.partner.client).await;
    let octo = |method: reqwest::Method, path: &str| {
        app.request(method, &format!("/octo/{}{path}", shop.merchant))
            .bearer_auth(&token)
    };
    let product = app
        .send(octo(
            reqwest::Method::GET,
            &format!("/products/{}", shop.product),
        ))
        .await
        .assert_status(200);
    assert_eq!(
        product["deliveryFormats"],
        serde_json::json!(["QRCODE", "PKPASS_URL"])
    );
    let held = app
        .send(
            octo(reqwest::Method::POST, "/bookings").json(&serde_json::json!({
                "productId": shop.product, "optionId": "DEFAULT",
                "availabilityId": crate::octo::midnight_id(crate::checkout_fixtures::visit_day()),
                "unitItems": [{ "unitId": "adult" }, { "unitId": "adult" }],
            })),
        )
        .await
        .assert_status(200);
    let uuid = held["uuid"].as_str().unwrap();
    let confirmed = app
        .send(
            octo(reqwest::Method::POST, &format!("/bookings/{uuid}/confirm")).json(
                &serde_json::json!({ "contact": { "fullName": "Ada Lovelace", "emailAddress": "ada@example.com" } }),
            ),
        )
        .await
        .assert_status(200);
    for item in confirmed["unitItems"].as_array().unwrap() {
        let options = item["ticket"]["deliveryOptions"].as_array().unwrap();
        assert_eq!(options[0]["deliveryFormat"], "QRCODE");
        assert_eq!(options[1]["deliveryFormat"], "PKPASS_URL");
        let url = options[1]["deliveryValue"].as_str().unwrap();
        let path = url.strip_prefix(&app.base_url).unwrap();
        // The unit item's own pass: one .pkpass whose barcode is the item's QR code.
        let (kind, bytes) = download(&app, None, path).await;
        assert_eq!(kind, "application/vnd.apple.pkpass");
        assert_eq!(
            verified_pass(&bytes, &root)["barcodes"][0]["message"],
            options[0]["deliveryValue"]
        );
    }
    // Another order's ticket through this order's key: not found.
    let url = confirmed["unitItems"][0]["ticket"]["deliveryOptions"][1]["deliveryValue"]
        .as_str()
        .unwrap();
    let (base, _) = url.split_once("&ticket=").unwrap();
    let path = base.strip_prefix(&app.base_url).unwrap();
    app.assert_not_found(&format!("{path}&ticket={}", uuid::Uuid::new_v4()))
        .await;
}
