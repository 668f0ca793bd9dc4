//! The express checkout: every row of the contract's error table, and Idempotency-Key.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{create_merchant, open_slots},
    checkout_fixtures::{
        event_types, express, express_body, express_one_in_session, key, reserved_on_visit_day,
        shop, spawn_scripted, spawn_shop, visit_day, Script, ZONE,
    },
    partner_fixtures::{id_of, shift, today_in, write_calendar},
};

/// Guests buy with the express checkout alone: the two-step checkout's reservation needs a
/// public bearer (docs/api-checkout.md, "The calls"), and nothing is held for the refused call.
#[tokio::test]
async fn a_guest_cannot_reserve_a_two_step_checkout() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let request = app
        .request(Method::POST, "/v2/checkouts")
        .header("x-campaign-id", &shop.partner.campaign)
        .json(&crate::checkout_fixtures::basket(&shop.product, 1));
    app.send(request).await.assert_problem(401, "token-invalid");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
}

#[tokio::test]
async fn a_guest_buys_in_one_call_and_a_retry_replays_it() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let k = key();
    let mut body = express_body(&shop.product, 2);
    // A newsletter named twice is consented to once.
    body["newsletters"] = serde_json::json!(["zoo-news", "zoo-news", "members"]);
    let first = express(&app, &shop.partner.campaign, None, &k, &body).await;
    let data = first.assert_status(200)["data"].clone();
    for field in ["checkout_id", "order_id", "order_display_id", "payment_url"] {
        assert!(data[field].is_string(), "{field}");
    }
    assert!(
        data.get("totals").is_none(),
        "no totals in the express response"
    );
    // The same request again: the stored success, byte for byte, as 208.
    let again = express(&app, &shop.partner.campaign, None, &k, &body).await;
    assert_eq!(again.status.as_u16(), 208);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.text, first.text);
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        2,
        "one reservation"
    );
    // The same key with another body is refused.
    express(
        &app,
        &shop.partner.campaign,
        None,
        &k,
        &express_body(&shop.product, 3),
    )
    .await
    .assert_problem(409, "idempotency-key-reused");
    // The guest's checkout is readable by its id, with its authoritative totals.
    let read = app
        .get(&format!(
            "/v2/checkouts/{}",
            data["checkout_id"].as_str().unwrap()
        ))
        .await
        .assert_status(200)["data"]
        .clone();
    assert_eq!(read["status"], "CONFIRMED");
    assert_eq!(read["totals"]["total"]["value"], "26.00");
    // The ids a checkout shows are random UUIDv4 (decisions.md, §5); only rows it does not show
    // get time-ordered ids (`row_id.rs`).
    for id in [
        &read["checkout_id"],
        &read["order_id"],
        &read["payment"]["payment_id"],
    ] {
        let id: uuid::Uuid = id.as_str().expect("an id").parse().unwrap();
        assert_eq!(id.get_version_num(), 4, "{id}");
    }
    // Written confirmed at once, with the customer's fields.
    let checkout_id = data["checkout_id"].as_str().unwrap().parse().unwrap();
    let stored = app
        .state
        .store
        .checkout(checkout_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            stored.email,
            stored.first_name,
            stored.last_name,
            stored.return_url
        ),
        (
            Some("ada@example.com".to_owned()),
            Some("Ada".to_owned()),
            Some("Lovelace".to_owned()),
            Some("http://localhost:5173/done?basket=7".to_owned())
        )
    );
    let seen = event_types(&app, &shop).await;
    assert_eq!(
        seen,
        [
            "checkouts.CheckoutStarted",
            "checkouts.CheckoutFulfillmentRegistered"
        ]
    );
}

#[tokio::test]
async fn a_checkout_made_under_a_bearer_is_only_that_customers() {
    let (app, shop) = spawn_shop(None).await;
    let placed = express_one_in_session(&app, &shop).await.assert_status(200)["data"].clone();
    let path = format!("/v2/checkouts/{}", placed["checkout_id"].as_str().unwrap());
    app.get(&path)
        .await
        .assert_problem(404, "checkout-not-found");
    shop.partner.get_ok(&app, &path).await;
    app.get(&format!("/v2/checkouts/{}", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "checkout-not-found");
}

/// `body` with the fields of `changes` set.
fn changed(body: &Value, changes: &Value) -> Value {
    let mut body = body.clone();
    for (field, value) in changes.as_object().unwrap() {
        body[field] = value.clone();
    }
    body
}

/// A shipping address on the Dam in Amsterdam, in `country`.
fn dam_address(country: &str) -> Value {
    json!({ "street": "Dam", "house_number": "1", "postal_code": "1012 JS",
            "city": "Amsterdam", "country": country })
}

#[tokio::test]
async fn every_request_error_of_the_express_table() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let campaign = shop.partner.campaign.clone();
    let ok = express_body(&shop.product, 1);

    // 400 without Idempotency-Key, or with one that is not a UUID.
    let missing = app
        .send(
            app.request(Method::POST, "/v2/checkouts/express")
                .header("x-campaign-id", &campaign)
                .json(&ok),
        )
        .await;
    missing.assert_problem(400, "idempotency-key-missing");
    express(&app, &campaign, None, "not-a-uuid", &ok)
        .await
        .assert_problem(400, "request-validation-failed");
    // 401 for a token that is sent and invalid.
    express(&app, &campaign, Some("not.a.jwt"), &key(), &ok)
        .await
        .assert_problem(401, "token-invalid");
    // 404 for a campaign that is not configured.
    express(&app, &uuid::Uuid::new_v4().to_string(), None, &key(), &ok)
        .await
        .assert_problem(404, "campaign-not-found");
    // 400 for a missing customer field, naming it.
    for field in [
        "email",
        "first_name",
        "last_name",
        "return_url",
        "date",
        "lines",
    ] {
        let mut body = ok.clone();
        body.as_object_mut().unwrap().remove(field);
        express(&app, &campaign, None, &key(), &body)
            .await
            .assert_invalid_first(field);
    }
    // 400 for a return URL the partner did not register.
    let mut body = ok.clone();
    body["return_url"] = json!("https://evil.example/steal");
    let problem = express(&app, &campaign, None, &key(), &body)
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"][0]["code"], "origin-not-allowed");
    // 400 for more voucher codes than a basket may carry.
    let mut body = ok.clone();
    body["voucher_codes"] = json!(vec!["X"; 11]);
    express(&app, &campaign, None, &key(), &body)
        .await
        .assert_invalid_first("voucher_codes");
    // 400 for an oversized reference, a broken basket rule or a past day; 422 for details a
    // provider would reject, a day without a price and a day without capacity left.
    let other_merchant = create_merchant(&app, "Museum", ZONE).await;
    let other = shop
        .partner
        .product(&app, &other_merchant, "Museum", |_| {})
        .await;
    let elsewhere = shop
        .partner
        .product(&app, &shop.merchant, "Partner tour", |b| {
            b["provider"] = json!("tours");
        })
        .await;
    let line =
        |product: &str, quantity: u32| json!({ "product_id": product, "quantity": quantity });
    let ticket = shop.product.as_str();
    let unknown = uuid::Uuid::new_v4().to_string();
    for (changes, status, problem) in [
        (
            json!({ "external_reference": "r".repeat(201) }),
            400,
            "request-validation-failed",
        ),
        (
            json!({ "email": "ada-at-example" }),
            422,
            "checkout-billing-detail-rejected",
        ),
        (
            json!({ "shipping_address": dam_address("XX") }),
            422,
            "checkout-billing-detail-rejected",
        ),
        (json!({ "lines": [] }), 400, "checkout-basket-empty"),
        (
            json!({ "lines": [line(ticket, 0)] }),
            400,
            "checkout-basket-line-invalid",
        ),
        (
            json!({ "lines": [line(&unknown, 1)] }),
            400,
            "checkout-basket-line-invalid",
        ),
        (
            json!({ "lines": [line(ticket, 1), line(&id_of(&other, "product_id"), 1)] }),
            400,
            "checkout-basket-spans-merchants",
        ),
        (
            json!({ "lines": [line(ticket, 1), line(&id_of(&elsewhere, "product_id"), 1)] }),
            400,
            "checkout-basket-spans-providers",
        ),
        (
            json!({ "date": shift(today_in(ZONE), -1).to_string() }),
            400,
            "checkout-date-in-past",
        ),
        (
            json!({ "date": shift(today_in(ZONE), 60).to_string() }),
            422,
            "checkout-product-not-priceable",
        ),
        (
            json!({ "lines": [line(ticket, 11)] }),
            422,
            "checkout-product-not-fulfillable",
        ),
    ] {
        express(&app, &campaign, None, &key(), &changed(&ok, &changes))
            .await
            .assert_problem(status, problem);
    }

    // 400 date and time.
    let slotted = shop
        .partner
        .product(&app, &shop.merchant, "Aquarium", |b| {
            b["requires_timeslot"] = json!(true);
        })
        .await;
    let group = id_of(&slotted, "availability_group_id");
    open_slots(
        &app,
        &group,
        (visit_day(), visit_day()),
        json!([{ "start": "10:00", "end": "11:00" }]),
        Some(5),
    )
    .await;
    for date in [visit_day().to_string(), format!("{}T00:00:00", visit_day())] {
        let mut body = ok.clone();
        body["date"] = json!(date);
        body["lines"] = json!([{ "product_id": id_of(&slotted, "product_id"), "quantity": 1 }]);
        express(&app, &campaign, None, &key(), &body)
            .await
            .assert_problem(400, "checkout-timeslot-required");
    }
    // A time that is no slot start: another time is to be offered.
    let mut body = ok.clone();
    body["date"] = json!(format!("{}T10:30:00", visit_day()));
    body["lines"] = json!([{ "product_id": id_of(&slotted, "product_id"), "quantity": 1 }]);
    express(&app, &campaign, None, &key(), &body)
        .await
        .assert_problem(422, "checkout-product-not-fulfillable");
    // The slot's start, with the merchant's offset: bought.
    let start = chrono::TimeZone::from_local_datetime(
        &ZONE.parse::<chrono_tz::Tz>().unwrap(),
        &visit_day().and_hms_opt(10, 0, 0).unwrap(),
    )
    .unwrap()
    .to_rfc3339();
    body["date"] = json!(start);
    let placed = express(&app, &campaign, None, &key(), &body)
        .await
        .assert_status(200)["data"]
        .clone();
    let read = app
        .get(&format!(
            "/v2/checkouts/{}",
            placed["checkout_id"].as_str().unwrap()
        ))
        .await
        .assert_status(200);
    assert_eq!(read["data"]["lines"][0]["timeslot"]["start_time"], start);

    // 400 shipping address for a physical product.
    let guide = shop
        .partner
        .product(&app, &shop.merchant, "Guide book", |b| {
            b["physical_product"] = json!(true);
            b["no_date"] = json!(true);
            b["product_type"] = json!("MERCHANDISE");
            b["age_group"] = json!(null);
        })
        .await;
    let mut body = ok.clone();
    body["lines"] = json!([{ "product_id": id_of(&guide, "product_id"), "quantity": 1 }]);
    express(&app, &campaign, None, &key(), &body)
        .await
        .assert_problem(400, "checkout-shipping-address-required");
    body["shipping_address"] = dam_address("NL");
    express(&app, &campaign, None, &key(), &body)
        .await
        .assert_status(200);

    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        0,
        "failures hold nothing"
    );
}

#[tokio::test]
async fn provider_failures_give_capacity_back_and_a_retry_with_the_key_succeeds() {
    let (app, scripts) = spawn_scripted().await;
    let shop = shop(&app, Some(4)).await;
    let product = shop
        .partner
        .product(&app, &shop.merchant, "Boat trip", |b| {
            b["provider"] = json!("scripted");
            b["availability_group_id"] = json!(shop.group);
        })
        .await;
    let product = id_of(&product, "product_id");
    write_calendar(
        &app,
        &product,
        (today_in(ZONE), shift(today_in(ZONE), 30)),
        ("20.00", "20.00"),
        Some(4),
    )
    .await;
    let campaign = shop.partner.campaign.clone();
    let body = express_body(&product, 3);
    let k = key();

    let cases = [
        (
            Script::Refuse,
            Script::Succeed,
            422,
            "checkout-fulfillment-request-rejected",
        ),
        (
            Script::Fail,
            Script::Succeed,
            502,
            "checkout-fulfillment-reservation-failed",
        ),
        (Script::Succeed, Script::Fail, 502, "checkout-order-failed"),
        (
            Script::Succeed,
            Script::Refuse,
            502,
            "checkout-order-empty-redirect",
        ),
    ];
    for (fulfillment, payments, status, name) in cases {
        scripts.fulfillment(fulfillment);
        scripts.payments(payments);
        express(&app, &campaign, None, &k, &body)
            .await
            .assert_problem(status, name);
        assert_eq!(
            reserved_on_visit_day(&app, &shop).await,
            0,
            "{name}: the capacity taken is given back"
        );
    }
    scripts.fulfillment(Script::Succeed);
    scripts.payments(Script::Succeed);
    express(&app, &campaign, None, &k, &body)
        .await
        .assert_status(200);
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 3);
    let seen = crate::checkout_fixtures::events(&app, &shop).await;
    assert_eq!(seen.len(), 2, "no event of a failed attempt: {seen:?}");
    // A retry of that success while the payment provider is down is still its replay.
    scripts.payments(Script::Fail);
    let replay = express(&app, &campaign, None, &k, &body).await;
    assert_eq!(replay.status, 208, "{}", replay.text);
}

#[tokio::test]
async fn a_key_in_flight_is_refused_until_its_lock_runs_out() {
    let (app, shop) = spawn_shop(None).await;
    let k = key();
    let body = express_body(&shop.product, 1);
    // A request that crashed after claiming the key.
    let now = chrono::Utc::now();
    let claim = server::store::IdempotentRequest {
        campaign_id: shop.partner.campaign.parse().unwrap(),
        key: k.parse().unwrap(),
        request_hash: vec![0; 32],
        customer_id: None,
        lock_until: now + chrono::Duration::seconds(90),
        expires_at: now + chrono::Duration::hours(24),
        owner: uuid::Uuid::new_v4(),
    };
    // The same body's hash, in flight.
    let k2 = key();
    let mut in_flight = claim.clone();
    in_flight.key = k2.parse().unwrap();
    in_flight.request_hash = {
        let request: app::wire::ExpressCheckoutRequest =
            serde_json::from_value(body.clone()).unwrap();
        use sha2::Digest;
        sha2::Sha256::digest(serde_json::to_vec(&request).unwrap()).to_vec()
    };
    for (claimed, problem) in [
        (&claim, "idempotency-key-reused"),
        (&in_flight, "idempotency-key-in-use"),
    ] {
        let store = &app.state.store;
        store.claim_idempotency_key(claimed, now).await.unwrap();
        express(
            &app,
            &shop.partner.campaign,
            None,
            &claimed.key.to_string(),
            &body,
        )
        .await
        .assert_problem(409, problem);
    }
    execute_sql!(
        &app,
        "UPDATE idempotency_record SET locked_until = $1",
        now - chrono::Duration::seconds(1)
    );
    express(&app, &shop.partner.campaign, None, &k2, &body)
        .await
        .assert_status(200);
}
