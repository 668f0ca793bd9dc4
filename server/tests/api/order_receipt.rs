//! The receipt the frame hands the partner's page in `boxoffice:order-paid`: verified here as a
//! partner would, with nothing but the served JWKS (docs/webframe.md, "The receipt").

use reqwest::Method;
use serde_json::Value;

use crate::{checkout_fixtures::spawn_shop, ticket_fixtures::paid_order};

#[tokio::test]
async fn the_receipt_verifies_with_the_served_jwks_and_names_the_order_and_the_partner() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let order = paid_order(&app, &shop, "en-GB", 2).await;
    let path = format!("/v2/me/fulfillment/orders/{}/receipt", order.order_id);
    let data = shop.partner.get_ok(&app, &path).await["data"].clone();
    assert_eq!(data["order_id"], order.order_id.as_str());
    assert_eq!(
        data["total"],
        serde_json::json!({ "value": "26.00", "currency": "EUR" })
    );
    assert_eq!(data["lines"][0]["product_id"], shop.product.as_str());
    assert_eq!(data["lines"][0]["quantity"], 2);
    assert!(data["lines"][0]["sku"].as_str().is_some());
    assert!(
        data["lines"][0].get("title").is_none(),
        "no more than the id, sku and quantity"
    );

    // As a partner verifies it: the key named by `kid` in the served JWKS, EdDSA only, the
    // receipt's audience.
    let receipt = data["receipt"].as_str().unwrap();
    let header = jsonwebtoken::decode_header(receipt).unwrap();
    assert_eq!(header.alg, jsonwebtoken::Algorithm::EdDSA);
    let jwks: jsonwebtoken::jwk::JwkSet =
        serde_json::from_str(&app.get("/.well-known/jwks.json").await.text).unwrap();
    let jwk = jwks
        .find(header.kid.as_deref().unwrap())
        .expect("the kid is published");
    let key = jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::EdDSA);
    validation.set_audience(&["boxoffice-receipt"]);
    let claims: Value = jsonwebtoken::decode(receipt, &key, &validation)
        .expect("a valid receipt")
        .claims;
    assert_eq!(claims["order_id"], order.order_id.as_str());
    assert_eq!(claims["order_display_id"], order.display_id.as_str());
    assert_eq!(claims["total"], data["total"]);
    assert_eq!(claims["lines"], data["lines"]);
    assert_eq!(claims["client_id"], shop.partner.client.client_id.as_str());
    assert_eq!(claims["campaign_id"], shop.partner.campaign.as_str());
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        300
    );

    // A receipt is no bearer.
    let me = app
        .send(app.request(Method::GET, "/v2/me").bearer_auth(receipt))
        .await;
    me.assert_problem(401, "token-invalid");
}
