//! The idempotency rule of the express checkout: one Idempotency-Key, one outcome
//! (docs/api-checkout.md, "Idempotency-Key").
//!
//! - The key is scoped to the campaign; the request it stands for is the SHA-256 of the parsed
//!   body and the customer. The same key with another request is 409 `idempotency-key-reused`.
//! - The key is claimed before anything is written, and the claim commits on its own: a second
//!   request with the key meanwhile gets 409 `idempotency-key-in-use`.
//! - The success is stored under the key by the transaction that makes it
//!   ([`IdempotencyKey::complete`]), and replayed byte for byte for [`RETENTION`].
//! - A failure releases the key ([`IdempotencyKey::release`]), so a retry re-attempts cleanly; a
//!   request that died holding its claim blocks retries for [`LOCK`], then is taken over. Each
//!   claim has an owner (the request that made it): a request whose claim was taken over can
//!   neither complete it (its transaction fails, 409) nor release it.
//! - A request refused before its claim writes nothing when its key has no record; a key with a
//!   record answers as if the claim had come first ([`IdempotencyKey::refused_before_claim`]).

use app::wire::ExpressCheckoutRequest;
use std::sync::OnceLock;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::plan::{DayReader, StoreDays};
use crate::{
    error::{Error, ProblemType, Result},
    state::AppState,
    store::{CalendarDay, CheckoutTx, IdempotencyClaim, IdempotentRequest, Store},
};

/// How long a claim blocks retries when its request died without releasing it.
pub const LOCK: Duration = Duration::seconds(90);
/// How long a success is replayed.
pub const RETENTION: Duration = Duration::hours(24);

/// An Idempotency-Key with the request it was sent with.
pub struct IdempotencyKey {
    request: IdempotentRequest,
}

/// What claiming a key gives when the request is to be carried out or replayed.
pub enum Claimed {
    /// The key is ours, with the checkout transaction begun on the connection that claimed it.
    Begun(Box<dyn CheckoutTx>),
    /// The same request succeeded before: its stored response.
    Replay(Vec<u8>),
}

impl IdempotencyKey {
    pub fn new(
        campaign_id: Uuid,
        key: Uuid,
        request: &ExpressCheckoutRequest,
        customer_id: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            request: IdempotentRequest {
                campaign_id,
                key,
                request_hash: request_hash(request),
                customer_id,
                lock_until: now + LOCK,
                expires_at: now + RETENTION,
                owner: Uuid::new_v4(),
            },
        }
    }

    /// Claims the key and begins the checkout transaction on the connection that claimed it
    /// (one wait for a connection, not two). Read everything the transaction needs first.
    pub async fn claim_and_begin(&self, state: &AppState, now: DateTime<Utc>) -> Result<Claimed> {
        let claim = state.store.claim_and_begin(&self.request, now).await?;
        match claim {
            IdempotencyClaim::Claimed(tx) => Ok(Claimed::Begun(tx)),
            IdempotencyClaim::Replay { body, .. } => Ok(Claimed::Replay(body)),
            IdempotencyClaim::InFlight => Err(in_use()),
            IdempotencyClaim::Reused => Err(reused()),
        }
    }

    /// Days for the plan, read together with whether this key has a record (with the first
    /// day read), so that a request refused for a sold-out day knows it without a read of its
    /// own: in a rush for the last places nearly every buyer is refused so.
    pub fn days<'a>(&'a self, store: &'a dyn Store) -> KeyedDays<'a> {
        KeyedDays {
            store,
            request: &self.request,
            seen: OnceLock::new(),
        }
    }

    /// The answer to a request refused before its key was claimed: the refusal, unless the
    /// key has a record, which then answers as the claim-first order would (`Ok` is the
    /// replay of an earlier success). A key with no record is not written: a rush of buyers
    /// refused for a sold-out day does not queue for the write lock. `days` tells whether the
    /// key had a record when the plan read its first day, if it got that far.
    pub async fn refused_before_claim(
        &self,
        state: &AppState,
        refusal: Error,
        days: &KeyedDays<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<u8>> {
        let r = &self.request;
        let seen = match days.seen.get() {
            Some(&seen) => seen,
            None => {
                state
                    .store
                    .idempotency_key_seen(r.campaign_id, r.key)
                    .await?
            }
        };
        if !seen {
            return Err(refusal);
        }
        match state.store.claim_idempotency_key(r, now).await? {
            IdempotencyClaim::Claimed(()) => {
                self.release(state).await;
                Err(refusal)
            }
            IdempotencyClaim::Replay { body, .. } => Ok(body),
            IdempotencyClaim::InFlight => Err(in_use()),
            IdempotencyClaim::Reused => Err(reused()),
        }
    }

    /// Stores `body` as the key's success, in the transaction that makes it; that transaction
    /// fails (409) should a retry have taken the claim over meanwhile.
    pub async fn complete(
        &self,
        tx: &mut dyn CheckoutTx,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<()> {
        Ok(tx
            .complete_idempotency(&self.request, 200, body, now)
            .await?)
    }

    /// Gives the claimed key back after a failure, unless a retry took it over. Should that
    /// fail too, the claim's lock runs out after [`LOCK`].
    pub async fn release(&self, state: &AppState) {
        let r = &self.request;
        if let Err(err) = state
            .store
            .release_idempotency_key(r.campaign_id, r.key, r.owner)
            .await
        {
            tracing::warn!(error = ?err, "releasing the idempotency key failed; its lock runs out in 90 s");
        }
    }
}

/// The plan's days, the first read with whether the key has a record
/// (`IdempotencyKey::days`).
pub struct KeyedDays<'a> {
    store: &'a dyn Store,
    request: &'a IdempotentRequest,
    seen: OnceLock<bool>,
}

#[async_trait::async_trait]
impl DayReader for KeyedDays<'_> {
    async fn day(&self, product_id: Uuid, day: NaiveDate) -> Result<Option<CalendarDay>> {
        if self.seen.get().is_some() {
            return StoreDays(self.store).day(product_id, day).await;
        }
        let r = self.request;
        let (priced, seen) = self
            .store
            .day_and_key_seen(product_id, day, r.campaign_id, r.key)
            .await?;
        let _ = self.seen.set(seen);
        Ok(priced)
    }
}

/// SHA-256 of the request as the server understood it (field order fixed by the type), so
/// whitespace or key order in the JSON do not make a retry a different request.
fn request_hash(request: &ExpressCheckoutRequest) -> Vec<u8> {
    let canonical = serde_json::to_vec(request).expect("a request serialises");
    Sha256::digest(canonical).to_vec()
}

fn in_use() -> Error {
    Error::new(
        ProblemType::IdempotencyKeyInUse,
        "A request with this Idempotency-Key is still being processed; retry shortly with the same key.",
    )
}

fn reused() -> Error {
    Error::new(
        ProblemType::IdempotencyKeyReused,
        "This Idempotency-Key was used for a different request; use a new key for a new request.",
    )
}
