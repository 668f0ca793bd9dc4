//! Letting a scanned ticket in, online (`POST /v2/redemptions`; docs/gate.md, "Redeem").
//!
//! It reads as its contract: the scan is read (a verified QR token or a printed code) → the
//! ticket judged (`judge`: refusals in the contract's order, writing nothing) → one
//! transaction: the ticket VALID → USED by a conditional update (the exactly-once rule: of
//! racing scans, on any node, one finds it VALID), the entry kept under its nonce (unique per
//! gate), the order's version moved (readers see `redeemed_at`), and `tickets.TicketRedeemed`
//! → commit. A nonce this gate used before answers as it did (208 with the first body for the
//! same code, `nonce-reused` for another): a scan sent again finds its ticket used, or its
//! nonce taken, and only then is the nonce looked up, so a first scan (nearly every one)
//! spends no read on it. A scan that loses a race is judged again, so it gets the refusal
//! the winner caused.

use app::wire::{ProblemType, Redemption, RedemptionRequest, RedemptionStatus};
use chrono::{DateTime, Utc};

use super::{
    answer::{redeemed_event, redemption, Entry},
    code::{read, Scanned},
    judge::{judge, unknown, zone_of},
    stored, ticket_event, Gates,
};
use crate::{
    error::{Error, Result},
    events::EventType,
    store::{nonce_taken, Gate, LetIn, RedemptionRecord, ScannedTicket, StoreError},
    time::{local_date, to_stored},
};

/// The answer to a scan.
#[derive(Debug)]
pub enum Redeemed {
    /// Let in now (201).
    Created(Redemption),
    /// The same scan again: the first answer (208).
    Replayed(Redemption),
}

/// Checks a nonce's form: 8 to 64 characters of the URL-safe alphabet.
pub fn check_nonce(field: &str, nonce: &str) -> Result<()> {
    let fine = (8..=64).contains(&nonce.len())
        && nonce
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._~-".contains(&b));
    if fine {
        Ok(())
    } else {
        Err(Error::invalid_field(
            field,
            "pattern",
            "a nonce is 8 to 64 letters, digits and . _ ~ - (a UUID is a good one)",
        ))
    }
}

/// Checks a scanned code's length.
pub fn check_code(field: &str, code: &str) -> Result<()> {
    if code.trim().is_empty() || code.len() > 2048 {
        return Err(Error::invalid_field(
            field,
            "length",
            "code is what the QR code holds or the printed code, 1 to 2048 characters",
        ));
    }
    Ok(())
}

/// Lets the ticket `request` scanned pass `gate` at `now`, once per nonce.
pub async fn redeem(
    gates: &Gates<'_>,
    gate: &Gate,
    request: &RedemptionRequest,
    now: DateTime<Utc>,
) -> Result<Redeemed> {
    check_code("code", &request.code)?;
    check_nonce("nonce", &request.nonce)?;
    let now = to_stored(now);
    let scanned = read(gates.authn, &request.code).await;
    // A scan that reads as nothing is `ticket-unknown`, as `read` says.
    let judged = match &scanned {
        Ok(scan) => match ticket_of(gates, gate, scan).await {
            Ok(ticket) => judge(&ticket, gate, now).map(|()| ticket),
            Err(refusal) => Err(refusal),
        },
        Err(_) => Err(unknown()),
    };
    let ticket = match judged {
        Ok(ticket) => ticket,
        Err(refusal) => {
            // Refused: unless this is a scan the gate sent before under this nonce.
            return match prior_scan(gates, gate, request).await? {
                Some(prior) => replay(&prior, scanned.ok().as_ref()),
                None => Err(refusal),
            };
        }
    };
    let redemption_id = crate::ids::random_id();
    let entry = Entry {
        redemption_id,
        status: RedemptionStatus::Redeemed,
        gate_id: gate.gate_id,
        redeemed_at: now,
        offline: false,
        undone_at: None,
    };
    let answer = redemption(&ticket, &entry);
    let record = RedemptionRecord {
        redemption_id,
        gate_id: gate.gate_id,
        nonce: request.nonce.clone(),
        code: ticket.code.clone(),
        ticket_id: Some(ticket.ticket_id),
        status: RedemptionStatus::Redeemed,
        offline: false,
        redeemed_at: now,
        local_date: local_date(zone_of(&ticket), now),
        recorded_at: now,
        undone_at: None,
        answer: Some(stored(&answer)?),
        problem: None,
    };
    match let_in(gates, &ticket, &record, &entry).await {
        Ok(()) => Ok(Redeemed::Created(answer)),
        Err(lost) => settle_lost_race(gates, gate, request, lost, now).await,
    }
}

/// The one transaction that lets `ticket` in as `entry`: `Err(None)` when the ticket was no
/// longer VALID, `Err(Some(_))` when it failed otherwise. Where the database writes it all in
/// one statement (PostgreSQL), that statement is the transaction: two round trips a scan (the
/// ticket's read and it) instead of five.
pub(super) async fn let_in(
    gates: &Gates<'_>,
    ticket: &ScannedTicket,
    record: &RedemptionRecord,
    entry: &Entry,
) -> std::result::Result<(), Option<Error>> {
    let event = ticket_event(
        EventType::TicketRedeemed,
        ticket,
        redeemed_event(ticket, entry),
    );
    let at_once = LetIn {
        record,
        ticket_id: ticket.ticket_id,
        order_id: ticket.customer_order_id,
        event: &event,
    };
    match gates.store.let_in_at_once(&at_once).await {
        Ok(Some(true)) => return Ok(()),
        Ok(Some(false)) => return Err(None),
        Ok(None) => {}
        Err(err) => return Err(fault(nonce_taken(err))),
    }
    let mut tx = gates.store.begin_checkout().await.map_err(fault)?;
    let used = tx
        .use_ticket(ticket.ticket_id, entry.redemption_id, entry.redeemed_at)
        .await
        .map_err(fault)?;
    if !used {
        return Err(None);
    }
    tx.insert_redemption(record).await.map_err(fault)?;
    tx.touch_order(ticket.customer_order_id, false, record.recorded_at)
        .await
        .map_err(fault)?;
    tx.insert_event(&event).await.map_err(fault)?;
    tx.commit().await.map_err(|err| fault(nonce_taken(err)))
}

fn fault(err: StoreError) -> Option<Error> {
    Some(Error::from(err))
}

/// How many times, and how far apart, a scan that lost to a write it cannot see yet looks
/// again: SQLite commits writers in groups, so the winner's change is visible to a writer of
/// the same group (which lost to it) before the group commits and the reads see it.
const LOOKS_AGAIN: u32 = 20;
const LOOK_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(5);

/// The answer to a scan that found the ticket changed under it, or whose nonce another copy
/// of it took meanwhile: that copy's answer, or the refusal the change now gives.
async fn settle_lost_race(
    gates: &Gates<'_>,
    gate: &Gate,
    request: &RedemptionRequest,
    lost: Option<Error>,
    now: DateTime<Utc>,
) -> Result<Redeemed> {
    // A failure other than a conflict (the nonce's unique key) is no race: it stands.
    if let Some(err) = lost.filter(|e| e.kind() != ProblemType::Conflict) {
        return Err(err);
    }
    let scanned = read(gates.authn, &request.code).await?;
    for _ in 0..=LOOKS_AGAIN {
        // The ticket first: once it shows the winner's change, the winner's entry (committed
        // with it) shows too.
        let judged = match ticket_of(gates, gate, &scanned).await {
            Ok(ticket) => judge(&ticket, gate, now),
            Err(refusal) => Err(refusal),
        };
        if let Some(prior) = prior_scan(gates, gate, request).await? {
            return replay(&prior, Some(&scanned));
        }
        judged?;
        tokio::time::sleep(LOOK_AGAIN_AFTER).await;
    }
    Err(Error::new(
        ProblemType::TicketAlreadyRedeemed,
        "Another scan of this ticket was being recorded at the same moment; scan it again.",
    ))
}

/// The scan this gate kept under the request's nonce, if any.
async fn prior_scan(
    gates: &Gates<'_>,
    gate: &Gate,
    request: &RedemptionRequest,
) -> Result<Option<RedemptionRecord>> {
    Ok(gates
        .store
        .redemption_by_nonce(gate.gate_id, &request.nonce)
        .await?)
}

/// The ticket a scan names, if it is this gate's merchant's; `ticket-unknown` otherwise.
pub(super) async fn ticket_of(
    gates: &Gates<'_>,
    gate: &Gate,
    scanned: &Scanned,
) -> Result<ScannedTicket> {
    let ticket = match scanned {
        Scanned::Token(claims) if claims.mid == gate.merchant_id => {
            gates.store.ticket_to_scan(claims.tid).await?
        }
        Scanned::Token(_) => None,
        Scanned::Printed(code) => gates.store.ticket_by_code(code).await?,
    };
    ticket
        .filter(|t| t.merchant_id == gate.merchant_id)
        .ok_or_else(unknown)
}

/// The answer to a nonce this gate used before: the first answer when the scan names the same
/// ticket, `nonce-reused` otherwise.
fn replay(prior: &RedemptionRecord, scanned: Option<&Scanned>) -> Result<Redeemed> {
    let same = scanned.is_some_and(|s| s.printed_code() == prior.code);
    match (&prior.answer, same) {
        (Some(answer), true) => Ok(Redeemed::Replayed(
            serde_json::from_value(answer.0.clone()).map_err(anyhow::Error::from)?,
        )),
        _ => Err(Error::new(
            ProblemType::NonceReused,
            "This gate sent this nonce with another scan; every scan takes a nonce of its own.",
        )),
    }
}
