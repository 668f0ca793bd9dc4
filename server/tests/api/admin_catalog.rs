//! Operator API for merchants and availability groups (products: admin_products.rs).

use reqwest::Method;
use serde_json::json;

use crate::{
    catalog_fixtures::{
        create_group, create_merchant, create_product, merchant_body, product_body,
        spawn_app_with_merchant,
    },
    helpers::spawn_app,
};

// ---- merchants ----

#[tokio::test]
async fn a_merchant_is_created_read_updated_and_listed_with_its_translations() {
    let app = spawn_app().await;
    let created = app
        .admin_post_created(
            "/admin/v1/merchants",
            &merchant_body("Café Artis", "Europe/Amsterdam"),
        )
        .await;
    let merchant = &created["data"];
    let id = merchant["merchant_id"].as_str().unwrap();
    assert_eq!(merchant["address"]["city"], "Amsterdam");
    assert_eq!(merchant["location"]["latitude"], 52.366);
    assert_eq!(merchant["timezone"], "Europe/Amsterdam");
    let locales: Vec<_> = merchant["translations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["locale"].as_str().unwrap())
        .collect();
    assert_eq!(locales, ["en-GB", "fr-FR"]);
    assert_eq!(
        merchant["search_text"],
        "cafe artis zoo emerveille royal zoo amsterdam dierentuin"
    );

    // The read adds the merchant's payment account (none yet: its payments go to the
    // platform) to what the create answered.
    let read = app.admin_get_ok(&format!("/admin/v1/merchants/{id}")).await;
    let mut expected = merchant.clone();
    expected["payment_account"] = json!(null);
    assert_eq!(read["data"], expected);

    let mut body = merchant_body("Artis", "Europe/Amsterdam");
    body["translations"] = json!([{ "locale": "de-DE", "name": "Königlicher Zoo" }]);
    body["address"]["city"] = json!("Den Haag");
    body["website"] = json!(null);
    let updated = app
        .admin_put_ok(&format!("/admin/v1/merchants/{id}"), &body)
        .await;
    assert_eq!(
        updated["data"]["translations"],
        json!([{ "locale": "de-DE", "name": "Königlicher Zoo", "description": "" }]),
        "translations are replaced as a whole"
    );
    assert_eq!(
        updated["data"]["search_text"],
        "artis koniglicher zoo den haag dierentuin"
    );
    assert_eq!(updated["data"]["website"], json!(null));
    let read = app.admin_get_ok(&format!("/admin/v1/merchants/{id}")).await;
    let mut expected = updated["data"].clone();
    expected["payment_account"] = json!(null);
    assert_eq!(read["data"], expected);

    let listed = app.admin_get_ok("/admin/v1/merchants").await;
    assert_eq!(listed["meta"]["item_count"], 1);
    assert_eq!(listed["data"][0], updated["data"]);
}

#[tokio::test]
async fn invalid_merchant_input_names_every_bad_field() {
    let app = spawn_app().await;
    let mut body = merchant_body(" ", "Mars/Olympus_Mons");
    body["category"] = json!("");
    body["address"]["country"] = json!("nl");
    body["address"]["postal_code"] = json!("");
    body["location"] = json!({ "latitude": 90.5, "longitude": -180.01 });
    body["currency"] = json!("euro");
    body["image_url"] = json!("ftp://img.example/a.jpg");
    body["website"] = json!("www.example.com");
    body["translations"] = json!([
        { "locale": "en-GB", "name": "" },
        { "locale": "en-GB", "name": "Again" }
    ]);
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/merchants",
        &body,
        &[
            "name",
            "category",
            "address.country",
            "address.postal_code",
            "location.latitude",
            "location.longitude",
            "timezone",
            "currency",
            "image_url",
            "website",
            "translations[0].name",
            "translations[1].locale",
        ],
    )
    .await;
    assert_eq!(
        app.admin_item_count("/admin/v1/merchants").await,
        0,
        "nothing was written"
    );
}

#[tokio::test]
async fn an_unsupported_translation_locale_is_named_by_its_path() {
    let app = spawn_app().await;
    let mut body = merchant_body("Artis", "Europe/Amsterdam");
    body["translations"][1]["locale"] = json!("es-ES");
    app.admin_post("/admin/v1/merchants", &body)
        .await
        .assert_invalid_first("translations[1].locale");
}

#[tokio::test]
async fn an_unknown_merchant_is_not_found() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4();
    let body = merchant_body("x", "Europe/Amsterdam");
    app.assert_admin_unknown(&format!("/admin/v1/merchants/{id}"), &body)
        .await;
}

#[tokio::test]
async fn the_merchant_list_can_be_limited_to_a_campaign() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("Summer").await;
    let inside = create_merchant(&app, "Inside", "Europe/Amsterdam").await;
    let outside = create_merchant(&app, "Outside", "Europe/Amsterdam").await;
    let mut product = product_body(&inside, "Entry");
    product["campaign_ids"] = json!([campaign]);
    create_product(&app, &product).await;
    create_product(&app, &product_body(&outside, "Other")).await;

    let in_campaign = app
        .admin_collect(&format!("/admin/v1/merchants?campaign_id={campaign}"), 1)
        .await;
    assert_eq!(in_campaign.len(), 1);
    assert_eq!(in_campaign[0]["merchant_id"], inside.as_str());
    assert_eq!(app.admin_collect("/admin/v1/merchants", 1).await.len(), 2);
}

#[tokio::test]
async fn catalog_texts_holding_a_control_character_are_refused_naming_the_field() {
    let (app, merchant_id) = spawn_app_with_merchant().await;
    // A carriage return would reach the visit's `.ics` as a line of its own.
    let mut merchant = merchant_body("Artis\r\nX-INJECTED:1", "Europe/Amsterdam");
    merchant["address"]["street"] = json!("Plantage\rKerklaan 38");
    merchant["address"]["city"] = json!("Amster\u{7}dam");
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/merchants",
            &merchant,
            &["name", "address.street", "address.city"],
        )
        .await;
    assert_eq!(problem["errors"][0]["code"], "control_character");
    let mut product = product_body(&merchant_id, "Day\rticket");
    product["sku"] = json!("SKU-DAY");
    product["translations"][0]["title"] = json!("Day\u{85}ticket");
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/products",
        &product,
        &["title", "translations[0].title"],
    )
    .await;
    // Nothing was stored; the same texts without them are taken.
    assert_eq!(app.admin_list("/admin/v1/products").await.len(), 0);
    create_product(&app, &product_body(&merchant_id, "Day ticket")).await;
}

// ---- availability groups ----

#[tokio::test]
async fn an_availability_group_is_created_read_updated_and_listed() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let other = create_merchant(&app, "Blijdorp", "Europe/Amsterdam").await;
    let id = create_group(&app, &merchant, "Main gate").await;

    let read = app
        .admin_get_ok(&format!("/admin/v1/availability-groups/{id}"))
        .await;
    assert_eq!(read["data"]["merchant_id"], merchant.as_str());
    assert_eq!(read["data"]["name"], "Main gate");

    // Unused, so it may move to another merchant.
    let updated = app
        .admin_put_ok(
            &format!("/admin/v1/availability-groups/{id}"),
            &json!({ "merchant_id": other, "name": "North gate" }),
        )
        .await;
    assert_eq!(updated["data"]["merchant_id"], other.as_str());
    assert_eq!(updated["data"]["name"], "North gate");

    let of_other = app
        .admin_get_ok(&format!(
            "/admin/v1/availability-groups?merchant_id={other}"
        ))
        .await;
    assert_eq!(of_other["data"][0], updated["data"]);
    assert_eq!(
        app.admin_item_count(&format!(
            "/admin/v1/availability-groups?merchant_id={merchant}"
        ))
        .await,
        0
    );

    let missing = uuid::Uuid::new_v4();
    let body = json!({ "merchant_id": other, "name": "x" });
    app.assert_admin_unknown(&format!("/admin/v1/availability-groups/{missing}"), &body)
        .await;
}

#[tokio::test]
async fn a_group_needs_a_name_and_a_known_merchant() {
    let app = spawn_app().await;
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/availability-groups",
        &json!({ "merchant_id": uuid::Uuid::new_v4(), "name": "" }),
        &["name"],
    )
    .await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/availability-groups",
            &json!({ "merchant_id": uuid::Uuid::new_v4(), "name": "Gate" }),
            &["merchant_id"],
        )
        .await;
    assert_eq!(problem["errors"][0]["code"], "unknown_reference");

    let merchant = create_merchant(&app, "Artis", "Europe/Amsterdam").await;
    let group = create_group(&app, &merchant, "Gate").await;
    app.assert_admin_invalid(
        Method::PUT,
        &format!("/admin/v1/availability-groups/{group}"),
        &json!({ "merchant_id": uuid::Uuid::new_v4(), "name": "Gate" }),
        &["merchant_id"],
    )
    .await;
}

#[tokio::test]
async fn a_group_in_use_cannot_move_to_another_merchant() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let other = create_merchant(&app, "Blijdorp", "Europe/Amsterdam").await;
    let product = create_product(&app, &product_body(&merchant, "Entry")).await;
    let group = product["availability_group_id"].as_str().unwrap();
    app.assert_admin_conflict(
        Method::PUT,
        &format!("/admin/v1/availability-groups/{group}"),
        &json!({ "merchant_id": other, "name": "Moved" }),
    )
    .await;
    let read = app
        .admin_get_ok(&format!("/admin/v1/availability-groups/{group}"))
        .await;
    assert_eq!(read["data"]["merchant_id"], merchant.as_str());
    // Renaming within the merchant is fine.
    app.admin_put_ok(
        &format!("/admin/v1/availability-groups/{group}"),
        &json!({ "merchant_id": merchant, "name": "Renamed" }),
    )
    .await;
}

#[tokio::test]
async fn group_pages_are_bound_to_their_merchant_filter() {
    let app = spawn_app().await;
    let a = create_merchant(&app, "A", "Europe/Amsterdam").await;
    let b = create_merchant(&app, "B", "Europe/Amsterdam").await;
    let mut of_a = Vec::new();
    for i in 0..3 {
        of_a.push(create_group(&app, &a, &format!("a{i}")).await);
    }
    for i in 0..2 {
        create_group(&app, &b, &format!("b{i}")).await;
    }

    let collected = app
        .admin_collect(&format!("/admin/v1/availability-groups?merchant_id={a}"), 1)
        .await;
    let mut ids: Vec<String> = collected
        .iter()
        .map(|g| g["availability_group_id"].as_str().unwrap().to_owned())
        .collect();
    assert!(collected.iter().all(|g| g["merchant_id"] == a.as_str()));
    let in_order = ids.clone();
    ids.sort();
    assert_eq!(in_order, ids, "key order");
    of_a.sort();
    assert_eq!(ids, of_a);
    assert_eq!(
        app.admin_collect("/admin/v1/availability-groups", 2)
            .await
            .len(),
        5
    );

    let of_a = format!("/admin/v1/availability-groups?merchant_id={a}&limit=1");
    let token = app.admin_next_token(&of_a).await;
    for (other_list, problem) in [
        (
            format!("/admin/v1/availability-groups?merchant_id={b}&limit=1"),
            "next-token-mismatch",
        ),
        (
            "/admin/v1/availability-groups?limit=1".to_owned(),
            "next-token-mismatch",
        ),
        (
            format!("/admin/v1/products?merchant_id={a}&limit=1"),
            "next-token-invalid",
        ),
    ] {
        app.assert_admin_token_refused(&other_list, &token, problem)
            .await;
    }
    app.admin_get_ok(&format!(
        "/admin/v1/availability-groups?merchant_id={a}&limit=1&next_token={token}"
    ))
    .await;
    app.admin_get("/admin/v1/availability-groups?merchant=oops")
        .await
        .assert_problem(400, "request-validation-failed");
}
