//! The demo data: seeded once into an empty database, covering every product shape.

use std::collections::HashSet;

use serde_json::Value;
use server::demo::{seed_if_empty, DEMO_CAMPAIGN, SECOND_CAMPAIGN};

use crate::helpers::{spawn_app, TestClient};

/// The string `field` of every item, as a set.
fn strings_of<'a>(items: &'a [Value], field: &str) -> HashSet<&'a str> {
    items.iter().map(|i| i[field].as_str().unwrap()).collect()
}

#[tokio::test]
async fn the_demo_covers_every_product_shape_and_is_seeded_once() {
    let app = spawn_app().await;
    let summary = seed_if_empty(&app.state)
        .await
        .unwrap()
        .expect("seeded into an empty database");
    assert_eq!(summary.campaign_id, DEMO_CAMPAIGN);
    assert!(
        seed_if_empty(&app.state).await.unwrap().is_none(),
        "not seeded twice"
    );

    let products = app
        .admin_collect(
            &format!("/admin/v1/products?campaign_id={DEMO_CAMPAIGN}"),
            100,
        )
        .await;
    let flag = |name: &str| products.iter().filter(|p| p[name] == true).count();
    assert!(flag("no_date") >= 2, "no_date products");
    assert!(flag("requires_timeslot") >= 1, "timeslotted product");
    assert!(flag("physical_product") >= 1, "physical product");
    assert!(products
        .iter()
        .any(|p| p["ticket_validity_type"] == "VALIDITY_PERIOD"));
    let groups: Vec<&Value> = products
        .iter()
        .map(|p| &p["availability_group_id"])
        .collect();
    let distinct: HashSet<String> = groups.iter().map(|g| g.to_string()).collect();
    assert!(
        distinct.len() < groups.len(),
        "two products share an availability group"
    );

    let mut capacities = HashSet::new();
    let mut discounted = false;
    for product in products.iter().filter(|p| p["no_date"] == false) {
        let id = product["product_id"].as_str().unwrap();
        let days = app
            .admin_get_ok(&format!("/admin/v1/products/{id}/calendar"))
            .await;
        for day in days["data"].as_array().unwrap() {
            capacities.insert(day["capacity"].to_string());
            discounted |= day["price"] != day["list_price"];
        }
    }
    assert!(
        capacities.contains("0"),
        "a sold-out product: {capacities:?}"
    );
    assert!(
        capacities.contains("3"),
        "a small finite capacity: {capacities:?}"
    );
    assert!(discounted, "discounted days");

    let second = app
        .admin_collect(
            &format!("/admin/v1/products?campaign_id={SECOND_CAMPAIGN}"),
            100,
        )
        .await;
    let first_merchants = strings_of(&products, "merchant_id");
    assert!(
        second
            .iter()
            .any(|p| !first_merchants.contains(p["merchant_id"].as_str().unwrap())),
        "a merchant outside the demo campaign"
    );

    let vouchers = app
        .admin_collect(
            &format!("/admin/v1/vouchers?campaign_id={DEMO_CAMPAIGN}"),
            100,
        )
        .await;
    assert_eq!(
        strings_of(&vouchers, "kind"),
        HashSet::from(["PERCENTAGE", "AMOUNT"]),
        "vouchers of both kinds"
    );

    let demo_client = TestClient {
        client_id: summary.client_id.clone(),
        secret: summary.client_secret.clone(),
    };
    let token = app.backend_token(&demo_client).await;
    assert!(!token.is_empty());
    assert_eq!(summary.client_secret, "demo-secret");
}

#[tokio::test]
async fn the_demo_shop_embeds_the_frame_with_a_fresh_code_in_demo_mode_only() {
    let app = crate::helpers::spawn_app_with(|config| config.demo = true).await;
    app.assert_not_found("/demo/shop").await;
    seed_if_empty(&app.state).await.unwrap();

    let first = app.get("/demo/shop").await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.text);
    assert_eq!(first.header("cache-control"), Some("no-store"));
    assert!(first.text.contains("/embed.js") && first.text.contains("Boxoffice.mount("));
    let code = |page: &str| {
        let start = page.find(r#""sessionCode":""#).unwrap() + 15;
        page[start..start + page[start..].find('"').unwrap()].to_owned()
    };
    let second = app.get("/demo/shop").await;
    assert_ne!(code(&first.text), code(&second.text), "a new code per page");

    let off = crate::helpers::spawn_app_with(|config| config.demo = false).await;
    seed_if_empty(&off.state).await.unwrap();
    off.assert_not_found("/demo/shop").await;
}
