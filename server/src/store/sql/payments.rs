//! `PaymentStore`: provider references, reconciliation marks, provider events, refunds.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::SqlStore;
use crate::store::{MerchantAccount, PaymentRecord, PaymentStore, RefundRecord, StoreResult};

#[async_trait::async_trait]
impl PaymentStore for SqlStore {
    async fn payment_by_provider_ref(
        &self,
        provider: &str,
        provider_ref: &str,
    ) -> StoreResult<Option<PaymentRecord>> {
        Ok(
            sqlx::query_as("SELECT * FROM payment WHERE provider = $1 AND provider_ref = $2")
                .bind(provider)
                .bind(provider_ref)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn payments_to_reconcile(
        &self,
        provider: &str,
        opened_before: DateTime<Utc>,
        asked_before: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<PaymentRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM payment
             WHERE provider = $1 AND provider_ref IS NOT NULL AND provider_final_at IS NULL
               AND created_at <= $2
               AND (provider_checked_at IS NULL OR provider_checked_at <= $3)
             ORDER BY COALESCE(provider_checked_at, created_at) LIMIT $4",
        )
        .bind(provider)
        .bind(opened_before)
        .bind(asked_before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn note_payment_checked(
        &self,
        payment_id: Uuid,
        now: DateTime<Utc>,
        provider_final: bool,
    ) -> StoreResult<()> {
        sqlx::query(
            "UPDATE payment SET provider_checked_at = $2,
                 provider_final_at = CASE WHEN $3 THEN COALESCE(provider_final_at, $2) ELSE provider_final_at END
             WHERE payment_id = $1",
        )
        .bind(payment_id)
        .bind(now)
        .bind(provider_final)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    async fn record_provider_event(
        &self,
        provider: &str,
        event_id: &str,
        event_type: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let inserted = sqlx::query(
            "INSERT INTO provider_event (provider, event_id, event_type, received_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(provider)
        .bind(event_id)
        .bind(event_type)
        .bind(now)
        .execute(&self.writer)
        .await?
        .rows_affected();
        Ok(inserted == 1)
    }

    async fn provider_event_seen(&self, provider: &str, event_id: &str) -> StoreResult<bool> {
        let seen: Option<String> = sqlx::query_scalar(
            "SELECT event_type FROM provider_event WHERE provider = $1 AND event_id = $2",
        )
        .bind(provider)
        .bind(event_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(seen.is_some())
    }

    async fn refund(&self, refund_id: Uuid) -> StoreResult<Option<RefundRecord>> {
        self.row_by_key("SELECT * FROM refund WHERE refund_id = $1", refund_id)
            .await
    }

    async fn refunds_of_order(&self, order_id: Uuid) -> StoreResult<Vec<RefundRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM refund WHERE customer_order_id = $1 ORDER BY created_at, refund_id",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn refund_by_provider_ref(
        &self,
        provider_ref: &str,
    ) -> StoreResult<Option<RefundRecord>> {
        self.row_by_key("SELECT * FROM refund WHERE provider_ref = $1", provider_ref)
            .await
    }

    async fn pending_refunds(&self, limit: u32) -> StoreResult<Vec<RefundRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM refund WHERE status = 'PENDING' ORDER BY created_at LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn merchant_payment_account(
        &self,
        merchant_id: Uuid,
        provider: &str,
    ) -> StoreResult<Option<MerchantAccount>> {
        Ok(sqlx::query_as(
            "SELECT * FROM merchant_account WHERE merchant_id = $1 AND provider = $2
             ORDER BY created_at DESC LIMIT 1",
        )
        .bind(merchant_id)
        .bind(provider)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn set_account_charges_enabled(
        &self,
        provider_account_id: &str,
        charges_enabled: bool,
    ) -> StoreResult<Option<MerchantAccount>> {
        Ok(sqlx::query_as(
            "UPDATE merchant_account SET charges_enabled = $2, updated_at = $3
             WHERE provider_account_id = $1 RETURNING *",
        )
        .bind(provider_account_id)
        .bind(charges_enabled)
        .bind(Utc::now())
        .fetch_optional(&self.writer)
        .await?)
    }
}
