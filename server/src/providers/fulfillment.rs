//! Fulfilment providers: who holds the capacity of a product and issues its booking. Chosen
//! per product by its `provider` name (docs/api-checkout.md, "One transaction per step").
//!
//! A provider reserves inside the checkout's database transaction, so whatever it does there
//! commits or rolls back with the checkout: a failure anywhere later gives the capacity back
//! without a compensating step. A provider that books elsewhere does its call there too and
//! must keep it short; its `release` is the compensation when a checkout ends unpaid.

use std::{collections::HashMap, sync::Arc};

use chrono::NaiveDate;
use uuid::Uuid;

use crate::store::{CheckoutTx, Places, StoreError};

/// What a provider is asked to hold: the lines of one checkout.
#[derive(Debug, Clone)]
pub struct Booking {
    pub checkout_id: Uuid,
    pub lines: Vec<BookingLine>,
}

#[derive(Debug, Clone)]
pub struct BookingLine {
    pub product_id: Uuid,
    pub sku: String,
    /// The visit date; the day of purchase for products sold without a date.
    pub day: NaiveDate,
    pub availability_group_id: Uuid,
    pub timeslot_id: Option<Uuid>,
    pub quantity: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum FulfillmentError {
    /// Not enough capacity, or no such slot: another date is to be offered.
    #[error("not fulfillable: {0}")]
    Unavailable(String),
    /// The provider refused the booking for these products or that date.
    #[error("refused: {0}")]
    Refused(String),
    /// The provider failed; a retry may succeed.
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl From<StoreError> for FulfillmentError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Short(places) => FulfillmentError::Unavailable(format!(
                "fewer than {} places are left {places}",
                places.quantity()
            )),
            err => FulfillmentError::Failed(err.into()),
        }
    }
}

#[async_trait::async_trait]
pub trait FulfillmentProvider: Send + Sync {
    /// Holds the booking, inside the checkout's transaction.
    async fn reserve(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError>;
    /// Gives a held booking back, inside the transaction that ends the checkout.
    async fn release(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError>;
    /// Makes a paid booking final (tickets may be used).
    async fn confirm(&self, booking: &Booking) -> Result<(), FulfillmentError>;
    /// Whether the places the calendar shows are this provider's own, so a basket needing more
    /// than are left can be refused before any lock is taken or anything is written.
    fn capacity_is_ours(&self) -> bool {
        false
    }
}

/// The built-in provider over our own availability groups: a booking takes places of the
/// group's day and, for timeslotted lines, of the slot. Lines of one group are summed first,
/// and groups and slots are asked for in id order, so concurrent checkouts lock rows in one
/// order. The transaction takes them when it commits (`store::places`); a short take fails
/// that commit, which `From<StoreError>` turns into `Unavailable`.
pub struct Inventory;

impl Inventory {
    fn per_day(booking: &Booking) -> Vec<(Uuid, NaiveDate, u32)> {
        let mut days: Vec<(Uuid, NaiveDate, u32)> = Vec::new();
        for line in &booking.lines {
            let key = (line.availability_group_id, line.day);
            match days.iter_mut().find(|(g, d, _)| (*g, *d) == key) {
                Some((_, _, q)) => *q += line.quantity,
                None => days.push((key.0, key.1, line.quantity)),
            }
        }
        days.sort();
        days
    }

    fn per_slot(booking: &Booking) -> Vec<(Uuid, u32)> {
        let mut slots: Vec<(Uuid, u32)> = Vec::new();
        for line in &booking.lines {
            let Some(slot) = line.timeslot_id else {
                continue;
            };
            match slots.iter_mut().find(|(s, _)| *s == slot) {
                Some((_, q)) => *q += line.quantity,
                None => slots.push((slot, line.quantity)),
            }
        }
        slots.sort();
        slots
    }
}

#[async_trait::async_trait]
impl FulfillmentProvider for Inventory {
    async fn reserve(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError> {
        for (group, day, quantity) in Self::per_day(booking) {
            tx.take(Places::Day {
                group,
                day,
                quantity,
            });
        }
        for (timeslot_id, quantity) in Self::per_slot(booking) {
            tx.take(Places::Timeslot {
                timeslot_id,
                quantity,
            });
        }
        Ok(())
    }

    async fn release(
        &self,
        tx: &mut dyn CheckoutTx,
        booking: &Booking,
    ) -> Result<(), FulfillmentError> {
        for (group, day, quantity) in Self::per_day(booking) {
            tx.give_back_day(group, day, quantity).await?;
        }
        for (slot, quantity) in Self::per_slot(booking) {
            tx.give_back_timeslot(slot, quantity).await?;
        }
        Ok(())
    }

    async fn confirm(&self, _booking: &Booking) -> Result<(), FulfillmentError> {
        // Our own capacity is final once the payment commits; nothing to tell anyone.
        Ok(())
    }

    fn capacity_is_ours(&self) -> bool {
        true
    }
}

/// The fulfilment providers by name.
#[derive(Clone)]
pub struct FulfillmentProviders {
    providers: HashMap<String, Arc<dyn FulfillmentProvider>>,
}

impl Default for FulfillmentProviders {
    fn default() -> Self {
        let mut providers: HashMap<String, Arc<dyn FulfillmentProvider>> = HashMap::new();
        providers.insert(
            crate::store::INVENTORY_PROVIDER.to_owned(),
            Arc::new(Inventory),
        );
        Self { providers }
    }
}

impl FulfillmentProviders {
    /// Adds or replaces the provider `name` (tests add one that refuses or fails on demand).
    pub fn register(&mut self, name: impl Into<String>, provider: Arc<dyn FulfillmentProvider>) {
        self.providers.insert(name.into(), provider);
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn FulfillmentProvider>> {
        self.providers.get(name).cloned()
    }
}
