//! `GET /v2/events` as a poller walks it: a pager written to the contract ends (`next_token`
//! only while another page exists), no event that commits is ever skipped whatever order
//! transactions commit in, and every page carries a `resume_token` to poll on from exactly
//! where it stopped.

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

/// How a page is asked for: from the start, a page's continuation, or a poll's resumption.
#[derive(Clone, Copy)]
enum Ask<'a> {
    Start,
    Next(&'a str),
    Resume(&'a str),
}

/// One page of the feed: the events' ids, `meta.pagination.next_token` and
/// `meta.feed.resume_token`.
async fn page(
    app: &TestApp,
    backend: &str,
    limit: u32,
    from: Ask<'_>,
) -> (Vec<Uuid>, Option<String>, String) {
    let path = match from {
        Ask::Start => format!("/v2/events?limit={limit}"),
        Ask::Next(token) => format!("/v2/events?limit={limit}&next_token={token}"),
        Ask::Resume(token) => format!("/v2/events?limit={limit}&resume_token={token}"),
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
    let next = body["meta"]["pagination"]["next_token"]
        .as_str()
        .map(str::to_owned);
    let resume = body["meta"]["feed"]["resume_token"]
        .as_str()
        .expect("every page says where to resume")
        .to_owned();
    (ids, next, resume)
}

/// A pager written to the contract: from `resume` (or the start) it follows `next_token`
/// until a page has none; returns the events read and where to resume the next poll.
async fn walk(
    app: &TestApp,
    backend: &str,
    limit: u32,
    resume: Option<&str>,
) -> (Vec<Uuid>, String) {
    let mut seen = Vec::new();
    let mut from = resume.map_or(Ask::Start, Ask::Resume);
    let mut next_token;
    loop {
        let (ids, next, resume) = page(app, backend, limit, from).await;
        seen.extend(ids);
        match next {
            Some(token) => {
                next_token = token;
                from = Ask::Next(&next_token);
            }
            None => return (seen, resume),
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
    let (first_walk, resume) = walk(&app, &backend, 2, None).await;
    assert!(!first_walk.contains(&slow), "not committed yet");
    assert_eq!(first_walk[0], before);

    // `slow` commits; the poller walks on from where it stopped.
    slow_tx.commit().await.unwrap();
    wait_until_events_settle(&app).await;
    let (second_walk, _) = walk(&app, &backend, 2, Some(&resume)).await;
    let all: Vec<Uuid> = first_walk.into_iter().chain(second_walk).collect();
    assert_eq!(
        all,
        [before, slow, after, last],
        "every committed event once, in the order of their transactions"
    );
}

#[tokio::test]
async fn a_pager_ends_on_the_feed_and_its_resume_token_goes_on_exactly_where_it_stopped() {
    let app = crate::helpers::spawn_app().await;
    let (client, partner, campaign) = poller(&app).await;
    let backend = app.backend_token(&client).await;

    // An empty feed has no next page, and already a place to resume polling from.
    let (ids, next, start) = page(&app, &backend, 2, Ask::Start).await;
    assert!(ids.is_empty());
    assert_eq!(next, None, "no other page exists");

    let mut written = Vec::new();
    for _ in 0..3 {
        written.push(commit_event(&app, campaign, partner).await);
    }
    wait_until_events_settle(&app).await;
    let (first, next, _) = page(&app, &backend, 2, Ask::Resume(&start)).await;
    assert_eq!(first, written[..2]);
    let next = next.expect("a next_token while another page exists");
    let (second, next, at_end) = page(&app, &backend, 2, Ask::Next(&next)).await;
    assert_eq!(second, written[2..], "the last page");
    assert_eq!(
        next, None,
        "the last page has no next_token: a pager stops here"
    );
    let (nothing, next, again) = page(&app, &backend, 2, Ask::Resume(&at_end)).await;
    assert!(nothing.is_empty());
    assert_eq!(next, None);

    // A new event is exactly what the held resume tokens give next; a token from before the
    // feed told the two apart (every page's `next_token` was its resume token) still works.
    let fresh = commit_event(&app, campaign, partner).await;
    wait_until_events_settle(&app).await;
    for from in [
        Ask::Resume(&at_end),
        Ask::Resume(&again),
        Ask::Next(&at_end),
    ] {
        let (ids, _, _) = page(&app, &backend, 2, from).await;
        assert_eq!(ids, [fresh]);
    }
    // A token stays bound to its query, and one of the two is asked for at a time.
    let mismatch = format!("/v2/events?limit=3&resume_token={at_end}");
    app.send(app.request(Method::GET, &mismatch).bearer_auth(&backend))
        .await
        .assert_problem(400, "next-token-mismatch");
    let both = format!("/v2/events?limit=2&resume_token={at_end}&next_token={at_end}");
    app.send(app.request(Method::GET, &both).bearer_auth(&backend))
        .await
        .assert_invalid(&["resume_token"]);
}
