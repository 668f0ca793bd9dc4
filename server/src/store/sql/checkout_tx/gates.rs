//! The writes at the gate, inside the checkout transaction.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{GateTx, RedemptionRecord, StoreResult};

#[async_trait::async_trait]
impl GateTx for SqlCheckoutTx {
    async fn use_ticket(
        &mut self,
        ticket_id: Uuid,
        redemption_id: Uuid,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        // The conditional update is the exactly-once rule: of two scans (or a scan and a
        // cancellation) one finds the ticket VALID, the other changes nothing.
        let done = sqlx::query(
            "UPDATE ticket SET status = 'USED', redeemed_at = $3, redemption_id = $2
             WHERE ticket_id = $1 AND status = 'VALID'",
        )
        .bind(ticket_id)
        .bind(redemption_id)
        .bind(at)
        .execute(&mut *self.tx)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn move_first_entry(&mut self, ticket_id: Uuid, at: DateTime<Utc>) -> StoreResult<()> {
        self.batch
            .statement(
                "UPDATE ticket SET redeemed_at = $2
                 WHERE ticket_id = $1 AND status = 'USED' AND redeemed_at > $2",
            )
            .bind(ticket_id)
            .bind(at);
        Ok(())
    }

    async fn insert_redemption(&mut self, r: &RedemptionRecord) -> StoreResult<()> {
        self.batch
            .statement(
                "INSERT INTO redemption (redemption_id, gate_id, nonce, code, ticket_id, status,
                     offline, redeemed_at, local_date, recorded_at, undone_at, answer, problem)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(r.redemption_id)
            .bind(r.gate_id)
            .bind(r.nonce.clone())
            .bind(r.code.clone())
            .bind(r.ticket_id)
            .bind(r.status.as_str())
            .bind(r.offline)
            .bind(r.redeemed_at)
            .bind(r.local_date)
            .bind(r.recorded_at)
            .bind(r.undone_at)
            .bind(r.answer.clone())
            .bind(r.problem.clone());
        Ok(())
    }

    async fn undo_redemption(
        &mut self,
        redemption_id: Uuid,
        ticket_id: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let undone = sqlx::query(
            "UPDATE redemption SET status = 'UNDONE', undone_at = $2
             WHERE redemption_id = $1 AND status = 'REDEEMED'",
        )
        .bind(redemption_id)
        .bind(now)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        if undone != 1 {
            return Ok(false);
        }
        self.batch
            .statement(
                "UPDATE ticket SET status = 'VALID', redeemed_at = NULL, redemption_id = NULL
                 WHERE ticket_id = $1 AND status = 'USED' AND redemption_id = $2",
            )
            .bind(ticket_id)
            .bind(redemption_id);
        Ok(true)
    }
}
