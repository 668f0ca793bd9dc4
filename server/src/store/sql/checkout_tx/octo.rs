//! The OCTO booking's writes inside the checkout transaction that reserves it, or reserves
//! it again.

use chrono::{NaiveDate, Utc};
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{OctoBooking, OctoTx, StoreResult};

#[async_trait::async_trait]
impl OctoTx for SqlCheckoutTx {
    async fn insert_octo_booking(&mut self, b: &OctoBooking) -> StoreResult<bool> {
        self.flush().await?;
        let inserted = sqlx::query(
            "INSERT INTO octo_booking (uuid, checkout_id, partner_client_id, merchant_id,
                 reseller_reference, notes, contact, unit_items, local_date, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             ON CONFLICT (uuid) DO NOTHING",
        )
        .bind(b.uuid)
        .bind(b.checkout_id)
        .bind(b.partner_client_id)
        .bind(b.merchant_id)
        .bind(&b.reseller_reference)
        .bind(&b.notes)
        .bind(&b.contact)
        .bind(&b.unit_items)
        .bind(&b.local_date)
        .bind(b.created_at)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(inserted == 1)
    }

    async fn move_octo_booking(
        &mut self,
        uuid: Uuid,
        from: Uuid,
        to: Uuid,
        local_date: NaiveDate,
        unit_items: &[Option<Uuid>],
    ) -> StoreResult<bool> {
        self.flush().await?;
        // The compare-and-swap on the checkout it points at: of two changes at once, the one
        // that commits second finds the booking moved and changes nothing.
        let moved = sqlx::query(
            "UPDATE octo_booking SET checkout_id = $3, local_date = $4, unit_items = $5,
                 updated_at = $6
             WHERE uuid = $1 AND checkout_id = $2",
        )
        .bind(uuid)
        .bind(from)
        .bind(to)
        .bind(local_date.to_string())
        .bind(sqlx::types::Json(unit_items))
        .bind(Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }
}
