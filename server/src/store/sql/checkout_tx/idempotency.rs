//! The claimed idempotency key's outcome, committed with the change.

use uuid::Uuid;

use super::super::idempotency::complete_idempotency_key;
use super::SqlCheckoutTx;
use crate::store::{IdempotencyTx, StoreResult};

#[async_trait::async_trait]
impl IdempotencyTx for SqlCheckoutTx {
    async fn complete_idempotency(
        &mut self,
        campaign_id: Uuid,
        key: Uuid,
        status: u16,
        body: &[u8],
    ) -> StoreResult<()> {
        complete_idempotency_key(&mut self.batch, campaign_id, key, status, body);
        Ok(())
    }
}
