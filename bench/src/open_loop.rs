//! Part `open` (issue 29, item 6): open-loop load. A closed-loop generator hides queueing: a
//! slow answer holds back the requests behind it, so they are never measured as late
//! (coordinated omission). For the product list, the calendar and the express checkout this
//! part finds the most the server answers in a closed loop, then sends requests on a fixed
//! schedule at 50 % and 80 % of that (`load::run_at_rate`), with latency counted from when each
//! request fell due.

use std::{fmt::Write, path::Path};

use chrono::{Days, Utc};
use hyper::StatusCode;
use server::time::local_date;

use crate::{
    catalog::public_bearer,
    express::express_call,
    load::{self, Call, Measured},
    process, report, seed, Args,
};

/// Connections of the closed loop that finds each scenario's most.
const CLOSED_CONNECTIONS: usize = 16;
/// Connections the open loop may use: enough that the generator never waits for one of its own
/// at 80 %, so what queues is the server's.
const OPEN_CONNECTIONS: usize = 64;
/// The fixed rates, as shares of the closed loop's most.
const SHARES: [f64; 2] = [0.5, 0.8];
/// How long each fixed rate runs.
const SECONDS: f64 = 10.0;

/// The fixed-rate runs of a scenario at one share, one per round.
struct Row {
    scenario: &'static str,
    closed: f64,
    share: f64,
    rate: f64,
    rounds: Vec<Measured>,
}

impl Row {
    /// The median over the rounds of `of`, with the least and the most.
    fn spread(&self, of: impl Fn(&Measured) -> f64) -> (f64, f64, f64) {
        let values: Vec<f64> = self.rounds.iter().map(of).collect();
        let least = values.iter().copied().fold(f64::INFINITY, f64::min);
        let most = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (report::median(values), least, most)
    }
}

pub async fn run(args: &Args, data_dir: &Path) -> anyhow::Result<String> {
    let mut rows = Vec::new();

    // The reads do not depend on the catalog's size: a small one is seeded quickly.
    let catalog_dir = data_dir.join("catalog");
    std::fs::create_dir_all(&catalog_dir)?;
    let seeded = {
        let url = format!("sqlite://{}", catalog_dir.join("boxoffice.db").display());
        let store = server::store::connect(&url, Some(2)).await?;
        seed::seed(store.as_ref(), args.merchants.min(2_000)).await?
    };
    let reads = process::start(&args.server, &catalog_dir, &[]).await?;
    crate::catalog::settled(reads.addr, seeded.campaign_id).await?;
    let bearer = format!(
        "Bearer {}",
        public_bearer(reads.addr, seeded.campaign_id).await?
    );
    let product_list = Call::get(format!("/v2/merchants/{}/products", seeded.list_merchant))
        .header("x-campaign-id", seeded.campaign_id.to_string())
        .header("accept-language", "nl-NL");
    let calendar = Call::get(format!("/v2/products/{}/calendar", seeded.calendar_product))
        .header("authorization", bearer);
    for (scenario, call) in [("product list", product_list), ("calendar", calendar)] {
        rows.extend(scenario_rows(args, reads.addr, scenario, &call).await?);
    }
    drop(reads);

    let express_dir = data_dir.join("express");
    std::fs::create_dir_all(&express_dir)?;
    let url = format!("sqlite://{}", express_dir.join("express.db").display());
    let shop = {
        let store = server::store::connect(&url, Some(2)).await?;
        seed::shop(store.as_ref(), 100).await?
    };
    let checkouts = process::start(&args.server, &express_dir, &[("DATABASE_URL", &url)]).await?;
    let visit = local_date(shop.merchant_zone, Utc::now()) + Days::new(7);
    let call = express_call(&shop, shop.ticket, visit);
    rows.extend(scenario_rows(args, checkouts.addr, "express checkout, SQLite", &call).await?);
    drop(checkouts);

    Ok(section(&process::machine(), &rows))
}

/// The closed loop's most for `call`, then a run at each of [`SHARES`] of it.
async fn scenario_rows(
    args: &Args,
    addr: std::net::SocketAddr,
    scenario: &'static str,
    call: &Call,
) -> anyhow::Result<Vec<Row>> {
    eprintln!("open: {scenario}, closed loop");
    let closed = load::run(
        addr,
        call,
        CLOSED_CONNECTIONS,
        args.scale(5_000),
        StatusCode::OK,
    )
    .await?
    .per_second();
    let seconds = if args.quick { SECONDS / 5.0 } else { SECONDS };
    let mut rows: Vec<Row> = SHARES
        .iter()
        .map(|&share| Row {
            scenario,
            closed,
            share,
            rate: closed * share,
            rounds: Vec::new(),
        })
        .collect();
    // The shares alternate round by round, so a slow moment of the machine falls on both.
    for round in 1..=args.rounds.min(3) {
        for row in &mut rows {
            let total = (row.rate * seconds).round() as usize;
            eprintln!(
                "open: {scenario}, {:.0}/s for {seconds} s, round {round}",
                row.rate
            );
            let measured = load::run_at_rate(
                addr,
                call,
                OPEN_CONNECTIONS,
                row.rate,
                total,
                StatusCode::OK,
            )
            .await?;
            row.rounds.push(measured);
        }
    }
    Ok(rows)
}

fn section(machine: &report::Machine, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Open loop\n\n\
         `bench/run.sh --only open`. A closed loop ({CLOSED_CONNECTIONS} connections, each sending \
         as soon as its last answer is read) finds the most each scenario answers; then requests \
         fall due at a fixed rate of 50 % and 80 % of that for {SECONDS} s, whatever the answers, \
         over up to {OPEN_CONNECTIONS} connections, and each latency counts from when its request \
         fell due, so waiting in a queue is in it. Each fixed rate runs in every round (up to 3, \
         the shares alternating); the table gives the median over the rounds and, in brackets, \
         the least and the most. The reads run on a catalog of up to 2,000 \
         merchants (their cost does not depend on the catalog's size); the express checkout on \
         SQLite in tmpfs, every request booking the same product on the same day.\n"
    );
    report::machine_table(&mut out, machine);
    let _ = writeln!(
        out,
        "| scenario | closed-loop most | share | rate asked | rate achieved | p50 | p99 | p99.9 | failures |\n\
         |---|---|---|---|---|---|---|---|---|"
    );
    let ms =
        |(median, least, most): (f64, f64, f64)| format!("{median:.2} ms ({least:.2}–{most:.2})");
    for row in rows {
        let (achieved, _, _) = row.spread(Measured::per_second);
        let failures: usize = row.rounds.iter().map(|m| m.failures).sum();
        let _ = writeln!(
            out,
            "| {} | {:.0}/s | {:.0} % | {:.0}/s | {:.0}/s | {} | {} | {} | {} |",
            row.scenario,
            row.closed,
            row.share * 100.0,
            row.rate,
            achieved,
            ms(row.spread(|m| m.quantile_ms(0.5))),
            ms(row.spread(|m| m.quantile_ms(0.99))),
            ms(row.spread(|m| m.quantile_ms(0.999))),
            failures,
        );
    }
    out.push('\n');
    out
}
