//! OCTO in the crash run (issue 44): a reseller settling on account reserves bookings, changes
//! held ones (units, day), confirms them, gives up units of confirmed ones, moves
//! and cancels them while the server is killed; then the invariants of what it changed. A
//! reservation writes its booking in the hold's transaction, and a held booking's change ends
//! the old hold, takes the new one and points the booking at it in one: so every checkout of
//! the reseller is a booking's, or one a change replaced, and no booking points at a replaced
//! one; a held booking's unit items are its places; every booking answered CONFIRMED is a paid
//! order. Its orders count in the run's other invariants (places, money, events, mails).

use std::{
    collections::{HashMap, HashSet},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

use chrono::{NaiveDate, TimeZone};
use hyper::{Method, StatusCode};
use rand::{seq::SliceRandom, Rng};
use serde_json::{json, Value};
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    crash_load::on_database,
    load::{self, Call},
    process::ServerProcess,
    seed::Shop,
};

const CLIENT_ID: &str = "crash-reseller";
const CLIENT_SECRET: &str = "crash-reseller-secret-not-for-production";

/// The reseller: a partner client of the shop's campaign that confirms on account.
pub async fn reseller(store: &dyn server::store::Store, shop: &Shop) -> anyhow::Result<Uuid> {
    let client = store
        .upsert_partner_client(
            CLIENT_ID,
            &server::store::PartnerClientInput {
                name: "Crash reseller".to_owned(),
                client_id: None,
                campaign_ids: vec![shop.campaign_id],
                frame_origins: Vec::new(),
                return_origins: Vec::new(),
                webhook_url: None,
                hold_limits: None,
                theme: None,
                settlement: server::store::Settlement::OnAccount,
            },
            &server::store::ClientSecrets {
                secret_hash: server::secrets::hash_secret(CLIENT_SECRET),
                webhook_secret: server::secrets::new_webhook_secret(),
            },
        )
        .await?;
    Ok(client.partner_client_id)
}

/// What the reseller sent and was answered.
#[derive(Debug, Default, Clone)]
pub struct Bookings {
    pub sent: usize,
    /// Answered 200, by what was asked.
    pub done: HashMap<&'static str, usize>,
    /// Answered 4xx: no room, the policy, a hold that ended.
    pub refused: usize,
    /// The refusals by OCTO's `error` (or the status, for another shape).
    pub refused_by: HashMap<String, usize>,
    pub unanswered: usize,
    /// Bookings answered CONFIRMED.
    pub confirmed: HashSet<Uuid>,
}

/// The local midnight of `day` at the shop, with its offset: a day ticket's availability id.
fn midnight(shop: &Shop, day: NaiveDate) -> String {
    shop.merchant_zone
        .from_local_datetime(&day.and_hms_opt(0, 0, 0).expect("midnight"))
        .earliest()
        .expect("a midnight")
        .to_rfc3339()
}

fn units(n: usize) -> Value {
    json!(vec![json!({ "unitId": "adult" }); n])
}

/// The reseller's next request for `booking` (none yet: a reservation), and what it is.
fn next(shop: &Shop, days: &[NaiveDate], booking: Option<&Value>) -> (&'static str, Call) {
    let mut rng = rand::thread_rng();
    let day = *days.choose(&mut rng).expect("days");
    let Some(booking) = booking else {
        let body = json!({
            "uuid": Uuid::new_v4(), "productId": shop.ticket, "optionId": "DEFAULT",
            "availabilityId": midnight(shop, day), "unitItems": units(rng.gen_range(1..=3)),
        });
        return ("reserve", Call::post_json("/bookings", &body));
    };
    let path = format!("/bookings/{}", booking["uuid"].as_str().unwrap_or_default());
    let patch = |body: Value| {
        let mut call = Call::post_json(&path, &body);
        call.method = Method::PATCH;
        call
    };
    let held = booking["status"] == "ON_HOLD";
    match (held, rng.gen_range(0..10)) {
        (true, 0..=2) => (
            "change units",
            patch(json!({ "unitItems": units(rng.gen_range(1..=4)) })),
        ),
        (true, 3) => (
            "change day",
            patch(json!({ "availabilityId": midnight(shop, day) })),
        ),
        (true, 4) => (
            "cancel",
            Call::post_json(format!("{path}/cancel"), &json!({})),
        ),
        (true, _) => {
            let contact = json!({ "fullName": "Ada Lovelace", "emailAddress": "ada@example.com" });
            (
                "confirm",
                Call::post_json(format!("{path}/confirm"), &json!({ "contact": contact })),
            )
        }
        (false, 0..=2) => ("drop a unit", patch(json!({ "unitItems": units(1) }))),
        (false, 3..=4) => (
            "move",
            patch(json!({ "availabilityId": midnight(shop, day) })),
        ),
        (false, _) => (
            "cancel",
            Call::post_json(format!("{path}/cancel"), &json!({})),
        ),
    }
}

/// Books through OCTO on `days` until `stop`: each booking reserved, changed, confirmed or
/// cancelled over a few requests; an unanswered request is sent again now and then (a
/// reservation with the same uuid is the same booking).
pub async fn reseller_load(
    server: Arc<RwLock<Option<ServerProcess>>>,
    shop: Shop,
    days: Vec<NaiveDate>,
    (stop, sent): (Arc<AtomicBool>, Arc<AtomicUsize>),
) -> anyhow::Result<Bookings> {
    let mut seen = Bookings::default();
    let mut token: Option<(std::net::SocketAddr, String)> = None;
    let mut booking: Option<Value> = None;
    let mut retry: Option<(&'static str, Call)> = None;
    let base = format!("/octo/{}", shop.merchant_id);
    while !stop.load(Ordering::Relaxed) {
        let addr = server.read().unwrap().as_ref().map(|s| s.addr);
        let Some(addr) = addr else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        if token.as_ref().is_none_or(|(at, _)| *at != addr) {
            match load::client_token(addr, CLIENT_ID, CLIENT_SECRET).await {
                Ok(fresh) => token = Some((addr, fresh)),
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            }
        }
        let Some((_, bearer)) = &token else { continue };
        let (what, call) = match retry.take() {
            Some(again) if rand::thread_rng().gen_bool(0.5) => again,
            _ => next(&shop, &days, booking.as_ref()),
        };
        let mut sending = call
            .clone()
            .header("authorization", format!("Bearer {bearer}"));
        sending.path = format!("{base}{}", call.path);
        sent.fetch_add(1, Ordering::Relaxed);
        seen.sent += 1;
        match tokio::time::timeout(Duration::from_secs(10), load::once(addr, &sending)).await {
            Ok(Ok((status, body))) if status == StatusCode::OK => {
                *seen.done.entry(what).or_default() += 1;
                let read: Value = serde_json::from_slice(&body).unwrap_or_default();
                if read["status"] == "CONFIRMED" {
                    if let Some(uuid) = read["uuid"].as_str().and_then(|u| u.parse().ok()) {
                        seen.confirmed.insert(uuid);
                    }
                }
                // A booking ended, or now and then a new one: the next request reserves.
                let ended = ["CANCELLED", "EXPIRED", "REDEEMED"]
                    .iter()
                    .any(|s| read["status"] == *s);
                booking = (!ended && rand::thread_rng().gen_bool(0.85)).then_some(read);
            }
            Ok(Ok((status, body))) if status.is_client_error() => {
                seen.refused += 1;
                let kind = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|e| e["error"].as_str().map(str::to_owned))
                    .unwrap_or_else(|| status.as_u16().to_string());
                *seen
                    .refused_by
                    .entry(format!("{what}: {kind}"))
                    .or_default() += 1;
                // The booking may have ended meanwhile (its hold ran out): now and then the
                // next request starts another.
                if what == "reserve" || rand::thread_rng().gen_bool(0.5) {
                    booking = None;
                }
            }
            _ => {
                seen.unanswered += 1;
                retry = Some((what, call));
            }
        }
    }
    Ok(seen)
}

/// What the database holds of the reseller's bookings.
#[derive(Debug, Default)]
pub struct OctoState {
    /// booking uuid → (its checkout, its unit items' count).
    pub bookings: HashMap<Uuid, (Uuid, usize)>,
    /// The reseller's checkouts → (status, places).
    pub checkouts: HashMap<Uuid, (String, i64)>,
    /// Checkouts a held booking's change replaced.
    pub replaced: HashSet<Uuid>,
    /// checkout → its order, and whether that order was ever paid (`crash_after_sale`).
    pub orders: HashMap<Uuid, (Uuid, bool)>,
}

impl OctoState {
    /// The orders of the reseller's bookings: made without Idempotency-Keys.
    pub fn order_ids(&self) -> HashSet<Uuid> {
        self.orders.values().map(|(o, _)| *o).collect()
    }
}

pub async fn read(
    url: &str,
    reseller: Uuid,
    paid: &HashMap<Uuid, rust_decimal::Decimal>,
) -> anyhow::Result<OctoState> {
    let bookings: Vec<(Uuid, Uuid, Option<String>)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT uuid, checkout_id, CAST(unit_items AS TEXT) FROM octo_booking"
    )
    .fetch_all(&mut conn)
    .await?);
    let checkouts: Vec<(Uuid, String, i64)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT c.checkout_id, c.status, CAST(COALESCE(SUM(l.quantity), 0) AS BIGINT)
         FROM checkout c LEFT JOIN checkout_line l ON l.checkout_id = c.checkout_id
         WHERE c.partner_client_id = $1 GROUP BY c.checkout_id, c.status"
    )
    .bind(reseller)
    .fetch_all(&mut conn)
    .await?);
    let replaced: Vec<(String,)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT subject FROM event WHERE event_type = 'checkouts.CheckoutExpired'
         AND CAST(data AS TEXT) LIKE '%\"replaced\"%'"
    )
    .fetch_all(&mut conn)
    .await?);
    let orders: Vec<(Uuid, Uuid)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT o.checkout_id, o.customer_order_id FROM customer_order o
         JOIN checkout c ON c.checkout_id = o.checkout_id WHERE c.partner_client_id = $1"
    )
    .bind(reseller)
    .fetch_all(&mut conn)
    .await?);
    let count = |items: &Option<String>| {
        items
            .as_deref()
            .and_then(|i| serde_json::from_str::<Vec<Value>>(i).ok())
            .map_or(0, |i| i.len())
    };
    Ok(OctoState {
        bookings: bookings
            .iter()
            .map(|(uuid, checkout, items)| (*uuid, (*checkout, count(items))))
            .collect(),
        checkouts: checkouts
            .into_iter()
            .map(|(c, status, places)| (c, (status, places)))
            .collect(),
        replaced: replaced
            .iter()
            .filter_map(|(s,)| s.rsplit('/').next()?.parse().ok())
            .collect(),
        orders: orders
            .into_iter()
            .map(|(c, o)| (c, (o, paid.contains_key(&o))))
            .collect(),
    })
}

pub fn invariants(state: &OctoState, seen: &Bookings) -> Vec<(&'static str, bool, String)> {
    let mut checks = Vec::new();
    let pointed: HashSet<Uuid> = state.bookings.values().map(|(c, _)| *c).collect();
    let stale = state
        .bookings
        .values()
        .filter(|(c, _)| state.replaced.contains(c) || !state.checkouts.contains_key(c))
        .count();
    let orphans = state
        .checkouts
        .keys()
        .filter(|c| pointed.contains(c) == state.replaced.contains(c))
        .count();
    checks.push((
        "every checkout of the OCTO reseller is one booking's or one a change replaced, and no booking points at a replaced one",
        stale + orphans == 0 && pointed.len() == state.bookings.len(),
        format!(
            "{} bookings, {} checkouts, {} replaced; {stale} bookings on a replaced or missing checkout, {orphans} checkouts neither",
            state.bookings.len(),
            state.checkouts.len(),
            state.replaced.len()
        ),
    ));
    let miscounted = state
        .bookings
        .values()
        .filter(|(c, items)| {
            state
                .checkouts
                .get(c)
                .is_some_and(|(status, places)| status == "RESERVED" && *places != *items as i64)
        })
        .count();
    checks.push((
        "every held OCTO booking has one unit item per place it holds",
        miscounted == 0,
        format!("{miscounted} off"),
    ));
    let unpaid = seen
        .confirmed
        .iter()
        .filter(|uuid| {
            state
                .bookings
                .get(uuid)
                .and_then(|(c, _)| state.orders.get(c))
                .is_none_or(|(_, paid)| !paid)
        })
        .count();
    let done: usize = seen.done.values().sum();
    checks.push((
        "every OCTO booking answered CONFIRMED is a paid order",
        unpaid == 0,
        format!(
            "{} requests: {done} done ({:?}), {} refused ({:?}), {} unanswered; {} confirmed, {unpaid} not a paid order",
            seen.sent,
            seen.done,
            seen.refused,
            seen.refused_by,
            seen.unanswered,
            seen.confirmed.len()
        ),
    ));
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consistent() -> (OctoState, Bookings) {
        let (held, sold, old) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let (a, b, order) = (
            Uuid::from_u128(10),
            Uuid::from_u128(11),
            Uuid::from_u128(20),
        );
        let state = OctoState {
            bookings: HashMap::from([(a, (held, 2)), (b, (sold, 3))]),
            checkouts: HashMap::from([
                (held, ("RESERVED".to_owned(), 2)),
                (sold, ("PAID".to_owned(), 3)),
                (old, ("EXPIRED".to_owned(), 1)),
            ]),
            replaced: HashSet::from([old]),
            orders: HashMap::from([(sold, (order, true))]),
        };
        let seen = Bookings {
            confirmed: HashSet::from([b]),
            ..Default::default()
        };
        (state, seen)
    }

    fn broken(state: &OctoState, seen: &Bookings) -> Vec<&'static str> {
        invariants(state, seen)
            .into_iter()
            .filter(|(_, held, _)| !held)
            .map(|(name, _, _)| name)
            .collect()
    }

    #[test]
    fn a_consistent_state_passes_and_each_kind_of_damage_is_caught() {
        let (state, seen) = consistent();
        assert!(broken(&state, &seen).is_empty());

        // A change that moved the booking but kept the old hold's end out of its transaction.
        let (mut s, seen) = consistent();
        s.replaced.insert(Uuid::from_u128(1));
        assert_eq!(broken(&s, &seen).len(), 1);
        // A hold without its booking (a reservation whose booking write was lost).
        let (mut s, seen) = consistent();
        s.checkouts
            .insert(Uuid::from_u128(4), ("RESERVED".to_owned(), 1));
        assert_eq!(broken(&s, &seen).len(), 1);
        // Unit items that are not the places held.
        let (mut s, seen) = consistent();
        s.bookings
            .insert(Uuid::from_u128(10), (Uuid::from_u128(1), 3));
        assert_eq!(broken(&s, &seen).len(), 1);
        // A confirmation answered but not paid.
        let (mut s, seen) = consistent();
        s.orders
            .insert(Uuid::from_u128(2), (Uuid::from_u128(20), false));
        assert_eq!(broken(&s, &seen).len(), 1);
    }
}
