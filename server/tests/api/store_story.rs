//! The store story: the same scenarios through the `Store` trait on whichever backend the run
//! uses (SQLite, or Postgres with TEST_DATABASE_URL), including the races the database settles.

use std::{collections::HashSet, sync::Arc};

use chrono::{Duration, Utc};
use server::store::{
    CampaignInput, CustomerDetails, CustomerKey, IdempotencyClaim, IdempotencyStore,
    IdempotentRequest, KeyPurpose, NewSession, Redemption, SigningKey, Store, StoreError,
};
use uuid::Uuid;

use crate::helpers::{spawn_app, upsert_partner_customer};

async fn store() -> (crate::helpers::TestApp, Arc<dyn Store>) {
    let app = spawn_app().await;
    let store = app.state.store.clone();
    (app, store)
}

/// The store with one partner client (in one campaign); its stored id.
async fn store_with_partner() -> (crate::helpers::TestApp, Arc<dyn Store>, Uuid) {
    let (app, store) = store().await;
    let (_, client) = app.campaign_with_client("shop").await;
    let partner = app.partner_client_id(&client.client_id).await;
    (app, store, partner)
}

#[tokio::test]
async fn campaigns_round_trip_with_exact_decimals() {
    let (_app, store) = store().await;
    let id = Uuid::new_v4();
    let input = CampaignInput {
        name: "Story".into(),
        loyalty_points_per_unit: "1.25".parse().unwrap(),
        commission: None,
    };
    let created = store.create_campaign(id, &input).await.unwrap();
    assert_eq!(created.loyalty_points_per_unit, "1.25".parse().unwrap());
    assert!(
        store.create_campaign(id, &input).await.is_err(),
        "duplicate id is a conflict"
    );
    assert_eq!(store.campaign(id).await.unwrap().unwrap().name, "Story");
    assert!(store.campaign(Uuid::new_v4()).await.unwrap().is_none());
}

#[tokio::test]
async fn nodes_starting_together_converge_on_one_key() {
    let (_app, store) = store().await;
    let attempts = (0..10).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let candidate = SigningKey {
                signing_key_id: format!("candidate-{i}"),
                algorithm: "HS256".into(),
                secret: vec![i as u8; 32],
                public_key: None,
                active: true,
                created_at: Utc::now(),
            };
            store
                .ensure_active_key(KeyPurpose::Cursor, candidate)
                .await
                .unwrap()
                .signing_key_id
        })
    });
    let winners: HashSet<String> = futures::future::join_all(attempts)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(winners.len(), 1, "one active cursor key: {winners:?}");
}

#[tokio::test]
async fn customers_are_upserted_by_their_key() {
    let (_app, store, partner) = store_with_partner().await;
    let key = CustomerKey::Partner {
        partner_client_id: partner,
        reference: "ref-1",
    };
    let first = store
        .upsert_customer(
            key,
            &CustomerDetails {
                email: Some("a@b.nl".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let again = upsert_partner_customer(store.as_ref(), partner, "ref-1").await;
    assert_eq!(first, again);
    let other = upsert_partner_customer(store.as_ref(), partner, "ref-2").await;
    assert_ne!(first, other);
}

#[tokio::test]
async fn a_session_code_is_redeemed_by_exactly_one_of_many_racers() {
    let (_app, store, partner) = store_with_partner().await;
    let customer = upsert_partner_customer(store.as_ref(), partner, "r").await;
    let hash = vec![7u8; 32];
    store
        .create_session(&NewSession {
            partner_session_id: Uuid::new_v4(),
            code_hash: hash.clone(),
            partner_client_id: Some(partner),
            customer_id: customer,
            campaign_id: None,
            mode: server::store::SessionMode::Headless,
            code_challenge: None,
            code_expires_at: Utc::now() + Duration::minutes(5),
            redeemed_with: None,
            integrator_params: Default::default(),
            prefill: None,
        })
        .await
        .unwrap();
    let racers = (0..20).map(|_| {
        let store = store.clone();
        let hash = hash.clone();
        tokio::spawn(async move {
            store
                .redeem_session_code(&hash, Some(partner), Uuid::new_v4(), Utc::now())
                .await
                .unwrap()
        })
    });
    let outcomes = futures::future::join_all(racers).await;
    let redeemed = outcomes
        .iter()
        .filter(|o| matches!(o.as_ref().unwrap(), Redemption::Redeemed(_)))
        .count();
    assert_eq!(redeemed, 1);
    let session = store.session_by_code(&hash).await.unwrap().unwrap();
    assert!(
        session.revoked_at.is_some(),
        "the replays revoked the session"
    );
}

fn idempotent(
    campaign: Uuid,
    key: Uuid,
    body: &[u8],
    now: chrono::DateTime<Utc>,
) -> IdempotentRequest {
    IdempotentRequest {
        campaign_id: campaign,
        key,
        request_hash: body.to_vec(),
        customer_id: None,
        lock_until: now + Duration::seconds(90),
        expires_at: now + Duration::hours(24),
        owner: Uuid::new_v4(),
    }
}

/// Runs ten `attempt`s at once, each on a task of its own with its own handle on `store`, and
/// gives back their outcomes.
async fn ten_at_once<T, F>(store: &Arc<dyn Store>, attempt: impl Fn(Arc<dyn Store>) -> F) -> Vec<T>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    futures::future::join_all((0..10).map(|_| tokio::spawn(attempt(store.clone()))))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

#[tokio::test]
async fn an_idempotency_key_is_claimed_once_and_its_stale_lock_taken_over() {
    let (_app, store) = store().await;
    let (campaign, key, now) = (Uuid::new_v4(), Uuid::new_v4(), Utc::now());
    let outcomes = ten_at_once(&store, |store| async move {
        store
            .claim_idempotency_key(&idempotent(campaign, key, b"a", now), now)
            .await
            .unwrap()
    })
    .await;
    assert_eq!(
        outcomes
            .iter()
            .filter(|c| **c == IdempotencyClaim::Claimed(()))
            .count(),
        1
    );
    assert!(outcomes.iter().all(|c| matches!(
        c,
        IdempotencyClaim::Claimed(()) | IdempotencyClaim::InFlight
    )));

    let other_body = store
        .claim_idempotency_key(&idempotent(campaign, key, b"b", now), now)
        .await
        .unwrap();
    assert_eq!(other_body, IdempotencyClaim::Reused);

    let later = now + Duration::seconds(91);
    let taker = idempotent(campaign, key, b"a", later);
    let taken = store.claim_idempotency_key(&taker, later).await.unwrap();
    assert_eq!(
        taken,
        IdempotencyClaim::Claimed(()),
        "a crashed request's lock expires"
    );

    store
        .release_idempotency_key(campaign, key, taker.owner)
        .await
        .unwrap();
    let again = store
        .claim_idempotency_key(&idempotent(campaign, key, b"c", later), later)
        .await
        .unwrap();
    assert_eq!(
        again,
        IdempotencyClaim::Claimed(()),
        "a released key is free for any body"
    );

    let day_later = later + Duration::hours(25);
    assert_eq!(store.purge_idempotency_records(day_later).await.unwrap(), 1);
}

/// On Postgres a claim turns `synchronous_commit` off for its own transaction only: a
/// connection that kept the setting would commit every later order without waiting for the disk.
#[tokio::test]
async fn on_postgres_a_claims_unflushed_commit_does_not_outlive_the_claim() {
    let app = spawn_app().await;
    let Some(url) = app.postgres_url() else {
        return; // SQLite has no such setting
    };
    // One connection, so the claims and the checks share it.
    let store = server::store::postgres::PostgresStore::connect(url, 1)
        .await
        .unwrap();
    let setting = || async {
        sqlx::query_scalar::<_, String>("SHOW synchronous_commit")
            .fetch_one(store.pool())
            .await
            .unwrap()
    };
    assert_eq!(setting().await, "on", "the server's default");
    let now = Utc::now();

    let claimed = store
        .claim_idempotency_key(&idempotent(Uuid::new_v4(), Uuid::new_v4(), b"a", now), now)
        .await
        .unwrap();
    assert_eq!(claimed, IdempotencyClaim::Claimed(()));
    assert_eq!(setting().await, "on", "after a claim");

    let request = idempotent(Uuid::new_v4(), Uuid::new_v4(), b"a", now);
    let Ok(tx) = store
        .claim_and_begin(&request, now)
        .await
        .unwrap()
        .claimed::<()>()
    else {
        panic!("expected a claim");
    };
    tx.commit().await.unwrap();
    assert_eq!(setting().await, "on", "after a claim and its transaction");
    let threshold = sqlx::query_scalar::<_, String>("SHOW client_min_messages")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(threshold, "notice", "the claim's quiet commit is its own");

    // A key with a row fails the one-message claim; the connection is fine after it.
    assert!(matches!(
        store.claim_and_begin(&request, now).await.unwrap(),
        IdempotencyClaim::InFlight
    ));
    assert_eq!(setting().await, "on", "after a claim that found a row");
}

#[tokio::test]
async fn a_key_claimed_with_its_transaction_stays_or_goes_with_it_as_its_database_says() {
    let (_app, store) = store().await;
    let (campaign, key, now) = (Uuid::new_v4(), Uuid::new_v4(), Utc::now());
    let request = idempotent(campaign, key, b"a", now);

    let IdempotencyClaim::Claimed(tx) = store.claim_and_begin(&request, now).await.unwrap() else {
        panic!("a new key is claimed");
    };
    drop(tx);
    if store.claim_ends_with_its_checkout() {
        // SQLite: the claim was the transaction's first write, and its rollback undid it.
        assert_eq!(
            store.claim_idempotency_key(&request, now).await.unwrap(),
            IdempotencyClaim::Claimed(())
        );
    } else {
        // Postgres: rolled back, the transaction leaves the claim: it committed on its own.
        assert_eq!(
            store.claim_idempotency_key(&request, now).await.unwrap(),
            IdempotencyClaim::InFlight
        );
        assert!(matches!(
            store.claim_and_begin(&request, now).await.unwrap(),
            IdempotencyClaim::InFlight
        ));
    }

    // Completed in the transaction, the success is replayed.
    store
        .release_idempotency_key(campaign, key, request.owner)
        .await
        .unwrap();
    let IdempotencyClaim::Claimed(mut tx) = store.claim_and_begin(&request, now).await.unwrap()
    else {
        panic!("a released key is claimed again");
    };
    tx.complete_idempotency(&request, 200, b"{}", now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    match store.claim_and_begin(&request, now).await.unwrap() {
        IdempotencyClaim::Replay { status, body } => {
            assert_eq!((status, &body[..]), (200, &b"{}"[..]))
        }
        _ => panic!("the stored success is replayed"),
    }
    assert!(matches!(
        store
            .claim_and_begin(&idempotent(campaign, key, b"b", now), now)
            .await
            .unwrap(),
        IdempotencyClaim::Reused
    ));
}

#[tokio::test]
async fn claims_with_their_transactions_race_for_a_key_and_one_wins() {
    let (_app, store) = store().await;
    let (campaign, key, now) = (Uuid::new_v4(), Uuid::new_v4(), Utc::now());
    let outcomes = ten_at_once(&store, |store| async move {
        let claim = store
            .claim_and_begin(&idempotent(campaign, key, b"a", now), now)
            .await
            .unwrap();
        match claim {
            // Ended at once (SQLite's one writer waits for it); the claim stays in flight.
            IdempotencyClaim::Claimed(tx) => {
                tx.commit().await.unwrap();
                true
            }
            IdempotencyClaim::InFlight => false,
            IdempotencyClaim::Replay { .. } => panic!("nothing was stored to replay"),
            IdempotencyClaim::Reused => panic!("every claim sends the same request"),
        }
    })
    .await;
    assert_eq!(
        outcomes.iter().filter(|won| **won).count(),
        1,
        "one claim wins"
    );
}

/// A claim made with its transaction stores the request as given: the lock ends at its
/// instant to the microsecond, and the hash and customer tell a retry from another request.
#[tokio::test]
async fn a_claim_with_its_transaction_keeps_the_requests_values() {
    use chrono::SubsecRound;
    let (_app, store) = store().await;
    let (campaign, key) = (Uuid::new_v4(), Uuid::new_v4());
    let now = Utc::now().trunc_subsecs(6);
    let request = IdempotentRequest {
        customer_id: Some(Uuid::new_v4()),
        ..idempotent(campaign, key, &[0, 255, 62, 63], now)
    };
    let IdempotencyClaim::Claimed(tx) = store.claim_and_begin(&request, now).await.unwrap() else {
        panic!("a new key is claimed");
    };
    tx.commit().await.unwrap();

    let at = |t| IdempotentRequest {
        lock_until: t + Duration::seconds(90),
        ..request.clone()
    };
    let just_before = request.lock_until - Duration::microseconds(1);
    assert_eq!(
        store
            .claim_idempotency_key(&at(just_before), just_before)
            .await
            .unwrap(),
        IdempotencyClaim::InFlight,
        "the same request, a microsecond before the lock ends"
    );
    let other_customer = IdempotentRequest {
        customer_id: Some(Uuid::new_v4()),
        ..at(just_before)
    };
    assert_eq!(
        store
            .claim_idempotency_key(&other_customer, just_before)
            .await
            .unwrap(),
        IdempotencyClaim::Reused
    );
    let ends = request.lock_until;
    assert!(
        matches!(
            store.claim_and_begin(&at(ends), ends).await.unwrap(),
            IdempotencyClaim::Claimed(_)
        ),
        "taken over when the lock ends"
    );
}

/// A request that outlived its claim's lock finds a retry holding the key: it can neither
/// complete the retry's claim (its transaction fails and keeps nothing) nor release it.
#[tokio::test]
async fn a_request_whose_claim_a_retry_took_over_can_neither_complete_nor_release_it() {
    let (app, store) = store().await;
    let campaign: Uuid = app.create_campaign("c").await.parse().unwrap();
    let key = Uuid::new_v4();
    let start = Utc::now();
    let original = idempotent(campaign, key, b"a", start);
    assert_eq!(
        store.claim_idempotency_key(&original, start).await.unwrap(),
        IdempotencyClaim::Claimed(())
    );

    // The original is slow; after its lock ran out a retry of the same request takes over.
    let later = start + Duration::seconds(91);
    let retry = idempotent(campaign, key, b"a", later);
    assert_eq!(
        store.claim_idempotency_key(&retry, later).await.unwrap(),
        IdempotencyClaim::Claimed(())
    );

    // The late original's transaction fails at its commit, with everything it wrote.
    let mut late = store.begin_checkout().await.unwrap();
    late.complete_idempotency(&original, 200, b"late", later)
        .await
        .unwrap();
    let outcome = late.commit().await;
    assert!(
        matches!(outcome, Err(StoreError::Conflict(_))),
        "a late original cannot complete the retry's claim: {outcome:?}"
    );
    // Nor can it give the retry's claim back.
    store
        .release_idempotency_key(campaign, key, original.owner)
        .await
        .unwrap();
    let third = idempotent(campaign, key, b"a", later);
    assert_eq!(
        store.claim_idempotency_key(&third, later).await.unwrap(),
        IdempotencyClaim::InFlight,
        "the retry still holds the key"
    );

    // The retry completes its claim, and that is the key's outcome.
    let mut done = store.begin_checkout().await.unwrap();
    done.complete_idempotency(&retry, 200, b"retry", later)
        .await
        .unwrap();
    done.commit().await.unwrap();
    match store.claim_idempotency_key(&third, later).await.unwrap() {
        IdempotencyClaim::Replay { body, .. } => assert_eq!(body, b"retry"),
        other => panic!("the retry's success is replayed, not {other:?}"),
    }
}
