use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// An event as stored in the outbox.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRecord {
    /// Position in the outbox: the order events happened in, and the cursor of `GET /v2/events`.
    pub event_seq: i64,
    pub event_id: Uuid,
    pub event_type: String,
    pub subject: String,
    pub occurred_at: DateTime<Utc>,
    pub data: sqlx::types::Json<serde_json::Value>,
}

/// A webhook delivery that is due, with what is needed to send it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueDelivery {
    pub webhook_delivery_id: Uuid,
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
    /// Events the partner `client_id` may see, oldest first, after `after_seq`: those its own
    /// sessions caused, and guests' events in campaigns it may use.
    async fn events_for_client(
        &self,
        client_id: &str,
        after_seq: Option<i64>,
        limit: u32,
    ) -> StoreResult<Vec<EventRecord>>;
    /// Locks up to `limit` due deliveries until `lock_until`, so concurrent workers (on any
    /// node) do not send the same delivery at once.
    async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<DueDelivery>>;
    async fn record_delivery(
        &self,
        webhook_delivery_id: Uuid,
        outcome: &DeliveryOutcome,
    ) -> StoreResult<()>;
}
