//! The claimed idempotency key's outcome, committed with the change.

use chrono::{DateTime, Utc};

use super::super::idempotency::complete_idempotency_key;
use super::SqlCheckoutTx;
use crate::store::{IdempotencyTx, IdempotentRequest, StoreResult};

#[async_trait::async_trait]
impl IdempotencyTx for SqlCheckoutTx {
    async fn complete_idempotency(
        &mut self,
        request: &IdempotentRequest,
        status: u16,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        complete_idempotency_key(&mut self.batch, request, status, body, now);
        Ok(())
    }
}
