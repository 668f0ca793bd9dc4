//! Places a checkout takes from our own capacity. A checkout transaction is told what to take
//! (`CheckoutTx::take`) and takes it when it commits, last: a busy day's capacity row is the
//! one lock every buyer of that day queues for, so it is held for as short a time as each
//! backend allows (`Backend::take_places_and_commit` in `backend.rs`, the no-oversell rule).

use std::fmt;

use chrono::NaiveDate;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Places {
    /// Places of an availability group's day. A day without a row is unlimited; taking from
    /// it makes the row, so what is sold is counted (an operator who later sets a capacity
    /// cannot set it below that).
    Day {
        group: Uuid,
        day: NaiveDate,
        quantity: u32,
    },
    /// Places of one timeslot.
    Timeslot { timeslot_id: Uuid, quantity: u32 },
}

impl Places {
    pub fn quantity(&self) -> u32 {
        match self {
            Places::Day { quantity, .. } | Places::Timeslot { quantity, .. } => *quantity,
        }
    }
}

/// Where the places were asked for, as a partner reads it: "on 2026-12-01", "in the chosen
/// timeslot".
impl fmt::Display for Places {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Places::Day { day, .. } => write!(f, "on {day}"),
            Places::Timeslot { .. } => f.write_str("in the chosen timeslot"),
        }
    }
}
