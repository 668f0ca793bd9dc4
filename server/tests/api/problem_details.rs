//! Problem documents that say which case they are (docs/errors.md): a refused bearer names its
//! kind or its issuer or its revocation, a bad value names its field's rule, a body names every
//! missing field at once, a path id names its segment, and a database that does not answer is
//! a 503 to wait out.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{basket, express, express_body, key, spawn_shop},
    helpers::{error_fields, set_of, spawn_app, spawn_app_with, TestResponse},
};

/// The problem's `detail`, asserting the type and that a 401 carries its challenge.
#[track_caller]
fn detail(response: &TestResponse, status: u16, name: &str) -> String {
    let problem = response.assert_problem(status, name);
    if status == 401 {
        assert_eq!(
            response.header("www-authenticate"),
            Some(r#"Bearer error="invalid_token""#)
        );
    }
    problem["detail"].as_str().unwrap().to_owned()
}

/// The message of the problem's error about `field`.
#[track_caller]
fn message_of(problem: &Value, field: &str) -> String {
    problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == field)
        .unwrap_or_else(|| panic!("no error about {field}: {problem}"))["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_bearer_of_the_wrong_kind_says_which_kind_it_is_and_which_the_route_takes() {
    let app = spawn_app().await;
    let (campaign, client) = app.campaign_with_client("shop").await;
    let backend = app.backend_token(&client).await;
    let public = app.public_token(&client, &campaign).await;

    let text = detail(&app.me(&backend).await, 401, "token-invalid");
    assert!(
        text.starts_with("This is a backend bearer") && text.contains("public bearer of a session"),
        "{text}"
    );
    let text = detail(
        &app.start_headless_session(&public).await,
        401,
        "token-invalid",
    );
    assert!(
        text.starts_with("This is the public bearer of a session")
            && text.contains("route takes a backend bearer"),
        "{text}"
    );
    // Nothing of the bearer itself is echoed.
    assert!(!text.contains(&public));
    let text = detail(&app.me("not.a.jwt").await, 401, "token-invalid");
    assert!(text.contains("not signed by this server's keys"), "{text}");
}

#[tokio::test]
async fn a_bearer_revoked_by_a_replayed_code_says_its_code_was_redeemed_twice() {
    let app = spawn_app().await;
    let (campaign, client) = app.campaign_with_client("shop").await;
    let backend = app.backend_token(&client).await;
    let code = app.headless_code(&backend, "u", Some(&campaign)).await;
    let bearer = app.exchange_code(&client, &code).await.assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    app.assert_code_invalid(&client, &code).await;
    let text = detail(&app.me(&bearer).await, 401, "token-invalid");
    assert!(
        text.contains("revoked because its session code was redeemed twice"),
        "{text}"
    );
}

#[tokio::test]
async fn a_bearer_of_another_server_address_names_the_address_that_issued_it() {
    // Two servers with one signing key (BOXOFFICE_JWT_KEY_FILE) and their own addresses.
    use ed25519_dalek::pkcs8::{spki::der::pem::LineEnding, EncodePrivateKey};
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("jwt.pem");
    let key = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
    std::fs::write(
        &key_file,
        key.to_pkcs8_pem(LineEnding::LF).unwrap().as_bytes(),
    )
    .unwrap();
    let here = spawn_app_with(|c| c.jwt_key_file = Some(key_file.clone())).await;
    let there = spawn_app_with(|c| c.jwt_key_file = Some(key_file.clone())).await;
    let (_, client) = there.campaign_with_client("shop").await;
    let bearer = there.backend_token(&client).await;

    let text = detail(
        &here.start_headless_session(&bearer).await,
        401,
        "token-invalid",
    );
    assert!(
        text.contains(&format!(
            "issued by another server address (iss {})",
            there.base_url
        )) && text.contains(&format!("this server is {}", here.base_url)),
        "{text}"
    );
}

#[tokio::test]
async fn a_webframe_code_sent_to_the_token_endpoint_says_the_hosted_frame_redeems_it() {
    let app = spawn_app().await;
    let (campaign, client) = app.campaign_with_client("shop").await;
    let backend = app.backend_token(&client).await;
    let body =
        json!({ "integration": "webframe", "user": { "reference": "u" }, "campaign_id": campaign });
    let code = app.session_code(&backend, body).await;
    let refused = app.exchange_code(&client, &code).await;
    let problem = refused.assert_oauth_problem(400, "session-code-invalid", "invalid_grant");
    let text = problem["detail"].as_str().unwrap();
    assert!(
        text.starts_with("This is a webframe session code: the hosted frame redeems it"),
        "{text}"
    );
    // To another client the same code is only unknown.
    let other = app.create_client("other", &[&campaign]).await;
    let problem = app
        .exchange_code(&other, &code)
        .await
        .assert_problem(400, "session-code-invalid");
    assert!(!problem["detail"].as_str().unwrap().contains("webframe"));
}

#[tokio::test]
async fn a_path_id_that_is_no_uuid_names_its_segment_and_that_it_must_be_a_uuid() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let response = shop.partner.get(&app, "/v2/checkouts/12345").await;
    let problem = response.assert_invalid(&["checkout_id"]);
    let message = message_of(&problem, "checkout_id");
    assert!(
        message.starts_with("The path segment `12345` is `checkout_id` of /v2/checkouts/{checkout_id}, which must be a UUID"),
        "{message}"
    );
}

#[tokio::test]
async fn a_bad_date_or_number_is_told_with_its_fields_own_rule() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let timeslots = |body: Value| {
        let request = app
            .request(Method::POST, "/v2/fulfillment/timeslots")
            .bearer_auth(&shop.partner.token)
            .json(&body);
        app.send(request)
    };
    let problem = timeslots(json!({ "product_id": shop.product, "date": "2026-05-01T10:00" }))
        .await
        .assert_invalid(&["date"]);
    assert_eq!(
        message_of(&problem, "date"),
        "date must be a date, YYYY-MM-DD"
    );
    let problem =
        timeslots(json!({ "product_id": shop.product, "date": "2026-05-01", "quantity": "two" }))
            .await
            .assert_invalid(&["quantity"]);
    assert_eq!(
        message_of(&problem, "quantity"),
        r#"quantity must be a whole number from 1 to 50 (got string "two")"#
    );
    let problem = timeslots(json!({ "product_id": "p-1", "date": "2026-05-01" }))
        .await
        .assert_invalid(&["product_id"]);
    assert!(message_of(&problem, "product_id").starts_with("product_id must be a UUID"));

    // A query parameter's rule too.
    let calendar = format!("/v2/products/{}/calendar?from=2026-5-1x", shop.product);
    let problem = shop
        .partner
        .get(&app, &calendar)
        .await
        .assert_invalid(&["from"]);
    assert_eq!(
        message_of(&problem, "from"),
        "from must be a date, YYYY-MM-DD"
    );
    let problem = shop
        .partner
        .get(&app, "/v2/me/fulfillment/orders?limit=ten")
        .await
        .assert_invalid(&["limit"]);
    assert_eq!(
        message_of(&problem, "limit"),
        "limit must be a whole number from 1 to 100"
    );

    // A basket line's quantity in an express body: the line's problem, with the rule.
    let mut body = express_body(&shop.product, 1);
    body["lines"][0]["quantity"] = json!(-1);
    let response = express(&app, &shop.partner.campaign, None, &key(), &body).await;
    let problem = response.assert_problem(400, "checkout-basket-line-invalid");
    assert_eq!(
        message_of(&problem, "lines[0].quantity"),
        "lines[0].quantity must be a whole number from 1 to 50 (got integer `-1`)"
    );
}

#[tokio::test]
async fn every_missing_required_field_of_a_checkout_body_is_listed_at_once() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let campaign = &shop.partner.campaign;
    let missing = ["email", "first_name", "return_url"];

    let mut body = express_body(&shop.product, 1);
    for field in missing {
        body.as_object_mut().unwrap().remove(field);
    }
    let problem = express(&app, campaign, None, &key(), &body)
        .await
        .assert_invalid(&missing);
    assert_eq!(
        problem["detail"],
        "3 fields are invalid: email, first_name, return_url"
    );
    for field in missing {
        assert_eq!(message_of(&problem, field), format!("{field} is required"));
    }

    // The reservation's body: a line without its product and no date.
    let mut body = basket(&shop.product, 1);
    body.as_object_mut().unwrap().remove("date");
    body["lines"] = json!([{ "quantity": 1 }]);
    shop.partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_invalid(&["date", "lines[0].product_id"]);

    // The confirmation's body.
    let reserved = shop
        .partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_status(201);
    let confirm = format!(
        "/v2/checkouts/{}/confirm",
        reserved["data"]["checkout_id"].as_str().unwrap()
    );
    let problem = shop
        .partner
        .post(&app, &confirm, &json!({ "last_name": "Lovelace" }))
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        set_of(&["email", "first_name", "return_url"])
    );
}

#[tokio::test]
async fn an_express_basket_is_checked_before_the_customer_fields() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let campaign = &shop.partner.campaign;
    let mut body = express_body(&shop.product, 1);
    body["first_name"] = json!(" ");
    body["return_url"] = json!("not a url");
    body["lines"] = json!([]);
    express(&app, campaign, None, &key(), &body)
        .await
        .assert_problem(400, "checkout-basket-empty");
    body["lines"] = json!([{ "product_id": shop.product, "quantity": 51 }]);
    express(&app, campaign, None, &key(), &body)
        .await
        .assert_problem(400, "checkout-basket-line-invalid");
    // With the basket right, the customer's faults, all in one problem.
    body["lines"] = json!([{ "product_id": shop.product, "quantity": 1 }]);
    express(&app, campaign, None, &key(), &body)
        .await
        .assert_invalid(&["first_name", "return_url"]);
}

#[tokio::test]
async fn a_database_that_does_not_answer_is_503_service_unavailable_with_retry_after() {
    let app = spawn_app().await;
    app.admin_get_ok("/admin/v1/campaigns").await;
    // Every connection gone and none to be had: what a request meets when the database is down.
    app.state.store.close().await;
    let response = app.admin_get("/admin/v1/campaigns").await;
    let problem = response.assert_problem(503, "service-unavailable");
    assert_eq!(response.header("retry-after"), Some("5"));
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("The database does not answer"),
        "{problem}"
    );
    let ready = app.get("/readyz").await;
    ready.assert_problem(503, "service-unavailable");
    assert_eq!(ready.header("retry-after"), Some("5"));
}
