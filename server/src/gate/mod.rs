//! At the gate (docs/gate.md): a merchant's gates let each valid ticket in once.
//!
//! `judge` says whether a ticket may pass a gate now, refusals in the contract's order;
//! `window` when a ticket is valid, in the merchant's zone; `redeem` lets a scanned ticket in
//! (once per gate and nonce, exactly once per ticket); `undo` takes a mistaken entry back;
//! `offline` takes the scans an offline gate made; `code` reads what a gate scanned (the
//! signed token of the QR code, or the printed code typed by hand); `answer` words an entry
//! as the wire shows it; `manifest` signs the day's list of revoked and used codes an offline
//! gate judges by; `pairing` pairs a phone with a gate. The handlers are `api::redemptions`
//! (gates) and `admin::gates` (the operator).

pub mod answer;
pub mod code;
pub mod judge;
pub mod manifest;
pub mod offline;
pub mod pairing;
pub mod redeem;
pub mod undo;
pub mod window;

use crate::{auth::Authn, store::Store};

/// What the gate works with, for one call (`AppState::gates`).
pub struct Gates<'a> {
    pub store: &'a dyn Store,
    /// The keys that sign and verify the tickets' QR tokens: the bearers' (`code`).
    pub authn: &'a Authn,
}

/// `value` as a JSON column keeps it.
pub(crate) fn stored<T: serde::Serialize>(
    value: &T,
) -> anyhow::Result<sqlx::types::Json<serde_json::Value>> {
    Ok(sqlx::types::Json(serde_json::to_value(value)?))
}

/// An event of the gate, with what every event of it says.
pub(crate) fn ticket_event(
    event_type: crate::events::EventType,
    ticket: &crate::store::ScannedTicket,
    data: serde_json::Value,
) -> crate::events::NewEvent {
    crate::events::NewEvent {
        event_type,
        subject: format!("tickets/{}", ticket.ticket_id),
        campaign_id: ticket.campaign_id,
        partner_client_id: ticket.partner_client_id,
        data,
    }
}

/// The entries, undos and conflicts `gate_id` kept for `day` (the merchant's calendar), as the
/// wire shows them, in the order the visitors went in.
pub async fn redemptions_of_day(
    gates: &Gates<'_>,
    gate_id: uuid::Uuid,
    day: chrono::NaiveDate,
) -> crate::error::Result<Vec<app::wire::Redemption>> {
    let kept = gates.store.redemptions_of_day(gate_id, day).await?;
    let mut tickets: std::collections::HashMap<uuid::Uuid, crate::store::ScannedTicket> =
        std::collections::HashMap::new();
    let mut listed = Vec::with_capacity(kept.len());
    for r in kept {
        let Some(ticket_id) = r.ticket_id else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = tickets.entry(ticket_id) {
            if let Some(t) = gates.store.ticket_to_scan(ticket_id).await? {
                slot.insert(t);
            }
        }
        let Some(ticket) = tickets.get(&ticket_id) else {
            continue;
        };
        listed.push(answer::redemption(
            ticket,
            &answer::Entry {
                redemption_id: r.redemption_id,
                status: r.status,
                gate_id: r.gate_id,
                redeemed_at: r.redeemed_at,
                offline: r.offline,
                undone_at: r.undone_at,
            },
        ));
    }
    Ok(listed)
}
