//! `POST /v2/checkouts/express`: reserve and confirm in one call, exactly once per
//! Idempotency-Key.
//!
//! Order of checks (the express error table, decisions.md §5): the bearer (401), the key
//! (400), the campaign (400/403/404), the body and the customer's fields (400, then 422 for
//! details a provider would reject), the key's claim (208 replay, 409 in flight or reused),
//! the basket and its products (400), date and time (400), the shipping address (400), price
//! and capacity (422), the providers (422/502). Everything after the claim runs in one
//! transaction that also stores the success under the key: a failure keeps nothing, releases
//! the key, and a retry with the same key re-attempts cleanly.
//!
//! The basket is planned before the claim, so a request that is bound to fail and whose key
//! has no record is answered without a write; the answer is the one the claim-first order
//! gives, as there is nothing to replay.

use std::convert::Infallible;

use app::wire::{Envelope, ExpressCheckoutRequest, Locale, PlacedOrder};
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{
    basket, customer,
    place::{place_order, Confirming},
    plan::{plan, KeyProbe},
    reserve::{self, Buyer, Reservation},
};
use crate::{
    error::{Error, ProblemType, Result},
    http::envelope,
    state::AppState,
    store::{IdempotencyClaim, IdempotentRequest},
};

/// How long a claim blocks retries when its request died without releasing it.
pub const LOCK: Duration = Duration::seconds(90);
/// How long a success is replayed.
pub const RETENTION: Duration = Duration::hours(24);

/// The response body to send, and whether it is a replay of an earlier success.
#[derive(Debug)]
pub enum Express {
    Placed(Vec<u8>),
    Replayed(Vec<u8>),
}

/// SHA-256 of the request as the server understood it (field order fixed by the type), so
/// whitespace or key order in the JSON do not make a retry a different request.
fn request_hash(request: &ExpressCheckoutRequest) -> Vec<u8> {
    let canonical = serde_json::to_vec(request).expect("a request serialises");
    Sha256::digest(canonical).to_vec()
}

/// The success as it is answered and stored under the key (replays send these bytes).
pub fn response_body(placed: PlacedOrder) -> Result<Vec<u8>> {
    let body = serde_json::to_vec(&Envelope {
        data: placed,
        meta: envelope::meta(),
    })
    .map_err(anyhow::Error::from)?;
    Ok(body)
}

pub async fn express(
    state: &AppState,
    campaign_id: Uuid,
    buyer: Buyer,
    locale: Locale,
    key: Uuid,
    request: ExpressCheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Express> {
    let hash = request_hash(&request);
    let has_address = request.shipping_address.is_some();
    let (basket_request, customer_request) = request.split();
    basket::check(&basket_request.lines)?;
    basket::check_fields(
        &basket_request.voucher_codes,
        basket_request.external_reference.as_deref(),
    )?;
    let fields = customer::validate(
        state,
        campaign_id,
        buyer.partner_client_id,
        &customer_request,
    )
    .await?;

    // The basket is planned, and the discounts read, before the key is claimed. A request
    // bound to fail (an unknown product, a past date, a sold-out day) whose key has no record
    // has nothing to replay or wait for, so it fails here without writing anything: a rush for
    // the last places does not queue the refused for the write lock. A key with a record takes
    // the claim, which replays or refuses it as the table says; the plan is then made again
    // after the claim.
    let reservation = Reservation {
        confirmed: Some(&fields),
        checkout_id: Uuid::new_v4(),
        campaign_id,
        request: &basket_request,
        buyer,
        locale,
        now,
    };
    let probe = KeyProbe::new(campaign_id, key);
    let ready = || async {
        let plan = plan(
            state,
            campaign_id,
            locale,
            &basket_request,
            Some(has_address),
            Some(&probe),
            now,
        )
        .await?;
        let prepared = reserve::prepare(state, &plan, &reservation).await?;
        Ok::<_, Error>((plan, prepared))
    };
    let early = match ready().await {
        Ok(ready) => Some(ready),
        Err(refusal) => {
            // Asked along with the day's places when the plan got that far: a sold-out day.
            let seen = match probe.seen() {
                Some(seen) => seen,
                None => state.store.idempotency_key_seen(campaign_id, key).await?,
            };
            if !seen {
                return Err(refusal);
            }
            None
        }
    };

    // With everything read, the key is claimed and the transaction begun on the connection
    // that claimed it (one wait for a connection, not two).
    let claim = IdempotentRequest {
        campaign_id,
        key,
        request_hash: hash,
        customer_id: buyer.customer_id,
        lock_until: now + LOCK,
        expires_at: now + RETENTION,
    };
    let claimed = match early {
        Some(ready) => state
            .store
            .claim_and_begin(&claim, now)
            .await?
            .claimed::<Infallible>()
            .map(|tx| Some((ready, tx))),
        None => state
            .store
            .claim_idempotency_key(&claim, now)
            .await?
            .claimed::<Infallible>()
            .map(|()| None),
    };
    let started = match claimed {
        Ok(started) => started,
        Err(IdempotencyClaim::Claimed(never)) => match never {},
        Err(IdempotencyClaim::Replay { body, .. }) => return Ok(Express::Replayed(body)),
        Err(IdempotencyClaim::InFlight) => {
            return Err(Error::new(
                ProblemType::IdempotencyKeyInUse,
                "A request with this Idempotency-Key is still being processed; retry shortly with the same key.",
            ))
        }
        Err(IdempotencyClaim::Reused) => {
            return Err(Error::new(
                ProblemType::IdempotencyKeyReused,
                "This Idempotency-Key was used for a different request; use a new key for a new request.",
            ))
        }
    };

    let attempt = async {
        let ((plan, prepared), tx) = match started {
            Some(started) => started,
            None => {
                let ready = ready().await?;
                (ready, state.store.begin_checkout().await?)
            }
        };
        let (mut reserved, checkout) =
            reserve::reserve_in(tx, prepared, &plan, &reservation).await?;
        let placed = place_order(
            state,
            reserved.tx(),
            &Confirming {
                checkout_id: reservation.checkout_id,
                campaign_id,
                customer_id: buyer.customer_id,
                partner_client_id: buyer.partner_client_id,
                total: checkout.total,
                currency: checkout.currency.clone(),
            },
            &fields,
            now,
        )
        .await?;
        let body = response_body(placed)?;
        reserved
            .tx()
            .complete_idempotency(campaign_id, key, 200, &body)
            .await?;
        reserved.hold_and_commit().await?;
        Ok::<_, Error>(body)
    };
    match attempt.await {
        Ok(body) => {
            state.catalog.capacity_changed();
            Ok(Express::Placed(body))
        }
        Err(err) => {
            if let Err(release) = state.store.release_idempotency_key(campaign_id, key).await {
                tracing::warn!(error = ?release, "releasing the idempotency key failed; its lock runs out in 90 s");
            }
            Err(err)
        }
    }
}
