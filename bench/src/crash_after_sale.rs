//! The after-sale share of the crash run (issue 41): a client cancelling some or all tickets
//! of paid orders at random percents and moving others to another day, through the operator
//! routes with Idempotency-Keys (now and then a retry), while the server is killed; then the
//! invariants of what it changed: for every order, what was paid less what was refunded is the
//! share of its valid tickets, to the cent; every day's places are its valid tickets and open
//! holds; every change kept has its one event.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

use chrono::NaiveDate;
use rand::{seq::SliceRandom, Rng};
use rust_decimal::Decimal;
use serde_json::json;
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    crash_load::on_database,
    load::{self, Call},
    process::ServerProcess,
};

/// The operator token the crash run's server is started with.
pub const ADMIN_TOKEN: &str = "crash-run-operator-token-0123456789";

/// What the changing client sent and was answered.
#[derive(Debug, Default, Clone, Copy)]
pub struct Changes {
    pub sent: usize,
    pub done: usize,
    /// 409 or 422: the order no longer allowed it, or no room on the new day.
    pub refused: usize,
    pub unanswered: usize,
}

/// Cancels or moves tickets of paid orders on `days` until `stop`.
pub async fn changer(
    server: Arc<RwLock<Option<ServerProcess>>>,
    url: String,
    days: Vec<NaiveDate>,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicUsize>,
) -> anyhow::Result<Changes> {
    let mut seen = Changes::default();
    let mut previous: Option<Call> = None;
    while !stop.load(Ordering::Relaxed) {
        let addr = server.read().unwrap().as_ref().map(|s| s.addr);
        let Some(addr) = addr else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let call = match previous.take() {
            Some(retry) if rand::thread_rng().gen_bool(0.2) => retry,
            _ => match next_change(&url, &days).await {
                Ok(Some(call)) => call,
                // Nothing paid yet, or the database is between a kill and a restart.
                _ => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        sent.fetch_add(1, Ordering::Relaxed);
        seen.sent += 1;
        match tokio::time::timeout(Duration::from_secs(10), load::once(addr, &call)).await {
            // A dearer day: most customers pay the difference (its own crash window), some
            // leave it to lapse.
            Ok(Ok((status, body))) if status == hyper::StatusCode::ACCEPTED => {
                seen.done += 1;
                if rand::thread_rng().gen_bool(0.8) {
                    if let Some(pay) = difference_payment(&body) {
                        let _ =
                            tokio::time::timeout(Duration::from_secs(10), load::once(addr, &pay))
                                .await;
                    }
                }
            }
            Ok(Ok((status, _))) if status.is_success() => seen.done += 1,
            Ok(Ok((status, _))) if status.is_client_error() => seen.refused += 1,
            _ => seen.unanswered += 1,
        }
        previous = Some(call);
    }
    Ok(seen)
}

/// The sandbox's "Pay" on the difference's payment page a 202 answer names.
fn difference_payment(body: &[u8]) -> Option<Call> {
    let answer: serde_json::Value = serde_json::from_slice(body).ok()?;
    let url = answer["data"]["payment_url"].as_str()?;
    Some(Call {
        method: hyper::Method::POST,
        path: url[url.find("/pay/")?..].to_owned(),
        headers: vec![(
            "content-type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        )],
        body: "action=pay".into(),
        fresh_key: None,
    })
}

/// A change of a recent paid order: a cancellation of one or all of its valid tickets at a
/// random percent, or a move of all of them to another of `days`.
async fn next_change(url: &str, days: &[NaiveDate]) -> anyhow::Result<Option<Call>> {
    let valid: Vec<(Uuid, Uuid, NaiveDate)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT customer_order_id, ticket_id, visit_date FROM ticket t WHERE status = 'VALID'
           AND NOT EXISTS (SELECT 1 FROM customer_order o JOIN octo_booking b
                           ON b.checkout_id = o.checkout_id
                           WHERE o.customer_order_id = t.customer_order_id)
         ORDER BY created_at DESC LIMIT 300"
    )
    .fetch_all(&mut conn)
    .await?);
    let Some(&(order, ticket, day)) = valid.choose(&mut rand::thread_rng()) else {
        return Ok(None);
    };
    let mut rng = rand::thread_rng();
    let (path, body) = if rng.gen_bool(0.6) {
        let percent = ["100", "50", "33.33", "0"][rng.gen_range(0..4)];
        let mut body = json!({ "refund_percent": percent });
        if rng.gen_bool(0.5) {
            body["ticket_ids"] = json!([ticket]);
        }
        (format!("/admin/v1/orders/{order}/cancellation"), body)
    } else {
        let other: Vec<&NaiveDate> = days.iter().filter(|d| **d != day).collect();
        let to = other.choose(&mut rng).copied().copied().unwrap_or(day);
        (
            format!("/admin/v1/orders/{order}/rebooking"),
            json!({ "date": to.to_string() }),
        )
    };
    Ok(Some(
        Call::post_json(path, &body)
            .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
            .header("idempotency-key", Uuid::new_v4().to_string()),
    ))
}

/// What the after-sale invariants are checked against.
#[derive(Default)]
pub struct AfterSale {
    /// order id → what its buyer paid (by the provider and from the wallet).
    pub paid: HashMap<Uuid, Decimal>,
    /// order id → refunded of its tickets (to the provider and to the wallet).
    pub refunded: HashMap<Uuid, Decimal>,
    /// order id → the shares of its valid tickets.
    pub valid_shares: HashMap<Uuid, Decimal>,
    /// order id → what its cancellations kept (the shares of the tickets they cancelled less
    /// what they refunded): a policy's or a partner's percent below 100 leaves some.
    pub kept: HashMap<Uuid, Decimal>,
    /// Cancellations that refunded more than their tickets' shares.
    pub over_refunded: usize,
    /// (group, day) → valid tickets.
    pub valid_places: HashMap<(Uuid, NaiveDate), i64>,
    /// order id → (cancellations and withdrawals, date changes) kept.
    pub changes: HashMap<Uuid, (usize, usize)>,
    /// (group, day) → places held for date changes awaiting their difference's payment.
    pub pending_places: HashMap<(Uuid, NaiveDate), i64>,
    /// Date changes to a dearer day asked for (each answered 202 under its key), and those
    /// of them whose difference was paid and which moved (a change kept without a key).
    pub differences: (usize, usize),
}

fn decimal(text: &str) -> anyhow::Result<Decimal> {
    Ok(text.parse()?)
}

pub async fn read(url: &str) -> anyhow::Result<AfterSale> {
    let mut out = AfterSale::default();
    let paid: Vec<(Uuid, String, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT o.customer_order_id, CAST(c.total AS TEXT), CAST(c.wallet_applied AS TEXT)
         FROM customer_order o JOIN checkout c ON c.checkout_id = o.checkout_id
         WHERE EXISTS (SELECT 1 FROM ticket t WHERE t.customer_order_id = o.customer_order_id)"
    )
    .fetch_all(&mut conn)
    .await?);
    for (order, total, wallet) in paid {
        out.paid.insert(order, decimal(&total)? + decimal(&wallet)?);
    }
    // A dearer day's difference, paid and moved (one paid too late to move was refunded whole).
    let differences: Vec<(Uuid, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT p.customer_order_id, CAST(p.amount AS TEXT) FROM payment p
         JOIN pending_rebooking r ON r.payment_id = p.payment_id WHERE r.status = 'MOVED'"
    )
    .fetch_all(&mut conn)
    .await?);
    for (order, amount) in differences {
        *out.paid.entry(order).or_default() += decimal(&amount)?;
    }
    let pending: Vec<(String, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT status, CAST(booking AS TEXT) FROM pending_rebooking"
    )
    .fetch_all(&mut conn)
    .await?);
    out.differences.0 = pending.len();
    out.differences.1 = pending.iter().filter(|(s, _)| s == "MOVED").count();
    for (_, booking) in pending.iter().filter(|(s, _)| s == "OPEN") {
        let lines: Vec<server::store::HeldPlaces> = serde_json::from_str(booking)?;
        for line in lines {
            *out.pending_places
                .entry((line.availability_group_id, line.day))
                .or_default() += i64::from(line.quantity);
        }
    }
    let refunds: Vec<(Uuid, String, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT customer_order_id, CAST(amount AS TEXT), CAST(to_wallet AS TEXT) FROM refund
         WHERE reason <> 'LATE_PAYMENT'"
    )
    .fetch_all(&mut conn)
    .await?);
    for (order, amount, wallet) in refunds {
        *out.refunded.entry(order).or_default() += decimal(&amount)? + decimal(&wallet)?;
    }
    let valid: Vec<(Uuid, Uuid, NaiveDate, String)> = on_database!(url, |conn| {
        sqlx::query_as(
        "SELECT t.customer_order_id, l.availability_group_id, t.visit_date, CAST(t.paid_share AS TEXT)
         FROM ticket t JOIN checkout_line l ON l.checkout_line_id = t.checkout_line_id
         WHERE t.status IN ('VALID', 'USED')"
    )
    .fetch_all(&mut conn)
    .await?
    });
    // A ticket let in at the gate keeps its place and what was paid for it.
    for (order, group, day, share) in valid {
        *out.valid_shares.entry(order).or_default() += decimal(&share)?;
        *out.valid_places.entry((group, day)).or_default() += 1;
    }
    let shares: Vec<(Uuid, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT ticket_id, CAST(paid_share AS TEXT) FROM ticket"
    )
    .fetch_all(&mut conn)
    .await?);
    let shares: HashMap<Uuid, Decimal> = shares
        .into_iter()
        .map(|(id, share)| Ok((id, decimal(&share)?)))
        .collect::<anyhow::Result<_>>()?;
    // A refund split over the order's payments is one row per payment, sharing its tickets:
    // what a change refunded is every row of its tickets.
    let refund_rows: Vec<(Uuid, String, String, String)> = on_database!(url, |conn| {
        sqlx::query_as(
        "SELECT refund_id, CAST(ticket_ids AS TEXT), CAST(amount AS TEXT), CAST(to_wallet AS TEXT) FROM refund"
    )
    .fetch_all(&mut conn)
    .await?
    });
    let mut by_tickets: HashMap<Vec<Uuid>, Decimal> = HashMap::new();
    let mut tickets_of: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for (id, tickets, amount, wallet) in refund_rows {
        let mut tickets: Vec<Uuid> = serde_json::from_str(&tickets)?;
        tickets.sort();
        *by_tickets.entry(tickets.clone()).or_default() += decimal(&amount)? + decimal(&wallet)?;
        tickets_of.insert(id, tickets);
    }
    let refund_of: HashMap<Uuid, Decimal> = tickets_of
        .into_iter()
        .map(|(id, tickets)| (id, by_tickets[&tickets]))
        .collect();
    let changes: Vec<(Uuid, String, String, Option<Uuid>)> = on_database!(url, |conn| {
        sqlx::query_as(
            "SELECT customer_order_id, kind, CAST(ticket_ids AS TEXT), refund_id FROM order_change",
        )
        .fetch_all(&mut conn)
        .await?
    });
    for (order, kind, tickets, refund) in changes {
        if kind != "REBOOKING" {
            let tickets: Vec<Uuid> = serde_json::from_str(&tickets)?;
            let share: Decimal = tickets.iter().filter_map(|t| shares.get(t)).sum();
            let refunded = refund
                .and_then(|r| refund_of.get(&r))
                .copied()
                .unwrap_or_default();
            if refunded > share {
                out.over_refunded += 1;
            }
            *out.kept.entry(order).or_default() += share - refunded;
        }
        let entry = out.changes.entry(order).or_default();
        if kind == "REBOOKING" {
            entry.1 += 1;
        } else {
            entry.0 += 1;
        }
    }
    Ok(out)
}

/// The after-sale invariants: money to the cent per order, and one event per kept change.
pub fn invariants(
    after: &AfterSale,
    events: &[(String, String)],
) -> Vec<(&'static str, bool, String)> {
    let off: Vec<_> = after
        .paid
        .iter()
        .filter(|(order, paid)| {
            let refunded = after.refunded.get(order).copied().unwrap_or_default();
            let valid = after.valid_shares.get(order).copied().unwrap_or_default();
            let kept = after.kept.get(order).copied().unwrap_or_default();
            **paid - refunded != valid + kept
        })
        .collect();
    let refunds: Decimal = after.refunded.values().sum();
    let kept: Decimal = after.kept.values().sum();
    let mut checks = vec![(
        "for every order, paid − refunded = the price of its valid and used tickets (+ what its cancellations kept), to the cent",
        off.is_empty() && after.over_refunded == 0,
        format!(
            "{} paid orders, {refunds} refunded and {kept} kept in all; {} off, {} cancellations over their tickets' price",
            after.paid.len(),
            off.len(),
            after.over_refunded
        ),
    )];
    let count = |kind: &str, order: &Uuid| {
        let subject = format!("orders/{order}");
        events
            .iter()
            .filter(|(t, s)| t == kind && *s == subject)
            .count()
    };
    let unreported = after
        .changes
        .iter()
        .filter(|(order, (cancelled, moved))| {
            count("orders.TicketsCancelled", order) != *cancelled
                || count("orders.OrderRebooked", order) != *moved
        })
        .count();
    let stray = events
        .iter()
        .filter(|(t, s)| {
            (t == "orders.TicketsCancelled" || t == "orders.OrderRebooked")
                && s.rsplit('/')
                    .next()
                    .and_then(|id| id.parse::<Uuid>().ok())
                    .is_none_or(|id| !after.changes.contains_key(&id))
        })
        .count();
    let (cancellations, moves) = after
        .changes
        .values()
        .fold((0, 0), |(c, m), (dc, dm)| (c + dc, m + dm));
    checks.push((
        "every cancellation and date change kept has its one event, and no event reports one not kept",
        unreported + stray == 0,
        format!("{cancellations} cancellations, {moves} date changes; {unreported} orders off, {stray} stray events"),
    ));
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_off_by_a_cent_and_a_change_without_its_event_are_caught() {
        let order = Uuid::from_u128(7);
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let mut after = AfterSale::default();
        after.paid.insert(order, d("29.00"));
        after.refunded.insert(order, d("9.67"));
        after.valid_shares.insert(order, d("19.33"));
        after.changes.insert(order, (1, 0));
        let events = vec![(
            "orders.TicketsCancelled".to_owned(),
            format!("orders/{order}"),
        )];
        assert!(invariants(&after, &events).iter().all(|(_, held, _)| *held));
        after.valid_shares.insert(order, d("19.34"));
        assert!(!invariants(&after, &events)[0].1, "a cent too much");
        after.valid_shares.insert(order, d("19.33"));
        assert!(
            !invariants(&after, &[])[1].1,
            "a cancellation without its event"
        );
    }
}
