//! `EventStore`: the outbox, its polling feed and webhook deliveries.

use app::wire::DeliveryStatus;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::claim::Queue;
use super::{Batch, SqlStore, ThisBackend, ThisDialect};
use crate::events::NewEvent;
use crate::store::{
    backend::Backend, batch::values, dialect::Dialect, DeliveryOutcome, DueDelivery, EventRecord,
    EventStore, FeedPosition, StoreResult,
};

/// Adds `events` to the caller's batch for the outbox, in order, with a pending webhook
/// delivery for the partner that should hear of each (when it registered a webhook), so the
/// events commit or roll back with the change they report. Two statements whatever the count:
/// the events, and their deliveries, whose recipients the database picks as it inserts them
/// (nothing is read first, so writing events costs no round trip of its own). The events'
/// `tx_id` is their column's default: the writing transaction on Postgres (migration 0004).
pub(super) fn insert_events(batch: &mut Batch, events: &[(Uuid, NewEvent)]) {
    if events.is_empty() {
        return;
    }
    let now = Utc::now();
    batch.statement(&format!(
        "INSERT INTO event (event_id, event_type, source, subject, occurred_at, campaign_id, partner_client_id, data)
         VALUES {}",
        values(events.len(), 8)
    ));
    for (event_id, event) in events {
        batch
            .bind(*event_id)
            .bind(event.event_type.as_str())
            .bind("boxoffice")
            .bind(event.subject.clone())
            .bind(now)
            .bind(event.campaign_id)
            .bind(event.partner_client_id)
            .bind(sqlx::types::Json(event.data.clone()));
    }
    // An event goes to the partner the checkout is attributed to, and to nobody else; a
    // checkout attributed to nobody (docs/security.md) has no recipient. So an event has one
    // delivery at most, named by the event's id.
    let now_at = events.len() * 2 + 1;
    batch.statement(&format!(
        "INSERT INTO webhook_delivery (webhook_delivery_id, event_id, partner_client_id, status, attempts,
             next_attempt_at, created_at, updated_at)
         SELECT e.column1, e.column1, pc.partner_client_id, 'PENDING', 0, ${now_at}, ${now_at}, ${now_at}
         FROM (VALUES {events}) AS e
         JOIN partner_client pc
           ON pc.partner_client_id = e.column2
          AND pc.webhook_url IS NOT NULL AND pc.webhook_secret IS NOT NULL",
        events = values(events.len(), 2),
    ));
    for (event_id, event) in events {
        batch.bind(*event_id).bind(event.partner_client_id);
    }
    batch.bind(now);
}

/// The webhook deliveries, claimed by the webhook worker (`events/webhooks.rs`).
const DELIVERIES: Queue = Queue {
    table: "webhook_delivery",
    key: "webhook_delivery_id",
};

#[async_trait::async_trait]
impl EventStore for SqlStore {
    async fn events_for_client(
        &self,
        client_id: &str,
        after: FeedPosition,
        limit: u32,
    ) -> StoreResult<Vec<EventRecord>> {
        let mut conn = self.pool.acquire().await?;
        // The position and the settled condition are one ordering: (tx_id, event_seq). An event
        // that commits after this read has a later position than any the read returns
        // (`Backend::FEED_SETTLED`), so the caller's next read, from the last position it got,
        // still finds it.
        let events: Vec<EventRecord> = sqlx::query_as(&format!(
            "SELECT e.event_seq, e.tx_id, e.event_id, e.event_type, e.subject, e.occurred_at, e.data
             FROM event e JOIN partner_client pc ON pc.partner_client_id = e.partner_client_id
             WHERE pc.client_id = $1
               AND (e.tx_id > $2 OR (e.tx_id = $2 AND e.event_seq > $3))
               AND {settled}
             ORDER BY e.tx_id, e.event_seq LIMIT $4",
            settled = ThisDialect::FEED_SETTLED,
        ))
        .bind(client_id)
        .bind(after.tx)
        .bind(after.seq)
        .bind(i64::from(limit))
        .fetch_all(&mut *conn)
        .await?;
        // A partner acts on what it reads here: nothing it reads may be lost afterwards.
        if !events.is_empty() {
            self.wait_for_disk(&mut conn).await?;
        }
        Ok(events)
    }

    async fn partners_with_due_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT d.partner_client_id FROM webhook_delivery d
             JOIN partner_client pc ON pc.partner_client_id = d.partner_client_id
             WHERE {due}
               AND pc.webhook_url IS NOT NULL AND pc.webhook_secret IS NOT NULL
             GROUP BY d.partner_client_id ORDER BY MIN(d.next_attempt_at) LIMIT $2",
            due = DELIVERIES.due("d"),
        ))
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn claim_due_deliveries(
        &self,
        partner_client_id: Option<Uuid>,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<DueDelivery>> {
        let claim_id = crate::ids::random_id();
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        // Only deliveries whose partner still has a webhook to send them to.
        let claimed: Vec<Uuid> = sqlx::query_scalar(&DELIVERIES.claim_due(
            "($5 IS NULL OR q.partner_client_id = $5)
             AND EXISTS (SELECT 1 FROM partner_client pc
                         WHERE pc.partner_client_id = q.partner_client_id
                           AND pc.webhook_url IS NOT NULL AND pc.webhook_secret IS NOT NULL)",
            "webhook_delivery_id",
        ))
        .bind(now)
        .bind(lock_until)
        .bind(claim_id)
        .bind(i64::from(limit))
        .bind(partner_client_id)
        .fetch_all(&mut *tx)
        .await?;
        if claimed.is_empty() {
            tx.commit().await?;
            return Ok(Vec::new());
        }
        let deliveries: Vec<DueDelivery> = sqlx::query_as(
            "SELECT d.webhook_delivery_id, d.claim_id, d.partner_client_id, d.attempts, pc.webhook_url,
                    pc.webhook_secret, e.event_id, e.event_type, e.subject, e.occurred_at, e.data
             FROM webhook_delivery d
             JOIN partner_client pc ON pc.partner_client_id = d.partner_client_id
             JOIN event e ON e.event_id = d.event_id
             WHERE d.claim_id = $1
             ORDER BY d.next_attempt_at",
        )
        .bind(claim_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(deliveries)
    }

    async fn release_delivery(&self, webhook_delivery_id: Uuid, claim_id: Uuid) -> StoreResult<()> {
        sqlx::query(&DELIVERIES.release())
            .bind(webhook_delivery_id)
            .bind(claim_id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    async fn record_delivery(
        &self,
        webhook_delivery_id: Uuid,
        claim_id: Uuid,
        outcome: &DeliveryOutcome,
    ) -> StoreResult<()> {
        let now = Utc::now();
        let (status, code, error, next) = match outcome {
            DeliveryOutcome::Delivered { status } => (
                DeliveryStatus::Delivered,
                Some(i32::from(*status)),
                None,
                now,
            ),
            DeliveryOutcome::Failed {
                status,
                error,
                retry_at,
            } => (
                if retry_at.is_some() {
                    DeliveryStatus::Pending
                } else {
                    DeliveryStatus::Failed
                },
                status.map(i32::from),
                Some(error.clone()),
                retry_at.unwrap_or(now),
            ),
        };
        sqlx::query(
            "UPDATE webhook_delivery SET status = $2, attempts = attempts + 1, last_status_code = $3,
                 last_error = $4, next_attempt_at = $5, locked_until = NULL, claim_id = NULL, updated_at = $6
             WHERE webhook_delivery_id = $1 AND claim_id = $7",
        )
        .bind(webhook_delivery_id)
        .bind(status.as_str())
        .bind(code)
        .bind(error)
        .bind(next)
        .bind(now)
        .bind(claim_id)
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}
