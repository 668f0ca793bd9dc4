//! The entry windows of a timeslotted product on one date, with what is left in each.

use app::wire::TimeslotEntry;
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

use super::{products::remaining, Catalog};
use crate::{
    error::Result,
    store::{Product, Store, Timeslot},
    time::in_zone,
};

/// Whether the product sells on the date, and the places its group has left that day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayStock {
    pub sells: bool,
    /// `None` is unlimited.
    pub remaining: Option<i64>,
}

/// The entries of `slots` (ordered by start) in `zone`. A slot is available when the product
/// sells that day, it has not started at `now`, and `quantity` fits both in the slot and in
/// the day; `remaining` is the smaller of the two.
pub fn entries(
    slots: &[Timeslot],
    zone: Tz,
    day: DayStock,
    quantity: u32,
    now: DateTime<Utc>,
) -> Vec<TimeslotEntry> {
    slots
        .iter()
        .map(|slot| {
            let left = match (remaining(slot.capacity, slot.reserved), day.remaining) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            TimeslotEntry {
                timeslot_id: slot.timeslot_id,
                start_time: in_zone(slot.start_time, zone),
                end_time: in_zone(slot.end_time, zone),
                remaining: left,
                available: day.sells
                    && slot.start_time > now
                    && left.is_none_or(|l| l >= i64::from(quantity)),
            }
        })
        .collect()
}

/// The timeslots of `product` on the merchant-local `date`; empty when the product does not
/// need one (interface rule 3: the date alone suffices). Read through the node's copies
/// (`catalog::reads`); whether a slot has started is judged at `now`.
pub async fn product_timeslots(
    (catalog, store): (&Catalog, &dyn Store),
    product: &Product,
    zone: Tz,
    date: NaiveDate,
    quantity: u32,
    now: DateTime<Utc>,
) -> Result<Vec<TimeslotEntry>> {
    if !product.requires_timeslot {
        return Ok(Vec::new());
    }
    let group = product.availability_group_id;
    let slots = catalog.timeslots(store, group, date).await?;
    if slots.is_empty() {
        return Ok(Vec::new());
    }
    let day = if product.no_date {
        let capacity = catalog.day_capacity(store, group, date).await?;
        DayStock {
            sells: true,
            remaining: capacity.and_then(|c| c.remaining()),
        }
    } else {
        // A date-based product sells only on its priced days.
        match catalog
            .calendar(store, product.product_id, (date, date))
            .await?
            .first()
        {
            Some(day) => DayStock {
                sells: true,
                remaining: remaining(day.capacity, day.reserved),
            },
            None => DayStock {
                sells: false,
                remaining: None,
            },
        }
    };
    Ok(entries(&slots, zone, day, quantity, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn slot(start: &str, capacity: Option<i32>, reserved: i32) -> Timeslot {
        let start: DateTime<Utc> = start.parse().unwrap();
        Timeslot {
            timeslot_id: crate::ids::random_id(),
            availability_group_id: Uuid::nil(),
            day: start.date_naive(),
            start_time: start,
            end_time: start + chrono::Duration::minutes(30),
            capacity,
            reserved,
        }
    }

    const OPEN_DAY: DayStock = DayStock {
        sells: true,
        remaining: Some(3),
    };

    #[test]
    fn a_started_full_or_too_small_slot_is_unavailable() {
        let now: DateTime<Utc> = "2026-07-01T09:10:00Z".parse().unwrap();
        let slots = [
            slot("2026-07-01T09:00:00Z", None, 0),
            slot("2026-07-01T09:30:00Z", Some(5), 5),
            slot("2026-07-01T10:00:00Z", Some(5), 3),
            slot("2026-07-01T10:30:00Z", None, 0),
        ];
        let zone = chrono_tz::Europe::Amsterdam;
        let list = entries(&slots, zone, OPEN_DAY, 2, now);
        let available: Vec<bool> = list.iter().map(|e| e.available).collect();
        assert_eq!(available, [false, false, true, true]);
        let remaining: Vec<Option<i64>> = list.iter().map(|e| e.remaining).collect();
        assert_eq!(
            remaining,
            [Some(3), Some(0), Some(2), Some(3)],
            "capped by the day"
        );
        assert_eq!(list[2].start_time.to_rfc3339(), "2026-07-01T12:00:00+02:00");

        let three = entries(&slots, zone, OPEN_DAY, 3, now);
        assert!(!three[2].available, "2 left, 3 wanted");
        let unpriced = DayStock {
            sells: false,
            remaining: None,
        };
        assert!(entries(&slots, zone, unpriced, 1, now)
            .iter()
            .all(|e| !e.available));
    }
}
