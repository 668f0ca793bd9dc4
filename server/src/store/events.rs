use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// A place in the polling feed: after the event of `seq` written by transaction `tx`. The
/// feed is ordered by `(tx, seq)`; `tx` is 0 on SQLite, whose one writer commits in `seq`
/// order (migration 0004). `FeedPosition::START` comes before every event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "StoredPosition")]
pub struct FeedPosition {
    pub tx: i64,
    pub seq: i64,
}

/// A position as cursors carry it: the struct, or the bare `event_seq` of the cursors made
/// before migration 0004, which are positions among the events it gave `tx` 0.
#[derive(Deserialize)]
#[serde(untagged)]
enum StoredPosition {
    Position { tx: i64, seq: i64 },
    Seq(i64),
}

impl From<StoredPosition> for FeedPosition {
    fn from(stored: StoredPosition) -> Self {
        match stored {
            StoredPosition::Position { tx, seq } => FeedPosition { tx, seq },
            StoredPosition::Seq(seq) => FeedPosition { tx: 0, seq },
        }
    }
}

impl FeedPosition {
    pub const START: FeedPosition = FeedPosition { tx: 0, seq: 0 };
}

/// An event as stored in the outbox.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRecord {
    /// Order of writing within the outbox.
    pub event_seq: i64,
    /// The writing transaction (Postgres; 0 on SQLite): with `event_seq`, the feed's order.
    pub tx_id: i64,
    pub event_id: Uuid,
    pub event_type: String,
    pub subject: String,
    pub occurred_at: DateTime<Utc>,
    pub data: sqlx::types::Json<serde_json::Value>,
}

impl EventRecord {
    /// Where the feed stands once this event has been read.
    pub fn position(&self) -> FeedPosition {
        FeedPosition {
            tx: self.tx_id,
            seq: self.event_seq,
        }
    }
}

/// A webhook delivery that is due, with what is needed to send it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueDelivery {
    pub webhook_delivery_id: Uuid,
    /// The claim this delivery was handed out under; only its holder records the outcome.
    pub claim_id: Uuid,
    pub partner_client_id: Uuid,
    pub attempts: i32,
    pub webhook_url: String,
    pub webhook_secret: String,
    pub event_id: Uuid,
    pub event_type: String,
    pub subject: String,
    pub occurred_at: DateTime<Utc>,
    pub data: sqlx::types::Json<serde_json::Value>,
}

/// The result of one delivery attempt.
#[derive(Debug, Clone)]
pub enum DeliveryOutcome {
    Delivered {
        status: u16,
    },
    /// Failed; tried again at `retry_at`, or given up when `None`.
    Failed {
        status: Option<u16>,
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
}

#[async_trait::async_trait]
pub trait EventStore {
    /// Events the partner `client_id` may see, in feed order, after `after`: those of the
    /// checkouts its sessions or requests created. Only settled events are handed out (every
    /// event that commits later sorts after them), so a poller that walks on from the last
    /// position it read never skips one.
    async fn events_for_client(
        &self,
        client_id: &str,
        after: FeedPosition,
        limit: u32,
    ) -> StoreResult<Vec<EventRecord>>;
    /// Partners with deliveries due and unclaimed at `now`, those waiting longest first.
    async fn partners_with_due_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<Uuid>>;
    /// Claims up to `limit` due deliveries (of `partner_client_id`, or of anyone) until
    /// `lock_until` under a new claim: no other claim gets them until then, on any node.
    async fn claim_due_deliveries(
        &self,
        partner_client_id: Option<Uuid>,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<DueDelivery>>;
    /// Gives back a claimed delivery that was not sent, due at once for the next claim.
    async fn release_delivery(&self, webhook_delivery_id: Uuid, claim_id: Uuid) -> StoreResult<()>;
    /// Records an attempt's outcome; ignored when the claim is no longer the delivery's.
    async fn record_delivery(
        &self,
        webhook_delivery_id: Uuid,
        claim_id: Uuid,
        outcome: &DeliveryOutcome,
    ) -> StoreResult<()>;
}

#[cfg(test)]
mod tests {
    use super::FeedPosition;

    #[test]
    fn a_position_round_trips_and_a_cursor_from_before_0004_reads_as_its_seq() {
        let p = FeedPosition { tx: 812, seq: 9 };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<FeedPosition>(&json).unwrap(), p);
        assert_eq!(
            serde_json::from_str::<FeedPosition>("41").unwrap(),
            FeedPosition { tx: 0, seq: 41 }
        );
    }
}
