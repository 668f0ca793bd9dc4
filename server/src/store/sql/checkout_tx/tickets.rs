//! Tickets of a paid order.

use app::wire::MailKind;
use chrono::Utc;
use uuid::Uuid;

use super::super::mail::insert_mail;
use super::SqlCheckoutTx;
use crate::store::{NewMail, NewTicket, StoreError, StoreResult, TicketTx};

#[async_trait::async_trait]
impl TicketTx for SqlCheckoutTx {
    async fn insert_tickets(&mut self, tickets: &[NewTicket]) -> StoreResult<()> {
        self.flush().await?;
        let now = Utc::now();
        for t in tickets {
            sqlx::query(
                "INSERT INTO ticket (ticket_id, customer_order_id, checkout_line_id, product_id, code, visit_date,
                     timeslot_id, valid_until, status, created_at, paid_share, money, answers)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'VALID', $9, $10, $11, $12)",
            )
            .bind(t.ticket_id)
            .bind(t.order_id)
            .bind(t.checkout_line_id)
            .bind(t.product_id)
            .bind(&t.code)
            .bind(t.visit_date)
            .bind(t.timeslot_id)
            .bind(t.valid_until)
            .bind(now)
            .bind(crate::store::DbDecimal(t.paid_share))
            .bind(t.money.clone().map(sqlx::types::Json))
            .bind((!t.answers.is_empty()).then_some(sqlx::types::Json(&t.answers)))
            .execute(&mut *self.tx)
            .await
            .map_err(|e| StoreError::classify(e, "ticket code"))?;
        }
        Ok(())
    }

    async fn write_ticket_mail(&mut self, order_id: Uuid, page_nonce: &[u8]) -> StoreResult<()> {
        let now = Utc::now();
        insert_mail(
            &mut self.batch,
            &NewMail::of_order(MailKind::Tickets, order_id),
        );
        self.batch
            .statement(
                "INSERT INTO ticket_page_key (customer_order_id, nonce, rotated_at)
                 VALUES ($1, $2, $3)",
            )
            .bind(order_id)
            .bind(page_nonce.to_vec())
            .bind(now);
        Ok(())
    }
}
