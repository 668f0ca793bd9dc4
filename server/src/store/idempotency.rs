use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{backend::Backend, stored_names::stored_names, CalendarDay, StoreResult};

/// What claiming an idempotency key found; a claim may come with what was started for it
/// (the checkout transaction of [`IdempotencyStore::claim_and_begin`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim<T = ()> {
    /// The key is ours: do the work, then complete or release it.
    Claimed(T),
    /// The same request already succeeded: replay this response.
    Replay { status: u16, body: Vec<u8> },
    /// The same request is being processed right now.
    InFlight,
    /// The key was used for a different request or by another user.
    Reused,
}

impl<T> IdempotencyClaim<T> {
    /// What came with the claim, or the outcome that is not a claim (to answer with).
    pub fn claimed<U>(self) -> Result<T, IdempotencyClaim<U>> {
        match self {
            Self::Claimed(t) => Ok(t),
            Self::Replay { status, body } => Err(IdempotencyClaim::Replay { status, body }),
            Self::InFlight => Err(IdempotencyClaim::InFlight),
            Self::Reused => Err(IdempotencyClaim::Reused),
        }
    }
}

stored_names! {
    /// The state of a key's record: claimed by a request still running, done with its stored
    /// answer, or (refused by the table, migration 0006) completed by a request whose claim a
    /// retry took over.
    pub enum KeyState {
        InFlight => "IN_FLIGHT",
        Done => "DONE",
        TakenOver => "TAKEN_OVER",
    }
}

/// A request asking to be done at most once.
#[derive(Debug, Clone)]
pub struct IdempotentRequest {
    pub campaign_id: Uuid,
    pub key: Uuid,
    /// SHA-256 of the canonical request body.
    pub request_hash: Vec<u8>,
    pub customer_id: Option<Uuid>,
    /// Until when a crashed request's claim blocks retries.
    pub lock_until: DateTime<Utc>,
    /// When the stored outcome may be forgotten.
    pub expires_at: DateTime<Utc>,
    /// Who holds the claim: new for every request, so that a request whose claim a retry
    /// took over after its lock ran out can neither complete nor release the retry's claim.
    pub owner: Uuid,
}

/// How a database claims a key where the two differ; implemented in `sqlite/idempotency.rs`
/// and `postgres/idempotency.rs` by their [`Backend`], which the shared SQL names
/// `ThisBackend`.
pub(crate) trait KeyClaim: Backend {
    /// How the claim's insert ends its `SELECT` (`sql/idempotency.rs`, `claim_insert`).
    const CLAIM_SOURCE: &'static str;
    /// Whether `claim_and_begin`'s claim is part of the checkout's unit of work, and so is
    /// undone with it (SQLite's group commit), rather than committed on its own (Postgres).
    const CLAIM_IN_WORK: bool;
}

#[async_trait::async_trait]
pub trait IdempotencyStore {
    /// Claims the key, or reports why not. A claim whose lock ran out (its request crashed) or
    /// whose retention ended is taken over.
    async fn claim_idempotency_key(
        &self,
        request: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim>;
    /// Claims the key like `claim_idempotency_key` and, when it is ours, begins the checkout's
    /// unit of work where the claim was made, so the request waits for the writer once, not
    /// twice. On Postgres the claim commits on its own first (a concurrent retry sees it in
    /// flight; a crash leaves its lock to run out); on SQLite it is the first write of the
    /// unit of work, which holds the one writer until it ends, so nobody can see it in flight
    /// and a failure undoes it ([`IdempotencyStore::claim_ends_with_its_checkout`]). Read
    /// everything the transaction needs first; no pool calls while it is open.
    async fn claim_and_begin(
        &self,
        request: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim<Box<dyn super::CheckoutTx>>>;
    /// Whether a claim made by `claim_and_begin` is undone when its checkout fails, so that
    /// there is nothing to release.
    fn claim_ends_with_its_checkout(&self) -> bool;
    /// Whether any record of the key exists (claimed, completed or stale); reads only.
    async fn idempotency_key_seen(&self, campaign_id: Uuid, key: Uuid) -> StoreResult<bool>;
    /// `CalendarStore::calendar` for one day, read in the same query as
    /// `idempotency_key_seen`: a request refused from its plan (a sold-out day) learns whether
    /// its key has a record without a read of its own (the `seen` that `express.rs` hands to
    /// `checkout::idempotency::IdempotencyKey::refused_before_claim`).
    async fn day_and_key_seen(
        &self,
        product_id: Uuid,
        day: NaiveDate,
        campaign_id: Uuid,
        key: Uuid,
    ) -> StoreResult<(Option<CalendarDay>, bool)>;
    /// Gives a claimed key back after a failure, so a retry re-attempts cleanly; only the
    /// claim `owner` holds (a retry may have taken it over).
    async fn release_idempotency_key(
        &self,
        campaign_id: Uuid,
        key: Uuid,
        owner: Uuid,
    ) -> StoreResult<()>;
    /// Forgets outcomes past their retention; returns how many.
    async fn purge_idempotency_records(&self, now: DateTime<Utc>) -> StoreResult<u64>;
}
