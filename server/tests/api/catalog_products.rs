//! The public product list (docs/api-catalog.md, "Products"): every field, stock-aware best prices
//! and sold_out, localization, caching headers and conditional requests, and its errors.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{create_merchant, open_slots, set_day_reserved},
    helpers::TestApp,
    partner_fixtures::{
        id_of, product_and_group, shift, spawn_partner, spawn_partner_with_merchant, today_in,
        write_calendar, Partner,
    },
};

const AMS: &str = "Europe/Amsterdam";

async fn list(app: &TestApp, partner: &Partner, merchant: &str) -> Vec<Value> {
    partner.products(app, merchant).await.assert_status(200)["data"]
        .as_array()
        .unwrap()
        .clone()
}

fn by_id<'a>(items: &'a [Value], id: &str) -> &'a Value {
    items
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {items:?}"))
}

const BEST_FIELDS: [&str; 6] = [
    "best_effective_price",
    "best_list_price",
    "best_discount_amount",
    "best_discount_percentage",
    "first_available_date",
    "last_available_date",
];

#[track_caller]
fn assert_sold_out(product: &Value) {
    assert_eq!(product["sold_out"], true, "{product}");
    for field in BEST_FIELDS {
        assert!(product.get(field).is_none(), "{field} present in {product}");
    }
}

#[tokio::test]
async fn the_list_carries_every_product_field_with_two_decimal_money() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let ticket = p
        .product(&app, &merchant, "Volwassene", |b| {
            b["ticket_validity_type"] = json!("VALIDITY_PERIOD");
            b["ticket_validity_date"] = json!("2031-12-31");
        })
        .await;
    let shirt = p
        .product(&app, &merchant, "T-shirt", |b| {
            b["product_type"] = json!("MERCHANDISE");
            b["age_group"] = Value::Null;
            b["physical_product"] = json!(true);
            b["no_date"] = json!(true);
            b["unit_price"] = json!("20");
            b["list_price"] = json!("20");
        })
        .await;
    let today = today_in(AMS);
    write_calendar(
        &app,
        &id_of(&ticket, "product_id"),
        (today, shift(today, 9)),
        ("12.5", "15"),
        Some(10),
    )
    .await;

    let response = p.products(&app, &merchant).await;
    let body = response.assert_status(200);
    assert!(body["meta"].get("pagination").is_none(), "returned whole");
    assert_eq!(
        body["meta"]["correlation_id"],
        response.header("x-correlation-id").unwrap()
    );
    let items = body["data"].as_array().unwrap();
    assert_eq!(items.len(), 2);

    let t = by_id(items, &id_of(&ticket, "product_id"));
    let eur = |v: &str| json!({ "value": v, "currency": "EUR" });
    assert_eq!(t["title"], "Volwassene");
    assert_eq!(t["product_type"], "TICKET");
    assert_eq!(t["physical_product"], false);
    assert_eq!(t["sku"], "SKU-Volwassene");
    assert_eq!(t["age_group"], "adult");
    assert_eq!(t["unit_price"], eur("12.50"));
    assert_eq!(t["list_price"], eur("15.00"));
    assert_eq!(t["booking_costs"], eur("0.50"));
    assert_eq!(t["visit_guarantee_cost"], eur("2.00"));
    assert_eq!(t["no_date"], false);
    assert_eq!(t["requires_timeslot"], false);
    assert_eq!(t["best_effective_price"], eur("12.50"));
    assert_eq!(t["best_list_price"], eur("15.00"));
    assert_eq!(t["best_discount_amount"], eur("2.50"));
    assert_eq!(t["best_discount_percentage"], json!(16.67));
    assert_eq!(t["first_available_date"], today.to_string());
    assert_eq!(t["last_available_date"], shift(today, 9).to_string());
    assert_eq!(t["sold_out"], false);
    assert_eq!(t["conditions"], "Valid on the chosen day");
    assert_eq!(t["ticket_validity_type"], "VALIDITY_PERIOD");
    assert_eq!(t["ticket_validity_date"], "2031-12-31");

    let s = by_id(items, &id_of(&shirt, "product_id"));
    assert_eq!(s["product_type"], "MERCHANDISE");
    assert!(
        s.get("age_group").is_none(),
        "only tickets have an age group"
    );
    assert_eq!(s["physical_product"], true);
    assert_eq!(s["no_date"], true);
    assert_eq!(s["sold_out"], false, "no calendar: never sold out");
    assert_eq!(s["best_effective_price"], eur("20.00"));
    assert_eq!(
        s["best_discount_amount"],
        eur("0.00"),
        "no discount is zero, not absent"
    );
    assert_eq!(s["best_discount_percentage"], json!(0.0));
    assert!(s.get("first_available_date").is_none());
    assert!(s.get("ticket_validity_type").is_none());
}

#[tokio::test]
async fn best_prices_come_from_purchasable_days_only() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let product = p.product(&app, &merchant, "Dag", |_| {}).await;
    let (id, group) = product_and_group(&product);
    let today = today_in(AMS);
    // Past days are the cheapest but do not count; today and tomorrow are cheap but full.
    for (from, until, prices) in [
        (-3, -1, ("1.00", "30.00")),
        (0, 1, ("5.00", "30.00")),
        (2, 6, ("18.00", "20.00")),
        (4, 4, ("16.00", "25.00")),
    ] {
        let days = (shift(today, from), shift(today, until));
        write_calendar(&app, &id, days, prices, Some(5)).await;
    }
    for full in [0, 1, 6] {
        set_day_reserved(&app, &group, &shift(today, full).to_string(), 5).await;
    }

    let items = list(&app, &p, &merchant).await;
    let item = by_id(&items, &id);
    assert_eq!(item["sold_out"], false);
    assert_eq!(item["best_effective_price"]["value"], "16.00");
    assert_eq!(
        item["best_list_price"]["value"], "25.00",
        "the list price of that day"
    );
    assert_eq!(item["best_discount_amount"]["value"], "9.00");
    assert_eq!(item["best_discount_percentage"], json!(36.0));
    assert_eq!(item["first_available_date"], shift(today, 2).to_string());
    assert_eq!(
        item["last_available_date"],
        shift(today, 5).to_string(),
        "day 6 is full"
    );
}

#[tokio::test]
async fn sold_out_on_every_day_or_past_only_omits_every_best_field() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let today = today_in(AMS);

    let on_calendar = |title, days, capacity| {
        p.product_on_calendar(&app, (&merchant, title), days, ("10", "10"), capacity)
    };
    let (full, full_group) = on_calendar("Vol", (today, shift(today, 1)), Some(3)).await;
    for day in [today, shift(today, 1)] {
        set_day_reserved(&app, &full_group, &day.to_string(), 3).await;
    }
    let past_days = (shift(today, -5), shift(today, -1));
    let (past, _) = on_calendar("Voorbij", past_days, None).await;
    let (zero, _) = on_calendar("Gesloten", (today, shift(today, 3)), Some(0)).await;

    let items = list(&app, &p, &merchant).await;
    for product in [&full, &past, &zero] {
        assert_sold_out(by_id(&items, product));
    }
}

#[tokio::test]
async fn unlimited_capacity_and_no_calendar_are_never_sold_out() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let today = today_in(AMS);
    let (unlimited, _) = p
        .product_on_calendar(
            &app,
            (&merchant, "Onbeperkt"),
            (today, shift(today, 2)),
            ("9.5", "9.5"),
            None,
        )
        .await;
    let no_calendar = p.product(&app, &merchant, "Zonder kalender", |_| {}).await;

    let items = list(&app, &p, &merchant).await;
    let u = by_id(&items, &unlimited);
    assert_eq!(u["sold_out"], false);
    assert_eq!(u["best_effective_price"]["value"], "9.50");
    assert_eq!(u["last_available_date"], shift(today, 2).to_string());
    let n = by_id(&items, &id_of(&no_calendar, "product_id"));
    assert_eq!(n["sold_out"], false);
    assert_eq!(
        n["best_effective_price"]["value"], "12.50",
        "the unit price"
    );
    assert!(n.get("first_available_date").is_none());
}

#[tokio::test]
async fn a_timeslotted_product_is_sold_out_without_an_open_slot() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let (id, group) = p.timeslotted_product(&app, &merchant).await;
    let tomorrow = shift(today_in(AMS), 1);
    write_calendar(&app, &id, (tomorrow, tomorrow), ("10", "10"), None).await;
    assert_sold_out(by_id(&list(&app, &p, &merchant).await, &id));

    let times = json!([{ "start": "10:00", "end": "11:00" }]);
    open_slots(&app, &group, (tomorrow, tomorrow), times, Some(2)).await;
    let item = by_id(&list(&app, &p, &merchant).await, &id).clone();
    assert_eq!(item["sold_out"], false, "{item}");
    assert_eq!(item["first_available_date"], tomorrow.to_string());
}

#[tokio::test]
async fn titles_and_conditions_follow_accept_language_with_dutch_then_base_fallback() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let product = p
        .product(&app, &merchant, "Basis", |b| {
            b["translations"] = json!([
                { "locale": "nl-NL", "title": "Volwassene", "conditions": "NL voorwaarden" },
                { "locale": "en-GB", "title": "Adult", "conditions": "EN conditions" }
            ]);
        })
        .await;
    let untranslated = p
        .product(&app, &merchant, "Alleen Frans", |b| {
            b["translations"] = json!([{ "locale": "fr-FR", "title": "Adulte" }]);
        })
        .await;
    for (language, title, base_title) in [
        ("en-US", "Adult", "Alleen Frans"),
        ("de-DE", "Volwassene", "Alleen Frans"),
        ("fr", "Volwassene", "Adulte"),
        ("ja", "Volwassene", "Alleen Frans"),
    ] {
        let response = p
            .products_with(&app, &merchant, &[("accept-language", language)])
            .await;
        let items = response.assert_status(200)["data"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(
            by_id(&items, &id_of(&product, "product_id"))["title"],
            title,
            "{language}"
        );
        assert_eq!(
            by_id(&items, &id_of(&untranslated, "product_id"))["title"],
            base_title,
            "{language}"
        );
        let expected = match language {
            "en-US" => "en-GB",
            "de-DE" => "de-DE",
            "fr" => "fr-FR",
            _ => "nl-NL",
        };
        assert_eq!(response.header("content-language"), Some(expected));
    }
}

#[tokio::test]
async fn the_list_is_cacheable_and_answers_a_matching_if_none_match_with_304() {
    let (app, p) = spawn_partner().await;
    let (merchant, _) = p.merchant_with_product(&app, "Artis", AMS).await;
    let first = p.products(&app, &merchant).await;
    first.assert_status(200);
    assert_eq!(first.header("cache-control"), Some("public, max-age=7200"));
    let vary = first
        .headers
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap().to_lowercase())
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        vary.contains("accept-language") && vary.contains("x-campaign-id"),
        "{vary}"
    );
    assert_eq!(first.header("content-language"), Some("nl-NL"));
    let etag = first.header("etag").expect("an ETag").to_owned();
    assert!(
        etag.starts_with('"') && !etag.starts_with("W/"),
        "a strong tag: {etag}"
    );

    let again = p.products(&app, &merchant).await;
    assert_eq!(
        again.header("etag"),
        Some(etag.as_str()),
        "same data, same tag"
    );
    assert_ne!(
        again.header("x-correlation-id"),
        first.header("x-correlation-id")
    );

    let conditional = |tag: String| {
        let (p, app, merchant) = (&p, &app, &merchant);
        async move {
            p.products_with(app, merchant, &[("if-none-match", &tag)])
                .await
        }
    };
    let not_modified = conditional(etag.clone()).await;
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.text.is_empty());
    assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    assert_eq!(
        not_modified.header("cache-control"),
        Some("public, max-age=7200")
    );
    assert_eq!(
        conditional(format!("\"other\", W/{etag}")).await.status,
        304
    );
    assert_eq!(conditional("\"other\"".into()).await.status, 200);

    let english = p
        .products_with(
            &app,
            &merchant,
            &[("accept-language", "en"), ("if-none-match", &etag)],
        )
        .await;
    assert_eq!(
        english.status, 200,
        "another language is another representation"
    );
    assert_ne!(english.header("etag"), Some(etag.as_str()));
}

#[tokio::test]
async fn the_etag_and_body_change_after_an_operator_price_change() {
    let (app, p) = spawn_partner().await;
    let (merchant, product) = p.merchant_with_product(&app, "Artis", AMS).await;
    let before = p.products(&app, &merchant).await;
    let etag = before.header("etag").unwrap().to_owned();
    assert_eq!(before.json()["data"][0]["unit_price"]["value"], "12.50");

    let mut body = crate::catalog_fixtures::product_body(&merchant, "Artis ticket");
    body["campaign_ids"] = json!([p.campaign]);
    body["unit_price"] = json!("11.00");
    let (id, group) = product_and_group(&product);
    app.admin_put_ok(&format!("/admin/v1/products/{id}"), &body)
        .await;

    let after = p.products(&app, &merchant).await;
    assert_eq!(after.json()["data"][0]["unit_price"]["value"], "11.00");
    assert_ne!(after.header("etag"), Some(etag.as_str()));
    let stale = p
        .products_with(&app, &merchant, &[("if-none-match", &etag)])
        .await;
    assert_eq!(stale.status, 200, "the old tag no longer matches");

    // A capacity change (a reservation) shows at once as well.
    let today = today_in(AMS);
    write_calendar(&app, &id, (today, today), ("11", "11"), Some(1)).await;
    assert_eq!(
        p.products(&app, &merchant).await.json()["data"][0]["sold_out"],
        false
    );
    set_day_reserved(&app, &group, &today.to_string(), 1).await;
    assert_sold_out(&p.products(&app, &merchant).await.json()["data"][0]);
}

#[tokio::test]
async fn a_merchant_without_products_in_the_campaign_has_an_empty_list() {
    let (app, p) = spawn_partner().await;
    let other = app.create_campaign("Winter").await;
    let merchant = create_merchant(&app, "Artis", AMS).await;
    p.product(&app, &merchant, "Winter only", |b| {
        b["campaign_ids"] = json!([other])
    })
    .await;
    let body = p.products(&app, &merchant).await.assert_status(200);
    assert_eq!(body["data"], json!([]));
    let unknown = uuid::Uuid::new_v4();
    let body = p
        .products(&app, &unknown.to_string())
        .await
        .assert_status(200);
    assert_eq!(body["data"], json!([]));
}

#[tokio::test]
async fn the_product_list_is_public_and_validates_its_inputs() {
    let (app, p) = spawn_partner().await;
    let (merchant, _) = p.merchant_with_product(&app, "Artis", AMS).await;
    let get = |path: String, campaign: Option<&str>| {
        let mut request = app.request(Method::GET, &path);
        if let Some(c) = campaign {
            request = request.header("x-campaign-id", c);
        }
        app.send(request)
    };
    let path = format!("/v2/merchants/{merchant}/products");
    get(path.clone(), None)
        .await
        .assert_invalid_first("x-campaign-id");
    get(path.clone(), Some("not-a-uuid"))
        .await
        .assert_problem(400, "request-validation-failed");
    get("/v2/merchants/nope/products".into(), Some(&p.campaign))
        .await
        .assert_invalid_first("merchant_id");
    get(path.clone(), Some(&uuid::Uuid::new_v4().to_string()))
        .await
        .assert_problem(404, "campaign-not-found");
    // No bearer is needed, and an unrelated one does no harm.
    let with_bearer = app
        .send(
            app.request(Method::GET, &path)
                .header("x-campaign-id", &p.campaign)
                .bearer_auth(&p.token),
        )
        .await;
    with_bearer.assert_status(200);
}

#[tokio::test]
async fn an_unexpected_fault_is_a_product_internal_error() {
    let (app, p) = spawn_partner().await;
    let (merchant, _) = p.merchant_with_product(&app, "Artis", AMS).await;
    let merchant_id = uuid::Uuid::parse_str(&merchant).unwrap();
    // A zone no write path accepts: reading the list cannot know "today" any more.
    execute_sql!(
        &app,
        "UPDATE merchant SET timezone = 'Mars/Olympus' WHERE merchant_id = $1",
        merchant_id
    );
    app.state.commerce.catalog.changed();
    let response = p.products(&app, &merchant).await;
    let problem = response.assert_problem(500, "product-internal-error");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains(response.header("x-correlation-id").unwrap()),
        "{detail}"
    );
    assert!(
        !detail.contains("Mars"),
        "internals stay in the log: {detail}"
    );
}
