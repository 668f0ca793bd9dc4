//! OCTO booking updates that change units or product: a held booking reserved again in
//! place (a full day can still go down), a confirmed one giving up units under the policy,
//! and what is refused (more units or another product once confirmed, date and units at
//! once), each leaving the booking as it was.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::visit_day,
    db_reads::reserved_on_day,
    octo::{midnight_id, on_account, Reseller},
    partner_fixtures::write_calendar,
    settlement_fixtures::{entries, settled_shop},
};

fn adults(n: usize) -> Value {
    json!(vec![json!({ "unitId": "adult" }); n])
}

async fn patch(r: &mut Reseller<'_>, uuid: &str, body: Value) -> crate::helpers::TestResponse {
    r.call(
        "Bookings_BookingUpdate",
        Method::PATCH,
        &format!("/bookings/{uuid}"),
        Some(body),
    )
    .await
}

fn refused(answer: &crate::helpers::TestResponse) {
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(
        answer.json()["error"],
        "UNPROCESSABLE_ENTITY",
        "{}",
        answer.text
    );
}

#[tokio::test]
async fn a_held_booking_on_a_full_day_changes_its_units_in_place() {
    let (app, shop, _) = settled_shop().await;
    write_calendar(
        &app,
        &shop.product,
        (visit_day(), visit_day()),
        ("12.50", "15.00"),
        Some(3),
    )
    .await;
    let group = shop.group.parse().unwrap();
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    let held = r.reserve(&shop.product, 3, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 3, "full");

    // The day is full with this booking's own places: it still goes down, and back up.
    let fewer = patch(&mut r, &uuid, json!({ "unitItems": adults(2) }))
        .await
        .assert_status(200);
    assert_eq!(fewer["status"], "ON_HOLD");
    assert_eq!(fewer["unitItems"].as_array().unwrap().len(), 2);
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 2);
    assert_eq!(
        fewer["utcExpiresAt"], held["utcExpiresAt"],
        "a change gains no time"
    );
    // The events say so: the old hold replaced, the new one started ending when it did.
    let events = crate::checkout_fixtures::event_items(&app, &shop).await;
    let about = |kind: &str, id: &Value| {
        events
            .iter()
            .find(|e| {
                e["type"] == kind && e["subject"] == format!("checkouts/{}", id.as_str().unwrap())
            })
            .unwrap_or_else(|| panic!("{kind} of {id}"))["data"]
            .clone()
    };
    assert_eq!(
        about("checkouts.CheckoutExpired", &held["id"])["reason"],
        "replaced"
    );
    let started = about("checkouts.CheckoutStarted", &fewer["id"]);
    let instant = |v: &Value| {
        chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap())
            .unwrap()
            .timestamp()
    };
    assert_eq!(
        instant(&started["expires_at"]),
        instant(&held["utcExpiresAt"])
    );
    let back = patch(&mut r, &uuid, json!({ "unitItems": adults(3) }))
        .await
        .assert_status(200);
    assert_eq!(back["unitItems"].as_array().unwrap().len(), 3);
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 3);

    // Sent back as it is (a channel manager's full update): the same hold, untouched.
    let same = json!({ "availabilityId": midnight_id(visit_day()), "unitItems": adults(3),
                       "notes": "window seat" });
    let kept = patch(&mut r, &uuid, same).await.assert_status(200);
    assert_eq!(kept["id"], back["id"]);
    assert_eq!(kept["notes"], "window seat");

    // One more than the day has: refused, the booking as it was.
    refused(&patch(&mut r, &uuid, json!({ "unitItems": adults(4) })).await);
    let after = r.read(&uuid).await;
    assert_eq!(after["id"], back["id"], "still the same hold");
    assert_eq!(after["unitItems"], back["unitItems"]);
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 3);
    // A unit of another kind is OCTO's own error.
    let other = patch(
        &mut r,
        &uuid,
        json!({ "unitItems": [{ "unitId": "dragon" }] }),
    )
    .await;
    assert_eq!(other.json()["error"], "INVALID_UNIT_ID", "{}", other.text);

    on_account(&app, &shop).await;
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    assert_eq!(confirmed["status"], "CONFIRMED");
    assert_eq!(confirmed["unitItems"].as_array().unwrap().len(), 3);
    r.assert_all_valid();
}

#[tokio::test]
async fn a_held_booking_changes_product_and_day_in_one_request() {
    let (app, shop, _) = settled_shop().await;
    let day = visit_day() + chrono::Days::new(2);
    let (other, other_group) = shop
        .partner
        .product_on_calendar(
            &app,
            (&shop.merchant, "Aquarium"),
            (visit_day(), day),
            ("20.00", "20.00"),
            Some(10),
        )
        .await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    let held = r.reserve(&shop.product, 2, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    let extended = r.extend(&uuid).await.assert_status(200);
    let changed = patch(
        &mut r,
        &uuid,
        json!({ "productId": other, "optionId": "DEFAULT", "availabilityId": midnight_id(day),
                "unitItems": adults(1) }),
    )
    .await
    .assert_status(200);
    assert_eq!(changed["productId"], json!(other));
    assert_eq!(changed["availabilityId"], midnight_id(day));
    assert_eq!(changed["unitItems"].as_array().unwrap().len(), 1);
    // Still the extended hold's end, and extended once already.
    assert_eq!(changed["utcExpiresAt"], extended["utcExpiresAt"]);
    refused(&r.extend(&uuid).await);
    assert_eq!(
        reserved_on_day(&app, shop.group.parse().unwrap(), visit_day()).await,
        0,
        "the first product's places are back"
    );
    assert_eq!(
        reserved_on_day(&app, other_group.parse().unwrap(), day).await,
        1
    );
    // Found by its new day.
    let listed = r
        .call(
            "Bookings_GetBookings",
            Method::GET,
            &format!("/bookings?localDate={day}"),
            None,
        )
        .await
        .assert_status(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    r.assert_all_valid();
}

#[tokio::test]
async fn a_confirmed_booking_gives_up_units_under_the_policy() {
    let (app, shop, backend) = settled_shop().await;
    on_account(&app, &shop).await;
    let group = shop.group.parse().unwrap();
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    let held = r.reserve(&shop.product, 3, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    let order = confirmed["supplierReference"].as_str().unwrap().to_owned();
    let items = confirmed["unitItems"].as_array().unwrap().clone();

    // More units, another product, or date and units at once: refused, nothing changed.
    refused(&patch(&mut r, &uuid, json!({ "unitItems": adults(4) })).await);
    refused(&patch(&mut r, &uuid, json!({ "productId": uuid::Uuid::new_v4() })).await);
    let both = json!({
        "availabilityId": midnight_id(visit_day() + chrono::Days::new(1)),
        "unitItems": [items[0].clone()],
    });
    refused(&patch(&mut r, &uuid, both).await);
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 3);

    // Keeping the first and the last: the middle one is cancelled and refunded.
    let kept = json!([
        { "unitId": "adult", "uuid": items[0]["uuid"] },
        { "unitId": "adult", "uuid": items[2]["uuid"] },
    ]);
    let fewer = patch(&mut r, &uuid, json!({ "unitItems": kept }))
        .await
        .assert_status(200);
    assert_eq!(fewer["status"], "CONFIRMED");
    let uuids: Vec<&Value> = fewer["unitItems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["uuid"])
        .collect();
    assert_eq!(uuids, vec![&items[0]["uuid"], &items[2]["uuid"]]);
    assert_eq!(reserved_on_day(&app, group, visit_day()).await, 2);
    let refunds: Vec<Value> = entries(&app, &backend)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "refund" && e["order_display_id"] == json!(order))
        .collect();
    assert_eq!(refunds.len(), 1, "one unit's refund: {refunds:?}");
    // The same request again, with the day it is on, changes nothing more: no new tickets.
    let again = json!({ "unitItems": adults(2), "availabilityId": midnight_id(visit_day()) });
    let again = patch(&mut r, &uuid, again).await.assert_status(200);
    assert_eq!(again["unitItems"], fewer["unitItems"]);

    // Cancelled after all: every unit shows, cancelled.
    let cancelled = r
        .call(
            "Bookings_BookingCancellation",
            Method::POST,
            &format!("/bookings/{uuid}/cancel"),
            Some(json!({})),
        )
        .await
        .assert_status(200);
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["unitItems"].as_array().unwrap().len(), 3);
    r.assert_all_valid();
}

#[tokio::test]
async fn unit_changes_at_once_leave_the_booking_on_one_hold() {
    let (app, shop, _) = settled_shop().await;
    let group = shop.group.parse().unwrap();
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token.clone());
    let held = r.reserve(&shop.product, 2, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    let changes = [1usize, 3, 4, 5].map(|n| {
        let (app, token, uuid, merchant) = (&app, &token, &uuid, &shop.merchant);
        async move {
            app.send(
                app.request(Method::PATCH, &format!("/octo/{merchant}/bookings/{uuid}"))
                    .bearer_auth(token)
                    .json(&json!({ "unitItems": adults(n) })),
            )
            .await
        }
    });
    let answers = futures::future::join_all(changes).await;
    for answer in &answers {
        if answer.status != 200 {
            refused(answer);
        }
    }
    assert!(answers.iter().any(|a| a.status == 200));
    let now = r.read(&uuid).await;
    assert_eq!(now["status"], "ON_HOLD");
    let units = now["unitItems"].as_array().unwrap().len() as i64;
    assert_eq!(
        reserved_on_day(&app, group, visit_day()).await,
        units,
        "held exactly the booking's units"
    );
    r.assert_all_valid();
}
