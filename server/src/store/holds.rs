//! Who holds places and how much (the records of `checkout::holds`, the bound on what one
//! buyer may hold at once).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Bounds on what one holder may hold at once: open checkouts (reserved, or confirmed and
/// awaiting payment) and the places in them, in total and for one visit day. `0` is no bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HoldLimits {
    #[schema(minimum = 0, maximum = 4294967295_u64, format = Int64, example = 8)]
    pub reservations: u32,
    #[schema(minimum = 0, maximum = 4294967295_u64, format = Int64, example = 4)]
    pub reservations_per_day: u32,
    #[schema(minimum = 0, maximum = 4294967295_u64, format = Int64, example = 100)]
    pub places: u32,
    #[schema(minimum = 0, maximum = 4294967295_u64, format = Int64, example = 40)]
    pub places_per_day: u32,
}

impl HoldLimits {
    /// Whether any bound is set: without one nothing needs counting.
    pub fn bounds_anything(&self) -> bool {
        [
            self.reservations,
            self.reservations_per_day,
            self.places,
            self.places_per_day,
        ]
        .iter()
        .any(|&n| n > 0)
    }

    /// Each bound multiplied by `factor` (a client address holds for several people).
    pub fn times(self, factor: u32) -> Self {
        Self {
            reservations: self.reservations.saturating_mul(factor),
            reservations_per_day: self.reservations_per_day.saturating_mul(factor),
            places: self.places.saturating_mul(factor),
            places_per_day: self.places_per_day.saturating_mul(factor),
        }
    }
}

/// Who a checkout's places are counted against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// The customer of the bearer (every session of theirs).
    Customer(Uuid),
    /// One session (one bearer and its renewals by the frame).
    Session(Uuid),
    /// One client address, as the checkout records it (a pseudonym: `checkout::holds`).
    Address(String),
}

impl Holder {
    /// The checkout column that records this kind of holder.
    pub(crate) fn column(&self) -> &'static str {
        match self {
            Holder::Customer(_) => "customer_id",
            Holder::Session(_) => "session_id",
            Holder::Address(_) => "client_address",
        }
    }

    /// A number naming the holder, for a lock on it alone (`Backend::XACT_LOCK`).
    pub(crate) fn lock_key(&self) -> i64 {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        match self {
            Holder::Customer(id) => hash.update([b"customer:".as_slice(), id.as_bytes()].concat()),
            Holder::Session(id) => hash.update([b"session:".as_slice(), id.as_bytes()].concat()),
            Holder::Address(a) => hash.update(format!("address:{a}")),
        }
        let digest = hash.finalize();
        i64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
    }
}

/// What one holder holds now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Held {
    pub reservations: i64,
    pub places: i64,
    pub reservations_that_day: i64,
    pub places_that_day: i64,
}
