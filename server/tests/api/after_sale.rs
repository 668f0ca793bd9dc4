//! After the sale (docs/api-checkout.md, "After the sale"): cancelling some then all tickets
//! under the policy frozen at payment, the refund to the cent with a voucher and wallet money,
//! idempotent replays, who may change which order, places back on the calendar, the events.

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::{
    after_sale_fixtures::{
        amount, cancel, customer_change, generous, order_of, partner_change, set_policy, tickets_in,
    },
    checkout_fixtures::{
        basket, confirm, events, key, pay, reserved_on_visit_day, spawn_shop, Shop,
    },
    helpers::TestApp,
    partner_fixtures::partner,
    ticket_fixtures::paid_order,
};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[tokio::test]
async fn a_policy_is_set_shown_in_the_readers_language_and_refused_where_the_law_says_so() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let list = shop
        .partner
        .products_with(&app, &shop.merchant, &[("accept-language", "en-GB")])
        .await
        .assert_status(200);
    let item = &list["data"][0];
    assert_eq!(item["after_sale"]["refund_rules"][0]["until"], "PT48H");
    assert_eq!(
        item["after_sale"]["refund_rules"][1]["refund_percent"],
        "50"
    );
    assert_eq!(
        item["after_sale_text"],
        "Free cancellation until 48 h before your visit. Change the date until 24 h before your visit."
    );
    let dutch = shop
        .partner
        .products_with(&app, &shop.merchant, &[("accept-language", "nl-NL")])
        .await
        .assert_status(200);
    assert_eq!(
        dutch["data"][0]["after_sale_text"],
        "Gratis annuleren tot 48 uur voor uw bezoek. Datum wijzigen kan tot 24 uur voor uw bezoek."
    );

    // A dated leisure ticket carries no withdrawal right; rules in a bad order, durations in
    // months and percents above 100 are refused, each naming its field.
    let refused = set_policy(
        &app,
        &shop.product,
        json!({
            "refund_rules": [
                { "until": "PT24H", "refund_percent": "50" },
                { "until": "PT48H", "refund_percent": "101" },
                { "until": "P1M", "refund_percent": "10" }
            ],
            "withdrawal_days": 14
        }),
    )
    .await;
    refused.assert_invalid(&[
        "after_sale.refund_rules[1].until",
        "after_sale.refund_rules[1].refund_percent",
        "after_sale.refund_rules[2].until",
        "after_sale.withdrawal_days",
    ]);
    let unknown = set_policy(
        &app,
        &shop.product,
        json!({ "refund_rules": [], "extra": 1 }),
    )
    .await;
    assert_eq!(unknown.status.as_u16(), 400, "{}", unknown.text);
}

#[tokio::test]
async fn cancelling_one_ticket_then_the_rest_refunds_exactly_what_was_paid() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 3).await;
    let order = order_of(&app, &shop, &paid.order_id).await;
    let after = &order["after_sale"];
    assert_eq!(after["cancellable"], true);
    assert_eq!(after["refund_quote"]["value"], "39.00");
    assert_eq!(after["rebookable"], true);
    assert_eq!(after["withdrawable"], false);
    assert!(after["withdrawal_until"].is_null());
    assert!(after["quote_until"].as_str().is_some() && after["cancel_until"].as_str().is_some());
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 3);

    // One ticket: its 13.00 back, its place back on the calendar.
    let valid = tickets_in(&order, "VALID");
    let first_key = key();
    let body = json!({ "ticket_ids": [valid[0]], "note": "Ill" });
    let once = customer_change(
        &app,
        &shop,
        &paid.order_id,
        "cancellation",
        &body,
        &first_key,
    )
    .await;
    let answer = once.assert_status(200)["data"].clone();
    assert_eq!(answer["refund"]["amount"]["value"], "13.00");
    assert_eq!(answer["refund"]["to_provider"]["value"], "13.00");
    assert_eq!(answer["refund"]["to_wallet"]["value"], "0.00");
    assert_eq!(answer["order"]["status"], "FULFILLED");
    assert_eq!(
        tickets_in(&answer["order"], "CANCELLED"),
        [valid[0].clone()]
    );
    assert_eq!(
        answer["order"]["after_sale"]["refund_quote"]["value"],
        "26.00"
    );
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);

    // The same key replays the first answer; with another body it is refused.
    let replay = customer_change(
        &app,
        &shop,
        &paid.order_id,
        "cancellation",
        &body,
        &first_key,
    )
    .await;
    assert_eq!(replay.status.as_u16(), 208);
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    assert_eq!(replay.text, once.text);
    customer_change(
        &app,
        &shop,
        &paid.order_id,
        "cancellation",
        &json!({ "ticket_ids": [valid[1]] }),
        &first_key,
    )
    .await
    .assert_problem(409, "idempotency-key-reused");
    cancel(
        &app,
        &shop,
        &paid.order_id,
        &json!({ "ticket_ids": [valid[0]] }),
    )
    .await
    .assert_problem(409, "ticket-not-cancellable");
    cancel(
        &app,
        &shop,
        &paid.order_id,
        &json!({ "ticket_ids": [uuid::Uuid::new_v4()] }),
    )
    .await
    .assert_invalid(&["ticket_ids[0]"]);
    customer_change(
        &app,
        &shop,
        &paid.order_id,
        "cancellation",
        &json!({}),
        "not-a-uuid",
    )
    .await
    .assert_invalid(&["Idempotency-Key"]);

    cancel(
        &app,
        &shop,
        &paid.order_id,
        &json!({ "note": "two\nlines" }),
    )
    .await
    .assert_invalid(&["note"]);

    // The rest: the order is CANCELLED and its refunds add up to what was paid.
    let rest = cancel(&app, &shop, &paid.order_id, &json!({}))
        .await
        .assert_status(200)["data"]
        .clone();
    assert_eq!(rest["refund"]["amount"]["value"], "26.00");
    assert_eq!(rest["order"]["status"], "CANCELLED");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    let order = order_of(&app, &shop, &paid.order_id).await;
    let refunds = order["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 2);
    let total: Decimal = refunds.iter().map(|r| amount(&r["amount"])).sum();
    assert_eq!(total, amount(&order["total"]));
    assert!(
        refunds.iter().all(|r| r["status"] == "SUCCEEDED"),
        "{refunds:?}"
    );
    cancel(&app, &shop, &paid.order_id, &json!({}))
        .await
        .assert_problem(409, "order-not-cancellable");

    // The partner was told of each cancellation and each refund the provider made.
    let seen = events(&app, &shop).await;
    let count = |kind: &str| seen.iter().filter(|(t, _)| t == kind).count();
    assert_eq!(count("orders.TicketsCancelled"), 2);
    assert_eq!(count("orders.RefundSucceeded"), 2);
    assert_eq!(
        count("orders.OrderCancelled"),
        0,
        "that is an unpaid order's end"
    );
    let operator = app
        .admin_get_ok(&format!("/admin/v1/orders/{}", paid.order_id))
        .await;
    assert_eq!(operator["data"]["refunds"][0]["reason"], "CUSTOMER");
    assert_eq!(operator["data"]["refunds"][1]["status"], "SUCCEEDED");
}

/// A checkout of `quantity` with `voucher` and whatever wallet the customer has, paid.
async fn paid_with(app: &TestApp, shop: &Shop, quantity: u32, voucher: &str) -> (String, Value) {
    let mut body = basket(&shop.product, quantity);
    body["voucher_codes"] = json!([voucher]);
    let created = shop
        .partner
        .post(app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    let checkout_id = created["checkout_id"].as_str().unwrap();
    let placed = confirm(app, shop, checkout_id).await.assert_status(200)["data"].clone();
    pay(app, placed["payment_url"].as_str().unwrap(), "pay").await;
    (placed["order_id"].as_str().unwrap().to_owned(), created)
}

#[tokio::test]
async fn with_a_voucher_and_wallet_money_one_by_one_gives_back_what_all_at_once_does() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    app.admin_post_created(
        "/admin/v1/vouchers",
        &json!({ "campaign_id": shop.partner.campaign, "code": "TEN", "kind": "AMOUNT", "value": "10.00" }),
    )
    .await;
    let me = shop.partner.get_ok(&app, "/v2/me").await;
    let customer = me["data"]["customer_id"].as_str().unwrap().to_owned();
    let wallet = format!("/admin/v1/wallets/{customer}/{}", shop.partner.campaign);
    app.admin_put(&wallet, &json!({ "balance": "7.77", "currency": "EUR" }))
        .await
        .assert_status(201);

    // 3 × 13.00 = 39.00, less 10.00, less 7.77 from the wallet: 21.23 by card.
    let (order_id, created) = paid_with(&app, &shop, 3, "TEN").await;
    assert_eq!(created["totals"]["wallet_applied"]["value"], "7.77");
    assert_eq!(created["totals"]["total"]["value"], "21.23");
    let order = order_of(&app, &shop, &order_id).await;
    assert_eq!(order["after_sale"]["refund_quote"]["value"], "29.00");
    let mut given = Decimal::ZERO;
    let mut to_wallet = Decimal::ZERO;
    for ticket in tickets_in(&order, "VALID") {
        let answer = cancel(&app, &shop, &order_id, &json!({ "ticket_ids": [ticket] }))
            .await
            .assert_status(200)["data"]
            .clone();
        let refund = &answer["refund"];
        assert_eq!(
            amount(&refund["amount"]),
            amount(&refund["to_wallet"]) + amount(&refund["to_provider"])
        );
        given += amount(&refund["amount"]);
        to_wallet += amount(&refund["to_wallet"]);
    }
    assert_eq!(given, d("29.00"), "what was paid, to the cent");
    assert_eq!(to_wallet, d("7.77"), "the wallet's part back to the wallet");
    let balance = app.admin_get_ok(&wallet).await;
    assert_eq!(balance["data"]["balance"], "7.77");

    // The same purchase cancelled at once gives back the same.
    app.admin_put(&wallet, &json!({ "balance": "7.77", "currency": "EUR" }))
        .await
        .assert_status(200);
    let (at_once, _) = paid_with(&app, &shop, 3, "TEN").await;
    let all = cancel(&app, &shop, &at_once, &json!({}))
        .await
        .assert_status(200)["data"]
        .clone();
    assert_eq!(amount(&all["refund"]["amount"]), given);
    assert_eq!(amount(&all["refund"]["to_wallet"]), to_wallet);
}

#[tokio::test]
async fn an_order_keeps_the_policy_it_was_paid_under() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let none = paid_order(&app, &shop, "en-GB", 1).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let generous_order = paid_order(&app, &shop, "en-GB", 1).await;
    // Tightened after both sales: no order's quote changes.
    set_policy(
        &app,
        &shop.product,
        json!({ "refund_rules": [{ "until": "PT1H", "refund_percent": "10" }] }),
    )
    .await
    .assert_status(200);
    let before = order_of(&app, &shop, &none.order_id).await;
    assert_eq!(before["after_sale"]["cancellable"], false);
    assert!(before["after_sale"]["refund_quote"].is_null());
    cancel(&app, &shop, &none.order_id, &json!({}))
        .await
        .assert_problem(409, "order-not-cancellable");
    let kept = order_of(&app, &shop, &generous_order.order_id).await;
    assert_eq!(kept["after_sale"]["refund_quote"]["value"], "13.00");
    assert_eq!(kept["after_sale"]["rebookable"], true);
}

#[tokio::test]
async fn only_the_owner_and_its_partner_change_an_order() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let stranger = partner(&app).await;
    let path = format!("/v2/me/fulfillment/orders/{}/cancellation", paid.order_id);
    let foreign = app
        .send(
            app.request(Method::POST, &path)
                .bearer_auth(&stranger.token)
                .header("x-campaign-id", &stranger.campaign)
                .header("idempotency-key", key())
                .json(&json!({})),
        )
        .await;
    assert_eq!(foreign.status.as_u16(), 404, "{}", foreign.text);

    // The partner whose session made it reads and cancels; another partner finds nothing.
    let backend = app.backend_token(&shop.partner.client).await;
    let other = app.backend_token(&stranger.client).await;
    let read = app
        .send(
            app.request(Method::GET, &format!("/v2/orders/{}", paid.order_id))
                .bearer_auth(&backend),
        )
        .await
        .assert_status(200);
    assert_eq!(read["data"]["after_sale"]["refund_quote"]["value"], "26.00");
    let hidden = app
        .send(
            app.request(Method::GET, &format!("/v2/orders/{}", paid.order_id))
                .bearer_auth(&other),
        )
        .await;
    hidden.assert_problem(404, "not-found");
    partner_change(&app, &other, &paid.order_id, "cancellation", &json!({}))
        .await
        .assert_problem(404, "not-found");
    // Less than the policy gives is the partner's to grant; more is refused and changes nothing.
    partner_change(
        &app,
        &backend,
        &paid.order_id,
        "cancellation",
        &json!({ "refund_percent": "100.01" }),
    )
    .await
    .assert_invalid(&["refund_percent"]);
    let ticket = tickets_in(&read["data"], "VALID")[0].clone();
    let above = json!({ "ticket_ids": [ticket], "refund_percent": "100" });
    let ok = partner_change(&app, &backend, &paid.order_id, "cancellation", &above).await;
    assert_eq!(
        ok.assert_status(200)["data"]["refund"]["amount"]["value"],
        "13.00"
    );
    let rest = tickets_in(&order_of(&app, &shop, &paid.order_id).await, "VALID");
    let half = json!({ "ticket_ids": rest, "refund_percent": "50" });
    let answer = partner_change(&app, &backend, &paid.order_id, "cancellation", &half)
        .await
        .assert_status(200);
    assert_eq!(answer["data"]["refund"]["amount"]["value"], "6.50");
    assert_eq!(answer["data"]["order"]["status"], "CANCELLED");

    // The operator grants goodwill on any order: here nothing is left to cancel.
    app.admin_post(
        &format!("/admin/v1/orders/{}/cancellation", paid.order_id),
        &json!({ "refund_percent": "100" }),
    )
    .await
    .assert_problem(409, "order-not-cancellable");
}

#[tokio::test]
async fn a_partner_may_not_refund_more_than_the_policy_and_nothing_changes() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(
        &app,
        &shop.product,
        json!({ "refund_rules": [{ "until": "PT1H", "refund_percent": "50" }] }),
    )
    .await
    .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    let backend = app.backend_token(&shop.partner.client).await;
    partner_change(
        &app,
        &backend,
        &paid.order_id,
        "cancellation",
        &json!({ "refund_percent": "75" }),
    )
    .await
    .assert_problem(409, "refund-above-policy");
    let order = order_of(&app, &shop, &paid.order_id).await;
    assert_eq!(tickets_in(&order, "VALID").len(), 1);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);
    // The operator's goodwill: any percent, whatever the policy.
    let goodwill = app
        .admin_post(
            &format!("/admin/v1/orders/{}/cancellation", paid.order_id),
            &json!({ "refund_percent": "80" }),
        )
        .await
        .assert_status(200);
    assert_eq!(goodwill["data"]["refund"]["amount"]["value"], "10.40");
}
