//! Operator API for per-day calendars of products and timeslots of availability groups.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{
        admin_timeslots, create_group, create_merchant, create_product, field, open_slots,
        product_body, set_day_reserved, set_timeslot_reserved, spawn_app_with_merchant,
    },
    helpers::{spawn_app, TestApp},
};

/// A fresh app with a merchant in `timezone` that has one availability group; returns the
/// merchant's and the group's ids too.
async fn spawn_group_in(timezone: &str) -> (TestApp, String, String) {
    let app = spawn_app().await;
    let merchant = create_merchant(&app, "Artis", timezone).await;
    let group = create_group(&app, &merchant, "Gate").await;
    (app, merchant, group)
}

async fn product_in_group(app: &TestApp, merchant: &str, group: &str, title: &str) -> String {
    let mut body = product_body(merchant, title);
    body["availability_group_id"] = json!(group);
    create_product(app, &body).await["product_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn calendar(app: &TestApp, product: &str, from: &str, until: &str) -> Vec<Value> {
    app.admin_list(&format!(
        "/admin/v1/products/{product}/calendar?from={from}&until={until}"
    ))
    .await
}

// ---- calendar ----

#[tokio::test]
async fn a_calendar_write_prices_every_day_and_sets_the_shared_group_capacity() {
    let (app, merchant, group) = spawn_group_in("Europe/Amsterdam").await;
    let adult = product_in_group(&app, &merchant, &group, "Adult").await;
    let child = product_in_group(&app, &merchant, &group, "Child").await;

    let written = app
        .admin_put_ok(
            &format!("/admin/v1/products/{adult}/calendar"),
            &json!({ "from": "2026-05-01", "until": "2026-05-31",
                     "price": "10.00", "list_price": "12.50", "capacity": 100 }),
        )
        .await;
    assert_eq!(written["data"]["days_written"], 31);
    let days = calendar(&app, &adult, "2026-04-01", "2026-06-30").await;
    assert_eq!(days.len(), 31);
    assert_eq!(days[0]["date"], "2026-05-01");
    assert_eq!(days[30]["date"], "2026-05-31");
    assert!(days.iter().all(|d| d["price"] == "10"
        && d["list_price"] == "12.5"
        && d["capacity"] == 100
        && d["reserved"] == 0));
    assert!(
        calendar(&app, &child, "2026-05-01", "2026-05-31")
            .await
            .is_empty(),
        "prices are per product"
    );

    // The child's calendar changes the capacity of the group both products share.
    app.admin_put_ok(
        &format!("/admin/v1/products/{child}/calendar"),
        &json!({ "from": "2026-05-10", "until": "2026-05-12",
                 "price": "5", "list_price": "5", "capacity": 40 }),
    )
    .await;
    let days = calendar(&app, &adult, "2026-05-09", "2026-05-13").await;
    assert_eq!(
        field(&days, "capacity"),
        [&json!(100), &json!(40), &json!(40), &json!(40), &json!(100)]
    );
    assert!(days.iter().all(|d| d["price"] == "10"));

    // Writing again replaces prices and capacity; null capacity is unlimited.
    app.admin_put_ok(
        &format!("/admin/v1/products/{adult}/calendar"),
        &json!({ "from": "2026-05-11", "until": "2026-05-11",
                 "price": "9.99", "list_price": "12.50", "capacity": null }),
    )
    .await;
    let days = calendar(&app, &adult, "2026-05-11", "2026-05-11").await;
    assert_eq!(days[0]["price"], "9.99");
    assert_eq!(days[0]["capacity"], json!(null));
}

#[tokio::test]
async fn capacity_below_reserved_is_a_conflict_and_changes_nothing() {
    let (app, merchant, group) = spawn_group_in("Europe/Amsterdam").await;
    let product = product_in_group(&app, &merchant, &group, "Adult").await;
    let path = format!("/admin/v1/products/{product}/calendar");
    app.admin_put_ok(
        &path,
        &json!({ "from": "2026-05-01", "until": "2026-05-10",
                 "price": "10", "list_price": "10", "capacity": 10 }),
    )
    .await;
    set_day_reserved(&app, &group, "2026-05-05", 6).await;
    let before = calendar(&app, &product, "2026-04-25", "2026-05-20").await;

    app.admin_put(
        &path,
        &json!({ "from": "2026-04-25", "until": "2026-05-20",
                     "price": "20", "list_price": "20", "capacity": 5 }),
    )
    .await
    .assert_conflict_naming(&["2026-05-05", "6"]);
    assert_eq!(
        calendar(&app, &product, "2026-04-25", "2026-05-20").await,
        before,
        "no price, capacity or new day was written"
    );

    // Exactly what is reserved still holds, and unlimited always does.
    app.admin_put_ok(
        &path,
        &json!({ "from": "2026-05-05", "until": "2026-05-05",
                 "price": "10", "list_price": "10", "capacity": 6 }),
    )
    .await;
    app.admin_put_ok(
        &path,
        &json!({ "from": "2026-05-01", "until": "2026-05-10",
                 "price": "10", "list_price": "10" }),
    )
    .await;
    let day = calendar(&app, &product, "2026-05-05", "2026-05-05").await;
    assert_eq!(day[0]["capacity"], json!(null));
    assert_eq!(day[0]["reserved"], 6);
}

#[tokio::test]
async fn invalid_calendar_input_names_every_bad_field() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let product = create_product(&app, &product_body(&merchant, "Adult")).await;
    let id = product["product_id"].as_str().unwrap();
    let path = format!("/admin/v1/products/{id}/calendar");

    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "from": "2026-05-10", "until": "2026-05-01",
                     "price": "-1", "list_price": "1.001", "capacity": -1 }),
        &["until", "price", "list_price", "capacity"],
    )
    .await;

    // 2028 is a leap year: a whole year is 366 days, one more is too many.
    let year = json!({ "from": "2028-01-01", "until": "2028-12-31",
                       "price": "1", "list_price": "1", "capacity": 1 });
    let written = app.admin_put_ok(&path, &year).await;
    assert_eq!(written["data"]["days_written"], 366);
    let mut too_long = year.clone();
    too_long["until"] = json!("2029-01-01");
    let problem = app
        .admin_put(&path, &too_long)
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"][0]["code"], "range_too_long");

    let mut bad_date = year.clone();
    bad_date["from"] = json!("2026-02-30");
    app.assert_admin_invalid(Method::PUT, &path, &bad_date, &["from"])
        .await;

    app.admin_put(
        &format!("/admin/v1/products/{}/calendar", uuid::Uuid::new_v4()),
        &year,
    )
    .await
    .assert_problem(404, "not-found");
    app.admin_get(&format!(
        "/admin/v1/products/{}/calendar",
        uuid::Uuid::new_v4()
    ))
    .await
    .assert_problem(404, "not-found");
    app.admin_get(&format!("{path}?from=2026-01-01&until=2027-06-01"))
        .await
        .assert_invalid(&["until"]);
}

#[tokio::test]
async fn a_product_sold_without_a_date_has_no_calendar_to_write() {
    let (app, merchant) = spawn_app_with_merchant().await;
    let mut body = product_body(&merchant, "Open ticket");
    body["no_date"] = json!(true);
    let product = create_product(&app, &body).await;
    let id = product["product_id"].as_str().unwrap();
    app.assert_admin_conflict(
        Method::PUT,
        &format!("/admin/v1/products/{id}/calendar"),
        &json!({ "from": "2026-05-01", "until": "2026-05-02",
                 "price": "1", "list_price": "1", "capacity": 1 }),
    )
    .await;
    let days = app
        .admin_get_ok(&format!("/admin/v1/products/{id}/calendar"))
        .await;
    assert_eq!(days["data"], json!([]));
}

// ---- timeslots ----

#[tokio::test]
async fn on_the_spring_forward_day_a_missing_local_time_is_skipped_and_offsets_change() {
    let (app, _, group) = spawn_group_in("Europe/Amsterdam").await;
    let times =
        json!([ { "start": "10:00", "end": "11:00" }, { "start": "02:30", "end": "03:30" } ]);
    let written = open_slots(&app, &group, ("2026-03-28", "2026-03-30"), times, Some(20)).await;
    assert_eq!(written["data"]["timeslots_written"], 5);
    assert_eq!(
        written["data"]["skipped"],
        json!([{ "date": "2026-03-29", "start": "02:30", "end": "03:30",
                 "reason": "nonexistent_local_time" }])
    );

    let slots = admin_timeslots(&app, &group, "2026-03-28", "2026-03-30").await;
    assert_eq!(
        field(&slots, "start_time"),
        [
            "2026-03-28T02:30:00+01:00",
            "2026-03-28T10:00:00+01:00",
            "2026-03-29T10:00:00+02:00",
            "2026-03-30T02:30:00+02:00",
            "2026-03-30T10:00:00+02:00",
        ]
    );
    assert_eq!(slots[2]["end_time"], "2026-03-29T11:00:00+02:00");
    assert_eq!(
        field(&slots, "date"),
        [
            "2026-03-28",
            "2026-03-28",
            "2026-03-29",
            "2026-03-30",
            "2026-03-30"
        ]
    );
    assert!(slots
        .iter()
        .all(|s| s["capacity"] == 20 && s["reserved"] == 0));
}

#[tokio::test]
async fn on_the_fall_back_day_a_repeated_local_time_takes_its_first_occurrence() {
    let (app, _, group) = spawn_group_in("Europe/Amsterdam").await;
    let written = app
        .admin_put_ok(
            &format!("/admin/v1/availability-groups/{group}/timeslots"),
            &json!({ "from": "2026-10-25", "until": "2026-10-25",
                     "times": [ { "start": "02:30", "end": "03:30" },
                                { "start": "10:00", "end": "10:30" } ] }),
        )
        .await;
    assert_eq!(written["data"]["timeslots_written"], 2);
    assert_eq!(written["data"]["skipped"], json!([]));
    let slots = admin_timeslots(&app, &group, "2026-10-25", "2026-10-25").await;
    assert_eq!(slots[0]["start_time"], "2026-10-25T02:30:00+02:00");
    assert_eq!(
        slots[0]["end_time"], "2026-10-25T03:30:00+01:00",
        "the clock went back during the slot"
    );
    assert_eq!(slots[1]["start_time"], "2026-10-25T10:00:00+01:00");
    assert_eq!(
        slots[0]["capacity"],
        json!(null),
        "absent capacity is unlimited"
    );
}

#[tokio::test]
async fn timeslots_are_local_to_a_merchant_far_from_utc() {
    let (app, _, group) = spawn_group_in("Pacific/Kiritimati").await;
    let times = json!([ { "start": "00:30", "end": "01:30" } ]);
    open_slots(&app, &group, ("2026-01-01", "2026-01-01"), times, Some(5)).await;
    let slots = admin_timeslots(&app, &group, "2026-01-01", "2026-01-01").await;
    assert_eq!(slots.len(), 1, "found by its local date, not its UTC date");
    assert_eq!(slots[0]["date"], "2026-01-01");
    assert_eq!(slots[0]["start_time"], "2026-01-01T00:30:00+14:00");
    assert!(admin_timeslots(&app, &group, "2025-12-31", "2025-12-31")
        .await
        .is_empty());
}

#[tokio::test]
async fn rewriting_timeslots_keeps_ids_and_capacity_below_reserved_is_a_conflict() {
    let (app, _, group) = spawn_group_in("Europe/Amsterdam").await;
    let path = format!("/admin/v1/availability-groups/{group}/timeslots");
    let times = json!([ { "start": "09:00", "end": "10:00" } ]);
    open_slots(&app, &group, ("2026-06-01", "2026-06-02"), times, Some(10)).await;
    let before = admin_timeslots(&app, &group, "2026-06-01", "2026-06-02").await;
    set_timeslot_reserved(&app, before[1]["timeslot_id"].as_str().unwrap(), 4).await;
    let before = admin_timeslots(&app, &group, "2026-05-31", "2026-06-03").await;

    app.admin_put(
        &path,
        &json!({ "from": "2026-05-31", "until": "2026-06-03", "capacity": 3,
                     "times": [ { "start": "09:00", "end": "10:30" } ] }),
    )
    .await
    .assert_conflict_naming(&["2026-06-02T07:00:00Z"]);
    assert_eq!(
        admin_timeslots(&app, &group, "2026-05-31", "2026-06-03").await,
        before,
        "no slot was added or changed"
    );

    app.admin_put_ok(
        &path,
        &json!({ "from": "2026-06-01", "until": "2026-06-02", "capacity": 4,
                 "times": [ { "start": "09:00", "end": "10:30" } ] }),
    )
    .await;
    let after = admin_timeslots(&app, &group, "2026-06-01", "2026-06-02").await;
    assert_eq!(field(&after, "timeslot_id"), field(&before, "timeslot_id"));
    assert_eq!(field(&after, "reserved"), [&json!(0), &json!(4)]);
    assert!(after.iter().all(|s| s["capacity"] == 4));
    assert_eq!(after[0]["end_time"], "2026-06-01T10:30:00+02:00");
}

#[tokio::test]
async fn invalid_timeslot_input_names_every_bad_field() {
    let (app, _, group) = spawn_group_in("Europe/Amsterdam").await;
    let path = format!("/admin/v1/availability-groups/{group}/timeslots");
    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "from": "2026-06-02", "until": "2026-06-01", "capacity": -1,
                     "times": [ { "start": "25:00", "end": "26:00" },
                                { "start": "11:00", "end": "10:00" },
                                { "start": "11:00", "end": "12:00" },
                                { "start": "9:00", "end": "10:00" } ] }),
        &[
            "until",
            "capacity",
            "times[0].start",
            "times[0].end",
            "times[1].end",
            "times[2].start",
            "times[3].start",
        ],
    )
    .await;
    app.assert_admin_invalid(
        Method::PUT,
        &path,
        &json!({ "from": "2026-06-01", "until": "2026-06-01", "times": [] }),
        &["times"],
    )
    .await;
    assert!(admin_timeslots(&app, &group, "2026-06-01", "2026-06-02")
        .await
        .is_empty());

    let missing = uuid::Uuid::new_v4();
    app.admin_put(
        &format!("/admin/v1/availability-groups/{missing}/timeslots"),
        &json!({ "from": "2026-06-01", "until": "2026-06-01",
                 "times": [ { "start": "09:00", "end": "10:00" } ] }),
    )
    .await
    .assert_problem(404, "not-found");
    app.admin_get(&format!(
        "/admin/v1/availability-groups/{missing}/timeslots"
    ))
    .await
    .assert_problem(404, "not-found");
}
