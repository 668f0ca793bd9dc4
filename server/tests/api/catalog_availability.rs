//! Calendars and timeslots as partners read them: remaining capacity shared by an availability
//! group, "today" in zones far from UTC, and slot offsets on the days clocks change.

use chrono::{Datelike, Days, NaiveDate, Utc, Weekday};
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{
        admin_timeslots, create_group, field, open_slots, set_day_reserved, set_timeslot_reserved,
    },
    partner_fixtures::{
        id_of, shift, spawn_partner, spawn_partner_with_merchant, today_in, write_calendar,
    },
};

const AMS: &str = "Europe/Amsterdam";

#[tokio::test]
async fn the_calendar_shows_prices_discounts_and_availability_from_today_by_default() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let today = today_in(AMS);
    let (id, group) = p
        .product_on_calendar(
            &app,
            (&merchant, "Artis ticket"),
            (shift(today, -2), shift(today, 70)),
            ("12.00", "15.00"),
            Some(20),
        )
        .await;
    let third_day = (shift(today, 3), shift(today, 3));
    write_calendar(&app, &id, third_day, ("15.00", "15.00"), None).await;
    set_day_reserved(&app, &group, &shift(today, 1).to_string(), 20).await;

    let days = p.calendar(&app, &id, "").await;
    assert_eq!(days.len(), 61, "today through today + 60");
    assert_eq!(days[0]["date"], today.to_string());
    assert_eq!(days[60]["date"], shift(today, 60).to_string());
    assert_eq!(
        days[0],
        json!({ "date": today, "available": true, "remaining": 20,
                "effective_price": { "value": "12.00", "currency": "EUR" },
                "list_price": { "value": "15.00", "currency": "EUR" },
                "discount_amount": { "value": "3.00", "currency": "EUR" },
                "discount_percentage": 20.0 })
    );
    assert_eq!(days[1]["available"], false, "full");
    assert_eq!(days[1]["remaining"], 0);
    assert_eq!(days[3]["remaining"], Value::Null, "unlimited");
    assert_eq!(days[3]["available"], true);
    assert!(
        days[3].get("discount_amount").is_none(),
        "not discounted that day"
    );

    let range = format!("?from={}&until={}", shift(today, -2), today);
    let past = p.calendar(&app, &id, &range).await;
    assert_eq!(
        field(&past, "available"),
        [&json!(false), &json!(false), &json!(true)]
    );

    for (query, problem_field) in [
        (
            format!("?from={today}&until={}", shift(today, 366)),
            "until",
        ),
        (format!("?from={today}&until={}", shift(today, -1)), "until"),
        ("?from=tomorrow".to_owned(), "from"),
        ("?days=3".to_owned(), "days"),
    ] {
        let problem = p
            .get(&app, &format!("/v2/products/{id}/calendar{query}"))
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(problem["errors"][0]["field"], problem_field, "{query}");
    }
}

#[tokio::test]
async fn a_product_without_dates_has_an_empty_calendar() {
    let (app, p, merchant) = spawn_partner_with_merchant("Shop", AMS).await;
    let voucher = p
        .product(&app, &merchant, "Cadeaubon", |b| b["no_date"] = json!(true))
        .await;
    assert_eq!(
        p.calendar(&app, &id_of(&voucher, "product_id"), "").await,
        Vec::<Value>::new()
    );
}

#[tokio::test]
async fn products_sharing_a_group_share_its_remaining_capacity() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let group = create_group(&app, &merchant, "Main gate").await;
    let adult = p
        .product(&app, &merchant, "Adult", |b| {
            b["availability_group_id"] = json!(group)
        })
        .await;
    let child = p
        .product(&app, &merchant, "Child", |b| {
            b["availability_group_id"] = json!(group);
            b["age_group"] = json!("child");
        })
        .await;
    let (adult, child) = (id_of(&adult, "product_id"), id_of(&child, "product_id"));
    let tomorrow = shift(today_in(AMS), 1);
    write_calendar(&app, &adult, (tomorrow, tomorrow), ("20", "20"), Some(10)).await;
    write_calendar(&app, &child, (tomorrow, tomorrow), ("10", "10"), Some(10)).await;
    let range = format!("?from={tomorrow}&until={tomorrow}");

    // Four adult tickets sold: the child's remaining drops too.
    set_day_reserved(&app, &group, &tomorrow.to_string(), 4).await;
    for product in [&adult, &child] {
        assert_eq!(p.calendar(&app, product, &range).await[0]["remaining"], 6);
    }

    open_slots(
        &app,
        &group,
        (tomorrow, tomorrow),
        json!([{ "start": "10:00", "end": "11:00" }]),
        Some(5),
    )
    .await;
    let slot = id_of(
        &admin_timeslots(&app, &group, tomorrow, tomorrow).await[0],
        "timeslot_id",
    );
    // Slot-level stock is shared the same way (only timeslotted products list slots).
    let mut body = crate::catalog_fixtures::product_body(&merchant, "Child");
    body["availability_group_id"] = json!(group);
    body["age_group"] = json!("child");
    body["requires_timeslot"] = json!(true);
    body["campaign_ids"] = json!([p.campaign]);
    app.admin_put_ok(&format!("/admin/v1/products/{child}"), &body)
        .await;
    body["title"] = json!("Adult");
    body["age_group"] = json!("adult");
    app.admin_put_ok(&format!("/admin/v1/products/{adult}"), &body)
        .await;
    set_timeslot_reserved(&app, &slot, 3).await;
    for product in [&adult, &child] {
        let slots = p
            .timeslots(&app, json!({ "product_id": product, "date": tomorrow }))
            .await;
        assert_eq!(
            slots[0]["remaining"], 2,
            "the slot's 5 minus 3, within the day's 6"
        );
        let two = p
            .timeslots(
                &app,
                json!({ "product_id": product, "date": tomorrow, "quantity": 3 }),
            )
            .await;
        assert_eq!(two[0]["available"], false, "3 do not fit in 2");
    }
}

#[tokio::test]
async fn today_is_the_merchants_today_far_from_utc() {
    let (app, p) = spawn_partner().await;
    let utc_today = Utc::now().date_naive();
    // Kiritimati (UTC+14) is a day ahead of UTC from 10:00 UTC, Pago Pago (UTC-11) a day behind
    // until 11:00 UTC: at any hour at least one of them has another date than UTC.
    for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago"] {
        let (merchant, product) = p.merchant_with_product(&app, zone, zone).await;
        let id = id_of(&product, "product_id");
        write_calendar(
            &app,
            &id,
            (shift(utc_today, -2), shift(utc_today, 2)),
            ("10", "10"),
            Some(5),
        )
        .await;
        let local_today = today_in(zone);

        let days = p
            .calendar(
                &app,
                &id,
                &format!(
                    "?from={}&until={}",
                    shift(utc_today, -2),
                    shift(utc_today, 2)
                ),
            )
            .await;
        for day in &days {
            let date: NaiveDate = day["date"].as_str().unwrap().parse().unwrap();
            assert_eq!(day["available"], date >= local_today, "{zone} {date}");
        }
        let default = p.calendar(&app, &id, "").await;
        assert_eq!(default[0]["date"], local_today.to_string(), "{zone}");

        let items = p.products(&app, &merchant).await.assert_status(200);
        assert_eq!(
            items["data"][0]["first_available_date"],
            local_today.to_string(),
            "{zone}"
        );
    }
}

/// The last Sunday of `month` in `year` (when the EU changes clocks).
fn last_sunday(year: i32, month: u32) -> NaiveDate {
    let next = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)
    };
    let mut day = next.unwrap() - Days::new(1);
    while day.weekday() != Weekday::Sun {
        day = day - Days::new(1);
    }
    day
}

#[tokio::test]
async fn timeslots_carry_the_merchants_offset_on_the_days_clocks_change() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let (id, group) = p.timeslotted_product(&app, &merchant).await;
    let year = today_in(AMS).year() + 1;
    let (spring, autumn) = (last_sunday(year, 3), last_sunday(year, 10));
    for day in [spring, autumn] {
        write_calendar(&app, &id, (day, day), ("10", "10"), None).await;
    }
    let times = json!([
        { "start": "10:00", "end": "10:30" },
        { "start": "01:00", "end": "01:30" },
        { "start": "02:30", "end": "03:30" }
    ]);
    for day in [spring, autumn] {
        open_slots(&app, &group, (day, day), times.clone(), Some(10)).await;
    }

    for (day, starts, second_end, why) in [
        (
            spring,
            &["01:00:00+01:00", "10:00:00+02:00"][..],
            "10:30:00+02:00",
            "02:30 does not exist that night",
        ),
        (
            autumn,
            &["01:00:00+02:00", "02:30:00+02:00", "10:00:00+01:00"][..],
            "03:30:00+01:00",
            "ordered by start; 02:30 is its first (summer-time) occurrence",
        ),
    ] {
        let slots = p
            .timeslots(&app, json!({ "product_id": id, "date": day }))
            .await;
        let expected: Vec<Value> = starts.iter().map(|t| json!(format!("{day}T{t}"))).collect();
        assert_eq!(
            field(&slots, "start_time"),
            expected.iter().collect::<Vec<_>>(),
            "{why}"
        );
        assert_eq!(slots[1]["end_time"], format!("{day}T{second_end}"));
        if day == autumn {
            assert!(slots
                .iter()
                .all(|s| s["available"] == true && s["remaining"] == 10));
        }
    }
}

#[tokio::test]
async fn started_full_or_unpriced_slots_are_unavailable_and_untimed_products_have_none() {
    let (app, p, merchant) = spawn_partner_with_merchant("Artis", AMS).await;
    let (id, group) = p.timeslotted_product(&app, &merchant).await;
    let plain = p.product(&app, &merchant, "Dag", |_| {}).await;
    let today = today_in(AMS);
    let tomorrow = shift(today, 1);
    write_calendar(&app, &id, (today, tomorrow), ("10", "10"), Some(8)).await;
    open_slots(
        &app,
        &group,
        (today, shift(today, 2)),
        json!([{ "start": "00:00", "end": "00:01" }, { "start": "23:58", "end": "23:59" }]),
        Some(3),
    )
    .await;

    let now = p
        .timeslots(&app, json!({ "product_id": id, "date": today }))
        .await;
    assert_eq!(now.len(), 2);
    assert_eq!(now[0]["available"], false, "started at midnight");

    let later = p
        .timeslots(&app, json!({ "product_id": id, "date": tomorrow }))
        .await;
    assert_eq!(field(&later, "available"), [&json!(true), &json!(true)]);
    let slot = id_of(
        &admin_timeslots(&app, &group, tomorrow, tomorrow).await[0],
        "timeslot_id",
    );
    set_timeslot_reserved(&app, &slot, 1).await;
    let two = p
        .timeslots(
            &app,
            json!({ "product_id": id, "date": tomorrow, "quantity": 2 }),
        )
        .await;
    assert_eq!(
        (two[0]["remaining"].clone(), two[0]["available"].clone()),
        (json!(2), json!(true))
    );
    let three = p
        .timeslots(
            &app,
            json!({ "product_id": id, "date": tomorrow, "quantity": 3 }),
        )
        .await;
    assert_eq!(three[0]["available"], false);
    assert_eq!(three[1]["available"], true);

    let unpriced = p
        .timeslots(&app, json!({ "product_id": id, "date": shift(today, 2) }))
        .await;
    assert_eq!(unpriced.len(), 2, "the slots exist");
    assert!(
        unpriced.iter().all(|s| s["available"] == false),
        "but the product does not sell that day"
    );
    let none = p
        .timeslots(&app, json!({ "product_id": id, "date": shift(today, 5) }))
        .await;
    assert_eq!(
        none,
        Vec::<Value>::new(),
        "no slots that day: no availability"
    );

    let untimed = p
        .timeslots(
            &app,
            json!({ "product_id": id_of(&plain, "product_id"), "date": tomorrow }),
        )
        .await;
    assert_eq!(untimed, Vec::<Value>::new(), "the date alone suffices");
}

#[tokio::test]
async fn bad_timeslot_requests_are_named() {
    let (app, p) = spawn_partner().await;
    let (_, product) = p.merchant_with_product(&app, "Artis", AMS).await;
    let id = id_of(&product, "product_id");
    for (body, field) in [
        (
            json!({ "product_id": id, "date": "2030-01-01", "quantity": 0 }),
            "quantity",
        ),
        (
            json!({ "product_id": id, "date": "2030-01-01", "quantity": 51 }),
            "quantity",
        ),
        (
            json!({ "product_id": id, "date": "2030-01-01", "quantity": -1 }),
            "quantity",
        ),
        (json!({ "product_id": id, "date": "01-01-2030" }), "date"),
        (
            json!({ "product_id": "x", "date": "2030-01-01" }),
            "product_id",
        ),
        (json!({ "product_id": id }), "date"),
        (
            json!({ "product_id": id, "date": "2030-01-01", "time": "10:00" }),
            "time",
        ),
    ] {
        let problem = p
            .post(&app, "/v2/fulfillment/timeslots", &body)
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
}
