//! What one buyer may hold at once (docs/security.md, "Holds"). A reservation holds places for
//! 15 minutes, a confirmed checkout for the 30 minutes of its payment, and either costs its
//! buyer nothing until paid: without a bound one visitor could hold every place of a day.
//!
//! Each reservation is counted against every holder it has: the bearer's customer, the
//! bearer's session and the client address (guests have only the address). A holder may keep
//! open at most [`HoldLimits`] checkouts and places, in total and for the visit day; an address
//! `BOXOFFICE_HOLD_ADDRESS_FACTOR` times as many, since a household, an office or a school
//! shares one. A partner client's own bounds replace the server's for its buyers.
//!
//! What is held is read from the checkouts themselves inside the reservation's transaction
//! (with the holders locked on Postgres), so a refused or invalid request holds nothing, a
//! place given back (release, expiry, payment, cancellation) counts no more at once, and racing
//! requests of one holder are counted one after the other.

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::Commerce;
use crate::{
    error::{Error, ProblemType, Result},
    store::{CheckoutTx, Held, HoldLimits, Holder},
};

/// Who a reservation is held by, and the bounds that apply to them.
#[derive(Debug, Clone)]
pub struct Holders {
    /// The buyer's bounds (a customer's and a session's).
    pub limits: HoldLimits,
    /// An address's bounds.
    pub address_limits: HoldLimits,
    /// The holders whose bounds are set: only they are counted.
    pub holders: Vec<Holder>,
    /// The client address as the checkout records it (`address_key`), bounded or not, so a
    /// bound set later counts what is held already.
    pub address_key: Option<String>,
}

impl Holders {
    /// The holders of a reservation by `customer` in `session` from `address`, under the
    /// bounds of `partner_client_id` (the server's when it has none of its own).
    pub async fn of(
        state: &Commerce,
        partner_client_id: Option<Uuid>,
        customer: Option<Uuid>,
        session: Option<Uuid>,
        address: Option<std::net::IpAddr>,
    ) -> Result<Self> {
        let own = match partner_client_id {
            Some(id) => state
                .store
                .partner_client(id)
                .await?
                .and_then(|c| c.hold_limits),
            None => None,
        };
        let limits = own.unwrap_or_else(|| state.config.hold_limits());
        let address_limits = limits.times(state.config.hold_address_factor);
        let address_key = address.map(|a| address_key(state, a));
        // A holder without bounds needs no counting.
        let buyer = limits.bounds_anything();
        let holders = [
            customer.filter(|_| buyer).map(Holder::Customer),
            session.filter(|_| buyer).map(Holder::Session),
            address_key
                .clone()
                .filter(|_| address_limits.bounds_anything())
                .map(Holder::Address),
        ]
        .into_iter()
        .flatten()
        .collect();
        Ok(Self {
            limits,
            address_limits,
            holders,
            address_key,
        })
    }

    fn limits_of(&self, holder: &Holder) -> &HoldLimits {
        match holder {
            Holder::Address(_) => &self.address_limits,
            _ => &self.limits,
        }
    }

    /// Refuses, inside `tx` and before anything is written, a reservation of `places` places
    /// on `day` that would take any holder past its bounds. `replaces` is the holder's
    /// checkout this one reprices (a voucher added): it is not counted, as it is released
    /// once the new one holds.
    pub async fn check(
        &self,
        tx: &mut dyn CheckoutTx,
        day: NaiveDate,
        places: u32,
        replaces: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        if self.holders.is_empty() {
            return Ok(());
        }
        let held = tx.held_by(&self.holders, day, replaces, now).await?;
        for (holder, held) in self.holders.iter().zip(held) {
            if let Some(bound) = exceeded(self.limits_of(holder), &held, places) {
                return Err(refusal(holder, bound, day));
            }
        }
        Ok(())
    }
}

/// The client address as a checkout keeps it: a pseudonym, the same on every node, so the
/// database holds no list of customers' addresses.
fn address_key(state: &Commerce, address: std::net::IpAddr) -> String {
    state
        .hold_addresses
        .value(&[address.to_string().as_bytes()])
}

/// The bound one more reservation of `places` places would pass, given what is `held`.
pub fn exceeded(limits: &HoldLimits, held: &Held, places: u32) -> Option<Bound> {
    let over = |limit: u32, now: i64, more: i64| limit > 0 && now + more > i64::from(limit);
    let places = i64::from(places);
    if over(limits.reservations_per_day, held.reservations_that_day, 1) {
        Some(Bound::ReservationsPerDay(limits.reservations_per_day))
    } else if over(limits.reservations, held.reservations, 1) {
        Some(Bound::Reservations(limits.reservations))
    } else if over(limits.places_per_day, held.places_that_day, places) {
        Some(Bound::PlacesPerDay(limits.places_per_day))
    } else if over(limits.places, held.places, places) {
        Some(Bound::Places(limits.places))
    } else {
        None
    }
}

/// The bound a reservation would pass, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Reservations(u32),
    ReservationsPerDay(u32),
    Places(u32),
    PlacesPerDay(u32),
}

fn refusal(holder: &Holder, bound: Bound, day: NaiveDate) -> Error {
    let who = match holder {
        Holder::Customer(_) => "This customer",
        Holder::Session(_) => "This session",
        Holder::Address(_) => "This client address",
    };
    let what = match bound {
        Bound::Reservations(n) => format!("{n} open checkouts"),
        Bound::ReservationsPerDay(n) => format!("{n} open checkouts for {day}"),
        Bound::Places(n) => format!("at most {n} places in open checkouts"),
        Bound::PlacesPerDay(n) => format!("at most {n} places for {day}"),
    };
    Error::new(
        ProblemType::CheckoutHoldLimitReached,
        format!(
            "{who} may hold {what} at once; pay for or release (DELETE) an open checkout first."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: HoldLimits = HoldLimits {
        reservations: 3,
        reservations_per_day: 2,
        places: 10,
        places_per_day: 6,
    };

    fn held(reservations: i64, places: i64, that_day: (i64, i64)) -> Held {
        Held {
            reservations,
            places,
            reservations_that_day: that_day.0,
            places_that_day: that_day.1,
        }
    }

    #[test]
    fn a_reservation_within_every_bound_passes() {
        assert_eq!(exceeded(&LIMITS, &Held::default(), 6), None);
        assert_eq!(exceeded(&LIMITS, &held(2, 4, (1, 2)), 4), None);
    }

    #[test]
    fn each_bound_refuses_the_reservation_that_passes_it() {
        assert_eq!(
            exceeded(&LIMITS, &held(1, 1, (2, 1)), 1),
            Some(Bound::ReservationsPerDay(2))
        );
        assert_eq!(
            exceeded(&LIMITS, &held(3, 3, (0, 0)), 1),
            Some(Bound::Reservations(3))
        );
        assert_eq!(
            exceeded(&LIMITS, &held(1, 5, (1, 5)), 2),
            Some(Bound::PlacesPerDay(6))
        );
        assert_eq!(
            exceeded(&LIMITS, &held(2, 9, (0, 0)), 2),
            Some(Bound::Places(10))
        );
        assert_eq!(
            exceeded(&LIMITS, &Held::default(), 7),
            Some(Bound::PlacesPerDay(6))
        );
    }

    #[test]
    fn zero_is_no_bound() {
        let none = HoldLimits {
            reservations: 0,
            reservations_per_day: 0,
            places: 0,
            places_per_day: 0,
        };
        assert!(!none.bounds_anything());
        assert_eq!(
            exceeded(&none, &held(1_000, 50_000, (1_000, 50_000)), 1_000),
            None
        );
        assert!(LIMITS.bounds_anything());
    }

    #[test]
    fn an_address_holds_a_multiple_of_a_customer() {
        let address = LIMITS.times(4);
        assert_eq!(address.places_per_day, 24);
        assert_eq!(exceeded(&address, &held(2, 20, (2, 20)), 4), None);
        assert_eq!(LIMITS.times(u32::MAX).places, u32::MAX, "saturates");
    }
}
