//! The scans an offline gate made, uploaded when it is back (`POST /v2/redemptions/batch`;
//! docs/gate.md, "Offline").
//!
//! Each scan is judged at its own `scanned_at`, in the order sent, and kept under its nonce,
//! so an upload sent again answers the same. A valid ticket is let in as online, its entry
//! dated when the visitor went in. A ticket used already is a second entry: someone went in on
//! it, so it is kept as a CONFLICT (the earliest scan becomes the ticket's first entry) and
//! reported as `tickets.RedemptionConflict`, never dropped. Any other refusal is kept as
//! REFUSED with its problem.

use app::wire::{BatchResult, OfflineScan, ProblemType, RedemptionBatch, RedemptionStatus};
use chrono::{DateTime, Duration, Utc};

use super::{
    answer::{redemption, Entry},
    code::read,
    judge::{already_redeemed, judge, zone_of},
    redeem::{check_code, check_nonce, let_in, ticket_of},
    stored, ticket_event, Gates,
};
use crate::{
    error::{Error, Result},
    events::EventType,
    store::{nonce_taken, Gate, RedemptionRecord, ScannedTicket, StoreError},
    time::{in_zone, local_date, to_stored},
};

/// Scans one upload carries at most.
pub const MAX_SCANS: usize = 500;
/// How far ahead of the server's clock a scan's time may be (a device's clock drifts).
const CLOCK_SKEW_MINUTES: i64 = 5;

/// Takes `batch`'s scans for `gate`; their outcomes in the order sent.
pub async fn upload(
    gates: &Gates<'_>,
    gate: &Gate,
    batch: &RedemptionBatch,
    now: DateTime<Utc>,
) -> Result<Vec<BatchResult>> {
    let now = to_stored(now);
    check(batch, now)?;
    let mut results = Vec::with_capacity(batch.scans.len());
    for scan in &batch.scans {
        results.push(take(gates, gate, scan, now).await?);
    }
    Ok(results)
}

/// Every scan's fields, before any is taken: one bad field refuses the upload (400).
fn check(batch: &RedemptionBatch, now: DateTime<Utc>) -> Result<()> {
    if batch.scans.is_empty() || batch.scans.len() > MAX_SCANS {
        return Err(Error::invalid_field(
            "scans",
            "length",
            format!("an upload carries 1 to {MAX_SCANS} scans"),
        ));
    }
    for (i, scan) in batch.scans.iter().enumerate() {
        check_code(&format!("scans[{i}].code"), &scan.code)?;
        check_nonce(&format!("scans[{i}].nonce"), &scan.nonce)?;
        if scan.scanned_at.to_utc() > now + Duration::minutes(CLOCK_SKEW_MINUTES) {
            return Err(Error::invalid_field(
                &format!("scans[{i}].scanned_at"),
                "future",
                "scanned_at is later than now; check the device's clock",
            ));
        }
    }
    Ok(())
}

/// One scan's outcome: as kept before under its nonce, or taken now.
async fn take(
    gates: &Gates<'_>,
    gate: &Gate,
    scan: &OfflineScan,
    now: DateTime<Utc>,
) -> Result<BatchResult> {
    if let Some(prior) = gates
        .store
        .redemption_by_nonce(gate.gate_id, &scan.nonce)
        .await?
    {
        return Ok(result_of(&prior));
    }
    let at = to_stored(scan.scanned_at.to_utc());
    let ticket = match read(gates.authn, &scan.code).await {
        Ok(scanned) => ticket_of(gates, gate, &scanned).await,
        Err(refused) => Err(refused),
    };
    let ticket = match ticket {
        Ok(ticket) => ticket,
        Err(refused) => return keep_refusal(gates, gate, scan, None, at, refused, now).await,
    };
    match judge(&ticket, gate, at) {
        Ok(()) => {}
        Err(refused) if refused.kind() == ProblemType::TicketAlreadyRedeemed => {
            return keep_conflict(gates, gate, scan, &ticket, now).await
        }
        Err(refused) => {
            return keep_refusal(gates, gate, scan, Some(&ticket), at, refused, now).await
        }
    }
    let entry = Entry {
        redemption_id: crate::ids::random_id(),
        status: RedemptionStatus::Redeemed,
        gate_id: gate.gate_id,
        redeemed_at: at,
        offline: true,
        undone_at: None,
    };
    let answer = redemption(&ticket, &entry);
    let record = RedemptionRecord {
        answer: Some(stored(&answer)?),
        ..record(gate, scan, Some(&ticket), &entry, now)
    };
    match let_in(gates, &ticket, &record, &entry).await {
        Ok(()) => Ok(result_of(&record)),
        Err(Some(err)) if err.kind() != ProblemType::Conflict => Err(err),
        // Lost a race: to another copy of this upload (its nonce is kept now), or to another
        // entry of the ticket (a conflict now). Taken again, it finds which.
        Err(_) => Box::pin(take(gates, gate, scan, now)).await,
    }
}

/// The row that keeps `scan` as `entry`.
fn record(
    gate: &Gate,
    scan: &OfflineScan,
    ticket: Option<&ScannedTicket>,
    entry: &Entry,
    now: DateTime<Utc>,
) -> RedemptionRecord {
    let zone = ticket.map_or(chrono_tz::Tz::UTC, zone_of);
    RedemptionRecord {
        redemption_id: entry.redemption_id,
        gate_id: gate.gate_id,
        nonce: scan.nonce.clone(),
        code: ticket.map_or_else(|| scan.code.clone(), |t| t.code.clone()),
        ticket_id: ticket.map(|t| t.ticket_id),
        status: entry.status,
        offline: true,
        redeemed_at: entry.redeemed_at,
        local_date: local_date(zone, entry.redeemed_at),
        recorded_at: now,
        undone_at: None,
        answer: None,
        problem: None,
    }
}

/// Keeps a second entry of a used ticket as a CONFLICT, moves the ticket's first entry to the
/// earlier of the two, and reports it, in one transaction.
async fn keep_conflict(
    gates: &Gates<'_>,
    gate: &Gate,
    scan: &OfflineScan,
    ticket: &ScannedTicket,
    now: DateTime<Utc>,
) -> Result<BatchResult> {
    let at = to_stored(scan.scanned_at.to_utc());
    let zone = zone_of(ticket);
    let mut first = ticket.clone();
    first.redeemed_at = Some(ticket.redeemed_at.map_or(at, |was| was.min(at)));
    let problem = already_redeemed(&first, zone).to_problem();
    let entry = Entry {
        redemption_id: crate::ids::random_id(),
        status: RedemptionStatus::Conflict,
        gate_id: gate.gate_id,
        redeemed_at: at,
        offline: true,
        undone_at: None,
    };
    let record = RedemptionRecord {
        problem: Some(stored(&problem)?),
        ..record(gate, scan, Some(ticket), &entry, now)
    };
    let mut tx = gates.store.begin_checkout().await?;
    tx.insert_redemption(&record).await?;
    tx.move_first_entry(ticket.ticket_id, at).await?;
    tx.touch_order(ticket.customer_order_id, false, now).await?;
    tx.insert_event(&ticket_event(
        EventType::RedemptionConflict,
        ticket,
        serde_json::json!({
            "ticket_id": ticket.ticket_id,
            "order_id": ticket.customer_order_id,
            "order_display_id": ticket.order_display_id,
            "gate_id": gate.gate_id,
            "redemption_id": entry.redemption_id,
            "scanned_at": in_zone(at, zone),
            "first_redeemed_at": problem.gate.as_ref().and_then(|g| g.first_redeemed_at),
            "first_gate_id": ticket.redeemed_by,
        }),
    ))
    .await?;
    kept_or_taken_again(gates, gate, scan, &record, tx.commit().await, now).await
}

/// Keeps a refused scan, so the same upload again answers the same.
async fn keep_refusal(
    gates: &Gates<'_>,
    gate: &Gate,
    scan: &OfflineScan,
    ticket: Option<&ScannedTicket>,
    at: DateTime<Utc>,
    refused: Error,
    now: DateTime<Utc>,
) -> Result<BatchResult> {
    if !matches!(refused, Error::Problem { .. }) {
        return Err(refused);
    }
    let entry = Entry {
        redemption_id: crate::ids::random_id(),
        status: RedemptionStatus::Refused,
        gate_id: gate.gate_id,
        redeemed_at: at,
        offline: true,
        undone_at: None,
    };
    let record = RedemptionRecord {
        problem: Some(stored(&refused.to_problem())?),
        ..record(gate, scan, ticket, &entry, now)
    };
    let mut tx = gates.store.begin_checkout().await?;
    tx.insert_redemption(&record).await?;
    kept_or_taken_again(gates, gate, scan, &record, tx.commit().await, now).await
}

/// The answer for `record` once its transaction `committed`; when another copy of the upload
/// kept its nonce first, the scan is taken again and finds that copy.
async fn kept_or_taken_again(
    gates: &Gates<'_>,
    gate: &Gate,
    scan: &OfflineScan,
    record: &RedemptionRecord,
    committed: Result<(), StoreError>,
    now: DateTime<Utc>,
) -> Result<BatchResult> {
    match committed.map_err(nonce_taken) {
        Ok(()) => Ok(result_of(record)),
        Err(StoreError::Conflict(_)) => Box::pin(take(gates, gate, scan, now)).await,
        Err(err) => Err(err.into()),
    }
}

/// A kept scan as the upload's answer tells it.
fn result_of(kept: &RedemptionRecord) -> BatchResult {
    let (redemption_id, problem) = match kept.status {
        RedemptionStatus::Refused => (None, kept.problem.as_ref()),
        _ => (Some(kept.redemption_id), kept.problem.as_ref()),
    };
    BatchResult {
        nonce: kept.nonce.clone(),
        status: match kept.status {
            // An entry undone since was let in when it was uploaded.
            RedemptionStatus::Undone => RedemptionStatus::Redeemed,
            status => status,
        },
        redemption_id,
        problem: problem.and_then(|p| serde_json::from_value(p.0.clone()).ok()),
    }
}
