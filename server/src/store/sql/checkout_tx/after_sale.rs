//! Changes after the sale, inside the checkout transaction.

use app::wire::MailKind;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::super::mail::insert_mail;
use super::SqlCheckoutTx;
use crate::store::{AfterSaleTx, NewMail, OrderChangeRecord, StoreResult};

#[async_trait::async_trait]
impl AfterSaleTx for SqlCheckoutTx {
    async fn freeze_after_sale(&mut self, frozen: &[(Uuid, serde_json::Value)]) -> StoreResult<()> {
        for (line_id, policy) in frozen {
            self.batch
                .statement("UPDATE checkout_line SET after_sale = $2 WHERE checkout_line_id = $1")
                .bind(*line_id)
                .bind(sqlx::types::Json(policy.clone()));
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
