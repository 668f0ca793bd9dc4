//! The headless purchase from basket to paid order: reserve, confirm, pay in the sandbox,
//! tickets in /me orders, points in the ledger, and the events of each step.

use reqwest::Method;
use serde_json::json;

use crate::{
    checkout_fixtures::{
        assert_expired_once, basket, confirm, event_types, pay, read_checkout, reserve, reserve_id,
        reserved_on_visit_day, spawn_shop, visit_day,
    },
    partner_fixtures::partner,
};

#[tokio::test]
async fn a_partner_sells_tickets_from_basket_to_paid_order() {
    let (app, shop) = spawn_shop(Some(10)).await;
    app.admin_put_ok(
        &format!("/admin/v1/campaigns/{}", shop.partner.campaign),
        &json!({ "name": "Summer", "loyalty_points_per_unit": "2" }),
    )
    .await;

    // Reserve: the priced review holds 3 places.
    let created = reserve(&app, &shop, 3).await;
    assert_eq!(created["status"], "RESERVED");
    assert_eq!(created["requires_shipping_address"], false);
    assert_eq!(
        created["totals"]["subtotal"]["value"], "39.00",
        "(12.50 + 0.50) × 3"
    );
    assert_eq!(created["totals"]["total"]["value"], "39.00");
    assert_eq!(created["lines"][0]["unit_price"]["value"], "12.50");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 3);
    let checkout_id = created["checkout_id"].as_str().unwrap().to_owned();

    // Confirm: an order awaiting payment and where to pay it.
    let placed = confirm(&app, &shop, &checkout_id).await.assert_status(200)["data"].clone();
    let display = placed["order_display_id"].as_str().unwrap();
    assert!(
        display.len() == 12 && display.starts_with("BX-") && display.as_bytes()[7] == b'-',
        "{display}"
    );
    let payment_url = placed["payment_url"].as_str().unwrap().to_owned();
    let read = read_checkout(&app, &shop, &checkout_id).await;
    assert_eq!(read["status"], "CONFIRMED");
    assert_eq!(read["order_status"], "PENDING_PAYMENT");
    assert_eq!(read["payment"]["status"], "OPEN");
    // A second confirmation is refused.
    confirm(&app, &shop, &checkout_id)
        .await
        .assert_problem(409, "checkout-not-reserved");

    // Listed awaiting payment, without tickets; the node keeps a copy of it as listed.
    let pending = shop.partner.get_ok(&app, "/v2/me/fulfillment/orders").await;
    assert_eq!(pending["data"][0]["order_id"], placed["order_id"]);
    assert_eq!(pending["data"][0]["status"], "PENDING_PAYMENT");
    assert_eq!(pending["data"][0]["tickets"], json!([]));

    // Pay in the sandbox: back to the partner with payment_id, its own parameters kept.
    let back = pay(&app, &payment_url, "pay").await;
    let payment_id = read["payment"]["payment_id"].as_str().unwrap();
    assert_eq!(
        back,
        format!("http://localhost:5173/done?basket=7&payment_id={payment_id}")
    );
    let paid = read_checkout(&app, &shop, &checkout_id).await;
    assert_eq!(paid["status"], "PAID");
    assert_eq!(paid["order_status"], "FULFILLED");
    assert_eq!(paid["payment"]["status"], "PAID");
    assert!(paid["payment"].get("payment_url").is_none());
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        3,
        "sold, still taken"
    );

    // Tickets in the customer's orders: the order as paid, not the copy of it unpaid.
    let orders = shop.partner.get_ok(&app, "/v2/me/fulfillment/orders").await;
    let order = &orders["data"][0];
    assert_eq!(order["order_id"], placed["order_id"]);
    assert_eq!(order["status"], "FULFILLED");
    assert_eq!(order["total"]["value"], "39.00");
    let tickets = order["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 3);
    let mut codes: Vec<&str> = tickets
        .iter()
        .map(|t| t["code"].as_str().unwrap())
        .collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), 3, "unique codes");
    assert_eq!(tickets[0]["visit_date"], visit_day().to_string());
    assert_eq!(tickets[0]["status"], "VALID");
    let one = shop
        .partner
        .get_ok(
            &app,
            &format!(
                "/v2/me/fulfillment/orders/{}",
                placed["order_id"].as_str().unwrap()
            ),
        )
        .await;
    assert_eq!(one["data"]["tickets"].as_array().unwrap().len(), 3);

    // Points: 39.00 × 2 per unit.
    let ledger = shop
        .partner
        .get_ok(&app, "/v2/me/loyalty/ledger/entries")
        .await;
    let entry = &ledger["data"][0];
    assert_eq!(entry["kind"], "EARN");
    assert_eq!(entry["points"], 78);
    assert_eq!(entry["balance_after"], 78);
    assert_eq!(entry["order_id"], placed["order_id"]);
    assert_eq!(entry["order_display_id"], placed["order_display_id"]);
    // The rest of the entry's shape (decisions.md §5): its id, when, and the stored English text.
    assert!(entry["id"].as_str().unwrap().parse::<uuid::Uuid>().is_ok());
    assert!(entry["occurred_at"]
        .as_str()
        .unwrap()
        .parse::<chrono::DateTime<chrono::Utc>>()
        .is_ok());
    assert_eq!(entry["description"], format!("Order {display}"));

    // Every step is an event the partner can poll, oldest first.
    let seen = event_types(&app, &shop).await;
    assert_eq!(
        seen,
        [
            "checkouts.CheckoutStarted",
            "checkouts.CheckoutFulfillmentRegistered",
            "orders.OrderPaid"
        ]
    );
}

#[tokio::test]
async fn a_declined_payment_cancels_the_order_and_gives_everything_back() {
    let (app, shop) = spawn_shop(Some(5)).await;
    app.admin_post_created(
        "/admin/v1/vouchers",
        &json!({ "campaign_id": shop.partner.campaign, "code": "ONCE", "kind": "AMOUNT",
                 "value": "5.00", "max_redemptions": 1 }),
    )
    .await;
    let mut body = basket(&shop.product, 2);
    body["voucher_codes"] = json!(["once", "NOPE"]);
    let created = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(
        created["vouchers"][0]["code"], "ONCE",
        "the unknown code is ignored"
    );
    assert_eq!(created["totals"]["discount_total"]["value"], "5.00");
    assert_eq!(created["totals"]["total"]["value"], "21.00");
    let checkout_id = created["checkout_id"].as_str().unwrap();
    let placed = confirm(&app, &shop, checkout_id).await.assert_status(200)["data"].clone();
    // The voucher's one redemption is held: another checkout does not get it.
    let other = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(other["vouchers"], json!([]));
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 4);

    pay(&app, placed["payment_url"].as_str().unwrap(), "decline").await;
    let read = read_checkout(&app, &shop, checkout_id).await;
    assert_eq!(read["status"], "CANCELLED");
    assert_eq!(read["order_status"], "CANCELLED");
    assert_eq!(read["payment"]["status"], "DECLINED");
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        2,
        "given back once"
    );
    // Paying after declining changes nothing.
    let again = app
        .send(
            app.request(
                Method::POST,
                placed["payment_url"]
                    .as_str()
                    .unwrap()
                    .strip_prefix(&app.base_url)
                    .unwrap(),
            )
            .form(&[("action", "pay")]),
        )
        .await;
    assert_eq!(again.status.as_u16(), 303);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);
    // The redemption is free again.
    let third = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(third["vouchers"][0]["code"], "ONCE");
    let seen = event_types(&app, &shop).await;
    assert!(
        seen.contains(&"orders.OrderCancelled".to_owned()),
        "{seen:?}"
    );
}

#[tokio::test]
async fn an_unconfirmed_hold_expires_once_and_gives_its_capacity_back() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 2).await;
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);
    execute_sql!(
        &app,
        "UPDATE checkout SET expires_at = $1 WHERE checkout_id = $2",
        chrono::Utc::now() - chrono::Duration::minutes(1),
        checkout_id.parse::<uuid::Uuid>().unwrap()
    );
    // The sweeper on several nodes and a reader race to expire it; one wins.
    let now = chrono::Utc::now();
    let sweeps = (0..6).map(|_| {
        let state = app.state.clone();
        tokio::spawn(async move { server::sweeper::sweep(&state.commerce, now).await.unwrap() })
    });
    let read = read_checkout(&app, &shop, &checkout_id).await;
    for sweep in sweeps {
        sweep.await.unwrap();
    }
    assert_eq!(read["status"], "EXPIRED");
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        0,
        "released exactly once"
    );
    assert_expired_once(&app, &shop, &checkout_id).await;
}

#[tokio::test]
async fn a_released_reservation_gives_its_places_back_at_once_and_only_once() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 2).await;
    let path = format!("/v2/checkouts/{checkout_id}");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);

    // Another customer cannot see it, so cannot release it.
    let stranger = partner(&app).await;
    stranger
        .delete(&app, &path)
        .await
        .assert_problem(404, "checkout-not-found");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);

    let released = shop.partner.delete(&app, &path).await;
    assert_eq!(released.status.as_u16(), 204, "{}", released.text);
    assert!(released.header("x-correlation-id").is_some());
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    assert_eq!(
        shop.partner.get_ok(&app, &path).await["data"]["status"],
        "EXPIRED"
    );
    // Twice is a no-op: the places are given back once.
    assert_eq!(shop.partner.delete(&app, &path).await.status.as_u16(), 204);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    assert_expired_once(&app, &shop, &checkout_id).await;
}

#[tokio::test]
async fn a_confirmed_checkout_cannot_be_released() {
    let (app, shop) = spawn_shop(Some(5)).await;
    let checkout_id = reserve_id(&app, &shop, 1).await;
    let path = format!("/v2/checkouts/{checkout_id}");
    confirm(&app, &shop, &checkout_id).await.assert_status(200);
    shop.partner
        .delete(&app, &path)
        .await
        .assert_problem(409, "checkout-not-reserved");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);
}

#[tokio::test]
async fn a_whole_number_written_with_a_zero_fraction_is_that_integer_and_a_fraction_is_refused() {
    let (app, shop) = spawn_shop(Some(30)).await;
    // JSON Schema counts 24.0 an integer, so a validating client may send it as such.
    let mut body = basket(&shop.product, 1);
    body["lines"][0]["quantity"] = json!(24.0);
    let created = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_status(201);
    assert_eq!(created["data"]["lines"][0]["quantity"], 24, "{created}");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 24);

    body["lines"][0]["quantity"] = json!(2.5);
    let refused = shop
        .partner
        .post(&app, "/v2/checkouts", &body)
        .await
        .assert_problem(400, "checkout-basket-line-invalid");
    assert_eq!(refused["errors"][0]["field"], "lines[0].quantity");
    let message = refused["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("whole number"), "{message}");

    // The operator API alike: a calendar's capacity.
    let calendar = json!({
        "from": visit_day(), "until": visit_day(), "price": "12.50", "list_price": "15.00",
        "capacity": 40.0,
    });
    app.admin_put_ok(
        &format!("/admin/v1/products/{}/calendar", shop.product),
        &calendar,
    )
    .await;
}
