//! Claims of webhook deliveries: however many workers claim at once, on any node, no delivery
//! is handed to two of them, and a claimed delivery stays theirs until its lease ends.

use std::collections::HashSet;

use chrono::Utc;
use futures::future::join_all;

use crate::{
    helpers::spawn_app_with,
    webhook_delivery::{campaign, commit_events, hooked_partner},
};

#[tokio::test]
async fn workers_claiming_at_once_never_get_the_same_delivery() {
    // No worker of the app's own: the test's claims are the only ones.
    let app = spawn_app_with(|c| c.worker_interval_ms = 3_600_000).await;
    let campaign = campaign(&app).await;
    let partner = hooked_partner(&app, "claimed", campaign, "https://claimed.example/h").await;
    commit_events(&app, campaign, partner, 40).await;

    let store = app.state.store.as_ref();
    let now = Utc::now() + chrono::Duration::seconds(1);
    let lease = now + chrono::Duration::minutes(2);
    let claims = join_all(
        (0..8).map(|i| store.claim_due_deliveries((i % 2 == 0).then_some(partner), now, lease, 5)),
    )
    .await;
    let mut seen = HashSet::new();
    for claim in claims {
        for delivery in claim.unwrap() {
            assert!(
                seen.insert(delivery.webhook_delivery_id),
                "a delivery claimed twice"
            );
        }
    }
    // Whatever the concurrent claims passed over is still there, once.
    loop {
        let rest = store
            .claim_due_deliveries(None, now, lease, 10)
            .await
            .unwrap();
        if rest.is_empty() {
            break;
        }
        for delivery in rest {
            assert!(seen.insert(delivery.webhook_delivery_id), "claimed twice");
        }
    }
    assert_eq!(seen.len(), 40);
    // Claimed until the lease ends: nothing is due to anyone meanwhile.
    let later = now + chrono::Duration::seconds(90);
    assert!(store
        .claim_due_deliveries(None, later, later + chrono::Duration::minutes(2), 10)
        .await
        .unwrap()
        .is_empty());
}
