//! `AfterSaleStore`: the reads the after-sale work decides by.

use chrono::NaiveDate;
use uuid::Uuid;

use super::{push_ids, Db, SqlStore};
use crate::store::{
    AfterSaleStore, OrderChangeRecord, PaymentRecord, PendingRebookingRecord, RefundRecord,
    StoreResult,
};

#[async_trait::async_trait]
impl AfterSaleStore for SqlStore {
    async fn order_change_of_mail(&self, mail_id: Uuid) -> StoreResult<Option<OrderChangeRecord>> {
        self.row_by_key("SELECT * FROM order_change WHERE mail_id = $1", mail_id)
            .await
    }

    async fn pending_rebooking(
        &self,
        payment_id: Uuid,
    ) -> StoreResult<Option<PendingRebookingRecord>> {
        self.row_by_key(
            "SELECT * FROM pending_rebooking WHERE payment_id = $1",
            payment_id,
        )
        .await
    }

    async fn open_rebooking_payment(&self, order_id: Uuid) -> StoreResult<Option<PaymentRecord>> {
        Ok(sqlx::query_as(
            "SELECT payment.* FROM payment
             JOIN pending_rebooking ON pending_rebooking.payment_id = payment.payment_id
             WHERE pending_rebooking.customer_order_id = $1 AND pending_rebooking.status = 'OPEN'
               AND payment.status = 'OPEN'
             ORDER BY payment.created_at DESC LIMIT 1",
        )
        .bind(order_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn paid_payments(&self, order_id: Uuid) -> StoreResult<Vec<PaymentRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM payment WHERE customer_order_id = $1 AND status = 'PAID'
             ORDER BY created_at, payment_id",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn order_changes(&self, order_id: Uuid) -> StoreResult<Vec<OrderChangeRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM order_change WHERE customer_order_id = $1
             ORDER BY created_at, order_change_id",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn refunds_of_orders(&self, order_ids: &[Uuid]) -> StoreResult<Vec<RefundRecord>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query =
            sqlx::QueryBuilder::<Db>::new("SELECT * FROM refund WHERE customer_order_id IN (");
        push_ids(&mut query, order_ids.iter().copied());
        query.push(") ORDER BY created_at, refund_id");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn order_points(&self, order_id: Uuid) -> StoreResult<(i64, i64)> {
        // Sums as text-free integers on both databases (Postgres's SUM of BIGINT is NUMERIC).
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT kind, points FROM loyalty_entry
             WHERE customer_order_id = $1 AND kind IN ('EARN', 'ADJUST')",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?;
        let sum = |kind: &str| -> i64 {
            rows.iter()
                .filter(|(k, _)| k == kind)
                .map(|(_, p)| *p)
                .sum()
        };
        Ok((sum("EARN"), sum("ADJUST")))
    }

    async fn orders_with_tickets_on(
        &self,
        product_id: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT customer_order_id FROM ticket
             WHERE product_id = $1 AND visit_date = $2 AND status = 'VALID'
               AND ($3 IS NULL OR timeslot_id = $3)
             ORDER BY customer_order_id",
        )
        .bind(product_id)
        .bind(day)
        .bind(timeslot_id)
        .fetch_all(&self.pool)
        .await?)
    }
}
