//! `POST /v2/checkouts/{checkout_id}/extend`: more time for a reservation, once. The hold
//! grows by `reserve::EXTENSION` (10 minutes) but never past the payment window counted from
//! the reservation (`place::PAYMENT_WINDOW`, 30 minutes): a hold never outlasts the time a
//! payment would hold the places. A second extension is 409
//! `checkout-hold-already-extended`; a checkout that is no longer RESERVED (confirmed, paid,
//! expired) is 409 `checkout-not-reserved`. The places themselves are not touched, so the
//! no-oversell rule and what one buyer may hold are unchanged.

use app::wire::{Checkout, CheckoutStatus};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Commerce;
use super::{
    place::{not_reserved, PAYMENT_WINDOW},
    read,
    reserve::EXTENSION,
};
use crate::{
    error::{Error, ProblemType, Result},
    store::CheckoutRecord,
};

/// Where a reservation's hold ends once extended: `EXTENSION` later, capped at the payment
/// window counted from its reservation.
pub fn extended_until(checkout: &CheckoutRecord) -> DateTime<Utc> {
    (checkout.expires_at + EXTENSION).min(checkout.created_at + PAYMENT_WINDOW)
}

fn already_extended(checkout_id: Uuid) -> Error {
    Error::new(
        ProblemType::CheckoutHoldAlreadyExtended,
        format!("The hold of checkout {checkout_id} was extended once already; confirm it before it ends."),
    )
}

pub async fn extend(
    state: &Commerce,
    checkout_id: Uuid,
    caller: read::Caller,
    now: DateTime<Utc>,
) -> Result<Checkout> {
    // Read as any reader does, so a hold that ended is expired first.
    let checkout = read::visible(state, checkout_id, caller).await?;
    if checkout.status != CheckoutStatus::Reserved {
        return Err(not_reserved(checkout_id, checkout.status));
    }
    if checkout.hold_extended_at.is_some() {
        return Err(already_extended(checkout_id));
    }
    let mut tx = state.store.begin_checkout().await?;
    if !tx
        .extend_hold(checkout_id, extended_until(&checkout), now)
        .await?
    {
        drop(tx);
        // Another request got there first: an extension, a confirmation or the expiry.
        let now_is = read::visible(state, checkout_id, caller).await?;
        return Err(match now_is.hold_extended_at {
            Some(_) if now_is.status == CheckoutStatus::Reserved => already_extended(checkout_id),
            _ => not_reserved(checkout_id, now_is.status),
        });
    }
    tx.commit().await?;
    read::view_of(state, checkout_id).await
}
