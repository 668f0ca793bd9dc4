//! Operator API for vouchers: normalised codes unique per campaign, validated values and
//! windows, a campaign filter bound into the cursor.

use chrono::{Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{error_code, spawn_app, spawn_app_with_two_campaigns, TestApp};

fn voucher(campaign_id: &str, code: &str) -> Value {
    json!({ "campaign_id": campaign_id, "code": code, "kind": "PERCENTAGE", "value": "10" })
}

async fn create(app: &TestApp, body: &Value) -> Value {
    app.admin_post_created("/admin/v1/vouchers", body).await["data"].clone()
}

#[tokio::test]
async fn a_voucher_is_created_with_a_normalized_code_read_updated_listed_and_deleted() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let from = "2030-01-01T00:00:00Z";
    let until = "2030-02-01T00:00:00Z";
    let created = create(
        &app,
        &json!({
            "campaign_id": campaign, "code": "  summer-10 ", "kind": "PERCENTAGE", "value": "12.5",
            "max_redemptions": 100, "valid_from": from, "valid_until": until
        }),
    )
    .await;
    assert_eq!(created["code"], "SUMMER-10");
    assert_eq!(created["kind"], "PERCENTAGE");
    assert_eq!(created["value"], "12.50");
    assert_eq!(created["redeemed"], 0);
    assert_eq!(created["max_redemptions"], 100);
    assert_eq!(created["merchant_id"], Value::Null);
    let parse = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    assert_eq!(parse(&created["valid_from"]), parse(&json!(from)));
    assert_eq!(parse(&created["valid_until"]), parse(&json!(until)));

    let path = format!(
        "/admin/v1/vouchers/{}",
        created["voucher_id"].as_str().unwrap()
    );
    let read = app.admin_get_ok(&path).await;
    assert_eq!(read["data"], created);

    let updated = app
        .admin_put_ok(
            &path,
            &json!({ "campaign_id": campaign, "code": "winter", "kind": "AMOUNT", "value": "5" }),
        )
        .await;
    assert_eq!(updated["data"]["code"], "WINTER");
    assert_eq!(updated["data"]["kind"], "AMOUNT");
    assert_eq!(updated["data"]["value"], "5.00");
    assert_eq!(updated["data"]["max_redemptions"], Value::Null);
    assert_eq!(updated["data"]["valid_from"], Value::Null);

    let listed = app.admin_get_ok("/admin/v1/vouchers").await;
    assert_eq!(listed["data"], json!([updated["data"]]));

    app.admin_delete_for_good(&path, &voucher(&campaign, "X"))
        .await;
}

#[tokio::test]
async fn a_code_is_unique_within_its_campaign_whatever_its_case() {
    let (app, c1, c2) = spawn_app_with_two_campaigns().await;
    create(&app, &voucher(&c1, "SUMMER")).await;
    app.assert_admin_conflict(
        Method::POST,
        "/admin/v1/vouchers",
        &voucher(&c1, " summer "),
    )
    .await;
    create(&app, &voucher(&c2, "summer")).await;

    let other = create(&app, &voucher(&c1, "WINTER")).await;
    let path = format!(
        "/admin/v1/vouchers/{}",
        other["voucher_id"].as_str().unwrap()
    );
    app.assert_admin_conflict(Method::PUT, &path, &voucher(&c1, "Summer"))
        .await;
}

#[tokio::test]
async fn invalid_voucher_input_names_every_bad_field() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/vouchers",
            &json!({
                "campaign_id": campaign, "code": "  ", "kind": "PERCENTAGE", "value": "100.01",
                "max_redemptions": 0,
                "valid_from": "2030-02-01T00:00:00Z", "valid_until": "2030-01-01T00:00:00Z"
            }),
            &["code", "max_redemptions", "valid_until", "value"],
        )
        .await;
    assert_eq!(error_code(&problem, "value"), "out_of_range");
    assert_eq!(error_code(&problem, "valid_until"), "before_valid_from");

    for (kind, value, code) in [
        ("PERCENTAGE", "-5", "out_of_range"),
        ("PERCENTAGE", "0", "out_of_range"),
        ("AMOUNT", "-5", "not_positive"),
        ("AMOUNT", "0", "not_positive"),
        ("AMOUNT", "1.005", "precision"),
    ] {
        let problem = app
            .admin_post(
                "/admin/v1/vouchers",
                &json!({ "campaign_id": campaign, "code": "A", "kind": kind, "value": value }),
            )
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(error_code(&problem, "value"), code, "{kind} {value}");
    }

    let same_instant = "2030-01-01T00:00:00Z";
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/vouchers",
        &json!({ "campaign_id": campaign, "code": "A", "kind": "AMOUNT", "value": "5",
                     "valid_from": same_instant, "valid_until": same_instant }),
        &["valid_until"],
    )
    .await;

    for (field, bad) in [
        ("kind", json!("HALF")),
        ("value", json!(10.5)),
        ("valid_from", json!("tomorrow")),
    ] {
        let mut body = voucher(&campaign, "A");
        body[field] = bad;
        app.assert_admin_invalid(Method::POST, "/admin/v1/vouchers", &body, &[field])
            .await;
    }
    let listed = app.admin_get_ok("/admin/v1/vouchers").await;
    assert_eq!(listed["data"], json!([]));
}

#[tokio::test]
async fn an_unknown_campaign_or_merchant_is_named() {
    let app = spawn_app().await;
    let problem = app
        .assert_admin_invalid(
            Method::POST,
            "/admin/v1/vouchers",
            &voucher(&uuid::Uuid::new_v4().to_string(), "A"),
            &["campaign_id"],
        )
        .await;
    assert_eq!(error_code(&problem, "campaign_id"), "unknown_reference");

    let campaign = app.create_campaign("one").await;
    let mut body = voucher(&campaign, "A");
    body["merchant_id"] = json!(uuid::Uuid::new_v4());
    app.assert_admin_invalid(Method::POST, "/admin/v1/vouchers", &body, &["merchant_id"])
        .await;
}

#[tokio::test]
async fn the_list_filters_by_campaign_and_a_changed_filter_is_a_mismatch() {
    let (app, c1, c2) = spawn_app_with_two_campaigns().await;
    for code in ["A", "B", "C"] {
        create(&app, &voucher(&c1, code)).await;
    }
    for code in ["D", "E"] {
        create(&app, &voucher(&c2, code)).await;
    }
    let of_c1 = app
        .admin_collect(&format!("/admin/v1/vouchers?campaign_id={c1}"), 1)
        .await;
    let mut codes: Vec<&str> = of_c1.iter().map(|v| v["code"].as_str().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, ["A", "B", "C"]);
    assert_eq!(app.admin_collect("/admin/v1/vouchers", 2).await.len(), 5);

    let token = app
        .admin_next_token(&format!("/admin/v1/vouchers?campaign_id={c1}&limit=1"))
        .await;
    for other_list in [
        format!("/admin/v1/vouchers?campaign_id={c2}&limit=1"),
        "/admin/v1/vouchers?limit=1".to_owned(),
    ] {
        app.assert_admin_token_refused(&other_list, &token, "next-token-mismatch")
            .await;
    }
    app.admin_get_ok(&format!(
        "/admin/v1/vouchers?campaign_id={c1}&limit=1&next_token={token}"
    ))
    .await;

    app.admin_get("/admin/v1/vouchers?campaign_id=nope")
        .await
        .assert_invalid(&["campaign_id"]);
}

#[tokio::test]
async fn a_valid_voucher_is_found_by_code_only_inside_its_window() {
    let (app, c1, c2) = spawn_app_with_two_campaigns().await;
    let now = Utc::now();
    let rfc = |t: chrono::DateTime<Utc>| t.to_rfc3339();
    create(&app, &voucher(&c1, "ALWAYS")).await;
    let mut expired = voucher(&c1, "EXPIRED");
    expired["valid_until"] = json!(rfc(now - Duration::hours(1)));
    create(&app, &expired).await;
    let mut upcoming = voucher(&c1, "UPCOMING");
    upcoming["valid_from"] = json!(rfc(now + Duration::hours(1)));
    upcoming["valid_until"] = json!(rfc(now + Duration::days(2)));
    create(&app, &upcoming).await;

    let store = &app.state.store;
    let c1: uuid::Uuid = c1.parse().unwrap();
    let c2: uuid::Uuid = c2.parse().unwrap();
    let found = store.valid_voucher(c1, " always ", now).await.unwrap();
    assert_eq!(found.map(|v| v.code).as_deref(), Some("ALWAYS"));
    for (campaign, code, at, valid) in [
        (c2, "ALWAYS", now, false),
        (c1, "EXPIRED", now, false),
        (c1, "EXPIRED", now - Duration::hours(2), true),
        (c1, "UPCOMING", now, false),
        (c1, "upcoming", now + Duration::days(1), true),
        // valid_until is exclusive.
        (c1, "UPCOMING", now + Duration::days(2), false),
        (c1, "NOPE", now, false),
    ] {
        let found = store.valid_voucher(campaign, code, at).await.unwrap();
        assert_eq!(found.is_some(), valid, "{code} at {at} in {campaign}");
    }
}

#[tokio::test]
async fn voucher_routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    let doc = app
        .assert_documented(&[
            ("/admin/v1/vouchers", &["get", "post"]),
            ("/admin/v1/vouchers/{voucher_id}", &["get", "put", "delete"]),
        ])
        .await;
    let params = doc["paths"]["/admin/v1/vouchers"]["get"]["parameters"]
        .as_array()
        .unwrap();
    assert!(params.iter().any(|p| p["name"] == "campaign_id"));
}
