//! `POST /v2/checkouts`: reserve a basket and return the priced review. [`open`] is the same
//! reservation with its transaction left open for a caller that writes beside it (OCTO's
//! booking, `octo::bookings`; a held booking reserved again, `checkout::rehold`).

use app::wire::{Checkout, CheckoutRequest, Locale};
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::Commerce;
use super::{
    basket,
    plan::plan,
    read,
    reserve::{self, Buyer, Reservation, Reserved},
};
use crate::{
    error::Result,
    store::{CheckoutLineRecord, CheckoutTx},
};

pub async fn create(
    state: &Commerce,
    campaign_id: Uuid,
    buyer: Buyer,
    locale: Locale,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Checkout> {
    let open = open(
        state,
        campaign_id,
        buyer,
        locale,
        request,
        now,
        Holding::default(),
    )
    .await?;
    let checkout_id = open.checkout_id;
    open.commit(state).await?;
    read::view_of(state, checkout_id).await
}

/// A reservation written in its open transaction, its places not taken yet; dropped without
/// [`Open::commit`], nothing of it is kept.
pub struct Open {
    reserved: Reserved,
    pub checkout_id: Uuid,
}

impl Open {
    /// The transaction, for what the caller writes beside the reservation.
    pub fn tx(&mut self) -> &mut dyn CheckoutTx {
        self.reserved.tx()
    }

    /// Takes the places and commits all of it, or keeps nothing.
    pub async fn commit(self, state: &Commerce) -> Result<()> {
        self.reserved.hold_and_commit().await?;
        state.catalog.capacity_changed();
        Ok(())
    }
}

/// How a reservation by [`open`] holds, besides the usual.
#[derive(Debug, Default, Clone, Copy)]
pub struct Holding<'a> {
    /// When the hold ends, if not in the reservation's 15 minutes (`Reservation::hold_until`).
    pub until: Option<DateTime<Utc>>,
    /// A checkout the caller ends in the same transaction (its lines and day): its places
    /// count as left.
    pub freed: Option<(&'a [CheckoutLineRecord], NaiveDate)>,
}

/// Reserves `request` up to its commit (see [`Open`]), held as `holding` says.
pub async fn open(
    state: &Commerce,
    campaign_id: Uuid,
    buyer: Buyer,
    locale: Locale,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
    holding: Holding<'_>,
) -> Result<Open> {
    basket::check_request(request)?;
    let mut plan = plan(state, campaign_id, locale, request, now).await?;
    if let Some((lines, day)) = holding.freed {
        plan.count_as_left(lines, day);
    }
    let checkout_id = crate::ids::random_id();
    let reservation = Reservation {
        confirmed: None,
        checkout_id,
        campaign_id,
        request,
        buyer,
        locale,
        now,
        hold_until: holding.until,
    };
    let prepared = reserve::prepare(state, &plan, &reservation).await?;
    let tx = state.store.begin_checkout().await?;
    let (reserved, _) = reserve::reserve_in(tx, prepared, &plan, &reservation).await?;
    Ok(Open {
        reserved,
        checkout_id,
    })
}
