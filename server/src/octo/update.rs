//! `PATCH /bookings/{uuid}` (docs/octo.md, "Changing a booking"): the reseller's reference,
//! notes and contact at any time, and what the booking holds:
//!
//! - on hold: its day, units and product, reserved again in one transaction (`change_hold`);
//! - confirmed: its date (`change_date`, the after-sale date change) or fewer units (the
//!   after-sale cancellation of the tickets left out, under the merchant's policy), one of
//!   the two per request since each is its own change with its own refund. More units, or
//!   another product, are a new sale: the reseller books them as a new booking.

use app::wire::{ManagedCancellationRequest, TicketStatus};
use chrono::{Duration, Utc};
use std::collections::HashSet;
use uuid::Uuid;

use super::{
    availability::{slot_visit, visit_of},
    bookings::{
        booking_of, check_option, line_of, product_of, UnitItemBody, UpdateBody, HOLD_MINUTES,
    },
    change_date::change_date,
    change_hold::{change_hold, units_of},
    error::{OctoError, OctoResult},
    reseller::Reseller,
};
use crate::{
    after_sale::{requests, Actor},
    error::Error,
    state::AppState,
    store::{OctoBooking, OrderRecord},
};

/// Changes the reseller's booking `uuid` as `body` asks.
pub async fn update(
    state: &AppState,
    r: &Reseller,
    uuid: &str,
    body: UpdateBody,
) -> OctoResult<()> {
    if let Some(option) = &body.option_id {
        check_option(option)?;
    }
    let booking = booking_of(state, r, uuid).await?;
    let order = state
        .store
        .order_of_checkout(booking.checkout_id)
        .await
        .map_err(Error::from)?;
    match order {
        Some(order) => change_confirmed(state, r, &booking, order, &body).await?,
        None if body.changes_hold() => change_hold(state, r, &booking, &body).await?,
        None => {}
    }
    // As the change left it (on another checkout, perhaps).
    let mut booking = booking_of(state, r, uuid).await?;
    if let Some(minutes) = body
        .expiration_minutes
        .filter(|m| (1..HOLD_MINUTES).contains(m))
    {
        state
            .store
            .shorten_hold(booking.checkout_id, Utc::now() + Duration::minutes(minutes))
            .await
            .map_err(Error::from)?;
    }
    if let Some(reference) = body.reseller_reference {
        booking.reseller_reference = Some(reference);
    }
    if let Some(notes) = body.notes {
        booking.notes = Some(notes);
    }
    if let Some(contact) = body.contact {
        booking.contact = Some(sqlx::types::Json(contact));
    }
    state
        .store
        .update_octo_booking(&booking)
        .await
        .map_err(Error::from)?;
    Ok(())
}

/// A confirmed booking's date, or fewer of its units.
async fn change_confirmed(
    state: &AppState,
    r: &Reseller,
    booking: &OctoBooking,
    order: OrderRecord,
    body: &UpdateBody,
) -> OctoResult<()> {
    let line = &line_of(state, booking).await?;
    if body
        .product_id
        .as_deref()
        .is_some_and(|id| id != line.product_id.to_string())
    {
        return Err(OctoError::unprocessable(
            "A confirmed booking keeps its product: book the other product as a new booking, and cancel this one.",
        ));
    }
    let product = product_of(state, r, &line.product_id.to_string()).await?;
    let items = units_of(&product, body.unit_items.as_deref())?;
    if items.is_none() && body.availability_id.is_none() {
        return Ok(());
    }
    let read = crate::after_sale::page::order_read(state, order.clone()).await?;
    let dropped = match items {
        Some(items) => left_out(&read.tickets, items)?,
        None => Vec::new(),
    };
    // The day it is on sent back (a channel manager's full update) is no date change.
    let zone = r.merchant.zone()?;
    let new_day = body.availability_id.as_deref().filter(|id| {
        visit_of(id, zone, &product).map(|(_, date)| date) != current_visit(&read, zone)
    });
    match (new_day, dropped.is_empty()) {
        (Some(_), false) => Err(OctoError::unprocessable(
            "Change a confirmed booking's date and its units in two requests: each is its own change under the merchant's policy.",
        )),
        (Some(id), true) => change_date(state, r, booking, order, &product, id).await,
        (None, false) => {
            let request = ManagedCancellationRequest {
                ticket_ids: Some(dropped),
                note: None,
                refund_percent: None,
            };
            requests::managed_cancellation(
                &state.commerce,
                order,
                Actor::Partner,
                request,
                None,
                Utc::now(),
            )
            .await?;
            Ok(())
        }
        (None, true) => Ok(()),
    }
}

/// The visit a confirmed booking's standing tickets are for, as a reservation asks for it
/// (`visit_of`'s form): the local start of their timeslot, or their day.
fn current_visit(order: &app::wire::Order, zone: chrono_tz::Tz) -> Option<String> {
    let ticket = order
        .tickets
        .iter()
        .find(|t| t.replaced_by.is_none() && t.status != TicketStatus::Cancelled)?;
    match &ticket.timeslot {
        Some(slot) => Some(slot_visit(slot.start_time, zone)),
        None => ticket.visit_date.map(|d| d.to_string()),
    }
}

/// The tickets a confirmed booking's new `items` leave out. An item naming a ticket (its
/// unit item's uuid) keeps that one; an item naming none keeps one of the rest, a used
/// ticket before a valid one (a used one cannot be cancelled), then in order. More items
/// than tickets is more units: a new sale.
fn left_out(tickets: &[app::wire::Ticket], items: &[UnitItemBody]) -> OctoResult<Vec<Uuid>> {
    let standing: Vec<&app::wire::Ticket> = tickets
        .iter()
        .filter(|t| t.replaced_by.is_none() && t.status != TicketStatus::Cancelled)
        .collect();
    if items.len() > standing.len() {
        return Err(OctoError::unprocessable(format!(
            "The booking has {} units: more are a new sale, so book them as a new booking.",
            standing.len()
        )));
    }
    let mut named = HashSet::new();
    for uuid in items.iter().filter_map(|i| i.uuid) {
        if !standing.iter().any(|t| t.ticket_id == uuid) || !named.insert(uuid) {
            return Err(OctoError::unprocessable(format!(
                "Unit item {uuid} is not one of this booking's units, or is named twice."
            )));
        }
    }
    let unnamed = items.len() - named.len();
    let mut rest: Vec<&&app::wire::Ticket> = standing
        .iter()
        .filter(|t| !named.contains(&t.ticket_id))
        .collect();
    // Stable: used ones first, each group in order.
    rest.sort_by_key(|t| t.status != TicketStatus::Used);
    Ok(rest.iter().skip(unnamed).map(|t| t.ticket_id).collect())
}

#[cfg(test)]
mod tests;
