//! The gate's share of the crash run (issue 42): a gate scanning today's valid tickets (now and
//! then a retry of its last scan with the same nonce, now and then an undo of a recent entry)
//! while the server is killed and the changer cancels and moves tickets; then the invariants
//! of what it changed: a ticket is USED exactly when one standing entry names it, every scan
//! answered as let in is kept, and every entry and undo has its one event.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

use hyper::StatusCode;
use rand::{seq::SliceRandom, Rng};
use serde_json::{json, Value};
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    crash_load::on_database,
    gate::{bearer, BenchGate},
    load::{self, Call},
    process::ServerProcess,
};

/// What the scanning gate sent and was answered.
#[derive(Debug, Default, Clone)]
pub struct Scans {
    pub sent: usize,
    /// 201 or 208: let in (or the same scan again).
    pub let_in: usize,
    /// 409 or 404: refused (used, cancelled meanwhile, …).
    pub refused: usize,
    /// The refusals by problem type (or status, when the body is none).
    pub refused_by: std::collections::BTreeMap<String, usize>,
    pub undone: usize,
    pub unanswered: usize,
    /// The nonces answered 201 or 208: each must be kept.
    pub kept_nonces: HashSet<String>,
}

/// Scans `today`'s valid tickets at `gate` until `stop`, with a bearer from the server it
/// sends to.
pub async fn scanner(
    server: Arc<RwLock<Option<ServerProcess>>>,
    url: String,
    gate: BenchGate,
    today: chrono::NaiveDate,
    (stop, sent): (Arc<AtomicBool>, Arc<AtomicUsize>),
) -> anyhow::Result<Scans> {
    let mut seen = Scans::default();
    let mut previous: Option<(Call, Option<String>)> = None;
    let mut token: Option<(std::net::SocketAddr, String)> = None;
    while !stop.load(Ordering::Relaxed) {
        let addr = server.read().unwrap().as_ref().map(|s| s.addr);
        let Some(addr) = addr else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        if token.as_ref().is_none_or(|(at, _)| *at != addr) {
            match bearer(addr, &gate).await {
                Ok(fresh) => token = Some((addr, fresh)),
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            }
        }
        let Some((_, bearer)) = &token else { continue };
        let (call, nonce) = match previous.take() {
            Some(retry) if rand::thread_rng().gen_bool(0.2) => retry,
            _ => match next_scan(&url, gate.gate_id, today).await {
                Ok(Some(next)) => next,
                _ => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        sent.fetch_add(1, Ordering::Relaxed);
        seen.sent += 1;
        let sending = call
            .clone()
            .header("authorization", format!("Bearer {bearer}"));
        match tokio::time::timeout(Duration::from_secs(10), load::once(addr, &sending)).await {
            Ok(Ok((status, _))) if status == StatusCode::NO_CONTENT => seen.undone += 1,
            Ok(Ok((status, _))) if status.is_success() => {
                seen.let_in += 1;
                seen.kept_nonces.extend(nonce.clone());
            }
            Ok(Ok((status, body))) if status.is_client_error() => {
                seen.refused += 1;
                let kind = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|p| {
                        p["type"]
                            .as_str()
                            .map(|t| t.rsplit(':').next().unwrap_or(t).to_owned())
                    })
                    .unwrap_or_else(|| status.as_u16().to_string());
                *seen.refused_by.entry(kind).or_default() += 1;
            }
            _ => seen.unanswered += 1,
        }
        previous = Some((call, nonce));
    }
    Ok(seen)
}

/// A scan of one of today's recent valid tickets under a fresh nonce, or (one time in ten) an
/// undo of one of this gate's recent entries.
async fn next_scan(
    url: &str,
    gate_id: Uuid,
    today: chrono::NaiveDate,
) -> anyhow::Result<Option<(Call, Option<String>)>> {
    if rand::thread_rng().gen_bool(0.1) {
        let recent: Vec<(Uuid,)> = on_database!(url, |conn| sqlx::query_as(
            "SELECT redemption_id FROM redemption WHERE gate_id = $1 AND status = 'REDEEMED'
             ORDER BY recorded_at DESC LIMIT 20"
        )
        .bind(gate_id)
        .fetch_all(&mut conn)
        .await?);
        if let Some((id,)) = recent.choose(&mut rand::thread_rng()) {
            let mut call = Call::get(format!("/v2/redemptions/{id}"));
            call.method = hyper::Method::DELETE;
            return Ok(Some((call, None)));
        }
    }
    let today: Vec<(String,)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT code FROM ticket WHERE status = 'VALID' AND visit_date = $1
         ORDER BY created_at DESC LIMIT 300"
    )
    .bind(today)
    .fetch_all(&mut conn)
    .await?);
    let Some((code,)) = today.choose(&mut rand::thread_rng()) else {
        return Ok(None);
    };
    let nonce = Uuid::new_v4().to_string();
    Ok(Some((
        Call::post_json("/v2/redemptions", &json!({ "code": code, "nonce": nonce })),
        Some(nonce),
    )))
}

/// What the gate's invariants are checked against.
#[derive(Default, Clone)]
pub struct GateState {
    /// ticket id → (status, the redemption it names).
    tickets: HashMap<Uuid, (String, Option<Uuid>)>,
    /// redemption id → (ticket, status, nonce).
    redemptions: HashMap<Uuid, (Uuid, String, String)>,
}

pub async fn read(url: &str) -> anyhow::Result<GateState> {
    let tickets: Vec<(Uuid, String, Option<Uuid>)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT ticket_id, status, redemption_id FROM ticket
         WHERE redemption_id IS NOT NULL OR status = 'USED'
            OR ticket_id IN (SELECT ticket_id FROM redemption)"
    )
    .fetch_all(&mut conn)
    .await?);
    let redemptions: Vec<(Uuid, Uuid, String, String)> = on_database!(url, |conn| {
        sqlx::query_as(
            "SELECT redemption_id, ticket_id, status, nonce FROM redemption
             WHERE ticket_id IS NOT NULL",
        )
        .fetch_all(&mut conn)
        .await?
    });
    Ok(GateState {
        tickets: tickets
            .into_iter()
            .map(|(id, status, r)| (id, (status, r)))
            .collect(),
        redemptions: redemptions
            .into_iter()
            .map(|(id, t, s, n)| (id, (t, s, n)))
            .collect(),
    })
}

/// The gate's invariants.
pub fn invariants(
    state: &GateState,
    scans: &Scans,
    events: &[(String, String)],
) -> Vec<(&'static str, bool, String)> {
    let standing = |ticket: &Uuid| {
        state
            .redemptions
            .iter()
            .filter(|(_, (t, s, _))| t == ticket && s == "REDEEMED")
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
    };
    let off = state
        .tickets
        .iter()
        .filter(|(id, (status, named))| {
            let entries = standing(id);
            match status.as_str() {
                "USED" => entries.len() != 1 || named.as_ref() != entries.first(),
                _ => !entries.is_empty() || named.is_some(),
            }
        })
        .count();
    let used = state.tickets.values().filter(|(s, _)| s == "USED").count();
    let kept: HashSet<&str> = state
        .redemptions
        .values()
        .map(|(_, _, nonce)| nonce.as_str())
        .collect();
    let lost = scans
        .kept_nonces
        .iter()
        .filter(|n| !kept.contains(n.as_str()))
        .count();
    let count = |kind: &str, ticket: &Uuid| {
        let subject = format!("tickets/{ticket}");
        events
            .iter()
            .filter(|(t, s)| t == kind && *s == subject)
            .count()
    };
    let unreported = state
        .tickets
        .keys()
        .filter(|ticket| {
            let of = |status: &str| {
                state
                    .redemptions
                    .values()
                    .filter(|(t, s, _)| t == *ticket && s == status)
                    .count()
            };
            let entries = of("REDEEMED") + of("UNDONE");
            count("tickets.TicketRedeemed", ticket) != entries
                || count("tickets.RedemptionUndone", ticket) != of("UNDONE")
        })
        .count();
    vec![
        (
            "a ticket is USED exactly when one standing entry names it (exactly once at the gate)",
            off == 0,
            format!(
                "{used} used tickets, {} entries kept; {off} off",
                state.redemptions.len()
            ),
        ),
        (
            "every scan answered as let in (201, or 208 for its retry) is kept under its nonce",
            lost == 0,
            format!(
                "{} scans sent, {} let in, {} refused ({:?}), {} undone, {} unanswered; {lost} lost",
                scans.sent,
                scans.let_in,
                scans.refused,
                scans.refused_by,
                scans.undone,
                scans.unanswered
            ),
        ),
        (
            "every entry and undo at the gate has its one event",
            unreported == 0,
            format!("{unreported} tickets off"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_standing_entry_a_lost_scan_and_a_missing_event_are_caught() {
        let (ticket, entry) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let mut state = GateState::default();
        state.tickets.insert(ticket, ("USED".into(), Some(entry)));
        state
            .redemptions
            .insert(entry, (ticket, "REDEEMED".into(), "n-1".into()));
        let scans = Scans {
            kept_nonces: ["n-1".to_owned()].into(),
            ..Scans::default()
        };
        let events = vec![(
            "tickets.TicketRedeemed".to_owned(),
            format!("tickets/{ticket}"),
        )];
        assert!(invariants(&state, &scans, &events)
            .iter()
            .all(|(_, held, _)| *held));

        let mut twice = state.clone();
        twice.redemptions.insert(
            Uuid::from_u128(3),
            (ticket, "REDEEMED".into(), "n-2".into()),
        );
        assert!(
            !invariants(&twice, &scans, &events)[0].1,
            "two standing entries"
        );
        let lost = Scans {
            kept_nonces: ["n-9".to_owned()].into(),
            ..Scans::default()
        };
        assert!(
            !invariants(&state, &lost, &events)[1].1,
            "a scan let in and not kept"
        );
        assert!(
            !invariants(&state, &scans, &[])[2].1,
            "an entry without its event"
        );
    }
}
