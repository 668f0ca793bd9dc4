//! `OctoStore`: the reseller's side of a booking (table `octo_booking`).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{Db, SqlStore, ThisBackend};
use crate::store::{backend::Backend, OctoBooking, OctoBookingFilter, OctoStore, StoreResult};

#[async_trait::async_trait]
impl OctoStore for SqlStore {
    async fn insert_octo_booking(&self, b: &OctoBooking) -> StoreResult<bool> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
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
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(inserted == 1)
    }

    async fn octo_booking(&self, uuid: Uuid) -> StoreResult<Option<OctoBooking>> {
        Ok(sqlx::query_as("SELECT * FROM octo_booking WHERE uuid = $1")
            .bind(uuid)
            .fetch_optional(&self.pool)
            .await?)
    }

    async fn octo_bookings(
        &self,
        partner_client_id: Uuid,
        merchant_id: Uuid,
        filter: &OctoBookingFilter,
    ) -> StoreResult<Vec<OctoBooking>> {
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT b.* FROM octo_booking b
             LEFT JOIN customer_order o ON o.checkout_id = b.checkout_id
             WHERE b.partner_client_id = ",
        );
        query.push_bind(partner_client_id);
        query.push(" AND b.merchant_id = ").push_bind(merchant_id);
        if let Some(reference) = &filter.reseller_reference {
            query
                .push(" AND b.reseller_reference = ")
                .push_bind(reference.clone());
        }
        if let Some(reference) = &filter.supplier_reference {
            query
                .push(" AND o.display_id = ")
                .push_bind(reference.clone());
        }
        if let Some(day) = filter.local_date {
            query
                .push(" AND b.local_date = ")
                .push_bind(day.to_string());
        }
        query.push(" ORDER BY b.created_at DESC, b.uuid LIMIT 500");
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    async fn update_octo_booking(&self, b: &OctoBooking) -> StoreResult<()> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        sqlx::query(
            "UPDATE octo_booking SET reseller_reference = $2, notes = $3, contact = $4,
                 unit_items = $5, local_date = $6, updated_at = $7, cancelled_at = $8
             WHERE uuid = $1",
        )
        .bind(b.uuid)
        .bind(&b.reseller_reference)
        .bind(&b.notes)
        .bind(&b.contact)
        .bind(&b.unit_items)
        .bind(&b.local_date)
        .bind(Utc::now())
        .bind(b.cancelled_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn move_octo_booking(
        &self,
        uuid: Uuid,
        from: Uuid,
        to: Uuid,
        local_date: chrono::NaiveDate,
    ) -> StoreResult<bool> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let moved = sqlx::query(
            "UPDATE octo_booking SET checkout_id = $3, local_date = $4, updated_at = $5
             WHERE uuid = $1 AND checkout_id = $2",
        )
        .bind(uuid)
        .bind(from)
        .bind(to)
        .bind(local_date.to_string())
        .bind(Utc::now())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(moved == 1)
    }

    async fn shorten_hold(&self, checkout_id: Uuid, until: DateTime<Utc>) -> StoreResult<bool> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let moved = sqlx::query(
            "UPDATE checkout SET expires_at = $2, updated_at = $3
             WHERE checkout_id = $1 AND status = 'RESERVED' AND expires_at > $2",
        )
        .bind(checkout_id)
        .bind(until)
        .bind(Utc::now())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(moved == 1)
    }
}
