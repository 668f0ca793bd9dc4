//! Part `catalog` (issues 4 and 29): the product list, the frame's reads (calendar, timeslots,
//! merchants page, merchant) and searches over a generated catalog, each beside
//! `/bench/baseline` answering with the very bytes the real endpoint returned, from memory;
//! then the same reads with the per-node copies off (before), and the frame's reads on
//! Postgres.

use std::{net::SocketAddr, path::Path};

use anyhow::{bail, Context};
use bytes::Bytes;
use hyper::{Method, StatusCode};
use serde_json::json;

use crate::{
    load::{self, Call},
    measure::{measure, Plan},
    process::{self, json_of},
    report::{self, Scenario},
    seed::{self, Seeded},
    Args,
};

/// Returns once the node at `addr` has done its start-up work: the search index it builds
/// ahead, which a search waits for (seconds at 100,000 merchants, on both cores). Measured
/// beside that build, the first reads' figures and their limit's were a third lower.
pub(crate) async fn settled(addr: SocketAddr, campaign_id: uuid::Uuid) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let bearer = format!("Bearer {}", public_bearer(addr, campaign_id).await?);
    let search =
        Call::get("/v2/merchants/search?q=settled&limit=1").header("authorization", bearer);
    json_of(addr, &search, StatusCode::OK).await?;
    eprintln!(
        "catalog: the node's search index was built after {:.1?}",
        started.elapsed()
    );
    Ok(())
}

/// A public bearer of a headless session in the campaign, the way a partner gets one.
pub(crate) async fn public_bearer(
    addr: SocketAddr,
    campaign_id: uuid::Uuid,
) -> anyhow::Result<String> {
    let token = json_of(
        addr,
        &Call::post_json(
            "/oauth/token",
            &json!({ "grant_type": "client_credentials", "client_id": seed::CLIENT_ID,
                     "client_secret": seed::CLIENT_SECRET }),
        ),
        StatusCode::OK,
    )
    .await?;
    let backend = token["access_token"].as_str().context("access_token")?;
    let session = json_of(
        addr,
        &Call::post_json(
            "/v1/session",
            &json!({ "integration": "headless", "user": { "reference": "bench" },
                     "campaign_id": campaign_id }),
        )
        .header("authorization", format!("Bearer {backend}")),
        StatusCode::CREATED,
    )
    .await?;
    let code = session["data"]["session_code"]
        .as_str()
        .context("session_code")?;
    let exchanged = json_of(
        addr,
        &Call::post_json(
            "/v1/session/token",
            &json!({ "session_code": code, "client_id": seed::CLIENT_ID,
                     "client_secret": seed::CLIENT_SECRET }),
        ),
        StatusCode::OK,
    )
    .await?;
    Ok(exchanged["data"]["access_token"]
        .as_str()
        .context("access_token")?
        .to_owned())
}

/// A read and the baseline that serves its bytes; stores those bytes in the server.
async fn read_plan(
    addr: SocketAddr,
    name: &str,
    call: Call,
    per_round: usize,
    targets: (Option<f64>, Option<f64>),
) -> anyhow::Result<Plan> {
    let (status, bytes) = load::once(addr, &call).await?;
    if status != StatusCode::OK {
        bail!(
            "{} answered {status}: {}",
            call.path,
            String::from_utf8_lossy(&bytes)
        );
    }
    let mut put = Call::get("/bench/baseline").header("content-type", "application/json");
    put.method = Method::PUT;
    put.body = Bytes::from(bytes.to_vec());
    let (status, _) = load::once(addr, &put).await?;
    if status != StatusCode::NO_CONTENT {
        bail!("the baseline is not mounted (answered {status}); is BOXOFFICE_BENCH_BASELINE=1 honoured?");
    }
    Ok(Plan {
        name: name.to_owned(),
        call,
        baseline: Call::get("/bench/baseline"),
        expect: StatusCode::OK,
        connections: 16,
        per_round,
        target_p99_ms: targets.0,
        target_share: targets.1,
        target_rps: None,
    })
}

/// What the frame reads on its screens, with a bearer: the calendar, a day's timeslots, the
/// merchants page and a merchant (issue 29: at least `share` of the limit, p99 under 5 ms).
fn frame_reads(seeded: &Seeded, bearer: &str, share: f64) -> Vec<Read> {
    let with_bearer = |call: Call| call.header("authorization", bearer.to_owned());
    let targets = (Some(5.0), Some(share));
    let visit = chrono::Utc::now().date_naive() + chrono::Days::new(7);
    vec![
        (
            "calendar (61 days)",
            with_bearer(Call::get(format!(
                "/v2/products/{}/calendar",
                seeded.calendar_product
            ))),
            20_000,
            targets,
        ),
        (
            "timeslots of a day",
            with_bearer(Call::post_json(
                "/v2/fulfillment/timeslots",
                &json!({ "product_id": seeded.tour_product, "date": visit }),
            )),
            20_000,
            targets,
        ),
        (
            "merchants page",
            with_bearer(Call::get("/v2/merchants?limit=20")),
            20_000,
            targets,
        ),
        (
            "merchant",
            with_bearer(Call::get(format!("/v2/merchants/{}", seeded.list_merchant))),
            20_000,
            targets,
        ),
    ]
}

/// A scenario: its name, the call, requests per round, and its targets (p99 ms, share).
type Read = (&'static str, Call, usize, (Option<f64>, Option<f64>));

/// Measures each of `reads` on the server at `addr`, named with `suffix`.
async fn measure_reads(
    args: &Args,
    addr: SocketAddr,
    reads: Vec<Read>,
    suffix: &str,
) -> anyhow::Result<Vec<Scenario>> {
    let mut scenarios = Vec::new();
    for (name, call, per_round, targets) in reads {
        let name = format!("{name}{suffix}");
        eprintln!("catalog: measuring {name}");
        let plan = read_plan(addr, &name, call, args.scale(per_round), targets).await?;
        scenarios.push(measure(addr, &plan, args.rounds).await?);
    }
    Ok(scenarios)
}

/// Orders a customer has bought for the customer reads (issue 29, item 5).
const CUSTOMER_ORDERS: usize = 200;

/// A customer's own reads, their orders (the first page, 20) and their loyalty ledger, once
/// they have bought and paid `CUSTOMER_ORDERS` orders in the campaign.
async fn customer_reads(
    args: &Args,
    addr: SocketAddr,
    seeded: &Seeded,
) -> anyhow::Result<Vec<Scenario>> {
    let bearer = format!("Bearer {}", public_bearer(addr, seeded.campaign_id).await?);
    eprintln!("catalog: one customer buys and pays {CUSTOMER_ORDERS} orders");
    let visit = chrono::Utc::now().date_naive() + chrono::Days::new(3);
    let buy = Call::post_json(
        "/v2/checkouts/express",
        &json!({ "date": visit, "flexible_date": false,
                 "lines": [{ "product_id": seeded.calendar_product, "quantity": 1 }],
                 "email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace",
                 "return_url": crate::express::RETURN_URL }),
    )
    .header("authorization", bearer.clone())
    .fresh_key("idempotency-key");
    for _ in 0..CUSTOMER_ORDERS {
        let placed = json_of(addr, &buy, StatusCode::OK).await?;
        let payment_url = placed["data"]["payment_url"]
            .as_str()
            .context("payment_url")?;
        let path = payment_url
            .split_once("/pay/")
            .map(|(_, rest)| format!("/pay/{rest}"))
            .context("a sandbox payment URL")?;
        let mut pay = Call::get(path).header("content-type", "application/x-www-form-urlencoded");
        pay.method = Method::POST;
        pay.body = Bytes::from_static(b"action=pay");
        let (status, _) = load::once(addr, &pay).await?;
        if status != StatusCode::SEE_OTHER {
            bail!("paying an order answered {status}");
        }
    }
    measure_reads(args, addr, customer_read_calls(&bearer), "").await
}

/// The customer's two reads, with `bearer` (the customer of `public_bearer`) and their
/// targets.
fn customer_read_calls(bearer: &str) -> Vec<Read> {
    let with_bearer = |call: Call| call.header("authorization", bearer.to_owned());
    let targets = (Some(CUSTOMER_P99_MS), Some(CUSTOMER_SHARE));
    vec![
        (
            "the customer's orders (first 20 of 200)",
            with_bearer(Call::get("/v2/me/fulfillment/orders?limit=20")),
            10_000,
            targets,
        ),
        (
            "the customer's ledger (first 20 of 200)",
            with_bearer(Call::get("/v2/me/loyalty/ledger/entries?limit=20")),
            10_000,
            targets,
        ),
    ]
}

/// The customer reads' targets, set from their limit (docs/benchmarks.md, "Catalog reads").
const CUSTOMER_P99_MS: f64 = 10.0;
const CUSTOMER_SHARE: f64 = 0.25;

/// The per-node copies switched off: what every read cost before issue 29.
const CACHES_OFF: &[(&str, &str)] = &[
    ("BOXOFFICE_CATALOG_CACHE_TTL", "0"),
    ("BOXOFFICE_AUTH_REVISION_INTERVAL_MS", "0"),
];

pub async fn run(args: &Args, data_dir: &Path) -> anyhow::Result<String> {
    std::fs::create_dir_all(data_dir)?;
    eprintln!(
        "catalog: seeding {} merchants into {}",
        args.merchants,
        data_dir.display()
    );
    let seeded = {
        let url = format!("sqlite://{}", data_dir.join("boxoffice.db").display());
        let store = server::store::connect(&url, Some(2)).await?;
        seed::seed(store.as_ref(), args.merchants).await?
    };
    let campaign = seeded.campaign_id.to_string();

    eprintln!("catalog: starting the server (caches on, baseline on)");
    let cached = process::start(&args.server, data_dir, &[]).await?;
    let addr = cached.addr;
    settled(addr, seeded.campaign_id).await?;
    if args.customer_only {
        let scenarios = customer_reads(args, addr, &seeded).await?;
        return Ok(report::catalog_section(
            &process::machine(),
            seeded.merchants,
            args.rounds,
            &scenarios,
        ));
    }
    let bearer = format!("Bearer {}", public_bearer(addr, seeded.campaign_id).await?);
    let with_bearer = |call: Call| call.header("authorization", bearer.clone());
    let product_list = Call::get(format!("/v2/merchants/{}/products", seeded.list_merchant))
        .header("x-campaign-id", campaign.clone())
        .header("accept-language", "nl-NL");
    let mut reads: Vec<Read> = vec![(
        "product list (cached)",
        product_list.clone(),
        20_000,
        (Some(5.0), Some(0.5)),
    )];
    reads.extend(frame_reads(&seeded, &bearer, 0.5));
    reads.extend([
        (
            "search, one word, no limit",
            with_bearer(Call::get("/v2/merchants/search?q=molen")),
            500,
            (Some(50.0), None),
        ),
        (
            "search, 3 km around a point, no limit",
            with_bearer(Call::get(
                "/v2/merchants/search?latitude=52.370&longitude=4.895&radius_km=3",
            )),
            500,
            (Some(50.0), None),
        ),
        (
            "broadsearch, two words, no limit",
            with_bearer(Call::get("/v2/merchants/broadsearch?q=molen%20amsterdam")),
            500,
            (Some(50.0), None),
        ),
    ]);
    let mut scenarios = measure_reads(args, addr, reads, "").await?;
    let customer = customer_reads(args, addr, &seeded).await?;
    drop(cached);

    eprintln!("catalog: starting the server with the per-node copies off (before issue 29)");
    let uncached = process::start(&args.server, data_dir, CACHES_OFF).await?;
    settled(uncached.addr, seeded.campaign_id).await?;
    let bearer = format!(
        "Bearer {}",
        public_bearer(uncached.addr, seeded.campaign_id).await?
    );
    let mut before: Vec<Read> = vec![("product list", product_list, 5_000, (None, None))];
    before.extend(
        frame_reads(&seeded, &bearer, 0.5)
            .into_iter()
            .map(|(name, call, _, _)| (name, call, 5_000, (None, None))),
    );
    let before = measure_reads(args, uncached.addr, before, " (copies off: before)").await?;
    // The same customer (`public_bearer`'s), whose orders are in the same database.
    let customer_before = customer_read_calls(&bearer)
        .into_iter()
        .map(|(name, call, _, _)| (name, call, 5_000, (None, None)))
        .collect();
    let customer_before = measure_reads(
        args,
        uncached.addr,
        customer_before,
        " (copies off: before)",
    )
    .await?;
    drop(uncached);
    // Each "before" row under its "after".
    for (i, row) in before.into_iter().enumerate() {
        scenarios.insert(2 * i + 1, row);
    }
    for (after, before) in customer.into_iter().zip(customer_before) {
        scenarios.extend([after, before]);
    }

    if let Some(admin_url) = &args.postgres {
        scenarios.extend(on_postgres(args, admin_url, data_dir).await?);
    }

    Ok(report::catalog_section(
        &process::machine(),
        seeded.merchants,
        args.rounds,
        &scenarios,
    ))
}

/// The frame's reads on Postgres (issue 29: at least 30 % of the limit), over a catalog of a
/// few thousand merchants: these reads cost the same whatever the catalog's size.
async fn on_postgres(
    args: &Args,
    admin_url: &str,
    data_dir: &Path,
) -> anyhow::Result<Vec<Scenario>> {
    let backend = crate::express::Backend::Postgres {
        admin_url: admin_url.to_owned(),
        database: format!("boxoffice_bench_catalog_{}", std::process::id()),
        settings: &[],
    };
    backend.create().await?;
    let measured = async {
        let url = backend.url()?;
        let seeded = {
            let store = server::store::connect(&url, Some(2)).await?;
            seed::seed(store.as_ref(), args.merchants.min(2_000)).await?
        };
        let dir = data_dir.join("postgres");
        std::fs::create_dir_all(&dir)?;
        eprintln!("catalog: starting the server on Postgres");
        let server = process::start(&args.server, &dir, &[("DATABASE_URL", &url)]).await?;
        settled(server.addr, seeded.campaign_id).await?;
        let bearer = format!(
            "Bearer {}",
            public_bearer(server.addr, seeded.campaign_id).await?
        );
        let reads = frame_reads(&seeded, &bearer, 0.3);
        measure_reads(args, server.addr, reads, ", Postgres").await
    }
    .await;
    backend.drop_database().await?;
    measured
}
