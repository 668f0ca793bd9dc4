//! Whether a scanned ticket may pass a gate at a moment: the refusals of docs/gate.md, each
//! its own problem type, checked in the contract's order (unknown or another merchant's,
//! cancelled or replaced, used, not for this gate, not valid now). Pure: the caller reads the
//! ticket and the gate, and the database's conditional update settles races after.

use app::wire::{ProblemType, TicketStatus};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::window::{window, Validity};
use crate::{
    error::{Error, Members},
    store::{Gate, ScannedTicket},
    time::in_zone,
};

/// 404 `ticket-unknown`: no ticket has the code, or it is another merchant's (the same answer
/// for both, so a gate learns nothing of other merchants' tickets).
pub fn unknown() -> Error {
    Error::new(
        ProblemType::TicketUnknown,
        "No ticket of this gate's merchant has this code. Check the code, or the visitor's booking.",
    )
}

/// The merchant's zone, from the ticket's read.
pub fn zone_of(ticket: &ScannedTicket) -> Tz {
    ticket.timezone.parse().unwrap_or(Tz::UTC)
}

/// The ticket's validity as it says it, before a gate's margins.
pub fn validity(ticket: &ScannedTicket) -> Validity {
    match (ticket.slot_start, ticket.slot_end, ticket.visit_date) {
        (Some(start), Some(end), _) => Validity::Slot { start, end },
        (_, _, Some(day)) => Validity::Day(day),
        _ => Validity::Undated {
            issued: ticket.created_at,
            until: ticket.valid_until,
        },
    }
}

/// `Ok` when `ticket` may pass `gate` at `at`; else the first refusal that applies.
pub fn judge(ticket: &ScannedTicket, gate: &Gate, at: DateTime<Utc>) -> Result<(), Error> {
    if ticket.merchant_id != gate.merchant_id {
        return Err(unknown());
    }
    let zone = zone_of(ticket);
    match ticket.status {
        TicketStatus::Cancelled => {
            return Err(Error::new(
                ProblemType::TicketCancelled,
                "This ticket was cancelled or replaced by a ticket for another date; it lets nobody in.",
            ))
        }
        TicketStatus::Used => return Err(already_redeemed(ticket, zone)),
        TicketStatus::Valid => {}
    }
    if !gate.admits(ticket.product_id) {
        return Err(Error::new(
            ProblemType::TicketWrongGate,
            format!(
                "This gate does not admit \"{}\"; send the visitor to a gate that does.",
                ticket.product_title
            ),
        ));
    }
    let window = window(
        validity(ticket),
        zone,
        gate.early_minutes,
        gate.late_minutes,
    );
    if !window.contains(at) {
        let from = in_zone(window.from, zone);
        let until = window.until.map(|u| in_zone(u, zone));
        let detail = match until {
            Some(until) => format!("This ticket is valid from {from} until {until}."),
            None => format!("This ticket is valid from {from}."),
        };
        return Err(
            Error::new(ProblemType::TicketNotValidNow, detail).with_members(Members {
                valid_from: Some(from),
                valid_until: until,
                ..Members::default()
            }),
        );
    }
    Ok(())
}

/// 409 `ticket-already-redeemed`, saying when and at which gate the ticket was first let in.
pub fn already_redeemed(ticket: &ScannedTicket, zone: Tz) -> Error {
    let first = ticket.redeemed_at.map(|at| in_zone(at, zone));
    let detail = match first {
        Some(first) => format!("This ticket was used already, at {first}."),
        None => "This ticket was used already.".to_owned(),
    };
    Error::new(ProblemType::TicketAlreadyRedeemed, detail).with_members(Members {
        first_redeemed_at: first,
        gate_id: ticket.redeemed_by,
        ..Members::default()
    })
}
