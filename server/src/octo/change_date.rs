//! A confirmed booking's new date (`PATCH /bookings/{uuid}` with an `availabilityId`,
//! docs/octo.md, "Changing a booking"): the partner's date change
//! (`after_sale::requests::rebooking`), under the merchant's policy and its deadline, the new
//! places taken in the move's one transaction, new tickets issued, a cheaper day's difference
//! refunded to the reseller's account and a dearer day's owed on it
//! (`after_sale::rebook_payment`: paid at once, no payment page). A held booking's date
//! changes as its units do (`change_hold`).

use app::wire::RebookingRequest;
use chrono::Utc;

use super::{
    availability::visit_of,
    error::{OctoError, OctoResult},
    reseller::Reseller,
};
use crate::{
    after_sale::{requests, Actor},
    state::AppState,
    store::{OctoBooking, OrderRecord, Product},
};

/// Moves the confirmed `booking` (its `order`, of `product`) to `availability_id`.
pub async fn change_date(
    state: &AppState,
    r: &Reseller,
    booking: &OctoBooking,
    order: OrderRecord,
    product: &Product,
    availability_id: &str,
) -> OctoResult<()> {
    let (day, date) = visit_of(availability_id, r.merchant.zone()?, product)
        .ok_or_else(|| OctoError::invalid_availability(availability_id))?;
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
        Utc::now(),
    )
    .await?;
    state
        .store
        .set_octo_booking_day(booking.uuid, day)
        .await
        .map_err(crate::error::Error::from)?;
    Ok(())
}
