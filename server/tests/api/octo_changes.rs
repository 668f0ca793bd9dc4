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
    let now = r
        .call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{uuid}"),
            None,
        )
        .await
        .assert_status(200);
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
