//! An entry as the wire shows it (`wire::Redemption`): the ticket's product, age group, visit
//! and order, with times in the merchant's offset.

use app::wire::{Redemption, RedemptionStatus, TimeslotWindow};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use uuid::Uuid;

use super::judge::zone_of;
use crate::{store::ScannedTicket, time::in_zone};

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
    }
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
