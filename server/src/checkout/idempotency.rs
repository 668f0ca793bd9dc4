//! The idempotency rule of the express checkout: one Idempotency-Key, one outcome
//! (docs/api-checkout.md, "Idempotency-Key").
//!
//! - The key is scoped to the campaign; the request it stands for is the SHA-256 of the parsed
//!   body and the customer. The same key with another request is 409 `idempotency-key-reused`.
//! - The key is claimed before anything is written. On PostgreSQL the claim commits on its own:
//!   a second request with the key meanwhile gets 409 `idempotency-key-in-use`. On SQLite it is
//!   the first write of the checkout's transaction, which holds the one writer until it ends,
//!   so a second request waits for the first's outcome instead (its replay, or a clean retry).
//! - The success is stored under the key by the transaction that makes it
//!   ([`IdempotencyKey::complete`]), and replayed byte for byte for [`RETENTION`].
//! - A failure releases the key ([`IdempotencyKey::release`]), so a retry re-attempts cleanly; a
//!   request that died holding its claim blocks retries for [`LOCK`], then is taken over. Each
//!   claim has an owner (the request that made it): a request whose claim was taken over can
//!   neither complete it (its transaction fails, 409) nor release it.
//! - A request refused before its claim writes nothing when its key has no record; a key with a
//!   record answers as if the claim had come first ([`IdempotencyKey::refused_before_claim`]).
//!
//! Every file of the rule:
//! - this file: the rule's steps, over the store's `IdempotencyStore`;
//! - `checkout/express.rs`: when each step runs (plan → claim → transaction → complete or
//!   release), and the plan's first day read with whether the key has a record;
//! - `api/checkouts.rs`: the `Idempotency-Key` header (required, a UUID) and the 208 of a
//!   replay;
//! - `store/idempotency.rs`: the store's side (`IdempotencyStore`, `IdempotencyTx`,
//!   `KeyClaim`);
//! - `store/sql/idempotency.rs`: every statement of the key, on both databases;
//! - `store/postgres/idempotency.rs` and `store/sqlite/idempotency.rs`: what each database
//!   does its own way (PostgreSQL's one-message claim and unflushed claim commit);
//! - migrations `0001` (the table) and `0006` (the owner, `TAKEN_OVER` refused).

use app::wire::ExpressCheckoutRequest;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::Commerce;
use crate::{
    error::{Error, ProblemType, Result},
    store::{CheckoutTx, IdempotencyClaim, IdempotentRequest},
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
                owner: crate::ids::random_id(),
            },
        }
    }

    /// The key of a change after the sale (`kind` on `order_id`, asked with `body`): the same
    /// rules as the express checkout's, in the order's campaign.
    pub fn of_change(
        campaign_id: Uuid,
        key: Uuid,
        what: (&str, Uuid, &impl serde::Serialize),
        customer_id: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            request: IdempotentRequest {
                campaign_id,
                key,
                request_hash: request_hash(&what),
                customer_id,
                lock_until: now + LOCK,
                expires_at: now + RETENTION,
                owner: crate::ids::random_id(),
            },
        }
    }

    /// Claims the key and begins the checkout transaction on the connection that claimed it
    /// (one wait for a connection, not two). Read everything the transaction needs first.
    pub async fn claim_and_begin(&self, state: &Commerce, now: DateTime<Utc>) -> Result<Claimed> {
        let claim = state.store.claim_and_begin(&self.request, now).await?;
        match claim {
            IdempotencyClaim::Claimed(tx) => Ok(Claimed::Begun(tx)),
            IdempotencyClaim::Replay { body, .. } => Ok(Claimed::Replay(body)),
            IdempotencyClaim::InFlight => Err(in_use()),
            IdempotencyClaim::Reused => Err(reused()),
        }
    }

    /// The key the client sent.
    pub fn key(&self) -> Uuid {
        self.request.key
    }

    /// The answer to a request refused before its key was claimed: the refusal, unless the
    /// key has a record, which then answers as the claim-first order would (`Ok` is the
    /// replay of an earlier success). A key with no record is not written: a rush of buyers
    /// refused for a sold-out day does not queue for the write lock. `seen` is whether the
    /// key had a record when the plan read its first day, if it got that far.
    pub async fn refused_before_claim(
        &self,
        state: &Commerce,
        refusal: Error,
        seen: Option<bool>,
        now: DateTime<Utc>,
    ) -> Result<Vec<u8>> {
        let r = &self.request;
        let seen = match seen {
            Some(seen) => seen,
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
    pub async fn release(&self, state: &Commerce) {
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

/// SHA-256 of the request as the server understood it (field order fixed by the type), so
/// whitespace or key order in the JSON do not make a retry a different request.
fn request_hash(request: &impl serde::Serialize) -> Vec<u8> {
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
