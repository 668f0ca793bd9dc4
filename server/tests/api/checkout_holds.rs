//! What one buyer may hold at once (docs/security.md, "Holds"): open checkouts and their
//! places per customer, session and client address, in total and per visit day. Refused and
//! invalid requests hold nothing, and a place given back counts no more at once.

use reqwest::Method;
use serde_json::{json, Value};
use server::config::Config;

use crate::{
    checkout_fixtures::{
        basket, express, express_body, key, pay, reserve_id, shop, visit_day, Shop,
    },
    helpers::{spawn_app_with, TestApp, TestResponse},
};

/// Bounds on one customer's (and session's) holds; the address's are `factor` times these.
fn bounds(c: &mut Config, limits: [u32; 4], factor: u32) {
    [
        c.hold_reservations,
        c.hold_reservations_per_day,
        c.hold_places,
        c.hold_places_per_day,
    ] = limits;
    c.hold_address_factor = factor;
}

async fn shop_with_bounds(limits: [u32; 4], factor: u32) -> (TestApp, Shop) {
    let app = spawn_app_with(|c| bounds(c, limits, factor)).await;
    let shop = shop(&app, None).await;
    (app, shop)
}

/// `POST /v2/checkouts` with `body` in `token`'s session.
async fn reserve_with(app: &TestApp, token: &str, body: &Value) -> TestResponse {
    app.send(
        app.request(Method::POST, "/v2/checkouts")
            .bearer_auth(token)
            .json(body),
    )
    .await
}

#[tokio::test]
async fn a_customer_holds_at_most_its_bound_over_all_its_sessions() {
    let (app, shop) = shop_with_bounds([2, 0, 0, 0], 0).await;
    // A second session of the same customer (the partner's user-1).
    let other_session = app
        .public_token(&shop.partner.client, &shop.partner.campaign)
        .await;
    let first = reserve_id(&app, &shop, 1).await;
    reserve_with(&app, &other_session, &basket(&shop.product, 1))
        .await
        .assert_status(201);
    let refused = reserve_with(&app, &other_session, &basket(&shop.product, 1)).await;
    let problem = refused.assert_problem(409, "checkout-hold-limit-reached");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("This customer"),
        "{problem}"
    );

    // A release gives the hold back at once.
    let released = shop
        .partner
        .delete(&app, &format!("/v2/checkouts/{first}"))
        .await;
    assert_eq!(released.status.as_u16(), 204, "{}", released.text);
    reserve_with(&app, &other_session, &basket(&shop.product, 1))
        .await
        .assert_status(201);
}

#[tokio::test]
async fn places_are_bounded_per_day_and_refused_or_invalid_requests_hold_nothing() {
    let (app, shop) = shop_with_bounds([0, 0, 0, 5], 0).await;
    reserve_id(&app, &shop, 3).await;
    let too_many = shop
        .partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 3))
        .await;
    too_many.assert_problem(409, "checkout-hold-limit-reached");
    for _ in 0..5 {
        shop.partner
            .post(&app, "/v2/checkouts", &basket(&shop.product, 0))
            .await
            .assert_status(400);
    }
    // 3 + 2 = 5: the refusals above counted for nothing.
    reserve_id(&app, &shop, 2).await;
    // Another day is another day's bound.
    let mut next_day = basket(&shop.product, 5);
    next_day["date"] = json!(visit_day().succ_opt().unwrap().to_string());
    shop.partner
        .post(&app, "/v2/checkouts", &next_day)
        .await
        .assert_status(201);
}

#[tokio::test]
async fn a_repriced_basket_does_not_count_the_checkout_it_replaces() {
    let (app, shop) = shop_with_bounds([0, 0, 0, 4], 0).await;
    let first = reserve_id(&app, &shop, 3).await;
    let mut again = basket(&shop.product, 3);
    shop.partner
        .post(&app, "/v2/checkouts", &again)
        .await
        .assert_problem(409, "checkout-hold-limit-reached");
    again["replaces"] = json!(first);
    shop.partner
        .post(&app, "/v2/checkouts", &again)
        .await
        .assert_status(201);
}

#[tokio::test]
async fn one_address_holds_a_multiple_of_a_customer_with_a_bearer_or_without() {
    let (app, shop) = shop_with_bounds([0, 1, 0, 0], 2).await;
    let body = express_body(&shop.product, 1);
    let placed = express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_status(200);
    express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_status(200);
    let guest = express(&app, &shop.partner.campaign, None, &key(), &body).await;
    let problem = guest.assert_problem(409, "checkout-hold-limit-reached");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("client address"),
        "{problem}"
    );
    // A customer with a bearer on the same address is counted against the address too.
    reserve_with(&app, &shop.partner.token, &basket(&shop.product, 1))
        .await
        .assert_problem(409, "checkout-hold-limit-reached");

    // A payment ends the hold: the address may hold another.
    pay(&app, placed["data"]["payment_url"].as_str().unwrap(), "pay").await;
    express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_status(200);
}

#[tokio::test]
async fn racing_reservations_of_one_customer_hold_exactly_its_bound() {
    let (app, shop) = shop_with_bounds([3, 0, 0, 0], 0).await;
    let body = basket(&shop.product, 1);
    let attempts = (0..12).map(|_| shop.partner.post(&app, "/v2/checkouts", &body));
    let responses = futures::future::join_all(attempts).await;
    let mut held = 0;
    for response in &responses {
        match response.status.as_u16() {
            201 => held += 1,
            _ => {
                response.assert_problem(409, "checkout-hold-limit-reached");
            }
        }
    }
    assert_eq!(held, 3);
    assert_eq!(crate::db_reads::open_checkouts(&app).await, 3);
}

#[tokio::test]
async fn a_partner_client_sets_its_own_bounds_through_the_operator_api() {
    let (app, shop) = shop_with_bounds([0, 0, 0, 0], 0).await;
    let stored = app
        .stored_client(&shop.partner.client.client_id)
        .await
        .client;
    let path = format!("/admin/v1/clients/{}", stored.partner_client_id);
    let mut input = json!({
        "name": stored.name,
        "campaign_ids": stored.campaign_ids,
        "frame_origins": stored.frame_origins,
        "return_origins": stored.return_origins,
        "hold_limits": { "reservations": 1, "reservations_per_day": 1, "places": 10, "places_per_day": 10 },
    });
    let updated = app.admin_put_ok(&path, &input).await;
    assert_eq!(updated["data"]["hold_limits"]["reservations"], 1);
    reserve_id(&app, &shop, 1).await;
    shop.partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_problem(409, "checkout-hold-limit-reached");

    input["hold_limits"] =
        json!({ "reservations": -1, "reservations_per_day": 1, "places": 1, "places_per_day": 1 });
    app.admin_put(&path, &input).await.assert_status(400);
    input["hold_limits"] = Value::Null;
    let cleared = app.admin_put_ok(&path, &input).await;
    assert!(cleared["data"]["hold_limits"].is_null());
    shop.partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_status(201);
}

#[tokio::test]
async fn the_frames_server_functions_are_rate_limited_per_address() {
    let app = spawn_app_with(|c| c.auth_rate_per_minute = 2).await;
    for _ in 0..2 {
        let answered = app
            .post_form("/frame/api/session", &[("code", "unknown")])
            .await;
        assert_eq!(answered.status.as_u16(), 200, "{}", answered.text);
    }
    let refused = app
        .post_form("/frame/api/session", &[("code", "unknown")])
        .await;
    refused.assert_problem(429, "rate-limited");
    assert!(refused.header("retry-after").is_some());
    // Pages are not counted.
    let page = app.get("/frame").await;
    assert_ne!(page.status.as_u16(), 429);
}
