//! Taking a mistaken entry back (`DELETE /v2/redemptions/{redemption_id}`; docs/gate.md,
//! "Undo"): by the gate that made it, within [`UNDO_WINDOW_MINUTES`] of it. The entry becomes
//! UNDONE and the ticket VALID again, with `tickets.RedemptionUndone`, in one transaction.

use app::wire::{ProblemType, RedemptionStatus};
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use super::{judge::zone_of, ticket_event, Gates};
use crate::{
    error::{Error, Result},
    events::EventType,
    store::Gate,
    time::in_zone,
};

/// How long after an entry its gate may take it back.
pub const UNDO_WINDOW_MINUTES: i64 = 10;

/// Takes back the entry `redemption_id` for `gate` at `now`.
pub async fn undo(
    gates: &Gates<'_>,
    gate: &Gate,
    redemption_id: Uuid,
    now: DateTime<Utc>,
) -> Result<()> {
    let now = crate::time::to_stored(now);
    let not_found = || Error::not_found("The redemption");
    let entry = gates
        .store
        .redemption(redemption_id)
        .await?
        .ok_or_else(not_found)?;
    // Another merchant's entry is unknown here; another gate's of the same merchant is named.
    if entry.gate_id != gate.gate_id {
        let owner = gates.store.gate(entry.gate_id).await?;
        if owner.is_none_or(|g| g.merchant_id != gate.merchant_id) {
            return Err(not_found());
        }
        return Err(not_undoable(
            "Only the gate that let the ticket in can undo the entry.",
        ));
    }
    let ticket_id = match (entry.status, entry.ticket_id) {
        (RedemptionStatus::Redeemed, Some(ticket_id)) => ticket_id,
        (RedemptionStatus::Undone, _) => {
            return Err(not_undoable("This entry was undone already."))
        }
        _ => {
            return Err(not_undoable(
                "Only an entry that let a ticket in can be undone.",
            ))
        }
    };
    if now - entry.recorded_at > Duration::minutes(UNDO_WINDOW_MINUTES) {
        return Err(not_undoable(&format!(
            "An entry can be undone within {UNDO_WINDOW_MINUTES} minutes; ask the operator."
        )));
    }
    let ticket = gates
        .store
        .ticket_to_scan(ticket_id)
        .await?
        .ok_or_else(not_found)?;
    let mut tx = gates.store.begin_checkout().await?;
    if !tx.undo_redemption(redemption_id, ticket_id, now).await? {
        return Err(not_undoable("This entry was undone already."));
    }
    tx.touch_order(ticket.customer_order_id, false, now).await?;
    let zone = zone_of(&ticket);
    tx.insert_event(&ticket_event(
        EventType::RedemptionUndone,
        &ticket,
        serde_json::json!({
            "ticket_id": ticket.ticket_id,
            "order_id": ticket.customer_order_id,
            "order_display_id": ticket.order_display_id,
            "gate_id": gate.gate_id,
            "redemption_id": redemption_id,
            "undone_at": in_zone(now, zone),
        }),
    ))
    .await?;
    tx.commit().await?;
    Ok(())
}

fn not_undoable(detail: &str) -> Error {
    Error::new(ProblemType::RedemptionNotUndoable, detail)
}
