//! Concurrency: no oversell under a crowd of buyers, one order per Idempotency-Key however
//! many copies race, and webhooks a partner can verify.

use std::sync::{Arc, Mutex};

use axum::{body::Bytes, http::HeaderMap, routing::post, Router};
use futures::future::join_all;
use serde_json::json;

use crate::checkout_fixtures::{
    assert_one_order, express, express_body, express_one_in_session, key, reserved_on_visit_day,
    shop, spawn_shop,
};

#[tokio::test]
async fn n_seats_and_four_n_buyers_sell_exactly_n() {
    const SEATS: usize = 12;
    let (app, shop) = spawn_shop(Some(SEATS as i32)).await;
    let body = express_body(&shop.product, 1);
    let responses = join_all((0..4 * SEATS).map(|_| {
        let (app, campaign, body) = (&app, &shop.partner.campaign, &body);
        async move { express(app, campaign, None, &key(), body).await }
    }))
    .await;
    let sold = responses
        .iter()
        .filter(|r| r.status.as_u16() == 200)
        .count();
    let refused = responses
        .iter()
        .filter(|r| r.status.as_u16() == 422)
        .inspect(|r| {
            r.assert_problem(422, "checkout-product-not-fulfillable");
        })
        .count();
    assert_eq!(
        (sold, refused),
        (SEATS, 3 * SEATS),
        "every response is one or the other"
    );
    assert_eq!(reserved_on_visit_day(&app, &shop).await, SEATS as i64);
    let orders = crate::checkout_fixtures::events(&app, &shop)
        .await
        .into_iter()
        .filter(|(t, _)| t == "checkouts.CheckoutFulfillmentRegistered")
        .count();
    assert_eq!(orders, SEATS);
}

#[tokio::test]
async fn every_order_answered_in_a_crowd_is_stored_and_the_losers_leave_nothing() {
    // More buyers than seats at once: some pass the plan and find the places gone at the
    // commit, beside winners committed with them (on SQLite in one group commit). A winner's
    // order is stored before its answer is sent; a loser's rollback takes nobody with it.
    const SEATS: usize = 8;
    let (app, shop) = spawn_shop(Some(SEATS as i32)).await;
    let body = express_body(&shop.product, 1);
    let outcomes = join_all((0..3 * SEATS).map(|_| {
        let (app, campaign, body) = (&app, &shop.partner.campaign, &body);
        async move {
            let placed = express(app, campaign, None, &key(), body).await;
            if placed.status.as_u16() != 200 {
                placed.assert_problem(422, "checkout-product-not-fulfillable");
                return None;
            }
            let order = placed.json()["data"]["order_id"].as_str().unwrap().parse();
            Some(crate::db_reads::order_stored(app, order.unwrap()).await)
        }
    }))
    .await;
    let won: Vec<bool> = outcomes.into_iter().flatten().collect();
    assert_eq!(won.len(), SEATS, "every seat sold");
    assert!(won.iter().all(|&stored| stored), "stored when answered");
    assert_eq!(crate::db_reads::open_checkouts(&app).await, SEATS as i64);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, SEATS as i64);
}

#[tokio::test]
async fn ten_copies_of_one_request_make_one_order() {
    let (app, shop) = spawn_shop(Some(100)).await;
    let body = express_body(&shop.product, 2);
    let k = key();
    let responses = join_all((0..10).map(|_| {
        let (app, campaign, body, k) = (&app, &shop.partner.campaign, &body, &k);
        async move { express(app, campaign, None, k, body).await }
    }))
    .await;
    let bodies = assert_one_order(&responses);
    // Once the first is done, every retry replays it.
    let replay = express(&app, &shop.partner.campaign, None, &k, &body).await;
    assert_eq!(replay.status.as_u16(), 208);
    assert_eq!(replay.text, bodies[0]);
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        2,
        "one order of two"
    );
}

#[tokio::test]
async fn a_partners_webhook_receives_signed_events_it_can_verify() {
    let received: Arc<Mutex<Vec<(HeaderMap, Bytes)>>> = Arc::default();
    let sink = received.clone();
    let receiver = Router::new().route(
        "/hooks",
        post(move |headers: HeaderMap, body: Bytes| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push((headers, body));
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook_url = format!("http://{}/hooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, receiver).await });

    let app = crate::helpers::spawn_app_with(|c| c.worker_interval_ms = 100).await;
    let shop = shop(&app, None).await;
    let client = app.stored_client(&shop.partner.client.client_id).await;
    let id = client.client.partner_client_id;
    let mut update = serde_json::to_value(&client.client).unwrap();
    update["webhook_url"] = json!(hook_url);
    let update = json!({
        "name": update["name"], "campaign_ids": update["campaign_ids"],
        "frame_origins": update["frame_origins"], "return_origins": update["return_origins"],
        "webhook_url": hook_url,
    });
    app.admin_put_ok(&format!("/admin/v1/clients/{id}"), &update)
        .await;
    let secret = client.webhook_secret.unwrap();

    express_one_in_session(&app, &shop).await.assert_status(200);

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while received.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "both checkout events delivered");
    let mut types = Vec::new();
    for (headers, body) in &got {
        let header = |n: &str| headers.get(n).unwrap().to_str().unwrap().to_owned();
        let timestamp: i64 = header("webhook-timestamp").parse().unwrap();
        assert!(server::events::signature::verify(
            &secret,
            &header("webhook-id"),
            timestamp,
            body,
            &header("webhook-signature"),
        ));
        assert!(!server::events::signature::verify(
            &secret,
            &header("webhook-id"),
            timestamp + 1,
            body,
            &header("webhook-signature"),
        ));
        let event: serde_json::Value = serde_json::from_slice(body).unwrap();
        assert_eq!(event["specversion"], "1.0");
        types.push(event["type"].as_str().unwrap().to_owned());
    }
    types.sort();
    assert_eq!(
        types,
        [
            "checkouts.CheckoutFulfillmentRegistered",
            "checkouts.CheckoutStarted"
        ]
    );
}

#[tokio::test]
async fn a_sold_out_day_is_refused_without_a_write_and_a_replay_still_replays() {
    let (app, shop) = spawn_shop(Some(1)).await;
    let body = express_body(&shop.product, 1);
    let campaign = &shop.partner.campaign;
    let winner = key();
    let sold = express(&app, campaign, None, &winner, &body).await;
    assert_eq!(sold.status.as_u16(), 200, "{}", sold.text);

    let late = key();
    express(&app, campaign, None, &late, &body)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
    let seen = app
        .state
        .store
        .idempotency_key_seen(campaign.parse().unwrap(), late.parse().unwrap())
        .await
        .unwrap();
    assert!(!seen, "a refused request wrote no idempotency record");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);

    let replay = express(&app, campaign, None, &winner, &body).await;
    assert_eq!(replay.status.as_u16(), 208, "{}", replay.text);
    assert_eq!(replay.text, sold.text, "the replay is the original answer");
    // Asking for more places than are left is refused the same way, on POST /v2/checkouts too.
    let more = express_body(&shop.product, 2);
    express(&app, campaign, None, &key(), &more)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
    let reserve = app
        .send(
            app.request(reqwest::Method::POST, "/v2/checkouts")
                .bearer_auth(&shop.partner.token)
                .json(&crate::checkout_fixtures::basket(&shop.product, 1)),
        )
        .await;
    reserve.assert_problem(422, "checkout-product-not-fulfillable");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);
}
