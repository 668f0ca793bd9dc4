//! Operator API for products.

use reqwest::Method;
use serde_json::json;

use crate::{
    catalog_fixtures::{
        create_group, create_merchant, create_product, product_body, spawn_app_with_merchant,
    },
    helpers::{error_code, spawn_app, TestApp},
};

/// A fresh app with the merchant "Artis" and the campaign "Summer"; returns their ids too.
async fn spawn_app_with_merchant_and_campaign() -> (TestApp, String, String) {
    let (app, merchant) = spawn_app_with_merchant().await;
    let campaign = app.create_campaign("Summer").await;
    (app, merchant, campaign)
}

/// How many availability groups `merchant` has.
async fn group_count(app: &TestApp, merchant: &str) -> serde_json::Value {
    app.admin_item_count(&format!(
        "/admin/v1/availability-groups?merchant_id={merchant}"
    ))
    .await
}

/// POSTs the product `body` and asserts the validation problem names `field` alone; returns
/// that error's code.
async fn assert_product_refused(app: &TestApp, body: &serde_json::Value, field: &str) -> String {
    let problem = app
        .assert_admin_invalid(Method::POST, "/admin/v1/products", body, &[field])
        .await;
    error_code(&problem, field)
}

#[tokio::test]
async fn a_product_without_a_group_gets_a_dedicated_one_and_a_put_replaces_everything() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let summer = app.create_campaign("Summer").await;
    let winter = app.create_campaign("Winter").await;
    let autumn = app.create_campaign("Autumn").await;

    let mut body = product_body(&merchant, "Adult");
    body["campaign_ids"] = json!([summer, winter]);
    body["ticket_validity_type"] = json!("VALIDITY_PERIOD");
    body["ticket_validity_date"] = json!("2026-12-31");
    let product = create_product(&app, &body).await;
    let id = product["product_id"].as_str().unwrap();
    assert_eq!(product["unit_price"], "12.5");
    assert_eq!(product["list_price"], "15");
    assert_eq!(product["booking_costs"], "0.5");
    assert_eq!(product["provider"], "inventory");
    assert_eq!(product["no_date"], false);
    assert_eq!(product["ticket_validity_date"], "2026-12-31");
    let mut campaigns = vec![summer.clone(), winter.clone()];
    campaigns.sort();
    assert_eq!(product["campaign_ids"], json!(campaigns));

    let group = product["availability_group_id"].as_str().unwrap();
    let group_read = app
        .admin_get_ok(&format!("/admin/v1/availability-groups/{group}"))
        .await;
    assert_eq!(group_read["data"]["merchant_id"], merchant.as_str());
    assert_eq!(group_read["data"]["name"], "Adult");

    let mut replacement = product_body(&merchant, "Child");
    replacement["age_group"] = json!("child");
    replacement["unit_price"] = json!("7.25");
    replacement["no_date"] = json!(true);
    replacement["requires_timeslot"] = json!(true);
    replacement["physical_product"] = json!(true);
    replacement["provider"] = json!("partner-x");
    replacement["campaign_ids"] = json!([autumn]);
    replacement["translations"] = json!([
        { "locale": "de-DE", "title": "Kind" },
        { "locale": "nl-NL", "title": "Kind NL", "conditions": "NL" }
    ]);
    let updated = app
        .admin_put_ok(&format!("/admin/v1/products/{id}"), &replacement)
        .await;
    let data = &updated["data"];
    assert_eq!(data["title"], "Child");
    assert_eq!(data["age_group"], "child");
    assert_eq!(data["unit_price"], "7.25");
    assert_eq!(data["no_date"], true);
    assert_eq!(data["requires_timeslot"], true);
    assert_eq!(data["physical_product"], true);
    assert_eq!(data["provider"], "partner-x");
    assert_eq!(data["ticket_validity_type"], json!(null));
    assert_eq!(data["ticket_validity_date"], json!(null));
    assert_eq!(data["campaign_ids"], json!([autumn]), "membership replaced");
    assert_eq!(
        data["translations"],
        json!([
            { "locale": "de-DE", "title": "Kind", "conditions": "" },
            { "locale": "nl-NL", "title": "Kind NL", "conditions": "NL" }
        ]),
        "translations replaced"
    );
    assert_eq!(
        data["availability_group_id"], group,
        "an update without a group keeps the current one"
    );
    let read = app.admin_get_ok(&format!("/admin/v1/products/{id}")).await;
    assert_eq!(read["data"], updated["data"]);

    assert_eq!(
        app.admin_item_count(&format!("/admin/v1/products?campaign_id={winter}"))
            .await,
        0
    );
    let in_autumn = app
        .admin_get_ok(&format!("/admin/v1/products?campaign_id={autumn}"))
        .await;
    assert_eq!(in_autumn["data"][0], updated["data"]);
}

#[tokio::test]
async fn a_product_may_name_a_group_of_its_merchant_and_products_share_it() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let group = create_group(&app, &merchant, "Gate").await;
    let mut adult = product_body(&merchant, "Adult");
    adult["availability_group_id"] = json!(group);
    let mut child = product_body(&merchant, "Child");
    child["availability_group_id"] = json!(group);
    let adult = create_product(&app, &adult).await;
    let child = create_product(&app, &child).await;
    assert_eq!(adult["availability_group_id"], group.as_str());
    assert_eq!(child["availability_group_id"], group.as_str());
    assert_eq!(
        group_count(&app, &merchant).await,
        1,
        "no dedicated group made"
    );
}

#[tokio::test]
async fn invalid_product_input_names_every_bad_field() {
    let (app, merchant, campaign) = spawn_app_with_merchant_and_campaign().await;
    let body = json!({
        "merchant_id": merchant,
        "title": "",
        "product_type": "ticket",
        "sku": "",
        "age_group": "adult",
        "unit_price": "-1",
        "list_price": "1.005",
        "booking_costs": "-0.01",
        "visit_guarantee_cost": "0.001",
        "conditions": "",
        "ticket_validity_type": "FOREVER",
        "provider": "Not A Provider",
        "campaign_ids": [campaign, campaign],
        "translations": [
            { "locale": "en-GB", "title": "" },
            { "locale": "en-GB", "title": "Again" }
        ]
    });
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/products",
        &body,
        &[
            "title",
            "product_type",
            "sku",
            "age_group",
            "unit_price",
            "list_price",
            "booking_costs",
            "visit_guarantee_cost",
            "ticket_validity_type",
            "provider",
            "campaign_ids[1]",
            "translations[0].title",
            "translations[1].locale",
        ],
    )
    .await;

    let mut body = product_body(&merchant, "Pass");
    body["ticket_validity_type"] = json!("VALIDITY_PERIOD");
    assert_eq!(
        assert_product_refused(&app, &body, "ticket_validity_date").await,
        "required"
    );

    let mut body = product_body(&merchant, "Pass");
    body["ticket_validity_date"] = json!("2026-12-31");
    assert_product_refused(&app, &body, "ticket_validity_date").await;

    let mut body = product_body(&merchant, "Guidebook");
    body["product_type"] = json!("MERCHANDISE");
    body["age_group"] = json!(null);
    create_product(&app, &body).await;

    let mut body = product_body(&merchant, "Guidebook");
    body["unit_price"] = json!(12.5);
    assert_product_refused(&app, &body, "unit_price").await; // money is a string, never a float
}

#[tokio::test]
async fn unknown_references_are_named_and_nothing_is_half_written() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let other = create_merchant(&app, "Blijdorp", "Europe/Amsterdam").await;
    let foreign_group = create_group(&app, &other, "Their gate").await;
    let campaign = app.create_campaign("Summer").await;

    let body = product_body(&uuid::Uuid::new_v4().to_string(), "Ghost");
    assert_product_refused(&app, &body, "merchant_id").await;

    let mut body = product_body(&merchant, "Entry");
    body["availability_group_id"] = json!(uuid::Uuid::new_v4());
    assert_eq!(
        assert_product_refused(&app, &body, "availability_group_id").await,
        "unknown_reference"
    );

    body["availability_group_id"] = json!(foreign_group);
    assert_eq!(
        assert_product_refused(&app, &body, "availability_group_id").await,
        "invalid_reference"
    );

    // The dedicated group and the first membership are written before the unknown campaign
    // fails; the transaction takes them back.
    let mut body = product_body(&merchant, "Entry");
    body["campaign_ids"] = json!([campaign, uuid::Uuid::new_v4()]);
    assert_product_refused(&app, &body, "campaign_ids[1]").await;

    assert_eq!(app.admin_item_count("/admin/v1/products").await, 0);
    assert_eq!(group_count(&app, &merchant).await, 0, "no orphaned group");
    assert_eq!(
        app.admin_item_count(&format!("/admin/v1/merchants?campaign_id={campaign}"))
            .await,
        0,
        "no membership left"
    );
}

#[tokio::test]
async fn a_failed_product_update_changes_nothing() {
    let (app, merchant, campaign) = spawn_app_with_merchant_and_campaign().await;
    let mut body = product_body(&merchant, "Adult");
    body["campaign_ids"] = json!([campaign]);
    let product = create_product(&app, &body).await;
    let id = product["product_id"].as_str().unwrap();

    let mut replacement = product_body(&merchant, "Renamed");
    replacement["translations"] = json!([]);
    replacement["campaign_ids"] = json!([uuid::Uuid::new_v4()]);
    app.assert_admin_invalid(
        Method::PUT,
        &format!("/admin/v1/products/{id}"),
        &replacement,
        &["campaign_ids[0]"],
    )
    .await;
    let read = app.admin_get_ok(&format!("/admin/v1/products/{id}")).await;
    assert_eq!(read["data"], product);

    app.admin_put(
        &format!("/admin/v1/products/{}", uuid::Uuid::new_v4()),
        &product_body(&merchant, "x"),
    )
    .await
    .assert_problem(404, "not-found");
}

#[tokio::test]
async fn moving_a_product_to_another_merchant_gives_it_a_group_of_that_merchant() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let other = create_merchant(&app, "Blijdorp", "Europe/Amsterdam").await;
    let product = create_product(&app, &product_body(&merchant, "Adult")).await;
    let id = product["product_id"].as_str().unwrap();
    let moved = app
        .admin_put_ok(
            &format!("/admin/v1/products/{id}"),
            &product_body(&other, "Adult"),
        )
        .await;
    let group = moved["data"]["availability_group_id"].as_str().unwrap();
    assert_ne!(group, product["availability_group_id"]);
    let group = app
        .admin_get_ok(&format!("/admin/v1/availability-groups/{group}"))
        .await;
    assert_eq!(group["data"]["merchant_id"], other.as_str());
}

#[tokio::test]
async fn product_pages_follow_the_merchant_filter_and_reject_a_changed_one() {
    let app = spawn_app().await;
    let a = create_merchant(&app, "A", "Europe/Amsterdam").await;
    let b = create_merchant(&app, "B", "Europe/Amsterdam").await;
    for i in 0..4 {
        create_product(&app, &product_body(&a, &format!("a{i}"))).await;
    }
    create_product(&app, &product_body(&b, "b0")).await;

    let of_a = app
        .admin_collect(&format!("/admin/v1/products?merchant_id={a}"), 3)
        .await;
    assert_eq!(of_a.len(), 4);
    assert!(of_a.iter().all(|p| p["merchant_id"] == a.as_str()));

    let token = app
        .admin_next_token(&format!("/admin/v1/products?merchant_id={a}&limit=2"))
        .await;
    let of_b = format!("/admin/v1/products?merchant_id={b}&limit=2");
    app.assert_admin_token_refused(&of_b, &token, "next-token-mismatch")
        .await;
}

#[tokio::test]
async fn every_catalog_operator_route_is_in_the_openapi_document() {
    let app = spawn_app().await;
    let routes: &[(&str, &[&str])] = &[
        ("/admin/v1/merchants", &["get", "post"]),
        ("/admin/v1/merchants/{merchant_id}", &["get", "put"]),
        ("/admin/v1/availability-groups", &["get", "post"]),
        (
            "/admin/v1/availability-groups/{availability_group_id}",
            &["get", "put"],
        ),
        (
            "/admin/v1/availability-groups/{availability_group_id}/timeslots",
            &["get", "put"],
        ),
        ("/admin/v1/products", &["get", "post"]),
        ("/admin/v1/products/{product_id}", &["get", "put"]),
        ("/admin/v1/products/{product_id}/calendar", &["get", "put"]),
    ];
    let doc = app.assert_documented(routes).await;
    for (path, methods) in routes {
        for method in *methods {
            assert_eq!(
                doc["paths"][path][method]["security"],
                json!([{ "admin_token": [] }]),
                "{method} {path}"
            );
        }
    }
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    for schema in [
        "MerchantInput",
        "ProductInput",
        "AvailabilityGroupInput",
        "CalendarInput",
        "TimeslotsInput",
    ] {
        assert!(schemas.contains_key(schema), "{schema} missing");
    }
}
