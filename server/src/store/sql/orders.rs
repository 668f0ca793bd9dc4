//! `OrderStore`: a customer's orders, tickets and loyalty ledger.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{push_ids, Db, SqlStore};
use crate::store::{
    CheckoutLineRecord, LoyaltyEntryKey, LoyaltyEntryRecord, OrderRecord, OrderStore, OrderVersion,
    StoreResult, TicketRecord,
};

#[async_trait::async_trait]
impl OrderStore for SqlStore {
    async fn order_versions_of_customer(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<OrderVersion>> {
        let (after_date, after_id) = after.unzip();
        Ok(sqlx::query_as(
            "SELECT customer_order_id, last_mutation_date, status FROM customer_order
             WHERE customer_id = $1 AND campaign_id = $2
               AND ($3 IS NULL OR last_mutation_date < $3
                    OR (last_mutation_date = $3 AND customer_order_id < $4))
             ORDER BY last_mutation_date DESC, customer_order_id DESC LIMIT $5",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(after_date)
        .bind(after_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn orders_by_id(&self, order_ids: &[Uuid]) -> StoreResult<Vec<OrderRecord>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query =
            sqlx::QueryBuilder::<Db>::new(select_orders!("WHERE o.customer_order_id IN ("));
        push_ids(&mut query, order_ids.iter().copied());
        query.push(")");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn tickets_of_orders(&self, order_ids: &[Uuid]) -> StoreResult<Vec<TicketRecord>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query =
            sqlx::QueryBuilder::<Db>::new("SELECT * FROM ticket WHERE customer_order_id IN (");
        push_ids(&mut query, order_ids.iter().copied());
        query.push(") ORDER BY customer_order_id, checkout_line_id, code");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn lines_of_orders(
        &self,
        order_ids: &[Uuid],
    ) -> StoreResult<Vec<(Uuid, CheckoutLineRecord)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            customer_order_id: Uuid,
            #[sqlx(flatten)]
            line: CheckoutLineRecord,
        }
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT o.customer_order_id, l.checkout_line_id, l.product_id, l.availability_group_id, l.timeslot_id, l.visit_date,
                    l.sku, l.title, l.age_group, l.quantity, l.unit_price, l.list_price, l.booking_costs,
                    l.visit_guarantee_cost, l.line_total, l.after_sale, l.money
             FROM customer_order o JOIN checkout_line l ON l.checkout_id = o.checkout_id
             WHERE o.customer_order_id IN (",
        );
        push_ids(&mut query, order_ids.iter().copied());
        query.push(") ORDER BY o.customer_order_id, l.sku, l.checkout_line_id");
        let rows: Vec<Row> = query.build_query_as().fetch_all(&self.pool).await?;
        Ok(rows
            .into_iter()
            .map(|r| (r.customer_order_id, r.line))
            .collect())
    }

    async fn loyalty_entry_keys(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<LoyaltyEntryKey>> {
        let (after_date, after_id) = after.unzip();
        Ok(sqlx::query_as(
            "SELECT loyalty_entry_id, occurred_at FROM loyalty_entry
             WHERE customer_id = $1 AND campaign_id = $2
               AND ($3 IS NULL OR occurred_at < $3 OR (occurred_at = $3 AND loyalty_entry_id < $4))
             ORDER BY occurred_at DESC, loyalty_entry_id DESC LIMIT $5",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(after_date)
        .bind(after_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn loyalty_entries_by_id(
        &self,
        entry_ids: &[Uuid],
    ) -> StoreResult<Vec<LoyaltyEntryRecord>> {
        if entry_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT e.loyalty_entry_id, e.occurred_at, e.kind, e.points, e.balance_after, e.description,
                    e.customer_order_id, o.display_id AS order_display_id
             FROM loyalty_entry e
             LEFT JOIN customer_order o ON o.customer_order_id = e.customer_order_id
             WHERE e.loyalty_entry_id IN (",
        );
        push_ids(&mut query, entry_ids.iter().copied());
        query.push(")");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }
}
