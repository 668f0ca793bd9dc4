//! Orders and their payments.

use app::wire::{OrderStatus, PaymentStatus, Transition};
use chrono::Utc;
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{DbDecimal, NewOrder, NewRefund, OrderTx, StoreError, StoreResult};

#[async_trait::async_trait]
impl OrderTx for SqlCheckoutTx {
    async fn insert_order(&mut self, o: &NewOrder) -> StoreResult<()> {
        let now = Utc::now();
        self.batch.statement(
            "INSERT INTO customer_order (customer_order_id, display_id, checkout_id, campaign_id, customer_id,
                 status, total, currency, created_at, last_mutation_date)
             VALUES ($1, $2, $3, $4, $5, 'PENDING_PAYMENT', $6, $7, $8, $8)",
        )
        .bind(o.order_id)
        .bind(o.display_id.clone())
        .bind(o.checkout_id)
        .bind(o.campaign_id)
        .bind(o.customer_id)
        .bind(DbDecimal(o.total))
        .bind(o.currency.clone())
        .bind(now);
        self.batch.statement(
            "INSERT INTO payment (payment_id, customer_order_id, provider, status, amount, currency, return_url,
                 expires_at, created_at, updated_at, payment_url, provider_ref, provider_destination)
             VALUES ($1, $2, $3, 'OPEN', $4, $5, $6, $7, $8, $8, $9, $10, $11)",
        )
        .bind(o.payment_id)
        .bind(o.order_id)
        .bind(o.payment_provider.clone())
        .bind(DbDecimal(o.total))
        .bind(o.currency.clone())
        .bind(o.return_url.clone())
        .bind(o.payment_expires_at)
        .bind(now)
        .bind(o.payment_url.clone())
        .bind(o.payment_provider_ref.clone())
        .bind(o.payment_destination.clone());
        Ok(())
    }

    async fn insert_refund(&mut self, r: &NewRefund) -> StoreResult<()> {
        self.flush().await?;
        let now = Utc::now();
        sqlx::query(
            "INSERT INTO refund (refund_id, payment_id, customer_order_id, reason, amount, currency,
                 status, created_at, updated_at, ticket_ids, to_wallet)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)",
        )
        .bind(r.refund_id)
        .bind(r.payment_id)
        .bind(r.order_id)
        .bind(r.reason)
        .bind(DbDecimal(r.amount))
        .bind(r.currency.clone())
        .bind(r.status)
        .bind(now)
        .bind(sqlx::types::Json(r.ticket_ids.clone()))
        .bind(DbDecimal(r.to_wallet))
        .execute(&mut *self.tx)
        .await
        .map_err(|e| StoreError::classify(e, "the refund"))?;
        Ok(())
    }

    async fn transition_order(
        &mut self,
        order_id: Uuid,
        change: Transition<OrderStatus>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE customer_order SET status = $3, last_mutation_date = $4
             WHERE customer_order_id = $1 AND status = $2",
        )
        .bind(order_id)
        .bind(change.from().as_str())
        .bind(change.to().as_str())
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn settle_payment(
        &mut self,
        payment_id: Uuid,
        change: Transition<PaymentStatus>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE payment SET status = $3, updated_at = $4 WHERE payment_id = $1 AND status = $2",
        )
        .bind(payment_id)
        .bind(change.from().as_str())
        .bind(change.to().as_str())
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }
}
