//! Part `gate` (issue 42): redemptions of distinct codes at 32 in flight, on SQLite on disk and
//! on PostgreSQL, each scan a gate's `POST /v2/redemptions` with its own nonce, its latency
//! from send to answer on a fresh connection. Target: at least 1,000 a second with p99 under
//! 25 ms (docs/gate.md).

use std::sync::{Arc, Mutex};

use anyhow::Context;
use chrono::Utc;
use hyper::StatusCode;
use serde_json::{json, Value};
use server::time::local_date;
use uuid::Uuid;

use crate::{
    after_sale::{buy, changes, Changes, Connection},
    crash_after_sale::ADMIN_TOKEN,
    express::{backends, Backend},
    load::{self, Call},
    process, seed, Args,
};

/// Scans in flight.
const IN_FLIGHT: usize = 32;
const TARGET_PER_SECOND: f64 = 1_000.0;
const TARGET_P99_MS: f64 = 25.0;
/// Tickets per order bought to scan (the most one basket line takes).
const PER_ORDER: u32 = 50;

pub async fn run(args: &Args) -> anyhow::Result<String> {
    let mut runs = Vec::new();
    for backend in backends(args, &args.disk_dir.join("gate"))? {
        backend.create().await?;
        let measured = on(args, &backend).await;
        backend.drop_database().await?;
        runs.push((backend, measured?));
    }
    Ok(section(&runs))
}

/// The redemptions measured on one backend: half the codes on a fresh connection per scan,
/// then the other half on connections kept alive (as the scanner page's `fetch` keeps them).
async fn on(args: &Args, backend: &Backend) -> anyhow::Result<[Changes; 2]> {
    let url = backend.url()?;
    let store = server::store::connect(&url, Some(2)).await?;
    let shop = seed::shop(store.as_ref(), 100_000).await?;
    drop(store);
    let dir = args.disk_dir.join("gate").join(backend.slug());
    std::fs::create_dir_all(&dir)?;
    // The pool's size, when the run sets one (the server's default otherwise: two
    // connections per core).
    let pool = std::env::var("BOXOFFICE_DB_MAX_CONNECTIONS").unwrap_or_default();
    let mut env = vec![
        ("DATABASE_URL", url.as_str()),
        ("BOXOFFICE_ADMIN_TOKEN", ADMIN_TOKEN),
    ];
    if !pool.is_empty() {
        env.push(("BOXOFFICE_DB_MAX_CONNECTIONS", pool.as_str()));
    }
    let server = process::start(&args.server, &dir, &env).await?;
    let today = local_date(shop.merchant_zone, Utc::now());
    let count = args.scale(20_000);
    let orders = count.div_ceil(PER_ORDER as usize);
    eprintln!(
        "gate ({}): buying {count} tickets for today",
        backend.name()
    );
    let codes: Vec<String> = buy(
        &server,
        shop.campaign_id,
        shop.ticket,
        (today, PER_ORDER),
        orders,
    )
    .await?
    .into_iter()
    .flat_map(|b| b.tickets.into_iter().map(|(_, code)| code))
    .take(count)
    .collect();
    let gate = create(server.addr, shop.merchant_id).await?;
    let token = bearer(server.addr, &gate).await?;
    let half = codes.len() / 2;
    let mut measured = Vec::with_capacity(2);
    for (connection, codes) in [
        (Connection::Fresh, codes[..half].to_vec()),
        (Connection::KeptAlive, codes[half..].to_vec()),
    ] {
        let count = codes.len();
        let codes = Arc::new(Mutex::new(codes));
        let token = token.clone();
        measured.push(
            changes(
                server.addr,
                ("redemption", connection),
                IN_FLIGHT,
                count,
                StatusCode::CREATED,
                move |_| {
                    let code = codes.lock().unwrap().pop()?;
                    Some(
                        Call::post_json(
                            "/v2/redemptions",
                            &json!({ "code": code, "nonce": Uuid::new_v4().to_string() }),
                        )
                        .header("authorization", format!("Bearer {token}")),
                    )
                },
            )
            .await?,
        );
    }
    let kept_alive = measured.pop().context("two runs")?;
    let fresh = measured.pop().context("two runs")?;
    Ok([fresh, kept_alive])
}

/// A gate the benchmark made: its id and its client credentials.
#[derive(Debug, Clone)]
pub struct BenchGate {
    pub gate_id: Uuid,
    client_id: String,
    client_secret: String,
}

/// A gate of `merchant`, made on the running server.
pub async fn create(addr: std::net::SocketAddr, merchant: Uuid) -> anyhow::Result<BenchGate> {
    let create = Call::post_json(
        format!("/admin/v1/merchants/{merchant}/gates"),
        &json!({ "name": "Bench gate" }),
    )
    .header("authorization", format!("Bearer {ADMIN_TOKEN}"));
    let (status, body) = load::once(addr, &create).await?;
    anyhow::ensure!(status == StatusCode::CREATED, "creating a gate: {status}");
    let gate: Value = serde_json::from_slice(&body)?;
    let field = |name: &str| gate["data"][name].as_str().unwrap_or_default().to_owned();
    Ok(BenchGate {
        gate_id: field("gate_id").parse().context("a gate id")?,
        client_id: field("client_id"),
        client_secret: field("client_secret"),
    })
}

/// A gate bearer from the server at `addr` (`load::client_token`).
pub async fn bearer(addr: std::net::SocketAddr, gate: &BenchGate) -> anyhow::Result<String> {
    load::client_token(addr, &gate.client_id, &gate.client_secret).await
}

/// The section of docs/benchmarks.md this part writes.
fn section(runs: &[(Backend, [Changes; 2])]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## At the gate: redemptions\n\n\
         `bench/run.sh` (`bench --only gate`): {IN_FLIGHT} scans in flight, each a gate's\n\
         `POST /v2/redemptions` of a distinct valid ticket's printed code with a nonce of its own\n\
         (the ticket made USED by its conditional update, the entry kept, the order's version\n\
         moved and `tickets.TicketRedeemed` written, in one transaction); latency from send to the\n\
         whole answer. Half the scans go on a fresh connection each, the other half on one\n\
         connection per client kept alive, as the scanner page's `fetch` keeps its connection\n\
         (the server sets `TCP_NODELAY` on every connection). Target: at least\n\
         {TARGET_PER_SECOND:.0} a second with p99 under {TARGET_P99_MS} ms.\n"
    );
    crate::report::machine_table(&mut out, &process::machine());
    let _ = writeln!(
        out,
        "| database | connection | scans | per second | p50 ms | p90 ms | p99 ms | max ms | target met |\n|---|---|---|---|---|---|---|---|---|"
    );
    let kinds = ["fresh per scan", "kept alive"];
    for (backend, r, kind) in runs
        .iter()
        .flat_map(|(b, pair)| pair.iter().zip(kinds).map(move |(r, k)| (b, r, k)))
    {
        let rate = r.latencies_us.len() as f64 / r.elapsed.as_secs_f64();
        let p99 = r.quantile_ms(0.99);
        let met = rate >= TARGET_PER_SECOND && p99 < TARGET_P99_MS;
        let _ = writeln!(
            out,
            "| {} | {kind} | {} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            backend.name(),
            r.latencies_us.len(),
            rate,
            r.quantile_ms(0.5),
            r.quantile_ms(0.9),
            p99,
            r.quantile_ms(1.0),
            if met { "yes" } else { "**no**" }
        );
    }
    out
}
