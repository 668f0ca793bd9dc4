//! The outbox at the store: events added to a checkout transaction are written together, in
//! the order they were added, with one delivery per event for the partner the checkout is
//! attributed to (none for a checkout attributed to nobody), and nothing at all when the
//! transaction rolls back.

use chrono::{Duration, Utc};
use serde_json::json;
use server::{
    events::{EventType, NewEvent},
    store::{CampaignInput, FeedPosition},
};
use uuid::Uuid;

use crate::helpers::{spawn_app_with, store_partner_client};

fn event(event_type: EventType, campaign_id: Uuid, partner: Option<Uuid>, n: u32) -> NewEvent {
    NewEvent {
        event_type,
        subject: format!("checkouts/{n}"),
        campaign_id,
        partner_client_id: partner,
        data: json!({ "n": n }),
    }
}

#[tokio::test]
async fn events_reach_the_partner_of_their_checkout_in_order_or_not_at_all() {
    // No worker tick during the test: the deliveries stay due for us to read.
    let app = spawn_app_with(|c| c.worker_interval_ms = 3_600_000).await;
    let store = app.state.store.as_ref();
    let campaign = Uuid::new_v4();
    let input = CampaignInput {
        name: "Outbox".into(),
        loyalty_points_per_unit: "1".parse().unwrap(),
        commission: None,
    };
    store.create_campaign(campaign, &input).await.unwrap();
    store_partner_client(store, "hooked-a", campaign, Some("https://a.example/hooks")).await;
    store_partner_client(store, "hooked-b", campaign, Some("https://b.example/hooks")).await;
    store_partner_client(store, "quiet", campaign, None).await;
    let hooked_a = Some(app.partner_client_id("hooked-a").await);
    let quiet = Some(app.partner_client_id("quiet").await);

    // Rolled back: nothing.
    let mut tx = store.begin_checkout().await.unwrap();
    tx.insert_event(&event(EventType::CheckoutStarted, campaign, hooked_a, 0))
        .await
        .unwrap();
    tx.write_events().await.unwrap();
    drop(tx);
    assert!(store
        .events_for_client("hooked-a", FeedPosition::START, 10)
        .await
        .unwrap()
        .is_empty());

    // Committed: three events of hooked-a's checkout, one written early and two at the
    // commit; one of quiet's; one of a checkout attributed to nobody.
    let mut tx = store.begin_checkout().await.unwrap();
    let first = tx
        .insert_event(&event(EventType::CheckoutStarted, campaign, hooked_a, 1))
        .await
        .unwrap();
    tx.write_events().await.unwrap();
    let second = tx
        .insert_event(&event(
            EventType::CheckoutFulfillmentRegistered,
            campaign,
            hooked_a,
            2,
        ))
        .await
        .unwrap();
    let third = tx
        .insert_event(&event(EventType::CheckoutExpired, campaign, hooked_a, 3))
        .await
        .unwrap();
    let quiets = tx
        .insert_event(&event(EventType::CheckoutStarted, campaign, quiet, 4))
        .await
        .unwrap();
    tx.insert_event(&event(EventType::CheckoutStarted, campaign, None, 5))
        .await
        .unwrap();
    tx.commit().await.unwrap();
    crate::db_reads::wait_until_events_settle(&app).await;

    for (reader, expected) in [
        ("hooked-a", vec![first, second, third]),
        ("hooked-b", vec![]),
        ("quiet", vec![quiets]),
    ] {
        let seen: Vec<Uuid> = store
            .events_for_client(reader, FeedPosition::START, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.event_id)
            .collect();
        assert_eq!(seen, expected, "{reader}: in the order added");
    }
    let now = Utc::now() + Duration::seconds(1);
    let mut due: Vec<(Uuid, String)> = store
        .claim_due_deliveries(None, now, now + Duration::minutes(1), 100)
        .await
        .unwrap()
        .into_iter()
        // An event has one recipient, so one delivery, named by the event's id.
        .inspect(|d| assert_eq!(d.webhook_delivery_id, d.event_id))
        .map(|d| (d.event_id, d.webhook_url))
        .collect();
    due.sort();
    let mut expected: Vec<(Uuid, String)> = [first, second, third]
        .into_iter()
        .map(|e| (e, "https://a.example/hooks".to_owned()))
        .collect();
    expected.sort();
    assert_eq!(
        due, expected,
        "one delivery per event, to its checkout's partner when it has a webhook"
    );
}
