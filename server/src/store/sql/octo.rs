//! `OctoStore`: the reseller's side of a booking (table `octo_booking`).

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{Db, SqlStore, ThisBackend};
use crate::store::{backend::Backend, OctoBooking, OctoBookingFilter, OctoStore, StoreResult};

#[async_trait::async_trait]
impl OctoStore for SqlStore {
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
                 updated_at = $5, cancelled_at = $6
             WHERE uuid = $1",
        )
        .bind(b.uuid)
        .bind(&b.reseller_reference)
        .bind(&b.notes)
        .bind(&b.contact)
        .bind(Utc::now())
        .bind(b.cancelled_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn set_octo_booking_day(&self, uuid: Uuid, local_date: NaiveDate) -> StoreResult<()> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        sqlx::query("UPDATE octo_booking SET local_date = $2, updated_at = $3 WHERE uuid = $1")
            .bind(uuid)
            .bind(local_date.to_string())
            .bind(Utc::now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
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
