//! After the sale, the harder cases: a date change (same price, cheaper, no room, past its
//! deadline; a dearer day is `after_sale_dearer.rs`), 50 orders racing for one free place, a cancellation racing a date change, the
//! EU withdrawal, a day the merchant cancels, a refund the provider fails then makes, and a
//! deadline one second either side.

use chrono::{Duration, Utc};
use futures::future::join_all;
use serde_json::json;

use crate::{
    after_sale_fixtures::{
        cancel, customer_change, generous, order_of, set_policy, spawn_with_refunds, tickets_in,
        RefundScript,
    },
    catalog_fixtures::{admin_timeslots, open_slots},
    checkout_fixtures::{
        basket, confirm, events, express, express_body, key, pay, reserved_on_visit_day, shop,
        spawn_shop, visit_day, Shop, ZONE,
    },
    db_reads::reserved_on_day,
    helpers::TestApp,
    partner_fixtures::{shift, today_in, write_calendar},
    ticket_fixtures::paid_order,
};

/// `date` as the rebooking body says it.
fn to_day(day: chrono::NaiveDate) -> serde_json::Value {
    json!({ "date": day.to_string() })
}

#[tokio::test]
async fn a_visit_moves_to_another_day_at_the_same_price_or_a_cheaper_one() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let group = shop.group.parse().unwrap();
    let (next, cheaper) = (shift(visit_day(), 1), shift(visit_day(), 2));
    write_calendar(
        &app,
        &shop.product,
        (cheaper, cheaper),
        ("10.50", "15.00"),
        Some(10),
    )
    .await;
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let order = order_of(&app, &shop, &paid.order_id).await;
    let [first, second] = [
        tickets_in(&order, "VALID")[0].clone(),
        tickets_in(&order, "VALID")[1].clone(),
    ];

    // One ticket to the next day: same price, no refund, the order's visit stays.
    let mut body = to_day(next);
    body["ticket_ids"] = json!([first]);
    let moved = customer_change(&app, &shop, &paid.order_id, "rebooking", &body, &key())
        .await
        .assert_status(200)["data"]
        .clone();
    assert!(moved["refund"].is_null());
    let old = moved["order"]["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["ticket_id"] == first.as_str())
        .unwrap()
        .clone();
    assert_eq!(old["status"], "CANCELLED");
    let replacement = old["replaced_by"].as_str().unwrap();
    let new = moved["order"]["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["ticket_id"] == replacement)
        .unwrap()
        .clone();
    assert_eq!(new["status"], "VALID");
    assert_eq!(new["visit_date"], next.to_string());
    assert_ne!(new["code"], old["code"]);
    assert_eq!(moved["order"]["visit_date"], visit_day().to_string());
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);
    assert_eq!(reserved_on_day(&app, group, next).await, 1);

    // Both remaining tickets to a cheaper day: 2.00 each back, the order's visit moves.
    let valid = tickets_in(&moved["order"], "VALID");
    assert!(valid.contains(&second));
    let cheap = customer_change(
        &app,
        &shop,
        &paid.order_id,
        "rebooking",
        &to_day(cheaper),
        &key(),
    )
    .await
    .assert_status(200)["data"]
        .clone();
    assert_eq!(cheap["refund"]["amount"]["value"], "4.00");
    assert_eq!(cheap["order"]["visit_date"], cheaper.to_string());
    assert_eq!(tickets_in(&cheap["order"], "VALID").len(), 2);
    assert_eq!(reserved_on_day(&app, group, next).await, 0);
    assert_eq!(reserved_on_day(&app, group, cheaper).await, 2);
    // What is left to refund is what was paid less the difference.
    assert_eq!(
        cheap["order"]["after_sale"]["refund_quote"]["value"],
        "22.00"
    );

    // No room: the checkout's own refusal, and nothing changed.
    let full = shift(visit_day(), 4);
    write_calendar(
        &app,
        &shop.product,
        (full, full),
        ("12.50", "15.00"),
        Some(1),
    )
    .await;
    customer_change(
        &app,
        &shop,
        &paid.order_id,
        "rebooking",
        &to_day(full),
        &key(),
    )
    .await
    .assert_problem(422, "checkout-product-not-fulfillable");
    assert_eq!(reserved_on_day(&app, group, cheaper).await, 2);
    assert_eq!(reserved_on_day(&app, group, full).await, 0);

    let seen = events(&app, &shop).await;
    assert_eq!(
        seen.iter()
            .filter(|(t, _)| t == "orders.OrderRebooked")
            .count(),
        2
    );
}

#[tokio::test]
async fn without_a_date_change_rule_or_past_it_the_visit_stays() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    customer_change(
        &app,
        &shop,
        &paid.order_id,
        "rebooking",
        &to_day(shift(visit_day(), 1)),
        &key(),
    )
    .await
    .assert_problem(409, "order-not-rebookable");
    // The operator moves it anyway.
    let moved = app
        .admin_post(
            &format!("/admin/v1/orders/{}/rebooking", paid.order_id),
            &to_day(shift(visit_day(), 1)),
        )
        .await
        .assert_status(200);
    assert_eq!(
        moved["data"]["order"]["visit_date"],
        shift(visit_day(), 1).to_string()
    );
}

/// `count` paid orders of one ticket each on the shop's visit day.
async fn orders(app: &TestApp, shop: &Shop, count: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        ids.push(paid_order(app, shop, "en-GB", 1).await.order_id);
    }
    ids
}

#[tokio::test]
async fn fifty_orders_racing_for_one_free_place_move_exactly_one() {
    let (app, shop) = spawn_shop(Some(60)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let group = shop.group.parse().unwrap();
    let target = shift(visit_day(), 1);
    write_calendar(
        &app,
        &shop.product,
        (target, target),
        ("12.50", "15.00"),
        Some(1),
    )
    .await;
    let ids = orders(&app, &shop, 50).await;
    let answers = join_all(ids.iter().map(|id| {
        let (app, shop) = (&app, &shop);
        async move { customer_change(app, shop, id, "rebooking", &to_day(target), &key()).await }
    }))
    .await;
    let moved = answers.iter().filter(|a| a.status.as_u16() == 200).count();
    assert_eq!(
        moved,
        1,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    for a in answers.iter().filter(|a| a.status.as_u16() != 200) {
        a.assert_problem(422, "checkout-product-not-fulfillable");
    }
    assert_eq!(reserved_on_day(&app, group, target).await, 1);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 49);
    for id in &ids {
        let order = order_of(&app, &shop, id).await;
        assert_eq!(
            tickets_in(&order, "VALID").len(),
            1,
            "every order keeps a valid ticket"
        );
    }
}

#[tokio::test]
async fn a_cancellation_racing_a_date_change_of_the_same_ticket_lets_one_win() {
    let (app, shop) = spawn_shop(Some(30)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    for _ in 0..5 {
        let paid = paid_order(&app, &shop, "en-GB", 1).await;
        let ticket = tickets_in(&order_of(&app, &shop, &paid.order_id).await, "VALID")[0].clone();
        let mut move_body = to_day(shift(visit_day(), 1));
        move_body["ticket_ids"] = json!([ticket]);
        let cancel_body = json!({ "ticket_ids": [ticket] });
        let move_key = key();
        let (cancelled, moved) = tokio::join!(
            cancel(&app, &shop, &paid.order_id, &cancel_body),
            customer_change(
                &app,
                &shop,
                &paid.order_id,
                "rebooking",
                &move_body,
                &move_key
            ),
        );
        let wins = [&cancelled, &moved]
            .iter()
            .filter(|a| a.status.as_u16() == 200)
            .count();
        assert_eq!(wins, 1, "{} / {}", cancelled.text, moved.text);
        // The loser is refused cleanly: the ticket went first, or (decided after the
        // winner's commit) the order no longer allows it.
        for loser in [&cancelled, &moved]
            .into_iter()
            .filter(|a| a.status.as_u16() != 200)
        {
            assert_eq!(loser.status.as_u16(), 409, "{}", loser.text);
            let kind = loser.json()["type"].as_str().unwrap().to_owned();
            assert!(
                [
                    "ticket-not-cancellable",
                    "order-not-rebookable",
                    "order-not-cancellable"
                ]
                .iter()
                .any(|k| kind.ends_with(k)),
                "{kind}"
            );
        }
    }
}

#[tokio::test]
async fn an_undated_product_is_withdrawn_from_in_full_and_a_dated_ticket_is_not() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    let order = order_of(&app, &shop, &paid.order_id).await;
    assert_eq!(order["after_sale"]["withdrawable"], false);
    customer_change(
        &app,
        &shop,
        &paid.order_id,
        "withdrawal",
        &json!({}),
        &key(),
    )
    .await
    .assert_problem(409, "order-not-withdrawable");

    let voucher = shop
        .partner
        .product(&app, &shop.merchant, "Gift card", |b| {
            b["no_date"] = json!(true);
            b["product_type"] = json!("VOUCHER");
            b["age_group"] = serde_json::Value::Null;
        })
        .await;
    let product = voucher["product_id"].as_str().unwrap();
    let mut body = basket(product, 2);
    body["date"] = json!(today_in(ZONE).to_string());
    let created = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    let placed = confirm(&app, &shop, created["checkout_id"].as_str().unwrap())
        .await
        .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order_id = placed["order_id"].as_str().unwrap();
    let order = order_of(&app, &shop, order_id).await;
    assert_eq!(order["after_sale"]["withdrawable"], true);
    let until: chrono::DateTime<Utc> = order["after_sale"]["withdrawal_until"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(until > Utc::now() + Duration::days(14) && until <= Utc::now() + Duration::days(16));
    let withdrawn = customer_change(&app, &shop, order_id, "withdrawal", &json!({}), &key())
        .await
        .assert_status(200)["data"]
        .clone();
    assert_eq!(withdrawn["refund"]["amount"]["value"], "26.00");
    assert_eq!(withdrawn["order"]["status"], "CANCELLED");
    let operator = app
        .admin_get_ok(&format!("/admin/v1/orders/{order_id}"))
        .await;
    assert_eq!(operator["data"]["refunds"][0]["reason"], "WITHDRAWAL");
}

#[tokio::test]
async fn a_physical_order_is_withdrawable_until_its_shipment_period_ends() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let poster = shop
        .partner
        .product(&app, &shop.merchant, "Poster", |b| {
            b["no_date"] = json!(true);
            b["physical_product"] = json!(true);
            b["product_type"] = json!("MERCHANDISE");
            b["age_group"] = serde_json::Value::Null;
        })
        .await;
    let product = poster["product_id"].as_str().unwrap();
    let mut body = express_body(product, 1);
    body["date"] = json!(today_in(ZONE).to_string());
    body["shipping_address"] = json!({ "street": "Plantage Kerklaan", "house_number": "38",
        "postal_code": "1018 CZ", "city": "Amsterdam", "country": "NL" });
    let placed = express(
        &app,
        &shop.partner.campaign,
        Some(&shop.partner.token),
        &key(),
        &body,
    )
    .await
    .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order_id = placed["order_id"].as_str().unwrap();
    let order = order_of(&app, &shop, order_id).await;
    assert_eq!(order["after_sale"]["withdrawable"], true);
    assert!(
        order["after_sale"]["withdrawal_until"].is_null(),
        "not shipped yet"
    );

    let future = shift(today_in(ZONE), 1);
    app.admin_post(
        &format!("/admin/v1/orders/{order_id}/shipment"),
        &json!({ "shipped_on": future }),
    )
    .await
    .assert_invalid(&["shipped_on"]);
    // Shipped 20 days ago: its 14 days are over.
    let long_ago = shift(today_in(ZONE), -20);
    let shipped = app
        .admin_post(
            &format!("/admin/v1/orders/{order_id}/shipment"),
            &json!({ "shipped_on": long_ago }),
        )
        .await
        .assert_status(200);
    assert_eq!(shipped["data"]["after_sale"]["withdrawable"], false);
    customer_change(&app, &shop, order_id, "withdrawal", &json!({}), &key())
        .await
        .assert_problem(409, "order-not-withdrawable");
    let today = today_in(ZONE);
    let recent = app
        .admin_post(
            &format!("/admin/v1/orders/{order_id}/shipment"),
            &json!({ "shipped_on": today }),
        )
        .await
        .assert_status(200);
    assert_eq!(recent["data"]["after_sale"]["withdrawable"], true);
    let backend = app.backend_token(&shop.partner.client).await;
    let withdrawn = crate::after_sale_fixtures::partner_change(
        &app,
        &backend,
        order_id,
        "withdrawal",
        &json!({}),
    )
    .await
    .assert_status(200);
    assert_eq!(withdrawn["data"]["order"]["status"], "CANCELLED");
}

#[tokio::test]
async fn a_day_the_merchant_cancels_refunds_every_order_and_sells_no_more() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let first = paid_order(&app, &shop, "en-GB", 2).await;
    let second = paid_order(&app, &shop, "nl-NL", 1).await;
    let other_day = shift(visit_day(), 1);
    let mut elsewhere = basket(&shop.product, 1);
    elsewhere["date"] = json!(other_day.to_string());
    let path = format!(
        "/admin/v1/products/{}/calendar/{}/cancellation",
        shop.product,
        visit_day()
    );
    let closed = app.admin_post(&path, &json!({})).await.assert_status(200);
    assert_eq!(
        closed["data"],
        json!({ "orders_cancelled": 2, "refunds": 2 })
    );
    for id in [&first.order_id, &second.order_id] {
        let order = order_of(&app, &shop, id).await;
        assert_eq!(order["status"], "CANCELLED");
        assert!(tickets_in(&order, "VALID").is_empty());
    }
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    express(
        &app,
        &shop.partner.campaign,
        None,
        &key(),
        &express_body(&shop.product, 1),
    )
    .await
    .assert_problem(422, "checkout-product-not-fulfillable");
    // Another day still sells; closing again finds nothing left.
    shop.partner
        .post(&app, "/v2/checkouts", &elsewhere)
        .await
        .assert_status(201);
    let again = app.admin_post(&path, &json!({})).await.assert_status(200);
    assert_eq!(
        again["data"],
        json!({ "orders_cancelled": 0, "refunds": 0 })
    );
    let seen = events(&app, &shop).await;
    assert_eq!(
        seen.iter()
            .filter(|(t, _)| t == "orders.TicketsCancelled")
            .count(),
        2
    );
    // Setting the day's capacity again opens it.
    write_calendar(
        &app,
        &shop.product,
        (visit_day(), visit_day()),
        ("12.50", "15.00"),
        Some(10),
    )
    .await;
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
async fn one_slot_of_a_day_is_cancelled_alone() {
    let app = crate::helpers::spawn_app().await;
    let shop = shop(&app, Some(10)).await;
    let (product, group) = shop.partner.timeslotted_product(&app, &shop.merchant).await;
    let day = visit_day();
    open_slots(
        &app,
        &group,
        (day, day),
        json!([{ "start": "10:00", "end": "12:00" }, { "start": "14:00", "end": "16:00" }]),
        Some(5),
    )
    .await;
    let slots = admin_timeslots(&app, &group, day, day).await;
    let morning = slots[0]["timeslot_id"].as_str().unwrap().to_owned();
    let start = slots[0]["start_time"].as_str().unwrap().to_owned();
    let mut body = express_body(&product, 1);
    body["date"] = json!(start);
    let placed = express(
        &app,
        &shop.partner.campaign,
        Some(&shop.partner.token),
        &key(),
        &body,
    )
    .await
    .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let closed = app
        .admin_post(
            &format!("/admin/v1/products/{product}/calendar/{day}/cancellation"),
            &json!({ "timeslot_id": morning }),
        )
        .await
        .assert_status(200);
    assert_eq!(closed["data"]["orders_cancelled"], 1);
    express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
    let mut afternoon = express_body(&product, 1);
    afternoon["date"] = slots[1]["start_time"].clone();
    express(&app, &shop.partner.campaign, None, &key(), &afternoon)
        .await
        .assert_status(200);
    app.admin_post(
        &format!(
            "/admin/v1/products/{product}/calendar/{}/cancellation",
            shift(day, 1)
        ),
        &json!({ "timeslot_id": morning }),
    )
    .await
    .assert_invalid(&["timeslot_id"]);
}

#[tokio::test]
async fn a_refund_the_provider_fails_is_sent_again_until_it_succeeds_once() {
    let (app, refunds) = spawn_with_refunds(|_| {}).await;
    refunds.set(RefundScript::Error);
    let shop = shop(&app, Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    let answer = cancel(&app, &shop, &paid.order_id, &json!({}))
        .await
        .assert_status(200);
    assert_eq!(answer["data"]["refund"]["status"], "PENDING");
    // The sweeper sends it again once its decider had ten seconds: still failing, then not.
    let (state, later) = (&app.state.commerce, Utc::now() + Duration::seconds(11));
    server::sweeper::sweep(state, later).await.unwrap();
    assert_eq!(
        order_of(&app, &shop, &paid.order_id).await["refunds"][0]["status"],
        "PENDING"
    );
    refunds.set(RefundScript::Succeed);
    server::sweeper::sweep(state, later).await.unwrap();
    server::sweeper::sweep(state, later).await.unwrap();
    let order = order_of(&app, &shop, &paid.order_id).await;
    assert_eq!(order["refunds"][0]["status"], "SUCCEEDED");
    let seen = events(&app, &shop).await;
    assert_eq!(
        seen.iter()
            .filter(|(t, _)| t == "orders.RefundSucceeded")
            .count(),
        1
    );
    assert_eq!(
        seen.iter()
            .filter(|(t, _)| t == "orders.RefundFailed")
            .count(),
        0
    );
}

#[tokio::test]
async fn a_deadline_holds_to_the_second_before_a_timeslot() {
    let app = crate::helpers::spawn_app().await;
    let shop = shop(&app, Some(10)).await;
    let (product, group) = shop.partner.timeslotted_product(&app, &shop.merchant).await;
    let day = visit_day();
    open_slots(
        &app,
        &group,
        (day, day),
        json!([{ "start": "10:00", "end": "12:00" }]),
        Some(5),
    )
    .await;
    let slot = &admin_timeslots(&app, &group, day, day).await[0];
    let start: chrono::DateTime<Utc> = slot["start_time"].as_str().unwrap().parse().unwrap();
    let buy = || async {
        let mut body = express_body(&product, 1);
        body["date"] = slot["start_time"].clone();
        let placed = express(
            &app,
            &shop.partner.campaign,
            Some(&shop.partner.token),
            &key(),
            &body,
        )
        .await
        .assert_status(200)["data"]
            .clone();
        pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
        placed["order_id"].as_str().unwrap().to_owned()
    };
    // The full refund ends five seconds from now, counted back from the slot's start; the
    // policy is set before the purchases, which freeze it.
    let deadline = Utc::now() + Duration::seconds(5);
    let seconds = (start - deadline).num_seconds();
    let deadline = start - Duration::seconds(seconds);
    set_policy(
        &app,
        &product,
        json!({ "refund_rules": [{ "until": format!("PT{seconds}S"), "refund_percent": "100" }] }),
    )
    .await
    .assert_status(200);
    let (before, after) = (buy().await, buy().await);
    let quote = order_of(&app, &shop, &before).await;
    let quote_until: chrono::DateTime<Utc> = quote["after_sale"]["quote_until"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(quote_until, deadline);
    assert!(
        Utc::now() < deadline - Duration::seconds(1),
        "the test ran too slowly to judge"
    );
    cancel(&app, &shop, &before, &json!({}))
        .await
        .assert_status(200);
    tokio::time::sleep(
        (deadline + Duration::seconds(1) - Utc::now())
            .to_std()
            .unwrap(),
    )
    .await;
    let refused = cancel(&app, &shop, &after, &json!({})).await;
    let problem = refused.assert_problem(409, "order-not-cancellable");
    let named = deadline
        .with_timezone(&ZONE.parse::<chrono_tz::Tz>().unwrap())
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
    assert!(
        problem["detail"].as_str().unwrap().contains(&named),
        "{problem}"
    );
}
