//! An entry as the wire shows it (`wire::Redemption`): the ticket's product, age group, visit
//! and order, with times in the merchant's offset.

use app::wire::{GivenAnswer, Redemption, RedemptionStatus, TimeslotWindow};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use uuid::Uuid;

use super::judge::zone_of;
use crate::{checkout::answers, store::ScannedTicket, time::in_zone};

/// What an entry is, beside its ticket.
pub struct Entry {
    pub redemption_id: Uuid,
    pub status: RedemptionStatus,
    pub gate_id: Uuid,
    pub redeemed_at: DateTime<Utc>,
    pub offline: bool,
    pub undone_at: Option<DateTime<Utc>>,
}

/// `entry` of `ticket` as the wire shows it.
pub fn redemption(ticket: &ScannedTicket, entry: &Entry) -> Redemption {
    let zone: Tz = zone_of(ticket);
    Redemption {
        redemption_id: entry.redemption_id,
        status: entry.status,
        ticket_id: ticket.ticket_id,
        product_title: ticket.product_title.clone(),
        age_group: ticket.age_group.clone(),
        visit_date: ticket.visit_date,
        timeslot: match (ticket.timeslot_id, ticket.slot_start, ticket.slot_end) {
            (Some(timeslot_id), Some(start), Some(end)) => Some(TimeslotWindow {
                timeslot_id,
                start_time: in_zone(start, zone),
                end_time: in_zone(end, zone),
            }),
            _ => None,
        },
        order_display_id: ticket.order_display_id.clone(),
        redeemed_at: in_zone(entry.redeemed_at, zone),
        gate_id: entry.gate_id,
        offline: entry.offline,
        undone_at: entry.undone_at.map(|at| in_zone(at, zone)),
        answers: answers_of(ticket),
    }
}

/// What the gate shows of the booking questions (pretix's "ask during check-in" is this
/// read): the booking's answers, then the holder's own, labelled in the order's language.
fn answers_of(ticket: &ScannedTicket) -> Vec<GivenAnswer> {
    let locale = ticket
        .locale
        .as_deref()
        .and_then(|l| l.parse().ok())
        .unwrap_or_default();
    let booking = ticket
        .order_answers
        .as_ref()
        .map(|a| answers::of_booking(&a.0))
        .unwrap_or_default();
    let own = ticket
        .answers
        .as_ref()
        .map(|a| a.0.as_slice())
        .unwrap_or(&[]);
    booking.iter().chain(own).map(|a| a.given(locale)).collect()
}

/// The data of `tickets.TicketRedeemed` (docs/events.md).
pub fn redeemed_event(ticket: &ScannedTicket, entry: &Entry) -> serde_json::Value {
    serde_json::json!({
        "ticket_id": ticket.ticket_id,
        "order_id": ticket.customer_order_id,
        "order_display_id": ticket.order_display_id,
        "gate_id": entry.gate_id,
        "redemption_id": entry.redemption_id,
        "redeemed_at": in_zone(entry.redeemed_at, zone_of(ticket)),
        "offline": entry.offline,
    })
}
