//! The webhook worker: a slow partner delays only its own deliveries, and what is stored of a
//! failure never carries the URL.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{routing::post, Router};
use serde_json::json;
use server::events::{EventType, NewEvent};
use uuid::Uuid;

use crate::{
    db_reads::attempted_delivery_error,
    helpers::{spawn_app_with, store_partner_client, TestApp},
};

/// A partner client on `campaign` whose webhook is `hook`; its partner_client_id.
pub async fn hooked_partner(app: &TestApp, name: &str, campaign: Uuid, hook: &str) -> Uuid {
    store_partner_client(app.state.store.as_ref(), name, campaign, Some(hook)).await;
    app.partner_client_id(name).await
}

/// Commits `count` events of `partner`'s checkouts, one transaction each.
pub async fn commit_events(app: &TestApp, campaign: Uuid, partner: Uuid, count: usize) {
    for n in 0..count {
        let mut tx = app.state.store.begin_checkout().await.unwrap();
        tx.insert_event(&NewEvent {
            event_type: EventType::CheckoutStarted,
            subject: format!("checkouts/{}", Uuid::new_v4()),
            campaign_id: campaign,
            partner_client_id: Some(partner),
            data: json!({ "n": n }),
        })
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
}

pub async fn campaign(app: &TestApp) -> Uuid {
    app.create_campaign("Hooks").await.parse().unwrap()
}

/// A webhook receiver on port 0 that answers after `delay`; its URL and what it received.
async fn receiver(delay: Duration) -> (String, Arc<Mutex<Vec<Instant>>>) {
    let received: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let sink = received.clone();
    let app = Router::new().route(
        "/hooks",
        post(move || {
            let sink = sink.clone();
            async move {
                tokio::time::sleep(delay).await;
                sink.lock().unwrap().push(Instant::now());
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

#[tokio::test]
async fn a_slow_partner_does_not_delay_another_partners_deliveries() {
    let app = spawn_app_with(|c| c.worker_interval_ms = 50).await;
    let campaign = campaign(&app).await;
    // The slow partner answers after a minute (each send times out after 10 s); its events
    // are due first.
    let (slow_url, _) = receiver(Duration::from_secs(60)).await;
    let (fast_url, fast) = receiver(Duration::ZERO).await;
    let slow = hooked_partner(&app, "slow", campaign, &slow_url).await;
    let quick = hooked_partner(&app, "quick", campaign, &fast_url).await;
    commit_events(&app, campaign, slow, 6).await;
    commit_events(&app, campaign, quick, 2).await;

    let start = Instant::now();
    while fast.lock().unwrap().len() < 2 && start.elapsed() < Duration::from_secs(8) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        fast.lock().unwrap().len(),
        2,
        "the quick partner got its events while the slow one's were in flight"
    );
}

#[tokio::test]
async fn a_failed_deliverys_stored_error_never_carries_the_webhook_url() {
    let app = spawn_app_with(|c| c.worker_interval_ms = 50).await;
    let campaign = campaign(&app).await;
    // A port nobody listens on, and a secret in the URL's path and query.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let hook = format!("http://127.0.0.1:{port}/hooks/s3cr3t-path?token=s3cr3t-query");
    let partner = hooked_partner(&app, "unreachable", campaign, &hook).await;
    commit_events(&app, campaign, partner, 1).await;

    let start = Instant::now();
    let error: String = loop {
        let found = attempted_delivery_error(&app).await;
        if let Some(error) = found {
            break error.expect("a failed attempt records its error");
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no attempt made");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!error.is_empty());
    for secret in ["s3cr3t", &format!("127.0.0.1:{port}"), "/hooks"] {
        assert!(!error.contains(secret), "{secret} in {error:?}");
    }
}
