use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// What claiming an idempotency key found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// The key is ours: do the work, then complete or release it.
    Claimed,
    /// The same request already succeeded: replay this response.
    Replay { status: u16, body: Vec<u8> },
    /// The same request is being processed right now.
    InFlight,
    /// The key was used for a different request or by another user.
    Reused,
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
    /// Whether any record of the key exists (claimed, completed or stale); reads only.
    async fn idempotency_key_seen(&self, campaign_id: Uuid, key: Uuid) -> StoreResult<bool>;
    /// Gives a claimed key back after a failure, so a retry re-attempts cleanly.
    async fn release_idempotency_key(&self, campaign_id: Uuid, key: Uuid) -> StoreResult<()>;
    /// Forgets outcomes past their retention; returns how many.
    async fn purge_idempotency_records(&self, now: DateTime<Utc>) -> StoreResult<u64>;
}
