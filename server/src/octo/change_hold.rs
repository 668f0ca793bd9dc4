//! A held booking changed (`PATCH /bookings/{uuid}` on an ON_HOLD booking, docs/octo.md,
//! "Changing a booking"): its day, its units or its product, reserved again in one
//! transaction with the booking pointed at the new hold (`checkout::rehold`). The old hold's
//! places count for the new one, the new one ends when the old would have, and of two
//! changes at once one wins: the other keeps nothing and is told to read the booking again.

use app::wire::{Answer, BasketLine, CheckoutRequest, CheckoutStatus};
use chrono::Utc;
use uuid::Uuid;

use super::{
    availability::{slot_visit, visit_of},
    bookings::{answers, buyer, caller, line_of, product_of, UnitItemBody, UpdateBody},
    catalog::unit_id,
    error::{OctoError, OctoResult},
    reseller::Reseller,
};
use crate::{
    error::Error,
    state::AppState,
    store::{CheckoutLineRecord, CheckoutRecord, OctoBooking, Product},
};

/// Reserves `booking` again as `body` changes it.
pub async fn change_hold(
    state: &AppState,
    r: &Reseller,
    booking: &OctoBooking,
    body: &UpdateBody,
) -> OctoResult<()> {
    let held =
        crate::checkout::read::visible(&state.commerce, booking.checkout_id, caller(r)).await?;
    if held.status != CheckoutStatus::Reserved || held.expires_at <= Utc::now() {
        return Err(OctoError::unprocessable(
            "The booking is no longer on hold and cannot change.",
        ));
    }
    let line = &line_of(state, booking).await?;
    let current = line.product_id.to_string();
    let product = product_of(state, r, body.product_id.as_deref().unwrap_or(&current)).await?;
    let same_product = product.product_id == line.product_id;
    let items = units_of(&product, body.unit_items.as_deref())?;
    let quantity = items.map_or(line.quantity.max(0) as usize, <[_]>::len);
    let now_on = held_visit(state, r, &held, line).await?;
    let (day, date) = match &body.availability_id {
        Some(id) => visit_of(id, r.merchant.zone()?, &product)
            .ok_or_else(|| OctoError::invalid_availability(id))?,
        None => (held.visit_date, now_on.clone()),
    };
    // The booking sent back as it is (a channel manager's full update): kept, not held anew.
    let answered = body.question_answers.is_some()
        || items.is_some_and(|i| i.iter().any(|item| !item.question_answers.is_empty()));
    if same_product && date == now_on && quantity == line.quantity.max(0) as usize && !answered {
        return Ok(());
    }
    let request = CheckoutRequest {
        date,
        flexible_date: false,
        lines: vec![BasketLine {
            product_id: product.product_id,
            quantity: u32::try_from(quantity).unwrap_or(u32::MAX),
        }],
        voucher_codes: Vec::new(),
        external_reference: booking.reseller_reference.clone(),
        replaces: None,
        attribution: None,
        buyer: None,
        answers: kept_answers(&held, same_product, body, quantity),
    };
    let uuids = unit_uuids(booking, items, quantity);
    let now = Utc::now();
    let mut rehold =
        crate::checkout::rehold::rehold(&state.commerce, &held, buyer(r), r.locale, &request, now)
            .await?;
    let new_checkout = rehold.checkout_id;
    if !rehold
        .tx()
        .move_octo_booking(booking.uuid, held.checkout_id, new_checkout, day, &uuids)
        .await
        .map_err(Error::from)?
    {
        // Dropped uncommitted: the old hold stands as the other change left it.
        return Err(OctoError::unprocessable(
            "Another change of this booking came first; read it and try again.",
        ));
    }
    rehold.commit(&state.commerce).await?;
    Ok(())
}

/// The unit items asked for, each of `product`'s one unit; `None` when the update names none.
pub fn units_of<'a>(
    product: &Product,
    items: Option<&'a [UnitItemBody]>,
) -> OctoResult<Option<&'a [UnitItemBody]>> {
    let Some(items) = items else {
        return Ok(None);
    };
    let unit = unit_id(product);
    if let Some(other) = items.iter().find(|i| i.unit_id != unit) {
        return Err(OctoError::invalid_unit(&other.unit_id));
    }
    if items.is_empty() {
        return Err(OctoError::bad_request(
            "unitItems must hold at least one unit; to drop them all, cancel the booking",
        ));
    }
    Ok(Some(items))
}

/// The visit a held checkout is on, as a reservation asks for it (`visit_of`'s form): the
/// local start of its timeslot, or its day.
async fn held_visit(
    state: &AppState,
    r: &Reseller,
    held: &CheckoutRecord,
    line: &CheckoutLineRecord,
) -> OctoResult<String> {
    let Some(slot) = line.timeslot_id else {
        return Ok(held.visit_date.to_string());
    };
    let start = state
        .store
        .timeslots_by_id(&[slot])
        .await
        .map_err(Error::from)?
        .first()
        .map(|s| s.start_time)
        .ok_or_else(|| OctoError::unprocessable("The booking's timeslot no longer exists."))?;
    Ok(slot_visit(start, r.merchant.zone()?))
}

/// The answers the new hold takes: those the update gives, else those the old hold had (of
/// the same product, for the tickets it still has).
fn kept_answers(
    held: &CheckoutRecord,
    same_product: bool,
    body: &UpdateBody,
    quantity: usize,
) -> Vec<Answer> {
    let stored: &[crate::store::StoredAnswer] = if same_product { held.answers() } else { &[] };
    let given = answers(
        body.question_answers.as_deref().unwrap_or_default(),
        body.unit_items.as_deref().unwrap_or_default(),
    );
    let of_booking = |a: &&Answer| a.ticket.is_none();
    let mut out: Vec<Answer> = if body.question_answers.is_some() {
        given.iter().filter(of_booking).cloned().collect()
    } else {
        stored
            .iter()
            .filter(|a| a.ticket.is_none())
            .map(|a| answer(a, None))
            .collect()
    };
    for ticket in 0..u32::try_from(quantity).unwrap_or(u32::MAX) {
        let anew: Vec<&Answer> = given.iter().filter(|a| a.ticket == Some(ticket)).collect();
        if anew.is_empty() {
            out.extend(
                stored
                    .iter()
                    .filter(|a| a.ticket == Some(ticket))
                    .map(|a| answer(a, Some(ticket))),
            );
        } else {
            out.extend(anew.into_iter().cloned());
        }
    }
    out
}

fn answer(a: &crate::store::StoredAnswer, ticket: Option<u32>) -> Answer {
    Answer {
        question_id: a.question_id.clone(),
        line: ticket.map(|_| 0),
        ticket,
        value: a.value.clone(),
    }
}

/// The reseller's uuid of each unit item: as the update names them, else as they were; a
/// new one for an item without.
fn unit_uuids(
    booking: &OctoBooking,
    items: Option<&[UnitItemBody]>,
    quantity: usize,
) -> Vec<Option<Uuid>> {
    let before = booking
        .unit_items
        .as_ref()
        .map(|u| u.0.clone())
        .unwrap_or_default();
    (0..quantity)
        .map(|i| {
            let named = match items {
                Some(items) => items.get(i).and_then(|item| item.uuid),
                None => before.get(i).copied().flatten(),
            };
            Some(named.unwrap_or_else(crate::ids::random_id))
        })
        .collect()
}
