//! Two nodes over one Postgres, as behind a load balancer: the races the database settles
//! still hold when the requests are spread over both nodes, and a catalog change made through
//! one node is seen through the other within the per-node caches' bound (docs/architecture.md,
//! "Several nodes"; docs/api-catalog.md for the bounds). SQLite is one node's embedded store, so these run on Postgres only.

use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::json;

use crate::{
    catalog_fixtures::merchant_body,
    checkout_fixtures::{
        assert_one_order, express, express_body, express_one_in_session, key, pay,
        reserved_on_visit_day, shop, ZONE,
    },
    helpers::{spawn_app_with, TestApp},
};

/// The per-node caches' lifetime in these tests, in seconds (catalog copies and search index).
const CACHE_TTL: u64 = 1;
/// How often each node re-reads the revocation counter in these tests, in milliseconds.
const AUTH_INTERVAL_MS: u64 = 400;

/// Two nodes over one fresh Postgres database, or `None` on SQLite.
async fn two_nodes() -> Option<(TestApp, TestApp)> {
    let short_caches = |c: &mut server::config::Config| {
        c.catalog_cache_ttl_secs = CACHE_TTL;
        c.search_index_ttl_secs = CACHE_TTL;
        c.auth_revision_interval_ms = AUTH_INTERVAL_MS;
    };
    let first = spawn_app_with(short_caches).await;
    if first.backend() != "postgres" {
        eprintln!("two nodes share a Postgres database only; skipped on SQLite");
        return None;
    }
    let second = first.second_node(short_caches).await;
    Some((first, second))
}

#[tokio::test]
async fn n_seats_and_four_n_buyers_spread_over_two_nodes_sell_exactly_n() {
    const SEATS: usize = 12;
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let shop = shop(&a, Some(SEATS as i32)).await;
    let body = express_body(&shop.product, 1);
    let responses = join_all((0..4 * SEATS).map(|i| {
        let node = if i % 2 == 0 { &a } else { &b };
        let (campaign, body) = (&shop.partner.campaign, &body);
        async move { express(node, campaign, None, &key(), body).await }
    }))
    .await;
    let sold = responses.iter().filter(|r| r.status == 200).count();
    for refused in responses.iter().filter(|r| r.status != 200) {
        refused.assert_problem(422, "checkout-product-not-fulfillable");
    }
    assert_eq!(sold, SEATS);
    assert_eq!(reserved_on_visit_day(&a, &shop).await, SEATS as i64);
}

#[tokio::test]
async fn copies_of_one_request_sent_to_both_nodes_make_one_order() {
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let shop = shop(&a, Some(100)).await;
    let body = express_body(&shop.product, 2);
    let k = key();
    let responses = join_all((0..10).map(|i| {
        let node = if i % 2 == 0 { &a } else { &b };
        let (campaign, body, k) = (&shop.partner.campaign, &body, &k);
        async move { express(node, campaign, None, k, body).await }
    }))
    .await;
    // Whichever node answered.
    let bodies = assert_one_order(&responses);
    for node in [&a, &b] {
        let replay = express(node, &shop.partner.campaign, None, &k, &body).await;
        assert_eq!(replay.status, 208);
        assert_eq!(replay.text, bodies[0]);
    }
    assert_eq!(reserved_on_visit_day(&a, &shop).await, 2);
}

#[tokio::test]
async fn one_session_code_redeemed_on_both_nodes_yields_exactly_one_bearer() {
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let campaign = a.create_campaign("Two nodes").await;
    let client = a.create_client("shop", &[&campaign]).await;
    let backend = b.backend_token(&client).await;
    let code = a
        .session_code(
            &backend,
            json!({ "integration": "headless", "user": { "reference": "u" }, "campaign_id": campaign }),
        )
        .await;
    let results = join_all((0..20).map(|i| {
        let node = if i % 2 == 0 { &a } else { &b };
        node.exchange_code(&client, &code)
    }))
    .await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    let refused = results.iter().filter(|r| r.status == 400).count();
    assert_eq!((ok, refused), (1, 19));
}

#[tokio::test]
async fn a_merchant_renamed_through_one_node_is_seen_through_the_other_within_the_bound() {
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let shop = shop(&a, Some(10)).await;
    let merchant_path = format!("/v2/merchants/{}", shop.merchant);
    let search = "/v2/merchants/search?q=Aquarium";
    // Node b reads the merchant and its search index, so both are in its caches.
    assert_eq!(
        shop.partner
            .get(&b, &merchant_path)
            .await
            .assert_status(200)["data"]["name"],
        "Zoo"
    );
    let before = shop.partner.get(&b, search).await.assert_status(200);
    assert_eq!(before["data"].as_array().unwrap().len(), 0);

    let input = merchant_body("Aquarium", ZONE);
    a.admin_put_ok(&format!("/admin/v1/merchants/{}", shop.merchant), &input)
        .await;
    let changed = Instant::now();

    let bound = Duration::from_secs(CACHE_TTL) + Duration::from_secs(2);
    loop {
        let detail = shop
            .partner
            .get(&b, &merchant_path)
            .await
            .assert_status(200);
        let found = shop.partner.get(&b, search).await.assert_status(200);
        let renamed = detail["data"]["name"] == "Aquarium";
        let indexed = found["data"].as_array().is_some_and(|m| m.len() == 1);
        if renamed && indexed {
            break;
        }
        assert!(
            changed.elapsed() < bound,
            "node b still shows the old merchant after {:?} (renamed: {renamed}, indexed: {indexed})",
            changed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_order_paid_through_one_node_is_listed_paid_through_the_other_at_once() {
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let shop = shop(&a, Some(10)).await;
    let placed = express_one_in_session(&a, &shop).await.assert_status(200)["data"].clone();
    let orders = "/v2/me/fulfillment/orders";
    // Node b lists the order unpaid, so its copy of it is the unpaid one.
    let listed = shop.partner.get_ok(&b, orders).await;
    assert_eq!(listed["data"][0]["order_id"], placed["order_id"]);
    assert_eq!(listed["data"][0]["status"], "PENDING_PAYMENT");
    let copied = Instant::now();

    pay(&a, placed["payment_url"].as_str().unwrap(), "pay").await;
    let paid = shop.partner.get_ok(&b, orders).await;
    assert!(
        copied.elapsed() < Duration::from_secs(CACHE_TTL),
        "b's copy could have expired; this run proves nothing"
    );
    let order = &paid["data"][0];
    assert_eq!(order["order_id"], placed["order_id"]);
    assert_eq!(order["status"], "FULFILLED");
    assert_eq!(order["tickets"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_bearer_revoked_through_one_node_is_refused_by_the_other_within_the_bound() {
    let Some((a, b)) = two_nodes().await else {
        return;
    };
    let campaign = a.create_campaign("Revoked").await;
    let client = a.create_client("shop", &[&campaign]).await;
    let backend = a.backend_token(&client).await;
    let code = a.headless_code(&backend, "u", Some(&campaign)).await;
    let bearer = a.exchange_code(&client, &code).await.assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    // Node b vouches for the bearer from its cache from now on.
    for _ in 0..3 {
        merchants_page(&b, &bearer).await.assert_status(200);
    }

    // The code replayed through node a: its bearer is revoked.
    a.assert_code_invalid(&client, &code).await;
    let revoked = Instant::now();
    merchants_page(&a, &bearer)
        .await
        .assert_problem(401, "token-invalid");

    // Node b honours it once it re-reads the counter: within the interval, plus that read.
    let bound = Duration::from_millis(AUTH_INTERVAL_MS) + Duration::from_millis(500);
    loop {
        let answer = merchants_page(&b, &bearer).await;
        if answer.status == 401 {
            answer.assert_problem(401, "token-invalid");
            break;
        }
        assert_eq!(answer.status, 200);
        assert!(
            revoked.elapsed() < bound,
            "node b still took the revoked bearer after {:?}",
            revoked.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The merchants page of `bearer`'s campaign, read through `node`.
async fn merchants_page(node: &TestApp, bearer: &str) -> crate::helpers::TestResponse {
    let request = node.request(reqwest::Method::GET, "/v2/merchants");
    node.send(request.bearer_auth(bearer)).await
}
