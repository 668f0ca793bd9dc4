//! `LedgerStore` and `LedgerTx`: the settlement ledger's rows.

use app::wire::{LedgerEntry, TaxAmount};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use uuid::Uuid;

use super::{checkout_tx::SqlCheckoutTx, Db, SqlStore};
use crate::{
    settlement::split::cents,
    store::{
        CancelledCount, DbDecimal, LedgerFilter, LedgerStore, LedgerTx, NewLedgerEntry, StoreResult,
    },
};

/// A row of `ledger_entry`.
#[derive(sqlx::FromRow)]
struct Row {
    entry_id: Uuid,
    kind: String,
    booked_at: DateTime<Utc>,
    customer_order_id: Uuid,
    order_display_id: String,
    ticket_ids: Json<Vec<Uuid>>,
    sku: String,
    product_id: Uuid,
    merchant_id: Uuid,
    campaign_id: Uuid,
    partner_client_id: Option<Uuid>,
    currency: String,
    gross: DbDecimal,
    net: DbDecimal,
    tax: Json<Vec<TaxAmount>>,
    commission: DbDecimal,
    platform_fee: DbDecimal,
    merchant_payout: DbDecimal,
}

impl TryFrom<Row> for LedgerEntry {
    type Error = sqlx::Error;

    fn try_from(row: Row) -> Result<Self, sqlx::Error> {
        Ok(LedgerEntry {
            entry_id: row.entry_id,
            kind: row
                .kind
                .parse()
                .map_err(|e: String| sqlx::Error::Decode(e.into()))?,
            booked_at: row.booked_at,
            order_id: row.customer_order_id,
            order_display_id: row.order_display_id,
            ticket_ids: row.ticket_ids.0,
            sku: row.sku,
            product_id: row.product_id,
            merchant_id: row.merchant_id,
            campaign_id: row.campaign_id,
            partner_client_id: row.partner_client_id,
            currency: row.currency,
            gross: cents(row.gross.0),
            net: cents(row.net.0),
            tax: row
                .tax
                .0
                .into_iter()
                .map(|t| TaxAmount {
                    amount: cents(t.amount),
                    ..t
                })
                .collect(),
            commission: cents(row.commission.0),
            platform_fee: cents(row.platform_fee.0),
            merchant_payout: cents(row.merchant_payout.0),
        })
    }
}

fn entries(rows: Vec<Row>) -> sqlx::Result<Vec<LedgerEntry>> {
    rows.into_iter().map(LedgerEntry::try_from).collect()
}

/// `filter`'s conditions, each after an `AND` (the query already has a `WHERE`).
fn push_filter(query: &mut sqlx::QueryBuilder<'_, Db>, filter: &LedgerFilter, prefix: &str) {
    if let Some(partner) = filter.partner_client_id {
        query.push(format!(" AND {prefix}partner_client_id = "));
        query.push_bind(partner);
    }
    if let Some(merchant) = filter.merchant_id {
        query.push(format!(" AND {prefix}merchant_id = "));
        query.push_bind(merchant);
    }
}

#[async_trait::async_trait]
impl LedgerStore for SqlStore {
    async fn ledger_entries(
        &self,
        filter: &LedgerFilter,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<LedgerEntry>> {
        let mut query = sqlx::QueryBuilder::<Db>::new("SELECT * FROM ledger_entry WHERE 1 = 1");
        push_filter(&mut query, filter, "");
        if let Some(from) = filter.from {
            query.push(" AND booked_at >= ");
            query.push_bind(from);
        }
        if let Some(to) = filter.to {
            query.push(" AND booked_at < ");
            query.push_bind(to);
        }
        if let Some(after) = after {
            query.push(" AND entry_id > ");
            query.push_bind(after);
        }
        query.push(" ORDER BY entry_id LIMIT ");
        query.push_bind(i64::from(limit));
        let rows: Vec<Row> = query.build_query_as().fetch_all(&self.pool).await?;
        Ok(entries(rows)?)
    }

    async fn ledger_entry(&self, entry_id: Uuid) -> StoreResult<Option<LedgerEntry>> {
        let row: Option<Row> = sqlx::query_as("SELECT * FROM ledger_entry WHERE entry_id = $1")
            .bind(entry_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(LedgerEntry::try_from).transpose()?)
    }

    async fn ledger_entries_of_order(&self, order_id: Uuid) -> StoreResult<Vec<LedgerEntry>> {
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT * FROM ledger_entry WHERE customer_order_id = $1 ORDER BY entry_id",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(entries(rows)?)
    }

    async fn ledger_causes_of_order(&self, order_id: Uuid) -> StoreResult<Vec<(Uuid, Uuid)>> {
        Ok(sqlx::query_as(
            "SELECT entry_id, cause_id FROM ledger_entry WHERE customer_order_id = $1 ORDER BY entry_id",
        )
        .bind(order_id)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn cancelled_tickets(&self, filter: &LedgerFilter) -> StoreResult<Vec<CancelledCount>> {
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT l.sku, c.currency, COUNT(*) AS tickets
             FROM ticket t
             JOIN checkout_line l ON l.checkout_line_id = t.checkout_line_id
             JOIN checkout c ON c.checkout_id = l.checkout_id
             JOIN product p ON p.product_id = t.product_id
             WHERE t.status = 'CANCELLED' AND t.replaced_by IS NULL",
        );
        if let Some(partner) = filter.partner_client_id {
            query.push(" AND c.partner_client_id = ");
            query.push_bind(partner);
        }
        if let Some(merchant) = filter.merchant_id {
            query.push(" AND p.merchant_id = ");
            query.push_bind(merchant);
        }
        if let Some(from) = filter.from {
            query.push(" AND t.cancelled_at >= ");
            query.push_bind(from);
        }
        if let Some(to) = filter.to {
            query.push(" AND t.cancelled_at < ");
            query.push_bind(to);
        }
        query.push(" GROUP BY l.sku, c.currency ORDER BY l.sku, c.currency");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }
}

#[async_trait::async_trait]
impl LedgerTx for SqlCheckoutTx {
    async fn book(&mut self, entries: &[NewLedgerEntry]) -> StoreResult<()> {
        for e in entries {
            let p = &e.parts;
            self.batch
                .statement(
                    "INSERT INTO ledger_entry (entry_id, kind, booked_at, customer_order_id,
                         order_display_id, checkout_line_id, cause_id, ticket_ids, sku, product_id,
                         merchant_id, campaign_id, partner_client_id, currency, gross, net, tax,
                         commission, platform_fee, merchant_payout)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                         $16, $17, $18, $19, $20)",
                )
                .bind(e.entry_id)
                .bind(e.kind.as_str())
                .bind(e.booked_at)
                .bind(e.order_id)
                .bind(e.order_display_id.clone())
                .bind(e.checkout_line_id)
                .bind(e.cause_id)
                .bind(Json(e.ticket_ids.clone()))
                .bind(e.sku.clone())
                .bind(e.product_id)
                .bind(e.merchant_id)
                .bind(e.campaign_id)
                .bind(e.partner_client_id)
                .bind(e.currency.clone())
                .bind(DbDecimal(p.gross))
                .bind(DbDecimal(p.net()))
                .bind(Json(p.tax.clone()))
                .bind(DbDecimal(p.commission))
                .bind(DbDecimal(p.platform_fee))
                .bind(DbDecimal(p.merchant_payout));
        }
        Ok(())
    }
}
