//! The checkout row, its lines, vouchers and newsletter consents.

use app::wire::{CheckoutStatus, Transition};
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{Batch, SqlCheckoutTx, ThisDialect};
use crate::store::{
    dialect::Dialect, CheckoutRowTx, CustomerFields, DbDecimal, Held, Holder, NewCheckout,
    StoreResult,
};

#[async_trait::async_trait]
impl CheckoutRowTx for SqlCheckoutTx {
    async fn insert_checkout(&mut self, c: &NewCheckout) -> StoreResult<()> {
        let now = Utc::now();
        self.batch.statement(
            "INSERT INTO checkout (checkout_id, campaign_id, merchant_id, customer_id, partner_client_id, status,
                 visit_date, timeslot_id, flexible_date, currency, subtotal, discount_total, wallet_applied, total,
                 requires_shipping_address, voucher_codes, external_reference, expires_at, created_at, updated_at,
                 provider, locale, email, first_name, last_name, return_url, shipping_address,
                 session_id, client_address, places, attribution, buyer, answers)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20,
                 $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)",
        )
        .bind(c.checkout_id)
        .bind(c.campaign_id)
        .bind(c.merchant_id)
        .bind(c.customer_id)
        .bind(c.partner_client_id)
        .bind(if c.confirmed.is_some() {
            CheckoutStatus::Confirmed
        } else {
            CheckoutStatus::Reserved
        }
        .as_str())
        .bind(c.visit_date)
        .bind(c.timeslot_id)
        .bind(c.flexible_date)
        .bind(c.currency.clone())
        .bind(DbDecimal(c.subtotal))
        .bind(DbDecimal(c.discount_total))
        .bind(DbDecimal(c.wallet_applied))
        .bind(DbDecimal(c.total))
        .bind(c.requires_shipping_address)
        .bind(sqlx::types::Json(c.voucher_codes.clone()))
        .bind(c.external_reference.clone())
        .bind(c.expires_at)
        .bind(now)
        .bind(c.provider.clone())
        .bind(c.locale.clone());
        let f = c.confirmed.as_ref();
        self.batch
            .bind(f.map(|f| f.email.clone()))
            .bind(f.map(|f| f.first_name.clone()))
            .bind(f.map(|f| f.last_name.clone()))
            .bind(f.map(|f| f.return_url.clone()))
            .bind(
                f.and_then(|f| f.shipping_address.clone())
                    .map(sqlx::types::Json),
            )
            .bind(c.session_id)
            .bind(c.client_address.clone())
            .bind(c.lines.iter().map(|l| i64::from(l.quantity)).sum::<i64>())
            .bind(c.attribution.clone().map(sqlx::types::Json))
            .bind(
                f.and_then(|f| f.buyer.clone())
                    .or_else(|| c.buyer.clone())
                    .map(sqlx::types::Json),
            )
            .bind((!c.answers.is_empty()).then(|| sqlx::types::Json(c.answers.clone())));
        if let Some(f) = f {
            insert_newsletter_consents(&mut self.batch, c.checkout_id, &f.newsletters, now);
        }
        for line in &c.lines {
            self.batch.statement(
                "INSERT INTO checkout_line (checkout_line_id, checkout_id, product_id, sku, title, quantity,
                     unit_price, list_price, booking_costs, visit_guarantee_cost, line_total,
                     availability_group_id, timeslot_id, age_group, visit_date)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            )
            .bind(line.checkout_line_id)
            .bind(c.checkout_id)
            .bind(line.product_id)
            .bind(line.sku.clone())
            .bind(line.title.clone())
            .bind(i64::from(line.quantity))
            .bind(DbDecimal(line.unit_price))
            .bind(DbDecimal(line.list_price))
            .bind(DbDecimal(line.booking_costs))
            .bind(DbDecimal(line.visit_guarantee_cost))
            .bind(DbDecimal(line.line_total))
            .bind(line.availability_group_id)
            .bind(line.timeslot_id)
            .bind(line.age_group.clone())
            .bind(line.visit_date);
        }
        for (voucher_id, discount) in &c.vouchers {
            self.batch
                .statement(
                    "INSERT INTO checkout_voucher (checkout_id, voucher_id, discount, released)
                 VALUES ($1, $2, $3, FALSE)",
                )
                .bind(c.checkout_id)
                .bind(*voucher_id)
                .bind(DbDecimal(*discount));
        }
        Ok(())
    }

    async fn held_by(
        &mut self,
        holders: &[Holder],
        day: NaiveDate,
        except: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<Held>> {
        self.flush().await?;
        if let Some(lock) = ThisDialect::XACT_LOCK {
            // In one order, so two buyers sharing holders never wait for each other crosswise.
            let mut keys: Vec<i64> = holders.iter().map(Holder::lock_key).collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                sqlx::query(lock).bind(key).execute(&mut *self.tx).await?;
            }
        }
        let mut held = Vec::with_capacity(holders.len());
        for holder in holders {
            let query = format!(
                "SELECT COUNT(*) AS reservations,
                        CAST(COALESCE(SUM(places), 0) AS BIGINT) AS places,
                        COUNT(CASE WHEN visit_date = $2 THEN 1 END) AS reservations_that_day,
                        CAST(COALESCE(SUM(CASE WHEN visit_date = $2 THEN places END), 0) AS BIGINT)
                            AS places_that_day
                 FROM checkout
                 WHERE {} = $1 AND status IN ('RESERVED', 'CONFIRMED')
                   AND (status = 'CONFIRMED' OR expires_at > $3)
                   AND ($4 IS NULL OR checkout_id <> $4)",
                holder.column()
            );
            let query = sqlx::query_as::<_, Held>(&query);
            let query = match holder {
                Holder::Customer(id) | Holder::Session(id) => query.bind(*id),
                Holder::Address(address) => query.bind(address.clone()),
            };
            held.push(
                query
                    .bind(day)
                    .bind(now)
                    .bind(except)
                    .fetch_one(&mut *self.tx)
                    .await?,
            );
        }
        Ok(held)
    }

    async fn transition_checkout(
        &mut self,
        checkout_id: Uuid,
        change: Transition<CheckoutStatus>,
        expired_by: Option<DateTime<Utc>>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE checkout SET status = $3, updated_at = $4
             WHERE checkout_id = $1 AND status = $2 AND ($5 IS NULL OR expires_at <= $5)",
        )
        .bind(checkout_id)
        .bind(change.from().as_str())
        .bind(change.to().as_str())
        .bind(Utc::now())
        .bind(expired_by)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn confirm_checkout(
        &mut self,
        checkout_id: Uuid,
        f: &CustomerFields,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE checkout SET status = 'CONFIRMED', email = $3, first_name = $4, last_name = $5,
                 return_url = $6, shipping_address = $7, updated_at = $2,
                 partner_client_id = COALESCE(partner_client_id, $8), expires_at = $9,
                 buyer = COALESCE($10, buyer), answers = COALESCE($11, answers)
             WHERE checkout_id = $1 AND status = 'RESERVED' AND expires_at > $2",
        )
        .bind(checkout_id)
        .bind(now)
        .bind(&f.email)
        .bind(&f.first_name)
        .bind(&f.last_name)
        .bind(&f.return_url)
        .bind(f.shipping_address.as_ref().map(sqlx::types::Json))
        .bind(f.partner_client_id)
        .bind(until)
        .bind(f.buyer.as_ref().map(sqlx::types::Json))
        .bind(f.answers.as_ref().map(sqlx::types::Json))
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        if moved != 1 {
            return Ok(false);
        }
        insert_newsletter_consents(&mut self.batch, checkout_id, &f.newsletters, now);
        Ok(true)
    }

    async fn extend_hold(
        &mut self,
        checkout_id: Uuid,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE checkout SET expires_at = $2, hold_extended_at = $3, updated_at = $3
             WHERE checkout_id = $1 AND status = 'RESERVED' AND expires_at > $3
               AND hold_extended_at IS NULL",
        )
        .bind(checkout_id)
        .bind(until)
        .bind(now)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn carry_extension(&mut self, checkout_id: Uuid, at: DateTime<Utc>) -> StoreResult<()> {
        // After the flush: the row is the batch's insert, and no two parts of a Postgres batch
        // may touch one row (`store::batch`).
        self.flush().await?;
        sqlx::query(
            "UPDATE checkout SET hold_extended_at = $2
             WHERE checkout_id = $1 AND status = 'RESERVED'",
        )
        .bind(checkout_id)
        .bind(at)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }
}

/// Adds to `batch` the customer's consents to newsletters, given at the checkout; each once,
/// as no two parts of a Postgres batch may write the same row.
fn insert_newsletter_consents(
    batch: &mut Batch,
    checkout_id: Uuid,
    newsletters: &[String],
    now: DateTime<Utc>,
) {
    for (i, newsletter_id) in newsletters.iter().enumerate() {
        if newsletters[..i].contains(newsletter_id) {
            continue;
        }
        batch
            .statement(
                "INSERT INTO checkout_newsletter (checkout_id, newsletter_id, consented_at)
                 VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            )
            .bind(checkout_id)
            .bind(newsletter_id.clone())
            .bind(now);
    }
}
