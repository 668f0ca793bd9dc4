//! Part `crash` (issue 18, `bench/crash.sh`): express checkouts and the sweeper under load,
//! the server killed with SIGKILL mid-load several times and restarted, then the database's
//! invariants checked: each day's reserved count equals its live holds and sold places, every
//! Idempotency-Key's record is complete or holds no order, every event reports a committed
//! change and none is missing, and every order answered 2xx is stored. Meanwhile a client
//! cancels and moves tickets of paid orders (`crash_after_sale`), whose own invariants are
//! checked too: paid − refunded is the price of the valid (and used) tickets, to the cent. Then the same
//! again paid through Stripe (`crash_stripe`): every PaymentIntent paid is a PAID order
//! exactly once.
//!
//! The sweeper is given work at each kill: a share of the open payments is aged past its window
//! in the database just before, so the kill lands while orders are being cancelled and places
//! given back.

use std::{
    collections::{HashMap, HashSet},
    path::Path,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex, RwLock,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use chrono::{Days, NaiveDate, Utc};
use rand::Rng;
use serde_json::Value;
use server::time::local_date;
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    crash_after_sale::{self, AfterSale, Changes},
    crash_load::{buyer, on_database, Seen},
    crash_stripe::{CLIENTS as STRIPE_CLIENTS, KILLS as STRIPE_KILLS},
    express::Backend,
    process::{self, ServerProcess},
    seed, Args,
};

/// Places per day of the product the load buys: enough that most buyers get some, so most
/// requests write.
const SEATS: i32 = 5_000;
/// Clients sending checkouts at once.
const CLIENTS: usize = 24;
/// Kills per backend.
const KILLS: usize = 5;

/// What one backend's run saw and found.
pub struct CrashRun {
    pub backend: String,
    pub kills: usize,
    pub requests: usize,
    pub placed: usize,
    pub replayed: usize,
    pub refused: usize,
    pub unanswered: usize,
    pub orders: usize,
    pub cancelled: usize,
    pub elapsed: Duration,
    /// What the after-sale client sent and was answered.
    pub changes: Changes,
    /// Each invariant with whether it held and what was counted.
    pub checks: Vec<(&'static str, bool, String)>,
}

pub async fn run(args: &Args, data_dir: &Path) -> anyhow::Result<Vec<CrashRun>> {
    let mut runs = Vec::new();
    for backend in crate::express::backends(args, data_dir)? {
        let dir = data_dir.join(backend.slug());
        std::fs::create_dir_all(&dir)?;
        backend.create().await?;
        let outcome = on_backend(args, &backend, &dir).await;
        backend.drop_database().await?;
        let run = outcome?;
        for (name, held, counted) in &run.checks {
            eprintln!(
                "  crash on {}: {} {} ({counted})",
                run.backend,
                if *held { "held:" } else { "BROKEN:" },
                name
            );
        }
        runs.push(run);
    }
    if let Some(broken) = runs
        .iter()
        .flat_map(|r| r.checks.iter().map(move |c| (&r.backend, c)))
        .find(|(_, (_, held, _))| !held)
    {
        bail!("crash run on {}: {} does not hold", broken.0, broken.1 .0);
    }
    Ok(runs)
}

async fn on_backend(args: &Args, backend: &Backend, dir: &Path) -> anyhow::Result<CrashRun> {
    let url = backend.url()?;
    let store = server::store::connect(&url, Some(2)).await?;
    let shop = seed::shop(store.as_ref(), SEATS).await?;
    let today = local_date(shop.merchant_zone, Utc::now());
    let days: Vec<NaiveDate> = (1..=3).map(|n| today + Days::new(n)).collect();
    // The last day costs 2.00 more, so the changer's moves to it wait for the difference's
    // payment (held places, a second payment) and its moves from it refund.
    seed::dearer_day(store.as_ref(), shop.evening, days[2], SEATS).await?;
    let reseller = crate::crash_octo::reseller(store.as_ref(), &shop).await?;
    drop(store);
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("BOXOFFICE_WORKER_INTERVAL_MS", "100"),
        ("BOXOFFICE_ADMIN_TOKEN", crash_after_sale::ADMIN_TOKEN),
    ];
    let start = || process::start(&args.server, dir, &env);

    eprintln!("crash: starting the server on {}", backend.name());
    let server: Arc<RwLock<Option<ServerProcess>>> = Arc::new(RwLock::new(Some(start().await?)));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    // Buyers buy for today too, whose tickets the gate scans (and the changer may cancel or
    // move while it does).
    let buyer_days: Vec<NaiveDate> = std::iter::once(today).chain(days.clone()).collect();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (server, seen, stop, sent) =
                (server.clone(), seen.clone(), stop.clone(), sent.clone());
            let (shop, days) = (shop.clone(), buyer_days.clone());
            tokio::spawn(async move { buyer(server, shop, days, seen, stop, sent).await })
        })
        .collect();
    let changer = {
        let (server, stop, sent) = (server.clone(), stop.clone(), sent.clone());
        let (url, days) = (url.clone(), days.clone());
        tokio::spawn(async move { crash_after_sale::changer(server, url, days, stop, sent).await })
    };
    let addr = server
        .read()
        .unwrap()
        .as_ref()
        .map(|s| s.addr)
        .context("a server")?;
    let gate = crate::gate::create(addr, shop.merchant_id).await?;
    let scanner = {
        let (server, stop, sent) = (server.clone(), stop.clone(), sent.clone());
        let url = url.clone();
        tokio::spawn(async move {
            crate::crash_gate::scanner(server, url, gate, today, (stop, sent)).await
        })
    };

    let uploader = {
        let (server, stop, sent) = (server.clone(), stop.clone(), sent.clone());
        let merchant_id = shop.merchant_id;
        tokio::spawn(async move {
            crate::crash_pictures::uploader(server, merchant_id, (stop, sent)).await
        })
    };

    // An OCTO reseller on the days its changes are still allowed on (the policy's 24 hours).
    let octo = {
        let (server, stop, sent) = (server.clone(), stop.clone(), sent.clone());
        let (shop, days) = (shop.clone(), days[1..].to_vec());
        tokio::spawn(async move {
            crate::crash_octo::reseller_load(server, shop, days, (stop, sent)).await
        })
    };

    for kill in 0..KILLS {
        let pause = rand::thread_rng().gen_range(400..1_500);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        // Work for the sweeper at the moment of the kill.
        age_open_payments(&url).await?;
        tokio::time::sleep(Duration::from_millis(rand::thread_rng().gen_range(0..150))).await;
        let killed = server.write().unwrap().take();
        drop(killed); // SIGKILL and wait
        eprintln!(
            "  crash on {}: kill {} of {KILLS}",
            backend.name(),
            kill + 1
        );
        let restarted = start().await?;
        *server.write().unwrap() = Some(restarted);
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await??;
    }
    let changes = changer.await??;
    let scans = scanner.await??;
    let uploads = uploader.await??;
    let bookings = octo.await??;
    // One last kill with the sweeper's work pending, then a clean stretch for it to finish.
    age_open_payments(&url).await?;
    drop(server.write().unwrap().take());
    let last = start().await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let elapsed = started.elapsed();
    drop(last);

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let db = read_database(&url).await?;
    let after = crash_after_sale::read(&url).await?;
    let octo_state = crate::crash_octo::read(&url, reseller, &after.paid).await?;
    let mut checks = invariants(&db, &after, &seen, &octo_state.order_ids());
    checks.extend(crate::crash_octo::invariants(&octo_state, &bookings));
    checks.extend(crash_after_sale::invariants(&after, &db.events));
    let ledger = crate::crash_settlement::read(&url).await?;
    checks.extend(crate::crash_settlement::invariants(&after, &ledger));
    let at_gate = crate::crash_gate::read(&url).await?;
    checks.extend(crate::crash_gate::invariants(&at_gate, &scans, &db.events));
    let pictures = crate::crash_pictures::read(&url, shop.merchant_id).await?;
    checks.extend(crate::crash_pictures::invariants(&pictures, &uploads));
    // The same database, then paid through Stripe (a fake of it) under the same kills.
    checks.extend(crate::crash_stripe::run(args, &url, dir, &shop, &days).await?);
    Ok(CrashRun {
        backend: backend.name(),
        kills: KILLS + 1,
        requests: sent.load(Ordering::Relaxed),
        placed: seen.placed,
        replayed: seen.replayed,
        refused: seen.refused,
        unanswered: seen.unanswered,
        orders: db.orders.len(),
        cancelled: db.orders.values().filter(|(_, s)| s == "CANCELLED").count(),
        elapsed,
        changes,
        checks,
    })
}

/// Moves the window of a third of the open payments into the past, so the sweeper cancels
/// their orders and gives their places back.
async fn age_open_payments(url: &str) -> anyhow::Result<()> {
    let past = Utc::now() - chrono::Duration::hours(1);
    let open: Vec<Uuid> = on_database!(url, |conn| sqlx::query_scalar(
        "SELECT payment_id FROM payment WHERE status = 'OPEN'"
    )
    .fetch_all(&mut conn)
    .await?);
    for payment_id in open.iter().step_by(3) {
        on_database!(url, |conn| {
            sqlx::query(
                "UPDATE payment SET expires_at = $2 WHERE payment_id = $1 AND status = 'OPEN'",
            )
            .bind(payment_id)
            .bind(past)
            .execute(&mut conn)
            .await?;
        });
    }
    Ok(())
}

/// What the invariants are checked against, read after the last restart.
struct Database {
    /// (group, day) → reserved.
    days: HashMap<(Uuid, NaiveDate), i64>,
    /// (checkout id, group, day, quantity, checkout status) of every line.
    lines: Vec<(Uuid, Uuid, NaiveDate, i64, String)>,
    /// order id → (checkout id, status).
    orders: HashMap<Uuid, (Uuid, String)>,
    /// (event type, subject).
    events: Vec<(String, String)>,
    /// (state, stored response) of every Idempotency-Key record.
    keys: Vec<(String, Option<Vec<u8>>)>,
    /// (order id, status) of every payment's ticket mail (kind TICKETS in the mail outbox).
    ticket_mails: Vec<(Uuid, String)>,
    /// Every ticket's id (the gate's events are about tickets).
    tickets: HashSet<Uuid>,
}

async fn read_database(url: &str) -> anyhow::Result<Database> {
    let days: Vec<(Uuid, NaiveDate, i64)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT availability_group_id, day, CAST(reserved AS BIGINT) FROM availability_day"
    )
    .fetch_all(&mut conn)
    .await?);
    let lines: Vec<(Uuid, Uuid, NaiveDate, i64, String)> = on_database!(url, |conn| {
        sqlx::query_as(
        "SELECT c.checkout_id, l.availability_group_id, l.visit_date, CAST(l.quantity AS BIGINT), c.status
         FROM checkout_line l JOIN checkout c ON c.checkout_id = l.checkout_id"
    )
    .fetch_all(&mut conn)
    .await?
    });
    let orders: Vec<(Uuid, Uuid, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT customer_order_id, checkout_id, status FROM customer_order"
    )
    .fetch_all(&mut conn)
    .await?);
    let events: Vec<(String, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT event_type, subject FROM event"
    )
    .fetch_all(&mut conn)
    .await?);
    let keys: Vec<(String, Option<Vec<u8>>)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT state, response_body FROM idempotency_record"
    )
    .fetch_all(&mut conn)
    .await?);
    // The outbox of every mail (migration 0012): the payment's ticket mails are its TICKETS.
    let sql = format!(
        "SELECT customer_order_id, status FROM mail WHERE kind = '{}'",
        app::wire::MailKind::Tickets.as_str()
    );
    let ticket_mails: Vec<(Uuid, String)> = on_database!(url, |conn| sqlx::query_as(&sql)
        .fetch_all(&mut conn)
        .await?);
    let tickets: Vec<(Uuid,)> =
        on_database!(url, |conn| sqlx::query_as("SELECT ticket_id FROM ticket")
            .fetch_all(&mut conn)
            .await?);
    Ok(Database {
        tickets: tickets.into_iter().map(|(t,)| t).collect(),
        days: days.into_iter().map(|(g, d, r)| ((g, d), r)).collect(),
        lines,
        orders: orders.into_iter().map(|(o, c, s)| (o, (c, s))).collect(),
        events,
        keys,
        ticket_mails,
    })
}

/// Each invariant of the run, whether it held, and what was counted for it.
/// `octo`: the OCTO reseller's orders, made and changed without Idempotency-Keys.
fn invariants(
    db: &Database,
    after: &AfterSale,
    seen: &Seen,
    octo: &HashSet<Uuid>,
) -> Vec<(&'static str, bool, String)> {
    let mut checks = Vec::new();

    // Places: a day's count is the places of the checkouts that still hold them (open holds)
    // and the valid tickets on it (sold, less what was cancelled or moved after the sale;
    // a ticket let in at the gate keeps its place).
    let mut held: HashMap<(Uuid, NaiveDate), i64> = after.valid_places.clone();
    // A date change to a dearer day holds its places until its difference's payment ends.
    for (key, places) in &after.pending_places {
        *held.entry(*key).or_default() += places;
    }
    for (_, group, day, quantity, status) in &db.lines {
        if matches!(status.as_str(), "RESERVED" | "CONFIRMED") {
            *held.entry((*group, *day)).or_default() += quantity;
        }
    }
    let wrong: Vec<_> = db
        .days
        .iter()
        .filter(|(key, reserved)| held.get(key).copied().unwrap_or(0) != **reserved)
        .collect();
    checks.push((
        "for every day, taken places = valid and used tickets + open holds (checkouts and date changes awaiting payment)",
        wrong.is_empty() && held.keys().all(|k| db.days.contains_key(k)),
        format!("{} days, {} wrong", db.days.len(), wrong.len()),
    ));

    // Idempotency: every order has exactly one completed key, whose stored answer names it;
    // every change after the sale kept has one too (the run makes each with a key), whose
    // answer names its order; a key still in flight (its request died with the server) holds
    // no order.
    let mut named = HashSet::new();
    let (mut done, mut changed, mut asked, mut in_flight) = (0, 0, 0, 0);
    for (state, body) in &db.keys {
        if state != "DONE" {
            in_flight += 1;
            continue;
        }
        let answer = body
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .unwrap_or_default();
        let id = |v: &Value| v.as_str().and_then(|id| id.parse::<Uuid>().ok());
        if let Some(order) = id(&answer["data"]["order_id"]) {
            done += 1;
            named.insert(order);
        } else if answer["data"]["payment_url"].is_string() {
            // A dearer day asked for: it moves when its difference is paid, keyless.
            asked += 1;
        } else if id(&answer["data"]["order"]["order_id"]).is_some() {
            changed += 1;
        }
    }
    let orders: HashSet<Uuid> = db.orders.keys().copied().collect();
    // The changer changes the buyers' orders, with keys; the OCTO reseller its own, without.
    let keyed: HashSet<Uuid> = orders.difference(octo).copied().collect();
    let changes: usize = after
        .changes
        .iter()
        .filter(|(o, _)| !octo.contains(o))
        .map(|(_, (c, m))| c + m)
        .sum();
    let (differences, moved) = after.differences;
    checks.push((
        "every order, and every change after the sale, has one completed Idempotency-Key record naming it (a dearer day's, its asking), and no other key holds one (OCTO's orders and changes have none)",
        done == keyed.len()
            && named == keyed
            && changed + moved == changes
            && asked == differences,
        format!(
            "{} orders ({} OCTO's), {done} completed keys of orders; {changes} changes, {changed} completed keys of changes and {moved} paid differences; {differences} dearer days asked, {asked} keys; {in_flight} in flight",
            orders.len(),
            octo.len()
        ),
    ));

    // Events: one CheckoutStarted per checkout, one FulfillmentRegistered per order, one
    // OrderCancelled per order cancelled unpaid (one cancelled after the sale has its
    // TicketsCancelled instead: `crash_after_sale`), and no event about a change not kept.
    let checkouts: HashSet<Uuid> = db.lines.iter().map(|l| l.0).collect();
    let count = |kind: &str, subject: String| {
        db.events
            .iter()
            .filter(|(t, s)| t == kind && *s == subject)
            .count()
    };
    let missing_started = checkouts
        .iter()
        .filter(|c| count("checkouts.CheckoutStarted", format!("checkouts/{c}")) != 1)
        .count();
    let missing_registered = db
        .orders
        .values()
        .filter(|(c, _)| {
            count(
                "checkouts.CheckoutFulfillmentRegistered",
                format!("checkouts/{c}"),
            ) != 1
        })
        .count();
    let missing_cancelled = db
        .orders
        .iter()
        .filter(|(o, (c, s))| {
            let unpaid_end = usize::from(s == "CANCELLED" && !after.paid.contains_key(o));
            count("orders.OrderCancelled", format!("orders/{o}"))
                + count("orders.OrderCancelled", format!("checkouts/{c}"))
                != unpaid_end
        })
        .count();
    let about_nothing = db
        .events
        .iter()
        .filter(|(_, subject)| {
            let id = subject
                .rsplit('/')
                .next()
                .and_then(|id| id.parse::<Uuid>().ok());
            match (subject.split('/').next(), id) {
                (Some("checkouts"), Some(id)) => !checkouts.contains(&id),
                (Some("orders"), Some(id)) => !orders.contains(&id),
                (Some("tickets"), Some(id)) => !db.tickets.contains(&id),
                _ => true,
            }
        })
        .count();
    checks.push((
        "every event reports a committed change and none is missing",
        missing_started + missing_registered + missing_cancelled + about_nothing == 0,
        format!(
            "{} events; missing: {missing_started} started, {missing_registered} registered, \
             {missing_cancelled} cancelled; {about_nothing} about nothing stored",
            db.events.len()
        ),
    ));

    // Ticket mails: every paid order (also one cancelled after the sale since) has exactly
    // one, sent or pending (it was written with the payment), and no other order has one.
    let paid: HashSet<Uuid> = db
        .orders
        .iter()
        .filter(|(o, (_, s))| s == "PAID" || s == "FULFILLED" || after.paid.contains_key(o))
        .map(|(o, _)| *o)
        .collect();
    let mut mails: HashMap<Uuid, usize> = HashMap::new();
    for (order, status) in &db.ticket_mails {
        if status == "SENT" || status == "PENDING" {
            *mails.entry(*order).or_default() += 1;
        }
    }
    let unmailed = paid.iter().filter(|o| mails.get(o) != Some(&1)).count();
    let stray = db
        .ticket_mails
        .iter()
        .filter(|(o, _)| !paid.contains(o))
        .count();
    checks.push((
        "every paid order has exactly one ticket mail, sent or pending",
        unmailed + stray == 0 && db.ticket_mails.len() == paid.len(),
        format!(
            "{} paid orders, {} ticket mails; {unmailed} without exactly one, {stray} of unpaid orders",
            paid.len(),
            db.ticket_mails.len()
        ),
    ));

    // Answers: every order the load was told about is stored.
    let lost = seen.orders.difference(&orders).count();
    checks.push((
        "every order answered 2xx is stored",
        lost == 0,
        format!("{} answered, {lost} not stored", seen.orders.len()),
    ));
    checks
}

/// The section of docs/benchmarks.md the crash run writes.
pub fn section(machine: &crate::report::Machine, runs: &[CrashRun]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Crash: SIGKILL under load\n\n\
         `bench/crash.sh` (`bench --only crash`). {CLIENTS} clients send express checkouts of 1 to 3\n\
         places on today or one of the next three days ({SEATS} places a day), a fifth of them retries of the previous\n\
         request with its Idempotency-Key, while the sweeper cancels orders whose payment window\n\
         ran out (a third of the open payments are aged in the database before each kill), and\n\
         one more client cancels some or all tickets of paid orders at random percents and moves\n\
         others to another of the days (the operator's routes, with Idempotency-Keys; the last day\n\
         costs 2.00 more, so a move to it waits for its difference, which the client pays four\n\
         times in five), and a gate scans today's valid tickets (a fifth of its scans retries with\n\
         the same nonce, one in ten an undo of a recent entry, a new bearer from each restarted\n\
         server), the operator uploads pictures of the merchant and deletes some, and an OCTO\n\
         reseller settling on account reserves bookings on the last two days, changes held ones\n\
         (units, day), confirms them, gives up units of confirmed ones, moves and cancels them\n\
         (now and then a request again after no answer; `bench/src/crash_octo.rs`). The\n\
         server is killed with SIGKILL at random moments and restarted over the same database;\n\
         after the last restart the database is read and the invariants below are checked (the\n\
         merchant is settled with 9 % VAT, a 3 % fee and a 10 % commission, so every payment,\n\
         refund and move books ledger entries). Then\n\
         the same database is paid through Stripe (localstripe, `end2end/stripe/`): the server\n\
         with `BOXOFFICE_PAYMENT_PROVIDER=stripe`, reconciling after 1 s, {STRIPE_CLIENTS} clients buying,\n\
         a payer paying every open PaymentIntent at the fake, and {STRIPE_KILLS} more kills, so\n\
         webhooks land on a dead server and are lost; after a clean stretch every PaymentIntent\n\
         paid must be a PAID order exactly once (the last two invariants). Any invariant that does\n\
         not hold fails the run.\n"
    );
    crate::report::machine_table(&mut out, machine);
    let _ = writeln!(
        out,
        "| backend | kills | requests | placed | replayed | refused (4xx) | unanswered | orders stored | cancelled | after-sale changes made / refused | elapsed s |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in runs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {:.1} |",
            r.backend,
            r.kills,
            r.requests,
            r.placed,
            r.replayed,
            r.refused,
            r.unanswered,
            r.orders,
            r.cancelled,
            r.changes.done,
            r.changes.refused,
            r.elapsed.as_secs_f64()
        );
    }
    let _ = writeln!(
        out,
        "\n| backend | invariant | held | counted |\n|---|---|---|---|"
    );
    for r in runs {
        for (name, held, counted) in &r.checks {
            let _ = writeln!(
                out,
                "| {} | {name} | {} | {counted} |",
                r.backend,
                if *held { "yes" } else { "**no**" }
            );
        }
    }
    let _ = writeln!(
        out,
        "\n\"Unanswered\" are requests the kill cut off (or that found the server restarting); the\n\
         client retried each with its key, which is how a partner learns whether it was placed.\n"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database where one order of 2 places on one day was placed and everything agrees.
    fn consistent() -> (Database, Seen) {
        let (group, checkout, order) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let body =
            serde_json::to_vec(&serde_json::json!({ "data": { "order_id": order } })).unwrap();
        let db = Database {
            days: HashMap::from([((group, day), 2)]),
            lines: vec![(checkout, group, day, 2, "CONFIRMED".to_owned())],
            orders: HashMap::from([(order, (checkout, "PENDING_PAYMENT".to_owned()))]),
            events: vec![
                (
                    "checkouts.CheckoutStarted".into(),
                    format!("checkouts/{checkout}"),
                ),
                (
                    "checkouts.CheckoutFulfillmentRegistered".into(),
                    format!("checkouts/{checkout}"),
                ),
            ],
            keys: vec![("DONE".into(), Some(body)), ("IN_FLIGHT".into(), None)],
            ticket_mails: Vec::new(),
            tickets: HashSet::new(),
        };
        let seen = Seen {
            orders: HashSet::from([order]),
            ..Seen::default()
        };
        (db, seen)
    }

    fn broken(db: &Database, seen: &Seen) -> Vec<&'static str> {
        invariants(db, &AfterSale::default(), seen, &HashSet::new())
            .into_iter()
            .filter(|(_, held, _)| !held)
            .map(|(name, _, _)| name)
            .collect()
    }

    #[test]
    fn a_consistent_database_passes_and_each_kind_of_damage_is_caught() {
        let (db, seen) = consistent();
        assert!(broken(&db, &seen).is_empty());

        let (mut db, seen) = consistent();
        db.days.values_mut().for_each(|r| *r += 1);
        assert_eq!(broken(&db, &seen).len(), 1, "a place counted twice");

        let (mut db, seen) = consistent();
        db.keys[0].1 = None;
        assert_eq!(
            broken(&db, &seen).len(),
            1,
            "an order without its key's answer"
        );

        let (mut db, seen) = consistent();
        db.events.pop();
        assert_eq!(broken(&db, &seen).len(), 1, "a missing event");

        let (mut db, seen) = consistent();
        db.events.push((
            "checkouts.CheckoutStarted".into(),
            format!("checkouts/{}", Uuid::nil()),
        ));
        assert_eq!(
            broken(&db, &seen).len(),
            1,
            "an event about a rolled-back checkout"
        );

        let (mut db, seen) = consistent();
        db.orders
            .values_mut()
            .for_each(|(_, s)| *s = "PAID".to_owned());
        assert_eq!(
            broken(&db, &seen).len(),
            1,
            "a paid order without its ticket mail"
        );
        db.ticket_mails
            .push((Uuid::from_u128(3), "PENDING".to_owned()));
        assert!(broken(&db, &seen).is_empty(), "with it");
        db.ticket_mails
            .push((Uuid::from_u128(3), "SENT".to_owned()));
        assert_eq!(broken(&db, &seen).len(), 1, "a paid order with two");

        let (db, mut seen) = consistent();
        seen.orders.insert(Uuid::from_u128(9));
        assert_eq!(
            broken(&db, &seen).len(),
            1,
            "an answered order that is not stored"
        );
    }
}
