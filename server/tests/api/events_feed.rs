//! `GET /v2/events` as a poller walks it: no event that commits is ever skipped, whatever order
//! transactions commit in, and every page carries a token to resume exactly where it stopped.

use reqwest::Method;
use serde_json::{json, Value};
use server::events::{EventType, NewEvent};
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    db_reads::wait_until_events_settle,
    helpers::{TestApp, TestClient},
};

/// A partner client in a fresh campaign: its client, its partner_client_id and its campaign.
async fn poller(app: &TestApp) -> (TestClient, Uuid, Uuid) {
    let campaign = app.create_campaign("Feed").await;
    let client = app
        .create_client(&format!("feed-{}", &campaign[..8]), &[&campaign])
        .await;
    let id = app.partner_client_id(&client.client_id).await;
    (client, id, campaign.parse().unwrap())
}

/// One page of the feed: the events' ids and the page's `next_token`.
async fn page(
    app: &TestApp,
    backend: &str,
    limit: u32,
    token: Option<&str>,
) -> (Vec<Uuid>, Option<String>) {
    let path = match token {
        Some(token) => format!("/v2/events?limit={limit}&next_token={token}"),
        None => format!("/v2/events?limit={limit}"),
    };
    let body: Value = app
        .send(app.request(Method::GET, &path).bearer_auth(backend))
        .await
        .assert_status(200);
    let ids = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().parse().unwrap())
        .collect();
    let token = body["meta"]["pagination"]["next_token"]
        .as_str()
        .map(str::to_owned);
    (ids, token)
}

/// Walks the feed from `token` up to its first empty page or a page without a token; returns
/// the events read and the last token held.
async fn walk(
    app: &TestApp,
    backend: &str,
    limit: u32,
    mut token: Option<String>,
) -> (Vec<Uuid>, Option<String>) {
    let mut seen = Vec::new();
    loop {
        let (ids, next) = page(app, backend, limit, token.as_deref()).await;
        let done = ids.is_empty() || next.is_none();
        seen.extend(ids);
        if next.is_some() {
            token = next;
        }
        if done {
            return (seen, token);
        }
    }
}

/// Commits one event of `partner`'s checkout through the store, as a checkout does.
async fn commit_event(app: &TestApp, campaign: Uuid, partner: Uuid) -> Uuid {
    let mut tx = app.state.store.begin_checkout().await.unwrap();
    let id = tx
        .insert_event(&NewEvent {
            event_type: EventType::CheckoutStarted,
            subject: format!("checkouts/{}", Uuid::new_v4()),
            campaign_id: campaign,
            partner_client_id: Some(partner),
            data: json!({}),
        })
        .await
        .unwrap();
    tx.commit().await.unwrap();
    id
}

/// Writes one event of `partner`'s on `conn` (in whatever transaction it has open).
async fn insert_event(conn: &mut sqlx::PgConnection, campaign: Uuid, partner: Uuid) -> Uuid {
    let id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO event (event_id, event_type, source, subject, occurred_at,
             campaign_id, partner_client_id, data)
         VALUES ($1, 'checkouts.CheckoutStarted', 'boxoffice', $2, now(), $3, $4, '{}'::jsonb)",
    )
    .bind(id)
    .bind(format!("checkouts/{id}"))
    .bind(campaign)
    .bind(partner)
    .execute(conn)
    .await
    .unwrap();
    id
}

#[tokio::test]
async fn a_poller_never_skips_an_event_whose_transaction_commits_after_a_later_ones() {
    let app = crate::helpers::spawn_app().await;
    let Some(url) = app.postgres_url().map(str::to_owned) else {
        eprintln!(
            "skipped on SQLite: its one writer commits transactions in the order they take \
             sequence numbers, so no event can commit behind a later one"
        );
        return;
    };
    let (client, partner, campaign) = poller(&app).await;
    let backend = app.backend_token(&client).await;

    // `before` commits; `slow` takes the next sequence number in a transaction that stays
    // open; `after` and `last` take later numbers and commit first.
    let before = commit_event(&app, campaign, partner).await;
    wait_until_events_settle(&app).await;
    let mut slow_conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let mut slow_tx = slow_conn.begin().await.unwrap();
    let slow = insert_event(&mut slow_tx, campaign, partner).await;
    let mut other = sqlx::PgConnection::connect(&url).await.unwrap();
    let after = insert_event(&mut other, campaign, partner).await;
    let last = insert_event(&mut other, campaign, partner).await;

    // The poller reads to the end while `slow` is still open (two to a page).
    let (first_walk, token) = walk(&app, &backend, 2, None).await;
    assert!(!first_walk.contains(&slow), "not committed yet");
    assert_eq!(first_walk[0], before);

    // `slow` commits; the poller walks on from where it stopped.
    slow_tx.commit().await.unwrap();
    wait_until_events_settle(&app).await;
    let (second_walk, _) = walk(&app, &backend, 2, token).await;
    let all: Vec<Uuid> = first_walk.into_iter().chain(second_walk).collect();
    assert_eq!(
        all,
        [before, slow, after, last],
        "every committed event once, in the order of their transactions"
    );
}

#[tokio::test]
async fn every_page_of_the_feed_carries_a_token_to_resume_exactly_where_it_stopped() {
    let app = crate::helpers::spawn_app().await;
    let (client, partner, campaign) = poller(&app).await;
    let backend = app.backend_token(&client).await;

    // An empty feed already gives a place to wait at.
    let (ids, start) = page(&app, &backend, 2, None).await;
    assert!(ids.is_empty());
    let start = start.expect("a token on an empty first page");

    let mut written = Vec::new();
    for _ in 0..3 {
        written.push(commit_event(&app, campaign, partner).await);
    }
    wait_until_events_settle(&app).await;
    let (first, token) = page(&app, &backend, 2, Some(&start)).await;
    assert_eq!(first, written[..2]);
    let (second, token) = page(&app, &backend, 2, token.as_deref()).await;
    assert_eq!(second, written[2..], "the last page");
    let at_end = token.expect("the last page carries a token too");
    let (nothing, again) = page(&app, &backend, 2, Some(&at_end)).await;
    assert!(nothing.is_empty());
    let again = again.expect("an empty page carries a token too");

    // A new event is exactly what the held tokens give next.
    let fresh = commit_event(&app, campaign, partner).await;
    wait_until_events_settle(&app).await;
    for token in [&at_end, &again] {
        let (ids, _) = page(&app, &backend, 2, Some(token)).await;
        assert_eq!(ids, [fresh]);
    }
    // The token stays bound to its query.
    app.send(
        app.request(
            Method::GET,
            &format!("/v2/events?limit=3&next_token={at_end}"),
        )
        .bearer_auth(&backend),
    )
    .await
    .assert_problem(400, "next-token-mismatch");
}
