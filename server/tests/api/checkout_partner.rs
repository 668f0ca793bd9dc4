//! What a partner adds to its customers' checkouts (issue 27): more time on a hold, and the
//! payment window holding the places as long as the payment; fields prefilled and locked by the
//! partner's backend through the session; and where the customer came from (`attribution`).

use chrono::{DateTime, Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{
        basket, confirm, customer, express, express_body, key, read_checkout, reserve, reserve_id,
        spawn_shop, Shop,
    },
    helpers::{error_fields, set_of, TestApp, TestResponse},
};

fn instant(value: &Value) -> DateTime<Utc> {
    value
        .as_str()
        .unwrap_or_else(|| panic!("an instant, not {value}"))
        .parse()
        .unwrap()
}

async fn extend(app: &TestApp, shop: &Shop, checkout_id: &str) -> TestResponse {
    shop.partner
        .post(
            app,
            &format!("/v2/checkouts/{checkout_id}/extend"),
            &json!({}),
        )
        .await
}

// --- A hold that outlasts the payment ---------------------------------------------------------

#[tokio::test]
async fn a_hold_is_extended_once_by_ten_minutes_and_a_second_time_is_refused() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let reserved = reserve(&app, &shop, 1).await;
    let checkout_id = reserved["checkout_id"].as_str().unwrap();
    assert_eq!(reserved["hold_extended_at"], Value::Null);

    let extended = extend(&app, &shop, checkout_id).await.assert_status(200)["data"].clone();
    assert_eq!(
        instant(&extended["expires_at"]) - instant(&reserved["expires_at"]),
        Duration::minutes(10)
    );
    assert!(extended["hold_extended_at"].is_string());
    assert!(
        instant(&extended["expires_at"])
            <= instant(&extended["created_at"]) + Duration::minutes(30),
        "never beyond the payment window"
    );
    let read = read_checkout(&app, &shop, checkout_id).await;
    assert_eq!(read["expires_at"], extended["expires_at"]);

    extend(&app, &shop, checkout_id)
        .await
        .assert_problem(409, "checkout-hold-already-extended");
    let again = read_checkout(&app, &shop, checkout_id).await;
    assert_eq!(again["expires_at"], extended["expires_at"], "unchanged");
}

#[tokio::test]
async fn an_extension_never_reaches_beyond_the_payment_window_from_the_reservation() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 1).await;
    // Reserved 25 minutes ago with a minute left: ten more minutes would end 35 minutes after
    // the reservation, so the hold ends at 30.
    let created = Utc::now() - Duration::minutes(25);
    execute_sql!(
        &app,
        "UPDATE checkout SET created_at = $1, expires_at = $2 WHERE checkout_id = $3",
        created,
        Utc::now() + Duration::minutes(1),
        checkout_id.parse::<uuid::Uuid>().unwrap()
    );
    let extended = extend(&app, &shop, &checkout_id).await.assert_status(200)["data"].clone();
    let until = instant(&extended["expires_at"]);
    let window = instant(&extended["created_at"]) + Duration::minutes(30);
    assert_eq!(until, window, "capped at the payment window");
}

#[tokio::test]
async fn going_to_payment_holds_the_places_for_the_payment_window_and_no_more_time_is_given() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 1).await;
    let before = Utc::now();
    confirm(&app, &shop, &checkout_id).await.assert_status(200);
    let after = Utc::now();
    let read = read_checkout(&app, &shop, &checkout_id).await;
    assert_eq!(read["status"], "CONFIRMED");
    let until = instant(&read["expires_at"]);
    assert!(
        until >= before + Duration::minutes(30) - Duration::seconds(1)
            && until <= after + Duration::minutes(30),
        "the payment window, never beyond: {until}"
    );

    extend(&app, &shop, &checkout_id)
        .await
        .assert_problem(409, "checkout-not-reserved");
    assert_eq!(
        read_checkout(&app, &shop, &checkout_id).await["expires_at"],
        read["expires_at"]
    );
}

#[tokio::test]
async fn an_express_checkout_holds_its_places_for_the_payment_window() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let before = Utc::now();
    let placed = express(
        &app,
        &shop.partner.campaign,
        Some(&shop.partner.token),
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
    .assert_status(200)["data"]
        .clone();
    let read = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    let until = instant(&read["expires_at"]);
    assert!(until >= before + Duration::minutes(30) - Duration::seconds(1));
    assert!(until <= Utc::now() + Duration::minutes(30));
}

#[tokio::test]
async fn a_hold_that_ended_cannot_be_extended() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 1).await;
    execute_sql!(
        &app,
        "UPDATE checkout SET expires_at = $1 WHERE checkout_id = $2",
        Utc::now() - Duration::seconds(1),
        checkout_id.parse::<uuid::Uuid>().unwrap()
    );
    extend(&app, &shop, &checkout_id)
        .await
        .assert_problem(409, "checkout-not-reserved");
    assert_eq!(
        read_checkout(&app, &shop, &checkout_id).await["status"],
        "EXPIRED"
    );
}

#[tokio::test]
async fn a_client_removed_from_the_campaign_can_no_longer_extend_confirm_read_or_release_its_reservations(
) {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 1).await;
    // The operator takes the campaign away from the partner client after the reservation.
    let other = app.create_campaign("Other").await;
    let pc = app.partner_client_id(&shop.partner.client.client_id).await;
    app.admin_put_ok(
        &format!("/admin/v1/clients/{pc}"),
        &json!({ "name": "Shop", "campaign_ids": [other] }),
    )
    .await;
    let path = format!("/v2/checkouts/{checkout_id}");
    extend(&app, &shop, &checkout_id)
        .await
        .assert_problem(403, "forbidden");
    confirm(&app, &shop, &checkout_id)
        .await
        .assert_problem(403, "forbidden");
    shop.partner
        .get(&app, &path)
        .await
        .assert_problem(403, "forbidden");
    shop.partner
        .delete(&app, &path)
        .await
        .assert_problem(403, "forbidden");
    // Nothing moved: still reserved, not extended, no order and so no payment.
    let id = checkout_id.parse().unwrap();
    let stored = app.state.store.checkout(id).await.unwrap().unwrap();
    assert_eq!(stored.status, app::wire::CheckoutStatus::Reserved);
    assert!(stored.hold_extended_at.is_none());
    assert!(app
        .state
        .store
        .order_of_checkout(id)
        .await
        .unwrap()
        .is_none());
}

// --- Prefill and locked fields ------------------------------------------------------------------

/// A bearer of a new headless session in the shop's campaign whose user is `user`.
async fn bearer_for(app: &TestApp, shop: &Shop, user: Value) -> String {
    let backend = app.backend_token(&shop.partner.client).await;
    let code = app
        .session_code(
            &backend,
            json!({ "integration": "headless", "user": user, "campaign_id": shop.partner.campaign }),
        )
        .await;
    app.exchange_code(&shop.partner.client, &code)
        .await
        .assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn locked_user(locked: &[&str]) -> Value {
    json!({
        "reference": "member-7", "email": "grace@example.com",
        "first_name": "Grace", "last_name": "Hopper", "locked": locked,
    })
}

async fn post_as(app: &TestApp, bearer: &str, path: &str, body: &Value) -> TestResponse {
    app.send(
        app.request(Method::POST, path)
            .bearer_auth(bearer)
            .json(body),
    )
    .await
}

#[tokio::test]
async fn the_session_prefills_the_customer_fields_and_says_which_are_locked() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let bearer = bearer_for(&app, &shop, locked_user(&["email", "last_name"])).await;
    let me = app.me(&bearer).await.assert_status(200);
    assert_eq!(
        me["data"]["prefill"],
        json!({
            "email": "grace@example.com", "first_name": "Grace", "last_name": "Hopper",
            "locked": ["email", "last_name"],
        })
    );
    // A session without user fields prefills nothing.
    let me = app.me(&shop.partner.token).await.assert_status(200);
    assert_eq!(me["data"]["prefill"], json!({ "locked": [] }));
}

#[tokio::test]
async fn a_locked_field_changed_at_confirm_or_express_is_refused_naming_it() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let bearer = bearer_for(&app, &shop, locked_user(&["email"])).await;

    // Confirm: another address is refused, naming the field; nothing is confirmed.
    let reserved = post_as(&app, &bearer, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_status(201);
    let checkout_id = reserved["data"]["checkout_id"].as_str().unwrap().to_owned();
    let confirm_path = format!("/v2/checkouts/{checkout_id}/confirm");
    let mut details = customer();
    details["first_name"] = json!("Amazing Grace"); // not locked: may change
    let refused = post_as(&app, &bearer, &confirm_path, &details)
        .await
        .assert_problem(422, "checkout-field-locked");
    assert_eq!(error_fields(&refused), set_of(&["email"]));
    assert_eq!(refused["errors"][0]["code"], "locked");

    // Express under the same bearer: the same refusal, before anything is written.
    let refused = express(
        &app,
        &shop.partner.campaign,
        Some(&bearer),
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
    .assert_problem(422, "checkout-field-locked");
    assert_eq!(error_fields(&refused), set_of(&["email"]));

    // The locked value (in any case) goes through.
    details["email"] = json!("Grace@Example.com");
    post_as(&app, &bearer, &confirm_path, &details)
        .await
        .assert_status(200);
    let mut body = express_body(&shop.product, 1);
    body["email"] = json!("grace@example.com");
    express(&app, &shop.partner.campaign, Some(&bearer), &key(), &body)
        .await
        .assert_status(200);
}

#[tokio::test]
async fn a_guest_and_a_session_without_locks_may_send_any_details() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let bearer = bearer_for(&app, &shop, locked_user(&[])).await;
    express(
        &app,
        &shop.partner.campaign,
        Some(&bearer),
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
    .assert_status(200);
    express(
        &app,
        &shop.partner.campaign,
        None,
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
    .assert_status(200);
}

#[tokio::test]
async fn only_sent_fields_of_the_checkout_can_be_locked() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let backend = app.backend_token(&shop.partner.client).await;
    let body = json!({
        "integration": "webframe",
        "user": { "reference": "member-8", "email": "ada@example.com",
                  "locked": ["email", "first_name", "phone", "email"] },
    });
    let refused = app.start_session(&backend, &body).await;
    let problem = refused.assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        set_of(&["user.locked[1]", "user.locked[2]", "user.locked[3]"])
    );
}

// --- Attribution --------------------------------------------------------------------------------

fn attribution() -> Value {
    json!({
        "utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "winter",
        "utm_term": "zoo tickets", "utm_content": "banner-2", "ref": "friend-42",
    })
}

/// The data of the partner's events of `kind`, oldest first.
pub async fn event_data(app: &TestApp, shop: &Shop, kind: &str) -> Vec<Value> {
    crate::db_reads::wait_until_events_settle(app).await;
    let backend = app.backend_token(&shop.partner.client).await;
    let page = app
        .send(
            app.request(Method::GET, "/v2/events?limit=100")
                .bearer_auth(&backend),
        )
        .await
        .assert_status(200);
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["data"].clone())
        .collect()
}

#[tokio::test]
async fn attribution_is_kept_with_the_checkout_and_shown_in_its_reads_its_order_and_events() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let mut body = basket(&shop.product, 1);
    body["attribution"] = attribution();
    let reserved = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(reserved["attribution"], attribution());
    let checkout_id = reserved["checkout_id"].as_str().unwrap();
    assert_eq!(
        read_checkout(&app, &shop, checkout_id).await["attribution"],
        attribution()
    );

    let placed = confirm(&app, &shop, checkout_id).await.assert_status(200)["data"].clone();
    let order_id = placed["order_id"].as_str().unwrap();
    crate::checkout_fixtures::pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order = shop
        .partner
        .get_ok(&app, &format!("/v2/me/fulfillment/orders/{order_id}"))
        .await;
    assert_eq!(order["data"]["attribution"], attribution());
    let orders = shop.partner.get_ok(&app, "/v2/me/fulfillment/orders").await;
    assert_eq!(orders["data"][0]["attribution"], attribution());

    for kind in [
        "checkouts.CheckoutStarted",
        "checkouts.CheckoutFulfillmentRegistered",
        "orders.OrderPaid",
    ] {
        let data = event_data(&app, &shop, kind).await;
        assert_eq!(data.len(), 1, "{kind}");
        assert_eq!(data[0]["attribution"], attribution(), "{kind}");
    }
}

#[tokio::test]
async fn an_express_checkout_keeps_its_attribution_and_one_without_has_none() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let mut body = express_body(&shop.product, 1);
    body["attribution"] = json!({ "utm_source": "partner-app" });
    let token = Some(shop.partner.token.as_str());
    let placed = express(&app, &shop.partner.campaign, token, &key(), &body)
        .await
        .assert_status(200)["data"]
        .clone();
    let read = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    assert_eq!(read["attribution"], json!({ "utm_source": "partner-app" }));

    let plain = reserve(&app, &shop, 1).await;
    assert!(plain.get("attribution").is_none(), "{plain}");
}

#[tokio::test]
async fn attribution_fields_are_bounded_and_printable_and_named_when_not() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let mut body = basket(&shop.product, 1);
    body["attribution"] = json!({
        "utm_source": "x".repeat(201), "utm_medium": "e\u{7}mail", "ref": "", "utm_term": "ok",
    });
    let refused = shop.partner.post(&app, "/v2/checkouts", &body).await;
    let problem = refused.assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        set_of(&[
            "attribution.utm_source",
            "attribution.utm_medium",
            "attribution.ref"
        ])
    );
    // Unknown fields are refused like anywhere else.
    let mut body = express_body(&shop.product, 1);
    body["attribution"] = json!({ "gclid": "abc" });
    let token = Some(shop.partner.token.as_str());
    express(&app, &shop.partner.campaign, token, &key(), &body)
        .await
        .assert_problem(400, "request-validation-failed");
}
