//! `CheckoutStore`: checkouts as read, and the transaction that changes them begun.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::checkout_tx::SqlCheckoutTx;
use super::{push_ids, Db, SqlStore};
use crate::store::{
    CheckoutLineRecord, CheckoutRecord, CheckoutStore, CheckoutTx, CheckoutVoucherRecord,
    ClientOrigins, OrderRecord, PaymentRecord, StoreResult, Timeslot,
};

#[async_trait::async_trait]
impl CheckoutStore for SqlStore {
    async fn begin_checkout(&self) -> StoreResult<Box<dyn CheckoutTx>> {
        Ok(Box::new(SqlCheckoutTx::new(self.begin_work().await?)))
    }

    async fn checkout(&self, checkout_id: Uuid) -> StoreResult<Option<CheckoutRecord>> {
        self.row_by_key("SELECT * FROM checkout WHERE checkout_id = $1", checkout_id)
            .await
    }

    async fn checkout_lines(&self, checkout_id: Uuid) -> StoreResult<Vec<CheckoutLineRecord>> {
        Ok(sqlx::query_as(
            "SELECT checkout_line_id, product_id, availability_group_id, timeslot_id, visit_date, sku, title, age_group,
                    quantity, unit_price, list_price, booking_costs, visit_guarantee_cost, line_total
             FROM checkout_line WHERE checkout_id = $1 ORDER BY sku, checkout_line_id",
        )
        .bind(checkout_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn checkout_vouchers(
        &self,
        checkout_id: Uuid,
    ) -> StoreResult<Vec<CheckoutVoucherRecord>> {
        Ok(sqlx::query_as(
            "SELECT cv.voucher_id, v.code, cv.discount, cv.released
             FROM checkout_voucher cv JOIN voucher v ON v.voucher_id = cv.voucher_id
             WHERE cv.checkout_id = $1 ORDER BY v.code",
        )
        .bind(checkout_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn order_of_checkout(&self, checkout_id: Uuid) -> StoreResult<Option<OrderRecord>> {
        Ok(sqlx::query_as(select_orders!("WHERE o.checkout_id = $1"))
            .bind(checkout_id)
            .fetch_optional(&self.pool)
            .await?)
    }

    async fn order(&self, order_id: Uuid) -> StoreResult<Option<OrderRecord>> {
        Ok(
            sqlx::query_as(select_orders!("WHERE o.customer_order_id = $1"))
                .bind(order_id)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn payment(&self, payment_id: Uuid) -> StoreResult<Option<PaymentRecord>> {
        self.row_by_key("SELECT * FROM payment WHERE payment_id = $1", payment_id)
            .await
    }

    async fn payment_of_order(&self, order_id: Uuid) -> StoreResult<Option<PaymentRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM payment WHERE customer_order_id = $1 ORDER BY created_at, payment_id LIMIT 1",
        )
        .bind(order_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn timeslots_by_id(&self, ids: &[Uuid]) -> StoreResult<Vec<Timeslot>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query =
            sqlx::QueryBuilder::<Db>::new("SELECT * FROM timeslot WHERE timeslot_id IN (");
        push_ids(&mut query, ids.iter().copied());
        query.push(") ORDER BY start_time");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn lapsed_reservations(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT checkout_id FROM checkout WHERE status = 'RESERVED' AND expires_at <= $1
             ORDER BY expires_at LIMIT $2",
        )
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn lapsed_payments(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT payment_id FROM payment WHERE status = 'OPEN' AND expires_at <= $1
             ORDER BY expires_at LIMIT $2",
        )
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn unfulfilled_orders(&self, limit: u32) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT customer_order_id FROM customer_order WHERE status = 'PAID'
             ORDER BY last_mutation_date LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn return_origins(
        &self,
        campaign_id: Uuid,
        partner_client_id: Option<Uuid>,
    ) -> StoreResult<Vec<ClientOrigins>> {
        let lists: Vec<(Uuid, sqlx::types::Json<Vec<String>>)> = sqlx::query_as(
            "SELECT pc.partner_client_id, pc.return_origins FROM partner_client pc
             WHERE ($2 IS NOT NULL AND pc.partner_client_id = $2)
                OR ($2 IS NULL AND EXISTS (SELECT 1 FROM partner_client_campaign pcc
                                           WHERE pcc.partner_client_id = pc.partner_client_id
                                             AND pcc.campaign_id = $1))",
        )
        .bind(campaign_id)
        .bind(partner_client_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(lists
            .into_iter()
            .map(|(partner_client_id, origins)| ClientOrigins {
                partner_client_id,
                origins: origins.0,
            })
            .collect())
    }
}
