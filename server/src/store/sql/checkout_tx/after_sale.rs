//! Changes after the sale, inside the checkout transaction.

use app::wire::MailKind;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::super::mail::insert_mail;
use super::SqlCheckoutTx;
use crate::store::{
    AfterSaleTx, DbDecimal, FrozenLine, NewDifferencePayment, NewMail, OrderChangeRecord,
    PendingRebookingRecord, StoreResult,
};

#[async_trait::async_trait]
impl AfterSaleTx for SqlCheckoutTx {
    async fn freeze_lines(&mut self, lines: &[FrozenLine]) -> StoreResult<()> {
        for line in lines {
            self.batch
                .statement(
                    "UPDATE checkout_line SET after_sale = COALESCE($2, after_sale),
                         money = COALESCE($3, money)
                     WHERE checkout_line_id = $1",
                )
                .bind(line.checkout_line_id)
                .bind(line.after_sale.clone().map(sqlx::types::Json))
                .bind(line.money.clone().map(sqlx::types::Json));
        }
        Ok(())
    }

    async fn cancel_tickets(
        &mut self,
        order_id: Uuid,
        tickets: &[(Uuid, Option<Uuid>)],
        now: DateTime<Utc>,
    ) -> StoreResult<u64> {
        self.flush().await?;
        let mut cancelled = 0;
        for (ticket_id, replaced_by) in tickets {
            cancelled += sqlx::query(
                "UPDATE ticket SET status = 'CANCELLED', cancelled_at = $3, replaced_by = $4
                 WHERE ticket_id = $1 AND customer_order_id = $2 AND status = 'VALID'",
            )
            .bind(*ticket_id)
            .bind(order_id)
            .bind(now)
            .bind(*replaced_by)
            .execute(&mut *self.tx)
            .await?
            .rows_affected();
        }
        Ok(cancelled)
    }

    async fn insert_order_change(&mut self, c: &OrderChangeRecord) -> StoreResult<()> {
        self.batch
            .statement(
                "INSERT INTO order_change (order_change_id, customer_order_id, kind, reason,
                     ticket_ids, new_ticket_ids, refund_id, note, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(c.order_change_id)
            .bind(c.customer_order_id)
            .bind(c.kind.clone())
            .bind(c.reason.clone())
            .bind(c.ticket_ids.clone())
            .bind(c.new_ticket_ids.clone())
            .bind(c.refund_id)
            .bind(c.note.clone())
            .bind(c.created_at);
        Ok(())
    }

    async fn insert_pending_rebooking(
        &mut self,
        p: &NewDifferencePayment,
        r: &PendingRebookingRecord,
    ) -> StoreResult<()> {
        self.batch
            .statement(
                "INSERT INTO payment (payment_id, customer_order_id, provider, status, amount, currency,
                     return_url, expires_at, created_at, updated_at, payment_url, provider_ref,
                     provider_destination)
                 VALUES ($1, $2, $3, 'OPEN', $4, $5, $6, $7, $8, $8, $9, $10, $11)",
            )
            .bind(p.payment_id)
            .bind(p.order_id)
            .bind(p.provider.clone())
            .bind(DbDecimal(p.amount))
            .bind(p.currency.clone())
            .bind(p.return_url.clone())
            .bind(p.expires_at)
            .bind(r.created_at)
            .bind(p.payment_url.clone())
            .bind(p.provider_ref.clone())
            .bind(p.destination.clone());
        self.batch
            .statement(
                "INSERT INTO pending_rebooking (payment_id, customer_order_id, reason, visit_date,
                     timeslot_id, provider, moves, booking, status, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'OPEN', $9)",
            )
            .bind(r.payment_id)
            .bind(r.customer_order_id)
            .bind(r.reason.clone())
            .bind(r.visit_date)
            .bind(r.timeslot_id)
            .bind(r.provider.clone())
            .bind(r.moves.clone())
            .bind(r.booking.clone())
            .bind(r.created_at);
        Ok(())
    }

    async fn end_pending_rebooking(&mut self, payment_id: Uuid, status: &str) -> StoreResult<bool> {
        self.flush().await?;
        let ended = sqlx::query(
            "UPDATE pending_rebooking SET status = $2 WHERE payment_id = $1 AND status = 'OPEN'",
        )
        .bind(payment_id)
        .bind(status.to_owned())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(ended == 1)
    }

    async fn write_change_mail(
        &mut self,
        kind: MailKind,
        order_id: Uuid,
        change_id: Uuid,
    ) -> StoreResult<()> {
        let mail = NewMail::of_order(kind, order_id);
        insert_mail(&mut self.batch, &mail);
        self.batch
            .statement("UPDATE order_change SET mail_id = $1 WHERE order_change_id = $2")
            .bind(mail.mail_id)
            .bind(change_id);
        Ok(())
    }

    async fn touch_order(
        &mut self,
        order_id: Uuid,
        close: bool,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.batch
            .statement(
                "UPDATE customer_order SET last_mutation_date = $2,
                     status = CASE WHEN $3 AND status IN ('PAID', 'FULFILLED') THEN 'CANCELLED'
                                   ELSE status END
                 WHERE customer_order_id = $1",
            )
            .bind(order_id)
            .bind(now)
            .bind(close);
        Ok(())
    }

    async fn move_order_visit(
        &mut self,
        checkout_id: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<()> {
        self.batch
            .statement(
                "UPDATE checkout SET visit_date = $2, timeslot_id = $3 WHERE checkout_id = $1",
            )
            .bind(checkout_id)
            .bind(day)
            .bind(timeslot_id);
        Ok(())
    }

    async fn close_places(
        &mut self,
        group: Uuid,
        day: NaiveDate,
        timeslot_id: Option<Uuid>,
    ) -> StoreResult<()> {
        self.flush().await?;
        match timeslot_id {
            Some(slot) => {
                sqlx::query(
                    "UPDATE timeslot SET capacity = reserved, closed = TRUE WHERE timeslot_id = $1",
                )
                .bind(slot)
                .execute(&mut *self.tx)
                .await?;
            }
            None => {
                sqlx::query(
                    "INSERT INTO availability_day (availability_group_id, day, capacity, reserved, closed)
                     VALUES ($1, $2, 0, 0, TRUE)
                     ON CONFLICT (availability_group_id, day)
                     DO UPDATE SET capacity = availability_day.reserved, closed = TRUE",
                )
                .bind(group)
                .bind(day)
                .execute(&mut *self.tx)
                .await?;
            }
        }
        Ok(())
    }

    async fn set_shipped_on(&mut self, order_id: Uuid, day: NaiveDate) -> StoreResult<bool> {
        self.flush().await?;
        let changed = sqlx::query(
            "UPDATE customer_order SET shipped_on = $2, last_mutation_date = $3
             WHERE customer_order_id = $1",
        )
        .bind(order_id)
        .bind(day)
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(changed == 1)
    }

    async fn finish_refund(
        &mut self,
        refund_id: Uuid,
        status: &str,
        provider_ref: Option<&str>,
    ) -> StoreResult<bool> {
        self.flush().await?;
        let changed = sqlx::query(
            "UPDATE refund SET status = $2, provider_ref = COALESCE($3, provider_ref), updated_at = $4
             WHERE refund_id = $1 AND status = 'PENDING'",
        )
        .bind(refund_id)
        .bind(status.to_owned())
        .bind(provider_ref.map(str::to_owned))
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(changed == 1 && status != "PENDING")
    }
}
