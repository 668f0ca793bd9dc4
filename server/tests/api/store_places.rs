//! Places at the store: a checkout transaction takes them when it commits (on Postgres in the
//! same message as the commit), a short take fails the commit naming it and keeps nothing, a
//! crowd of commits takes exactly what is left, and the connections go back to the pool
//! clean. A day's places are read with whether a key has a record.

use std::time::Duration;

use chrono::{NaiveDate, TimeZone, Utc};
use futures::future::join_all;
use server::store::{NewTimeslot, Places, Store, StoreError};
use uuid::Uuid;

use crate::{
    checkout_fixtures::{shop, visit_day},
    helpers::{spawn_app, TestApp},
};

const SEATS: i32 = 5;

fn day(group: Uuid, day: NaiveDate, quantity: u32) -> Places {
    Places::Day {
        group,
        day,
        quantity,
    }
}

/// Takes `places` in one transaction and commits.
async fn take(store: &dyn Store, places: &[Places]) -> Result<(), StoreError> {
    let mut tx = store.begin_checkout().await?;
    for &p in places {
        tx.take(p);
    }
    tx.commit().await
}

async fn reserved(app: &TestApp, group: Uuid, on: NaiveDate) -> i64 {
    crate::db_reads::reserved_on_day(app, group, on).await
}

/// A fresh app with a shop whose group has `SEATS` places a day; the group's id.
async fn spawn_group_with_seats() -> (TestApp, Uuid) {
    let app = spawn_app().await;
    let group = shop(&app, Some(SEATS)).await.group.parse().unwrap();
    (app, group)
}

/// The visit day and the day after it.
fn two_visit_days() -> (NaiveDate, NaiveDate) {
    (visit_day(), visit_day().succ_opt().unwrap())
}

#[tokio::test]
async fn a_short_take_fails_the_commit_naming_it_and_keeps_the_others_too() {
    let (app, group) = spawn_group_with_seats().await;
    let store = app.state.store.as_ref();
    let (first, second) = two_visit_days();

    let short = day(group, second, SEATS as u32 + 1);
    match take(store, &[day(group, first, 2), short]).await {
        Err(StoreError::Short(places)) => assert_eq!(places, short),
        other => panic!("expected the second day to be short, got {other:?}"),
    }
    assert_eq!(
        reserved(&app, group, first).await,
        0,
        "the first day rolled back"
    );
    assert_eq!(reserved(&app, group, second).await, 0);

    take(
        store,
        &[day(group, first, 2), day(group, second, SEATS as u32)],
    )
    .await
    .unwrap();
    assert_eq!(reserved(&app, group, first).await, 2);
    assert_eq!(reserved(&app, group, second).await, i64::from(SEATS));
}

#[tokio::test]
async fn of_two_short_days_the_first_is_named() {
    let (app, group) = spawn_group_with_seats().await;
    let store = app.state.store.as_ref();
    let (first, second) = two_visit_days();
    let too_many = SEATS as u32 + 1;
    let asked = [day(group, first, too_many), day(group, second, too_many)];
    match take(store, &asked).await {
        Err(StoreError::Short(places)) => assert_eq!(places, asked[0]),
        other => panic!("expected the first day to be short, got {other:?}"),
    }
}

#[tokio::test]
async fn a_short_timeslot_after_a_day_with_places_is_the_one_named() {
    let (app, group) = spawn_group_with_seats().await;
    let store = app.state.store.as_ref();
    let on = visit_day();
    let start = Utc.from_utc_datetime(&on.and_hms_opt(9, 0, 0).unwrap());
    let slot = NewTimeslot {
        day: on,
        start_time: start,
        end_time: start + chrono::Duration::hours(1),
    };
    store
        .write_timeslots(group, &[slot], Some(1))
        .await
        .unwrap();
    let slot = store.timeslots(group, on, on).await.unwrap()[0].timeslot_id;

    let short = Places::Timeslot {
        timeslot_id: slot,
        quantity: 2,
    };
    match take(store, &[day(group, on, 2), short]).await {
        Err(StoreError::Short(places)) => assert_eq!(places, short),
        other => panic!("expected the timeslot to be short, got {other:?}"),
    }
    assert_eq!(reserved(&app, group, on).await, 0);

    let fits = Places::Timeslot {
        timeslot_id: slot,
        quantity: 1,
    };
    take(store, &[day(group, on, 1), fits]).await.unwrap();
    assert_eq!(reserved(&app, group, on).await, 1);
    assert_eq!(store.timeslots(group, on, on).await.unwrap()[0].reserved, 1);
}

#[tokio::test]
async fn racing_commits_take_exactly_the_places_left_and_leave_no_connection_in_a_transaction() {
    let (app, group) = spawn_group_with_seats().await;
    let store = app.state.store.clone();
    let on = visit_day();

    let outcomes = join_all((0..4 * SEATS).map(|_| {
        let store = store.clone();
        async move { take(store.as_ref(), &[day(group, on, 1)]).await }
    }))
    .await;
    let taken = outcomes.iter().filter(|o| o.is_ok()).count();
    let short = outcomes
        .iter()
        .filter(|o| matches!(o, Err(StoreError::Short(_))))
        .count();
    assert_eq!((taken, short), (SEATS as usize, 3 * SEATS as usize));
    assert_eq!(reserved(&app, group, on).await, i64::from(SEATS));

    // On Postgres the commit leaves an empty transaction for sqlx to roll back when the
    // connection goes back to the pool; none may be left open.
    if let Some(url) = app.postgres_url() {
        let admin = sqlx::PgPool::connect(url).await.unwrap();
        let mut open = -1;
        for _ in 0..50 {
            open = sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
            )
            .fetch_one(&admin)
            .await
            .unwrap();
            if open == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(open, 0, "connections left in a transaction");
    }
    // Every pooled connection still takes a write and its places.
    let other_day = on.succ_opt().unwrap();
    join_all((0..SEATS).map(|_| {
        let store = store.clone();
        async move {
            take(store.as_ref(), &[day(group, other_day, 1)])
                .await
                .unwrap()
        }
    }))
    .await;
    assert_eq!(reserved(&app, group, other_day).await, i64::from(SEATS));
}

#[tokio::test]
async fn an_unlimited_day_gets_its_row_when_first_taken() {
    let app = spawn_app().await;
    let group = shop(&app, None).await.group.parse().unwrap();
    let far = visit_day() + chrono::Duration::days(400);
    take(app.state.store.as_ref(), &[day(group, far, 3)])
        .await
        .unwrap();
    assert_eq!(reserved(&app, group, far).await, 3);
}

/// Checkouts taking the same two days, listed in either order, queue for them in one order:
/// none waits for a day another holds while that one waits for its other day (Postgres would
/// end such a deadlock by failing one of them).
#[tokio::test]
async fn commits_taking_two_days_in_either_order_never_deadlock() {
    const COMMITS: u32 = 60;
    let app = spawn_app().await;
    let store = app.state.store.clone();
    let group = shop(&app, None).await.group.parse().unwrap();
    let (first, second) = two_visit_days();
    // Unlimited days, their rows made first: every commit updates both rows.
    take(
        store.as_ref(),
        &[day(group, first, 1), day(group, second, 1)],
    )
    .await
    .unwrap();

    let outcomes = join_all((0..COMMITS).map(|n| {
        let store = store.clone();
        let days = if n % 2 == 0 {
            [day(group, first, 1), day(group, second, 1)]
        } else {
            [day(group, second, 1), day(group, first, 1)]
        };
        async move { take(store.as_ref(), &days).await }
    }))
    .await;
    for outcome in &outcomes {
        assert!(outcome.is_ok(), "a commit failed: {outcome:?}");
    }
    assert_eq!(reserved(&app, group, first).await, i64::from(COMMITS) + 1);
    assert_eq!(reserved(&app, group, second).await, i64::from(COMMITS) + 1);
}

#[tokio::test]
async fn a_keys_record_is_seen_from_its_claim_and_in_its_campaign_only() {
    let app = spawn_app().await;
    let store = app.state.store.as_ref();
    let shop = shop(&app, Some(SEATS)).await;
    let campaign: Uuid = shop.partner.campaign.parse().unwrap();
    let key = Uuid::new_v4();
    assert!(!store.idempotency_key_seen(campaign, key).await.unwrap());

    let now = Utc::now();
    let claim = claim_of(campaign, key, now);
    store.claim_idempotency_key(&claim, now).await.unwrap();
    assert!(
        store.idempotency_key_seen(campaign, key).await.unwrap(),
        "the key's claim is a record"
    );
    assert!(
        !store
            .idempotency_key_seen(Uuid::new_v4(), key)
            .await
            .unwrap(),
        "a key is a campaign's own"
    );
    store
        .release_idempotency_key(campaign, key, claim.owner)
        .await
        .unwrap();
    assert!(
        !store.idempotency_key_seen(campaign, key).await.unwrap(),
        "a released claim leaves no record"
    );
}

#[tokio::test]
async fn a_days_places_are_read_with_whether_a_key_has_a_record() {
    let app = spawn_app().await;
    let store = app.state.store.as_ref();
    let shop = shop(&app, Some(SEATS)).await;
    let (product, group): (Uuid, Uuid) =
        (shop.product.parse().unwrap(), shop.group.parse().unwrap());
    let campaign: Uuid = shop.partner.campaign.parse().unwrap();
    let key = Uuid::new_v4();
    take(store, &[day(group, visit_day(), 2)]).await.unwrap();

    let (priced, seen) = store
        .day_and_key_seen(product, visit_day(), campaign, key)
        .await
        .unwrap();
    let calendar = store
        .calendar(product, visit_day(), visit_day())
        .await
        .unwrap();
    assert_eq!(
        priced.as_ref(),
        calendar.first(),
        "the day as the calendar has it"
    );
    assert_eq!(
        priced.map(|d| (d.capacity, d.reserved)),
        Some((Some(SEATS), 2))
    );
    assert!(!seen);

    let now = Utc::now();
    let claim = claim_of(campaign, key, now);
    store.claim_idempotency_key(&claim, now).await.unwrap();
    let unpriced = visit_day() + chrono::Duration::days(400);
    let (priced, seen) = store
        .day_and_key_seen(product, unpriced, campaign, key)
        .await
        .unwrap();
    assert_eq!(priced, None, "a day without a price");
    assert!(seen, "the key's claim is a record");
    let (_, seen) = store
        .day_and_key_seen(product, visit_day(), Uuid::new_v4(), key)
        .await
        .unwrap();
    assert!(!seen, "a key is a campaign's own");
}

/// A claim of `key` in `campaign` at `now`, by a request of its own.
fn claim_of(
    campaign: Uuid,
    key: Uuid,
    now: chrono::DateTime<Utc>,
) -> server::store::IdempotentRequest {
    server::store::IdempotentRequest {
        campaign_id: campaign,
        key,
        request_hash: vec![1],
        customer_id: None,
        lock_until: now + chrono::Duration::seconds(90),
        expires_at: now + chrono::Duration::hours(24),
        owner: Uuid::new_v4(),
    }
}
