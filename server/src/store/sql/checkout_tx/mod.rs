//! The checkout unit of work (`store::CheckoutTx`) over the backend's `Work` (a transaction
//! of its own on Postgres, a savepoint of a group commit on SQLite); its methods
//! are in one file per concern, named after the trait they implement (`IdempotencyTx` is in
//! `sql/idempotency.rs`, with the rest of the key's SQL).

use uuid::Uuid;

use super::events::insert_events;
use super::{Batch, ThisBackend, ThisDialect};
use crate::events::NewEvent;
use crate::store::{backend::Backend, CheckoutTx, Places, StoreResult};

type Work = <ThisBackend as Backend>::Work;

mod after_sale;
mod checkout_rows;
mod gates;
mod loyalty;
mod octo;
mod orders;
mod outbox;
mod places;
mod tickets;
mod vouchers;
mod wallet;

/// The checkout unit of work over its backend's `Work` (a transaction, or a member of
/// SQLite's group commit).
pub(super) struct SqlCheckoutTx {
    tx: Work,
    /// Events added and not written yet, with their ids.
    events: Vec<(Uuid, NewEvent)>,
    /// Writes whose results nobody reads, sent before the next statement that needs a result
    /// (`store::batch`): every other method flushes first, so it sees them. The idempotency
    /// key's completion joins it from `sql/idempotency.rs`, where the key's SQL is.
    pub(super) batch: Batch,
    /// Places to take when the transaction commits.
    takes: Vec<Places>,
}

impl SqlCheckoutTx {
    pub(super) fn new(tx: Work) -> Self {
        Self {
            tx,
            events: Vec::new(),
            batch: Batch::default(),
            takes: Vec::new(),
        }
    }

    async fn flush(&mut self) -> sqlx::Result<()> {
        ThisBackend::flush(&mut self.batch, &mut self.tx).await
    }
}

#[async_trait::async_trait]
impl CheckoutTx for SqlCheckoutTx {
    async fn commit(mut self: Box<Self>) -> StoreResult<()> {
        insert_events(&mut self.batch, &self.events);
        let SqlCheckoutTx {
            tx, batch, takes, ..
        } = *self;
        ThisBackend::take_places_and_commit(tx, batch, &takes).await
    }
}
