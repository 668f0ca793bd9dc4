//! Part `catalog` (issue 4): the product list, calendar, merchants page and searches over a
//! generated catalog, each beside `/bench/baseline` answering with the very bytes the real
//! endpoint returned, from memory.

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
    seed, Args,
};

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
    })
}

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

    eprintln!("catalog: starting the server (cache on, baseline on)");
    let cached = process::start(&args.server, data_dir, &[]).await?;
    let addr = cached.addr;
    let bearer = format!("Bearer {}", public_bearer(addr, seeded.campaign_id).await?);
    let with_bearer = |call: Call| call.header("authorization", bearer.clone());
    let product_list = Call::get(format!("/v2/merchants/{}/products", seeded.list_merchant))
        .header("x-campaign-id", campaign.clone())
        .header("accept-language", "nl-NL");
    let reads = [
        (
            "product list (cached)",
            product_list.clone(),
            20_000,
            (Some(5.0), Some(0.5)),
        ),
        (
            "calendar (61 days)",
            with_bearer(Call::get(format!(
                "/v2/products/{}/calendar",
                seeded.calendar_product
            ))),
            5_000,
            (None, None),
        ),
        (
            "merchants page",
            with_bearer(Call::get("/v2/merchants?limit=20")),
            5_000,
            (None, None),
        ),
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
    ];
    let mut scenarios: Vec<Scenario> = Vec::new();
    for (name, call, per_round, targets) in reads {
        eprintln!("catalog: measuring {name}");
        let plan = read_plan(addr, name, call, args.scale(per_round), targets).await?;
        scenarios.push(measure(addr, &plan, args.rounds).await?);
    }
    drop(cached);

    eprintln!(
        "catalog: starting the server with the product list cache off (before the optimisation)"
    );
    let uncached = process::start(
        &args.server,
        data_dir,
        &[("BOXOFFICE_CATALOG_CACHE_TTL", "0")],
    )
    .await?;
    let name = "product list (cache off: before)";
    eprintln!("catalog: measuring {name}");
    let plan = read_plan(
        uncached.addr,
        name,
        product_list,
        args.scale(5_000),
        (None, None),
    )
    .await?;
    scenarios.insert(1, measure(uncached.addr, &plan, args.rounds).await?);
    drop(uncached);

    Ok(report::catalog_section(
        &process::machine(),
        seeded.merchants,
        args.rounds,
        &scenarios,
    ))
}
