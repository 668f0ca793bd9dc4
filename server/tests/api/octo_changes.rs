//! OCTO date changes that race: a held booking asked to move to several days at once.

use reqwest::Method;
use serde_json::json;

use crate::{
    checkout_fixtures::visit_day,
    octo::{midnight_id, on_account, Reseller},
    settlement_fixtures::settled_shop,
};

#[tokio::test]
async fn a_held_booking_moves_to_one_day_however_many_changes_come_at_once() {
    let (app, shop, _) = settled_shop().await;
    on_account(&app, &shop).await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token.clone());
    let held = r.reserve(&shop.product, 2, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    let group = shop.group.parse().unwrap();
    let days: Vec<chrono::NaiveDate> = (1..=3)
        .map(|n| visit_day() + chrono::Days::new(n))
        .collect();
    let changes = days.iter().map(|day| {
        let body = json!({ "availabilityId": midnight_id(*day) });
        let (app, token, uuid, merchant) = (&app, &token, &uuid, &shop.merchant);
        async move {
            app.send(
                app.request(Method::PATCH, &format!("/octo/{merchant}/bookings/{uuid}"))
                    .bearer_auth(token)
                    .json(&body),
            )
            .await
        }
    });
    let answers = futures::future::join_all(changes).await;
    for answer in &answers {
        if answer.status != 200 {
            // Another change came first: said so, nothing held for it.
            assert_eq!(
                answer.json()["error"],
                "UNPROCESSABLE_ENTITY",
                "{}",
                answer.text
            );
        }
    }
    assert!(answers.iter().any(|a| a.status == 200));
    let now = r.read(&uuid).await;
    assert_eq!(now["status"], "ON_HOLD");
    let mut held_days = Vec::new();
    for day in std::iter::once(visit_day()).chain(days.iter().copied()) {
        let taken = crate::db_reads::reserved_on_day(&app, group, day).await;
        if taken > 0 {
            assert_eq!(taken, 2, "{day}: the booking's two places");
            held_days.push(day);
        }
    }
    assert_eq!(held_days.len(), 1, "held on one day only: {held_days:?}");
    assert_eq!(now["availabilityId"], midnight_id(held_days[0]));
    assert_ne!(held_days[0], visit_day(), "moved");
    assert!(
        now["utcExpiresAt"].as_str() <= held["utcExpiresAt"].as_str(),
        "no longer a hold"
    );
    // Confirmed where it now is.
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    assert_eq!(confirmed["availabilityId"], midnight_id(held_days[0]));
    r.assert_all_valid();
}

#[tokio::test]
async fn a_confirmed_booking_moved_to_a_dearer_day_owes_the_difference_on_account() {
    let (app, shop, backend) = settled_shop().await;
    on_account(&app, &shop).await;
    let dear = crate::partner_fixtures::shift(visit_day(), 1);
    crate::partner_fixtures::write_calendar(
        &app,
        &shop.product,
        (dear, dear),
        ("14.50", "15.00"),
        Some(10),
    )
    .await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    let held = r.reserve(&shop.product, 2, json!({})).await;
    let uuid = held["uuid"].as_str().unwrap().to_owned();
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    let order = confirmed["supplierReference"].as_str().unwrap().to_owned();

    let moved = r
        .call(
            "Bookings_BookingUpdate",
            Method::PATCH,
            &format!("/bookings/{uuid}"),
            Some(json!({ "availabilityId": midnight_id(dear) })),
        )
        .await
        .assert_status(200);
    // Moved at once: no payment page for a reseller that settles on account.
    assert_eq!(moved["status"], "CONFIRMED");
    assert_eq!(moved["availabilityId"], midnight_id(dear));
    assert_eq!(
        crate::db_reads::reserved_on_day(&app, shop.group.parse().unwrap(), dear).await,
        2
    );
    assert_eq!(
        crate::checkout_fixtures::reserved_on_visit_day(&app, &shop).await,
        0
    );
    // The difference is in what the reseller owes: a positive rebooking entry of the order.
    let differences: Vec<serde_json::Value> = crate::settlement_fixtures::entries(&app, &backend)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "rebooking" && e["order_display_id"] == json!(order))
        .collect();
    assert!(!differences.is_empty(), "a rebooking entry for {order}");
    assert!(
        differences
            .iter()
            .all(|e| !e["gross"].as_str().unwrap_or("0").starts_with('-')),
        "{differences:?}"
    );
    r.assert_all_valid();
}
