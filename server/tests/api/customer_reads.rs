//! The customer's own reads: orders newest first by `last_mutation_date` and the loyalty
//! ledger newest first (interface.md, "Ordering"), page by page, each page written from the
//! node's copies and never stale (`checkout/customer_copies.rs`).

use serde_json::{json, Value};

use crate::checkout_fixtures::{express_one_in_session, pay, spawn_shop};

/// The `key` of every item of `pages`, in order.
fn keys(pages: &[Value], key: &str) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|page| page["data"].as_array().unwrap().clone())
        .map(|item| item[key].clone())
        .collect()
}

#[tokio::test]
async fn orders_and_points_come_newest_first_page_by_page_as_they_now_are() {
    let (app, shop) = spawn_shop(Some(20)).await;
    app.admin_put_ok(
        &format!("/admin/v1/campaigns/{}", shop.partner.campaign),
        &json!({ "name": "Summer", "loyalty_points_per_unit": "1" }),
    )
    .await;
    let mut placed = Vec::new();
    for _ in 0..3 {
        let order = express_one_in_session(&app, &shop).await.assert_status(200);
        placed.push(order["data"].clone());
    }
    let id = |n: usize| placed[n]["order_id"].clone();
    let orders = "/v2/me/fulfillment/orders?limit=2";

    // Listed, and so copied, unpaid: newest first over two pages.
    let listed = shop.partner.pages(&app, orders).await;
    assert_eq!(listed.len(), 2);
    assert_eq!(keys(&listed, "order_id"), [id(2), id(1), id(0)]);
    assert_eq!(keys(&listed, "status"), ["PENDING_PAYMENT"; 3]);

    // Paying the oldest changes it last: it comes first, paid and with its ticket.
    pay(&app, placed[0]["payment_url"].as_str().unwrap(), "pay").await;
    let listed = shop.partner.pages(&app, orders).await;
    assert_eq!(keys(&listed, "order_id"), [id(0), id(2), id(1)]);
    assert_eq!(
        keys(&listed, "status"),
        ["FULFILLED", "PENDING_PAYMENT", "PENDING_PAYMENT"]
    );
    assert_eq!(listed[0]["data"][0]["tickets"].as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["meta"]["item_count"], 2);
    assert_eq!(listed[1]["meta"]["item_count"], 1);

    // The ledger: one entry per paid order, the newest first, a page each.
    pay(&app, placed[2]["payment_url"].as_str().unwrap(), "pay").await;
    let ledger = shop
        .partner
        .pages(&app, "/v2/me/loyalty/ledger/entries?limit=1")
        .await;
    assert_eq!(ledger.len(), 2);
    assert_eq!(keys(&ledger, "order_id"), [id(2), id(0)]);
    assert_eq!(keys(&ledger, "balance_after"), [json!(26), json!(13)]);
}
