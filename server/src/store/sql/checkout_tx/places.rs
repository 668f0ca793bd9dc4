//! Places asked for, and given back. They are taken at the commit, by
//! `ThisBackend::take_places_and_commit`: the no-oversell rule. A place given back to a day or
//! slot the merchant closed (`after_sale::closure`) takes its capacity with it, so a closed
//! day stays full.

use chrono::NaiveDate;
use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{Places, PlacesTx, StoreResult};

#[async_trait::async_trait]
impl PlacesTx for SqlCheckoutTx {
    fn take(&mut self, places: Places) {
        self.takes.push(places);
    }

    async fn give_back_day(
        &mut self,
        group: Uuid,
        day: NaiveDate,
        quantity: u32,
    ) -> StoreResult<()> {
        // Batched: nothing reads the count back in the transaction, so the update goes with
        // the next statement that needs an answer, or with the commit, right before the takes
        // (one round trip less, and the day's row locked for less time).
        self.batch
            .statement(
                "UPDATE availability_day SET reserved = reserved - $3,
                     capacity = CASE WHEN closed THEN capacity - $3 ELSE capacity END
                 WHERE availability_group_id = $1 AND day = $2",
            )
            .bind(group)
            .bind(day)
            .bind(i64::from(quantity));
        Ok(())
    }

    async fn give_back_timeslot(&mut self, timeslot_id: Uuid, quantity: u32) -> StoreResult<()> {
        self.batch
            .statement(
                "UPDATE timeslot SET reserved = reserved - $2,
                     capacity = CASE WHEN closed THEN capacity - $2 ELSE capacity END
                 WHERE timeslot_id = $1",
            )
            .bind(timeslot_id)
            .bind(i64::from(quantity));
        Ok(())
    }
}
