//! A date change to a dearer day (docs/api-checkout.md, "Change the date"): 202 with the
//! difference's payment, the new places held until it ends; paid, the visit moves; declined or
//! expired, nothing changed and the places are back; paid after the tickets were cancelled
//! meanwhile, the difference is refunded. Refunds later go back through both payments.

use chrono::{Duration, Utc};
use serde_json::{json, Value};

use crate::{
    after_sale_fixtures::{customer_change, generous, order_of, set_policy, tickets_in},
    checkout_fixtures::{events, key, pay, reserved_on_visit_day, spawn_shop, visit_day, Shop},
    checkout_partner::event_data,
    db_reads::reserved_on_day,
    helpers::TestApp,
    partner_fixtures::{shift, write_calendar},
    ticket_fixtures::paid_order,
};

/// A shop whose product costs 2.00 more on the day after the visit day, and a paid order of
/// two tickets (13.00 each, costs included) on the visit day.
pub async fn dearer_shop() -> (TestApp, Shop, String, chrono::NaiveDate) {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let dear = shift(visit_day(), 1);
    write_calendar(
        &app,
        &shop.product,
        (dear, dear),
        ("14.50", "15.00"),
        Some(10),
    )
    .await;
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    (app, shop, paid.order_id, dear)
}

async fn ask_to_move(
    app: &TestApp,
    shop: &Shop,
    order_id: &str,
    day: chrono::NaiveDate,
    key: &str,
) -> Value {
    customer_change(
        app,
        shop,
        order_id,
        "rebooking",
        &json!({ "date": day.to_string() }),
        key,
    )
    .await
    .assert_status(202)["data"]
        .clone()
}

#[tokio::test]
async fn a_dearer_day_is_paid_for_first_then_the_visit_moves_and_refunds_go_back_through_both_payments(
) {
    let (app, shop, order_id, dear) = dearer_shop().await;
    let group = shop.group.parse().unwrap();
    let before = order_of(&app, &shop, &order_id).await;
    let first_key = key();

    let asked = ask_to_move(&app, &shop, &order_id, dear, &first_key).await;
    let payment_url = asked["payment_url"]
        .as_str()
        .expect("the difference's payment")
        .to_owned();
    assert!(asked["refund"].is_null());
    // Nothing moved yet; the new places are held.
    assert_eq!(
        tickets_in(&asked["order"], "VALID"),
        tickets_in(&before, "VALID")
    );
    assert_eq!(asked["order"]["visit_date"], visit_day().to_string());
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);
    assert_eq!(reserved_on_day(&app, group, dear).await, 2);
    // The same key again is the same answer.
    let again = customer_change(
        &app,
        &shop,
        &order_id,
        "rebooking",
        &json!({ "date": dear.to_string() }),
        &first_key,
    )
    .await
    .assert_status(208);
    assert_eq!(again["data"]["payment_url"], payment_url.as_str());
    // Another move while this one awaits its payment is refused.
    customer_change(
        &app,
        &shop,
        &order_id,
        "rebooking",
        &json!({ "date": dear.to_string() }),
        &key(),
    )
    .await
    .assert_problem(409, "order-not-rebookable");
    // The payment page asks for the difference alone.
    let page = app
        .send(
            app.request(
                reqwest::Method::GET,
                payment_url.strip_prefix(&app.base_url).unwrap(),
            )
            .header("accept-language", "en-GB"),
        )
        .await;
    assert!(page.text.contains("€4.00"), "{}", page.text);

    let back = pay(&app, &payment_url, "pay").await;
    assert!(
        back.contains(&format!("/tickets/{order_id}/manage?key=")),
        "{back}"
    );
    assert!(back.contains("done=rebooked"), "{back}");

    let moved = order_of(&app, &shop, &order_id).await;
    assert_eq!(moved["visit_date"], dear.to_string());
    assert_eq!(
        tickets_in(&moved, "CANCELLED"),
        tickets_in(&before, "VALID")
    );
    let valid = tickets_in(&moved, "VALID");
    assert_eq!(valid.len(), 2);
    for ticket in moved["tickets"].as_array().unwrap() {
        if ticket["status"] == "VALID" {
            assert_eq!(ticket["visit_date"], dear.to_string());
        }
    }
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    assert_eq!(reserved_on_day(&app, group, dear).await, 2);
    // What cancelling now gives back includes the difference.
    assert_eq!(moved["after_sale"]["refund_quote"]["value"], "30.00");
    let rebooked = event_data(&app, &shop, "orders.OrderRebooked").await;
    assert_eq!(rebooked.len(), 1);
    let data = &rebooked[0];
    assert_eq!(data["paid"]["value"], "4.00", "{data}");
    assert_eq!(data["to"]["date"], dear.to_string());

    // Everything cancelled: 30.00 back, 26.00 through the sale's payment and 4.00 through
    // the difference's (a provider refunds no payment beyond its amount).
    let cancelled = customer_change(&app, &shop, &order_id, "cancellation", &json!({}), &key())
        .await
        .assert_status(200)["data"]
        .clone();
    assert_eq!(cancelled["refund"]["amount"]["value"], "30.00");
    let parts: Vec<&str> = cancelled["order"]["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["amount"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(parts, ["26.00", "4.00"]);
    assert_eq!(cancelled["order"]["status"], "CANCELLED");
    assert_eq!(reserved_on_day(&app, group, dear).await, 0);
}

#[tokio::test]
async fn a_dearer_day_declined_or_expired_changes_nothing_and_its_places_go_back() {
    let (app, shop, order_id, dear) = dearer_shop().await;
    let group = shop.group.parse().unwrap();
    let before = order_of(&app, &shop, &order_id).await;

    let asked = ask_to_move(&app, &shop, &order_id, dear, &key()).await;
    pay(&app, asked["payment_url"].as_str().unwrap(), "decline").await;
    let after = order_of(&app, &shop, &order_id).await;
    assert_eq!(after["tickets"], before["tickets"]);
    assert_eq!(after["visit_date"], visit_day().to_string());
    assert_eq!(reserved_on_day(&app, group, dear).await, 0);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);

    // Left unpaid past its window, the sweeper ends it.
    let asked = ask_to_move(&app, &shop, &order_id, dear, &key()).await;
    assert!(asked["payment_url"].is_string());
    assert_eq!(reserved_on_day(&app, group, dear).await, 2);
    server::sweeper::sweep(&app.state.commerce, Utc::now() + Duration::minutes(31))
        .await
        .unwrap();
    assert_eq!(reserved_on_day(&app, group, dear).await, 0);
    let after = order_of(&app, &shop, &order_id).await;
    assert_eq!(after["tickets"], before["tickets"]);
    assert!(events(&app, &shop)
        .await
        .iter()
        .all(|(t, _)| t != "orders.OrderRebooked"));
}

#[tokio::test]
async fn a_difference_paid_after_the_tickets_were_cancelled_moves_nothing_and_is_refunded() {
    let (app, shop, order_id, dear) = dearer_shop().await;
    let group = shop.group.parse().unwrap();
    let asked = ask_to_move(&app, &shop, &order_id, dear, &key()).await;
    customer_change(&app, &shop, &order_id, "cancellation", &json!({}), &key())
        .await
        .assert_status(200);

    pay(&app, asked["payment_url"].as_str().unwrap(), "pay").await;
    let after = order_of(&app, &shop, &order_id).await;
    assert_eq!(after["status"], "CANCELLED");
    assert!(tickets_in(&after, "VALID").is_empty());
    assert_eq!(reserved_on_day(&app, group, dear).await, 0);
    let late = event_data(&app, &shop, "orders.PaymentRefunded").await;
    assert_eq!(late.len(), 1, "the difference goes back whole");
    assert_eq!(late[0]["amount"]["value"], "4.00");
}

#[tokio::test]
async fn a_difference_paid_while_it_lapses_settles_once_either_way() {
    let (app, shop, order_id, dear) = dearer_shop().await;
    let group = shop.group.parse().unwrap();
    let asked = ask_to_move(&app, &shop, &order_id, dear, &key()).await;
    let payment_url = asked["payment_url"].as_str().unwrap().to_owned();
    let path = payment_url.strip_prefix(&app.base_url).unwrap().to_owned();

    // The customer pays on two tabs while every node's sweeper finds the payment lapsed.
    let paying = (0..4).map(|_| {
        let (app, path) = (&app, path.clone());
        async move {
            app.post_form(&path, &[("action", "pay")]).await;
        }
    });
    let sweeping = (0..4).map(|_| {
        let app = &app;
        async move {
            server::sweeper::sweep(&app.state.commerce, Utc::now() + Duration::minutes(31))
                .await
                .unwrap();
        }
    });
    futures::future::join(
        futures::future::join_all(paying),
        futures::future::join_all(sweeping),
    )
    .await;

    let after = order_of(&app, &shop, &order_id).await;
    let moved = after["visit_date"] == dear.to_string();
    let rebooked = event_data(&app, &shop, "orders.OrderRebooked").await;
    if moved {
        assert_eq!(tickets_in(&after, "VALID").len(), 2);
        assert_eq!(tickets_in(&after, "CANCELLED").len(), 2);
        assert_eq!(reserved_on_day(&app, group, dear).await, 2);
        assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
        assert_eq!(rebooked.len(), 1);
    } else {
        assert_eq!(tickets_in(&after, "VALID").len(), 2);
        assert!(tickets_in(&after, "CANCELLED").is_empty());
        assert_eq!(reserved_on_day(&app, group, dear).await, 0);
        assert_eq!(reserved_on_visit_day(&app, &shop).await, 2);
        assert!(rebooked.is_empty());
    }
}
