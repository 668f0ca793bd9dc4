//! The demo data: seeded once into an empty database, covering every product shape.

use std::collections::HashSet;

use reqwest::Method;
use serde_json::{json, Value};
use server::{
    config::Config,
    demo::{at_start, seed_if_empty, DEMO_CAMPAIGN, DEMO_CLIENT_ID, SECOND_CAMPAIGN},
};

use crate::helpers::{spawn_app, spawn_app_with, TestApp, TestClient, TestResponse};

/// The string `field` of every item, as a set.
fn strings_of<'a>(items: &'a [Value], field: &str) -> HashSet<&'a str> {
    items.iter().map(|i| i[field].as_str().unwrap()).collect()
}

#[tokio::test]
async fn the_demo_covers_every_product_shape_and_is_seeded_once() {
    let app = spawn_app_with(|config| config.demo = true).await;
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

/// The locales of a record's translations (its own text is Dutch), as a set.
fn translated_locales(record: &Value) -> HashSet<&str> {
    record["translations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["locale"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn every_demo_product_and_merchant_speaks_all_four_languages() {
    let app = spawn_app_with(|config| config.demo = true).await;
    seed_if_empty(&app.state).await.unwrap();
    let others = HashSet::from(["en-GB", "de-DE", "fr-FR"]);
    let mut products = Vec::new();
    for campaign in [DEMO_CAMPAIGN, SECOND_CAMPAIGN] {
        products.extend(
            app.admin_collect(&format!("/admin/v1/products?campaign_id={campaign}"), 100)
                .await,
        );
    }
    for product in &products {
        assert_eq!(translated_locales(product), others, "{}", product["title"]);
    }
    let merchants = app.admin_collect("/admin/v1/merchants", 100).await;
    assert_eq!(merchants.len(), 4);
    for merchant in &merchants {
        assert_eq!(translated_locales(merchant), others, "{}", merchant["name"]);
        for translation in merchant["translations"].as_array().unwrap() {
            assert!(
                translation["description"].is_string(),
                "{} in {}",
                merchant["name"],
                translation["locale"]
            );
        }
    }

    // A German customer reads German titles, a French one French.
    for (language, title) in [("de-DE", "Eintritt Erwachsene"), ("fr-FR", "Entrée adulte")] {
        let museum = "d3e0e7c1-0000-4000-8000-000000000001";
        let request = app
            .request(Method::GET, &format!("/v2/merchants/{museum}/products"))
            .header("x-campaign-id", DEMO_CAMPAIGN.to_string())
            .header("accept-language", language);
        let listed = app.send(request).await.assert_status(200);
        let titles: Vec<&str> = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["title"].as_str().unwrap())
            .collect();
        assert!(titles.contains(&title), "{language}: {titles:?}");
    }
}

/// `POST /demo/shop/session` for `visitor`.
async fn demo_session(app: &TestApp, visitor: &str) -> TestResponse {
    app.send(
        app.request(Method::POST, "/demo/shop/session")
            .json(&json!({ "visitor": visitor })),
    )
    .await
}

/// The customer a demo session code stands for, after the frame's own exchange.
async fn customer_of(app: &TestApp, code: &str) -> Value {
    let exchanged = app.post_form("/frame/api/session", &[("code", code)]).await;
    let ready: Value = exchanged.json();
    let bearer = ready["Ready"]["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{ready}"));
    app.me(bearer).await.assert_status(200)["data"]["customer_id"].clone()
}

fn visitor() -> String {
    format!("demo-visit-{}", uuid::Uuid::new_v4())
}

#[tokio::test]
async fn demo_mode_is_off_unless_asked_for() {
    // The test server's settings leave `demo` at the server's default.
    let app = spawn_app().await;
    assert!(!app.state.config.demo);
    assert!(
        at_start(&app.state).await.unwrap().is_none(),
        "no banner, so no secret is printed"
    );
    assert!(app
        .state
        .store
        .partner_client_by_client_id(DEMO_CLIENT_ID)
        .await
        .unwrap()
        .is_none());
    assert!(app
        .state
        .store
        .campaign(DEMO_CAMPAIGN)
        .await
        .unwrap()
        .is_none());
    app.assert_not_found("/demo/shop").await;
    demo_session(&app, &visitor())
        .await
        .assert_problem(404, "not-found");

    // Demo data seeded by hand (an earlier demo run) opens nothing either.
    seed_if_empty(&app.state).await.unwrap();
    app.assert_not_found("/demo/shop").await;
    assert!(at_start(&app.state).await.unwrap().is_none());
}

#[tokio::test]
async fn demo_mode_seeds_and_shows_its_credentials_when_asked_for() {
    let app = spawn_app_with(|config| config.demo = true).await;
    let banner = at_start(&app.state).await.unwrap().expect("seeded");
    assert_eq!(banner.client_id, DEMO_CLIENT_ID);
    assert!(banner.to_string().contains("demo-secret"));
    assert!(
        at_start(&app.state).await.unwrap().is_some(),
        "on every start"
    );
}

#[tokio::test]
async fn demo_mode_is_refused_on_a_public_url_that_is_not_loopback() {
    let mut config = Config::defaults();
    config.demo = true;
    config.public_url = "https://tickets.example.com".parse().unwrap();
    let refused = server::build_state(config.clone())
        .await
        .err()
        .expect("refused");
    assert!(
        refused.to_string().contains("BOXOFFICE_DEMO_ALLOW_PUBLIC"),
        "{refused}"
    );
}

#[tokio::test]
async fn each_demo_shop_visit_is_its_own_customer() {
    let app = spawn_app_with(|config| config.demo = true).await;
    seed_if_empty(&app.state).await.unwrap();

    let page = app.get("/demo/shop").await;
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(page.text.contains("/embed.js") && page.text.contains("Boxoffice.mount("));
    assert!(page.text.contains("/demo/shop/session") && page.text.contains("sessionStorage"));
    assert!(
        page.text.contains("/demo/mail?visitor="),
        "the link to the visit's own mails"
    );
    assert!(
        !page.text.contains("sessionCode\":\""),
        "no code in the page itself"
    );

    let (one, two) = (visitor(), visitor());
    let code = |response: TestResponse| {
        assert_eq!(response.header("cache-control"), Some("no-store"));
        response.assert_status(201)["data"]["session_code"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let first = code(demo_session(&app, &one).await);
    let reload = code(demo_session(&app, &one).await);
    let other = code(demo_session(&app, &two).await);
    assert_ne!(first, reload, "a new code per page view");
    let customer = customer_of(&app, &first).await;
    assert_eq!(
        customer_of(&app, &reload).await,
        customer,
        "a reload keeps the customer"
    );
    assert_ne!(
        customer_of(&app, &other).await,
        customer,
        "another visit, another customer"
    );

    // Nobody chooses whose customer they are.
    for chosen in ["demo-visitor", "f-1", "demo-visit-not-a-uuid"] {
        let refused = demo_session(&app, chosen).await;
        refused.assert_problem(400, "request-validation-failed");
    }
    app.get("/demo/shop?user=demo-visitor")
        .await
        .assert_problem(400, "request-validation-failed");

    let off = spawn_app_with(|config| config.demo = false).await;
    seed_if_empty(&off.state).await.unwrap();
    off.assert_not_found("/demo/shop").await;
}

#[tokio::test]
async fn the_demo_shop_is_rate_limited_per_address() {
    let app = spawn_app_with(|config| {
        config.demo = true;
        config.auth_rate_per_minute = 3;
    })
    .await;
    seed_if_empty(&app.state).await.unwrap();
    for _ in 0..3 {
        demo_session(&app, &visitor()).await.assert_status(201);
    }
    let refused = demo_session(&app, &visitor()).await;
    refused.assert_problem(429, "rate-limited");
    assert!(refused.header("retry-after").is_some());
    app.get("/demo/shop")
        .await
        .assert_problem(429, "rate-limited");
}
