//! Part `after-sale` (issue 41), beside the express checkout: cancellations and date changes on
//! SQLite on disk at 8 clients, each request a change of its own (the operator's routes, an
//! Idempotency-Key each), its latency from send to answer. Cancellations take one ticket of
//! three-ticket orders; date changes move one-ticket orders to another day, each once (as
//! customers do: moving one order hundreds of times would measure its growing history).

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use chrono::{Days, NaiveDate, Utc};
use hyper::StatusCode;
use serde_json::{json, Value};
use server::time::local_date;
use uuid::Uuid;

use crate::{
    crash_after_sale::ADMIN_TOKEN,
    express::{file_system, RETURN_URL},
    load::{self, Call},
    process::{self, ServerProcess},
    seed, Args,
};

/// Clients at once, and the target of the issue.
const CLIENTS: usize = 8;
const TARGET_P99_MS: f64 = 25.0;

/// One kind of change measured: its latencies (sorted, µs) and how long the run took.
pub struct Changes {
    pub name: &'static str,
    pub latencies_us: Vec<u64>,
    pub elapsed: Duration,
}

impl Changes {
    pub fn quantile_ms(&self, q: f64) -> f64 {
        let n = self.latencies_us.len();
        if n == 0 {
            return f64::NAN;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        self.latencies_us[rank - 1] as f64 / 1000.0
    }
}

pub async fn run(args: &Args) -> anyhow::Result<String> {
    let folder = args.disk_dir.join("after-sale");
    std::fs::create_dir_all(&folder)?;
    let storage = file_system(&folder)?;
    let url = format!("sqlite://{}", folder.join("after-sale.db").display());
    let store = server::store::connect(&url, Some(2)).await?;
    let shop = seed::shop(store.as_ref(), 100_000).await?;
    drop(store);
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("BOXOFFICE_ADMIN_TOKEN", ADMIN_TOKEN),
    ];
    let server_dir = folder.join("server");
    std::fs::create_dir_all(&server_dir)?;
    let server = process::start(&args.server, &server_dir, &env).await?;
    let today = local_date(shop.merchant_zone, Utc::now());
    let (a, b) = (today + Days::new(5), today + Days::new(6));
    let count = args.scale(1_600);

    eprintln!("after-sale: buying {count} orders to cancel and {count} to move");
    let first_tickets = |bought: Vec<Bought>| -> Vec<(Uuid, Uuid)> {
        bought
            .into_iter()
            .map(|b| (b.order, b.tickets[0].0))
            .collect()
    };
    let to_cancel =
        first_tickets(buy(&server, shop.campaign_id, shop.evening, (a, 3), count).await?);
    let cancelled = changes(
        server.addr,
        ("cancellation", Connection::Fresh),
        CLIENTS,
        count,
        StatusCode::OK,
        {
            let orders = Arc::new(Mutex::new(to_cancel));
            move |_| {
                let order = orders.lock().unwrap().pop()?;
                Some(change(
                    &format!("/admin/v1/orders/{}/cancellation", order.0),
                    json!({ "ticket_ids": [order.1] }),
                ))
            }
        },
    )
    .await?;
    let to_move = first_tickets(buy(&server, shop.campaign_id, shop.evening, (a, 1), count).await?);
    let moved = changes(
        server.addr,
        ("date change", Connection::Fresh),
        CLIENTS,
        count,
        StatusCode::OK,
        {
            let orders = Arc::new(Mutex::new(to_move));
            move |_| {
                let (order, _) = orders.lock().unwrap().pop()?;
                Some(change(
                    &format!("/admin/v1/orders/{order}/rebooking"),
                    json!({ "date": b.to_string() }),
                ))
            }
        },
    )
    .await?;
    drop(server);
    let _ = std::fs::remove_dir_all(&folder);
    Ok(section(&storage, &[cancelled, moved]))
}

fn change(path: &str, body: Value) -> Call {
    Call::post_json(path, &body)
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .header("idempotency-key", Uuid::new_v4().to_string())
}

/// A paid order: its id and its tickets' ids and printed codes.
pub struct Bought {
    pub order: Uuid,
    pub tickets: Vec<(Uuid, String)>,
}

/// `count` paid orders of `quantity` tickets of `product` on `day`.
pub async fn buy(
    server: &ServerProcess,
    campaign_id: Uuid,
    product: Uuid,
    (day, quantity): (NaiveDate, u32),
    count: usize,
) -> anyhow::Result<Vec<Bought>> {
    let mut orders = Vec::with_capacity(count);
    for _ in 0..count {
        let call = Call::post_json(
            "/v2/checkouts/express",
            &json!({
                "date": day, "flexible_date": false,
                "lines": [{ "product_id": product, "quantity": quantity }],
                "email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace",
                "return_url": RETURN_URL,
            }),
        )
        .header("x-campaign-id", campaign_id.to_string())
        .header("idempotency-key", Uuid::new_v4().to_string());
        let (status, body) = load::once(server.addr, &call).await?;
        if status != StatusCode::OK {
            bail!(
                "express checkout: {status} {}",
                String::from_utf8_lossy(&body)
            );
        }
        let placed: Value = serde_json::from_slice(&body)?;
        let url = placed["data"]["payment_url"]
            .as_str()
            .context("a payment URL")?;
        let pay = Call {
            method: hyper::Method::POST,
            path: url[url.find("/pay/").context("a sandbox URL")?..].to_owned(),
            headers: vec![(
                "content-type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            )],
            body: "action=pay".into(),
            fresh_key: None,
        };
        load::once(server.addr, &pay).await?;
        let order: Uuid = placed["data"]["order_id"]
            .as_str()
            .context("an order")?
            .parse()?;
        let read = Call::get(format!("/admin/v1/orders/{order}"))
            .header("authorization", format!("Bearer {ADMIN_TOKEN}"));
        let (_, body) = load::once(server.addr, &read).await?;
        let read: Value = serde_json::from_slice(&body)?;
        let mut tickets = Vec::new();
        for ticket in read["data"]["order"]["tickets"]
            .as_array()
            .context("tickets")?
        {
            tickets.push((
                ticket["ticket_id"].as_str().context("a ticket")?.parse()?,
                ticket["code"].as_str().context("a code")?.to_owned(),
            ));
        }
        orders.push(Bought { order, tickets });
    }
    Ok(orders)
}

/// How a client of `changes` reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// A new TCP connection per request.
    Fresh,
    /// One connection per client, kept alive (as a browser or an app keeps it).
    KeptAlive,
}

/// Sends the `n`th call `next(n)` gives, `count` in all, over `clients` clients, each waiting
/// for its answer before its next (so `clients` are in flight), each on `connection`; every
/// answer must be `expected`.
pub async fn changes(
    addr: SocketAddr,
    (name, connection): (&'static str, Connection),
    clients_at_once: usize,
    count: usize,
    expected: StatusCode,
    next: impl Fn(usize) -> Option<Call> + Send + Sync + 'static,
) -> anyhow::Result<Changes> {
    let next = Arc::new(next);
    let started = Instant::now();
    let mut clients = Vec::with_capacity(clients_at_once);
    for client in 0..clients_at_once {
        let next = next.clone();
        clients.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = client;
            let mut kept = match connection {
                Connection::KeptAlive => Some(load::connect(addr).await?),
                Connection::Fresh => None,
            };
            while n < count {
                let Some(call) = next(n) else { break };
                let sent = Instant::now();
                let (status, body) = match kept.as_mut() {
                    Some(sender) => load::on(sender, addr, &call).await?,
                    None => load::once(addr, &call).await?,
                };
                if status != expected {
                    bail!("{name}: {status} {}", String::from_utf8_lossy(&body));
                }
                latencies.push(sent.elapsed().as_micros() as u64);
                n += clients_at_once;
            }
            anyhow::Ok(latencies)
        }));
    }
    let mut latencies_us = Vec::with_capacity(count);
    for client in clients {
        latencies_us.extend(client.await??);
    }
    latencies_us.sort_unstable();
    let measured = Changes {
        name,
        latencies_us,
        elapsed: started.elapsed(),
    };
    eprintln!(
        "  {name}: {} in {:.1} s, p50 {:.2} ms, p99 {:.2} ms",
        measured.latencies_us.len(),
        measured.elapsed.as_secs_f64(),
        measured.quantile_ms(0.5),
        measured.quantile_ms(0.99)
    );
    Ok(measured)
}

/// The section of docs/benchmarks.md this part writes.
fn section(storage: &str, runs: &[Changes]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## After the sale: cancellations and date changes\n\n\
         `bench/run.sh` (`bench --only after-sale`), SQLite on disk ({storage}), {CLIENTS} clients,\n\
         each request a change of its own through the operator's routes with an Idempotency-Key:\n\
         a cancellation of one ticket of a paid three-ticket order (its refund written and sent to\n\
         the sandbox, its place given back, its mail and event written), and a date change of a\n\
         one-ticket order to another day (a new ticket, the old place given back, the new one\n\
         taken under the no-oversell rule). Latency is from send to the whole answer on a\n\
         fresh connection. Target: p99 under {TARGET_P99_MS} ms.\n"
    );
    crate::report::machine_table(&mut out, &process::machine());
    let _ = writeln!(
        out,
        "| change | requests | per second | p50 ms | p90 ms | p99 ms | max ms | p99 under {TARGET_P99_MS} ms |\n|---|---|---|---|---|---|---|---|"
    );
    for r in runs {
        let p99 = r.quantile_ms(0.99);
        let _ = writeln!(
            out,
            "| {} | {} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            r.name,
            r.latencies_us.len(),
            r.latencies_us.len() as f64 / r.elapsed.as_secs_f64(),
            r.quantile_ms(0.5),
            r.quantile_ms(0.9),
            p99,
            r.quantile_ms(1.0),
            if p99 < TARGET_P99_MS { "yes" } else { "**no**" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_names_each_change_and_judges_its_p99() {
        let fast = Changes {
            name: "cancellation",
            latencies_us: (1..=100).map(|n| n * 100).collect(),
            elapsed: Duration::from_secs(1),
        };
        assert_eq!(fast.quantile_ms(0.99), 9.9);
        let text = section("ext2/ext3", &[fast]);
        assert!(
            text.contains("| cancellation | 100 | 100 | 5.00 | 9.00 | 9.90 | 10.00 | yes |"),
            "{text}"
        );
    }
}
