//! The outbox: events written with the change they report.

use uuid::Uuid;

use super::super::events::insert_events;
use super::SqlCheckoutTx;
use crate::events::NewEvent;
use crate::store::{OutboxTx, StoreResult};

#[async_trait::async_trait]
impl OutboxTx for SqlCheckoutTx {
    async fn insert_event(&mut self, event: &NewEvent) -> StoreResult<Uuid> {
        let event_id = crate::ids::time_ordered_id();
        self.events.push((event_id, event.clone()));
        Ok(event_id)
    }

    async fn write_events(&mut self) -> StoreResult<()> {
        // Sent at once, so a batch never holds two event inserts: on Postgres the parts of a
        // batch run in no set order, and the outbox's order is the order events were added.
        insert_events(&mut self.batch, &self.events);
        self.events.clear();
        Ok(self.flush().await?)
    }
}
