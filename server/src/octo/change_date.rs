//! `PATCH /bookings/{uuid}` with an `availabilityId` (docs/octo.md, "Changing the date"):
//!
//! - a confirmed booking moves as the partner's date change (`after_sale::requests::rebooking`):
//!   under the merchant's policy and its deadline, the new places taken in the move's one
//!   transaction, new tickets issued, a cheaper day's difference refunded to the reseller's
//!   account and a dearer day's owed on it (`after_sale::rebook_payment`: paid at once, no
//!   payment page);
//! - a held booking is reserved again on the new day with its units and answers, the booking
//!   pointed at the new hold (which ends when the old one would have) and the old hold
//!   released. Two changes at once: one wins, the other's new hold is released at once.

use app::wire::{Answer, BasketLine, CheckoutRequest, RebookingRequest};
use chrono::Utc;

use super::{
    availability::visit_of,
    bookings::{caller, hold, product_of},
    error::{OctoError, OctoResult},
    reseller::Reseller,
};
use crate::{
    after_sale::{requests, Actor},
    checkout::lifecycle::release_reservation,
    state::AppState,
    store::{CheckoutRecord, OctoBooking},
};

/// Moves `booking` to `availability_id`.
pub async fn change_date(
    state: &AppState,
    r: &Reseller,
    booking: &OctoBooking,
    availability_id: &str,
) -> OctoResult<()> {
    let checkout =
        crate::checkout::read::visible(&state.commerce, booking.checkout_id, caller(r)).await?;
    let lines = state
        .store
        .checkout_lines(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?;
    let line = lines
        .first()
        .ok_or_else(|| OctoError::unprocessable("The booking has nothing to move."))?;
    let product = product_of(state, r, &line.product_id.to_string()).await?;
    let zone = r.merchant.zone()?;
    let (day, date) = visit_of(availability_id, zone, &product)
        .ok_or_else(|| OctoError::invalid_availability(availability_id))?;
    let order = state
        .store
        .order_of_checkout(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?;
    let now = Utc::now();
    if let Some(order) = order {
        let request = RebookingRequest {
            date,
            ticket_ids: None,
        };
        requests::rebooking(
            &state.commerce,
            order,
            Actor::Partner,
            request,
            None,
            String::new(),
            now,
        )
        .await?;
        let mut moved = booking.clone();
        moved.local_date = day.to_string();
        state
            .store
            .update_octo_booking(&moved)
            .await
            .map_err(crate::error::Error::from)?;
        return Ok(());
    }
    if checkout.status != app::wire::CheckoutStatus::Reserved {
        return Err(OctoError::unprocessable(format!(
            "The booking is {} and cannot change its date.",
            checkout.status
        )));
    }
    let stored = checkout;
    let request = CheckoutRequest {
        date,
        flexible_date: false,
        lines: vec![BasketLine {
            product_id: line.product_id,
            quantity: u32::try_from(line.quantity).unwrap_or(u32::MAX),
        }],
        voucher_codes: Vec::new(),
        external_reference: booking.reseller_reference.clone(),
        replaces: None,
        attribution: None,
        buyer: None,
        answers: answers_of(&stored),
    };
    let held = hold(state, r, &request, now).await?;
    state
        .store
        .shorten_hold(held.checkout_id, stored.expires_at)
        .await
        .map_err(crate::error::Error::from)?;
    let moved = state
        .store
        .move_octo_booking(booking.uuid, stored.checkout_id, held.checkout_id, day)
        .await
        .map_err(crate::error::Error::from)?;
    // The loser of two changes at once gives its new places back; the winner the old ones.
    let release = if moved {
        stored
    } else {
        state
            .store
            .checkout(held.checkout_id)
            .await
            .map_err(crate::error::Error::from)?
            .ok_or_else(|| OctoError::invalid_booking(&booking.uuid.to_string()))?
    };
    release_reservation(&state.commerce, &release).await?;
    if moved {
        Ok(())
    } else {
        Err(OctoError::unprocessable(
            "Another change of this booking came first; read it and try again.",
        ))
    }
}

/// The answers a held checkout was given, as a new reservation of its one line takes them.
fn answers_of(checkout: &CheckoutRecord) -> Vec<Answer> {
    checkout
        .answers()
        .iter()
        .map(|a| Answer {
            question_id: a.question_id.clone(),
            line: a.product_id.map(|_| 0),
            ticket: a.ticket,
            value: a.value.clone(),
        })
        .collect()
}
