//! Part `express` (issue 5): the express checkout on SQLite and on Postgres beside a bare
//! transaction doing the same writes (`/bench/baseline/express`), then the contention run:
//! many buyers racing for a few seats, with the database read afterwards.

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::{bail, Context};
use chrono::{Days, NaiveDate, Utc};
use hyper::{Method, StatusCode};
use serde_json::json;
use server::time::local_date;
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    load::{self, Call},
    measure::{measure, Plan},
    process::{self, json_of, ServerProcess},
    report::{self, Contention, ContentionRound, Flushes, Scenario},
    seed::{self, Shop},
    Args,
};

/// The contention run's seats and buyers (issue 5: 10,000 buyers for 100 seats).
const SEATS: i32 = 100;
const BUYERS: usize = 10_000;
pub(crate) const RETURN_URL: &str = "http://localhost:5173/done?basket=7";

/// Where a run keeps its data.
pub(crate) enum Backend {
    /// The database file, and the kind of file system that holds it (`stat -f`: "tmpfs",
    /// "ext2/ext3", …).
    Sqlite { file: PathBuf, storage: String },
    /// The server to create the run's database on, that database's name, and the settings
    /// the database is given (`ALTER DATABASE … SET`).
    Postgres {
        admin_url: String,
        database: String,
        settings: &'static [(&'static str, &'static str)],
    },
}

impl Backend {
    /// What the report calls it: the database, where SQLite's file is, and the settings.
    pub(crate) fn name(&self) -> String {
        match self {
            Backend::Sqlite { storage, .. } if storage == "tmpfs" => "SQLite, tmpfs".to_owned(),
            Backend::Sqlite { storage, .. } => format!("SQLite, disk ({storage})"),
            Backend::Postgres { settings: [], .. } => "Postgres".to_owned(),
            Backend::Postgres { settings, .. } => {
                let set: Vec<String> = settings.iter().map(|(k, v)| format!("{k} {v}")).collect();
                format!("Postgres, {}", set.join(", "))
            }
        }
    }

    /// A folder name for its server's files.
    pub(crate) fn slug(&self) -> String {
        let name = self.name().to_lowercase();
        name.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    }

    pub(crate) fn url(&self) -> anyhow::Result<String> {
        Ok(match self {
            Backend::Sqlite { file, .. } => format!("sqlite://{}", file.display()),
            Backend::Postgres {
                admin_url,
                database,
                ..
            } => {
                let (server, _) = admin_url
                    .split_once('?')
                    .map_or(admin_url.as_str(), |(u, _)| u)
                    .rsplit_once('/')
                    .context("--postgres takes a URL such as postgres://user@host:5432/postgres")?;
                format!("{server}/{database}")
            }
        })
    }

    pub(crate) async fn create(&self) -> anyhow::Result<()> {
        if let Backend::Postgres {
            admin_url,
            database,
            settings,
        } = self
        {
            let mut admin = sqlx::PgConnection::connect(admin_url)
                .await
                .with_context(|| format!("connecting to {admin_url} (or pass --no-postgres)"))?;
            sqlx::query(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
                .execute(&mut admin)
                .await?;
            sqlx::query(&format!("CREATE DATABASE {database}"))
                .execute(&mut admin)
                .await?;
            for (setting, value) in *settings {
                sqlx::query(&format!(
                    "ALTER DATABASE {database} SET {setting} = {value}"
                ))
                .execute(&mut admin)
                .await?;
            }
        }
        Ok(())
    }

    pub(crate) async fn drop_database(&self) -> anyhow::Result<()> {
        if let Backend::Postgres {
            admin_url,
            database,
            ..
        } = self
        {
            let mut admin = sqlx::PgConnection::connect(admin_url).await?;
            sqlx::query(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
                .execute(&mut admin)
                .await?;
        }
        Ok(())
    }
}

/// The kind of file system `dir` is on, as `stat -f` names it ("tmpfs", "ext2/ext3", …).
pub(crate) fn file_system(dir: &Path) -> anyhow::Result<String> {
    let out = std::process::Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(dir)
        .output()
        .context("stat -f")?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The backends `args` asks for: SQLite under `data_dir`, and a fresh database on the Postgres
/// server unless `--no-postgres`.
pub(crate) fn backends(args: &Args, data_dir: &Path) -> anyhow::Result<Vec<Backend>> {
    let mut backends = Vec::new();
    if args.sqlite {
        backends.push(sqlite_in(data_dir)?);
    }
    backends.extend(postgres(args, &[]));
    Ok(backends)
}

/// SQLite with its file in `dir`.
fn sqlite_in(dir: &Path) -> anyhow::Result<Backend> {
    let folder = dir.join("sqlite");
    std::fs::create_dir_all(&folder)?;
    Ok(Backend::Sqlite {
        storage: file_system(&folder)?,
        file: folder.join("express.db"),
    })
}

/// A fresh database with `settings` on the Postgres server, unless `--no-postgres`.
fn postgres(args: &Args, settings: &'static [(&'static str, &'static str)]) -> Option<Backend> {
    let Some(admin_url) = &args.postgres else {
        eprintln!("--no-postgres: SQLite only");
        return None;
    };
    Some(Backend::Postgres {
        admin_url: admin_url.clone(),
        database: format!("boxoffice_bench_{}", std::process::id()),
        settings,
    })
}

/// Postgres's own group commit made to wait for more commits to share a flush: 200 µs, about
/// what this machine's fsync takes, when at least two other transactions are open.
const COMMIT_DELAY: &[(&str, &str)] = &[("commit_delay", "200"), ("commit_siblings", "2")];

/// The express part's backends: SQLite on disk (`--disk-dir`) and in tmpfs (`data_dir`), then
/// Postgres as configured and with `COMMIT_DELAY`.
fn express_backends(args: &Args, data_dir: &Path) -> anyhow::Result<Vec<Backend>> {
    let mut backends = Vec::new();
    if args.sqlite {
        backends.push(sqlite_in(&args.disk_dir)?);
        backends.push(sqlite_in(data_dir)?);
    }
    backends.extend(postgres(args, &[]));
    backends.extend(postgres(args, COMMIT_DELAY));
    Ok(backends)
}

pub async fn run(args: &Args, data_dir: &Path) -> anyhow::Result<String> {
    let backends = express_backends(args, data_dir)?;
    let (mut scenarios, mut flushes, mut contention) = (Vec::new(), Vec::new(), Vec::new());
    for backend in &backends {
        // The server's own files beside its database, on the same kind of storage.
        let dir = match backend {
            Backend::Sqlite { file, .. } => file.parent().unwrap().join("server"),
            Backend::Postgres { .. } => data_dir.join(backend.slug()),
        };
        std::fs::create_dir_all(&dir)?;
        backend.create().await?;
        let measured = on_backend(args, backend, &dir).await;
        backend.drop_database().await?;
        let (scenario, flushed, raced) = measured?;
        scenarios.push(scenario);
        flushes.push(flushed);
        contention.extend(raced);
    }
    Ok(report::express_section(
        &process::machine(),
        args.rounds,
        &scenarios,
        &flushes,
        &contention,
    ))
}

async fn on_backend(
    args: &Args,
    backend: &Backend,
    dir: &Path,
) -> anyhow::Result<(Scenario, Flushes, Option<Contention>)> {
    let url = backend.url()?;
    let store = server::store::connect(&url, Some(2)).await?;
    let shop = seed::shop(store.as_ref(), SEATS).await?;
    eprintln!("express: starting the server on {}", backend.name());
    let server = process::start(&args.server, dir, &[("DATABASE_URL", &url)]).await?;
    let today = local_date(shop.merchant_zone, Utc::now());

    let visit = today + Days::new(7);
    let mut put = Call::post_json(
        "/bench/baseline/express",
        &json!({ "campaign_id": shop.campaign_id, "product_id": shop.ticket,
                 "visit_date": visit, "quantity": 1, "return_url": RETURN_URL }),
    );
    put.method = Method::PUT;
    json_of(server.addr, &put, StatusCode::NO_CONTENT).await?;
    let plan = Plan {
        name: format!("express checkout, {}", backend.name()),
        call: express_call(&shop, shop.ticket, visit),
        baseline: Call::post_json("/bench/baseline/express", &json!({}))
            .fresh_key("idempotency-key"),
        expect: StatusCode::OK,
        connections: 8,
        per_round: args.scale(4_000),
        target_p99_ms: Some(25.0),
        target_share: Some(0.5),
        target_rps: matches!(backend, Backend::Sqlite { storage, .. } if storage != "tmpfs")
            .then_some(2_500.0),
    };
    eprintln!("express: measuring {}", plan.name);
    let scenario = measure(server.addr, &plan, args.rounds).await?;
    let flushed = flushes(&server, backend, &plan).await?;
    eprintln!(
        "  {}: {:.1} checkouts per flush to disk",
        plan.name, flushed.per_flush
    );
    // The contention run once per database: on SQLite's disk and on Postgres as configured.
    let contend_here = match backend {
        Backend::Sqlite { storage, .. } => storage != "tmpfs",
        Backend::Postgres { settings, .. } => settings.is_empty(),
    };
    if !contend_here {
        return Ok((scenario, flushed, None));
    }

    let mut raced = Contention {
        backend: backend.name(),
        buyers: BUYERS,
        at_once: args.buyers_at_once,
        seats: SEATS as usize,
        rounds: Vec::new(),
    };
    for n in 0..args.rounds.min(3) {
        // A day of its own per round, so each starts with every seat free.
        let day = today + Days::new(10 + n as u64);
        let round = contend(&server, &shop, day, args.buyers_at_once, &url).await?;
        eprintln!(
            "  contention on {} round {}: {} sold, {} sold out, {} other in {:.2} s; {} orders, {} reserved",
            backend.name(),
            n + 1,
            round.sold,
            round.sold_out,
            round.other,
            round.elapsed.as_secs_f64(),
            round.orders_stored,
            round.reserved
        );
        raced.rounds.push(round);
    }
    drop(server);
    Ok((scenario, flushed, Some(raced)))
}

/// How many express checkouts shared each flush to disk, over one more round of the real
/// endpoint: on SQLite its group commits (the server's `store_group_commit_members`
/// histogram counts one per commit), on Postgres the WAL's fsyncs (`pg_stat_wal.wal_sync`,
/// the whole server's: nothing else runs during the benchmark).
async fn flushes(
    server: &ServerProcess,
    backend: &Backend,
    plan: &Plan,
) -> anyhow::Result<Flushes> {
    let before = flush_count(server, backend).await?;
    let measured = load::run(
        server.addr,
        &plan.call,
        plan.connections,
        plan.per_round,
        plan.expect,
    )
    .await?;
    let flushed = flush_count(server, backend).await? - before;
    Ok(Flushes {
        name: plan.name.clone(),
        checkouts: measured.requests,
        flushes: flushed,
        per_flush: measured.requests as f64 / flushed.max(1.0),
    })
}

async fn flush_count(server: &ServerProcess, backend: &Backend) -> anyhow::Result<f64> {
    match backend {
        Backend::Sqlite { .. } => {
            let (_, body) = load::once(server.addr, &Call::get("/metrics")).await?;
            let text = String::from_utf8_lossy(&body);
            Ok(text
                .lines()
                .find_map(|l| l.strip_prefix("store_group_commit_members_count "))
                .map_or(Ok(0.0), str::parse)?)
        }
        Backend::Postgres { admin_url, .. } => {
            let mut admin = sqlx::PgConnection::connect(admin_url).await?;
            let syncs: i64 = sqlx::query_scalar("SELECT wal_sync FROM pg_stat_wal")
                .fetch_one(&mut admin)
                .await?;
            Ok(syncs as f64)
        }
    }
}

/// An express checkout of one ticket of `product` on `day`, as a guest.
pub(crate) fn express_call(shop: &Shop, product: Uuid, day: NaiveDate) -> Call {
    Call::post_json(
        "/v2/checkouts/express",
        &json!({
            "date": day,
            "flexible_date": false,
            "lines": [{ "product_id": product, "quantity": 1 }],
            "email": "ada@example.com",
            "first_name": "Ada",
            "last_name": "Lovelace",
            "return_url": RETURN_URL,
        }),
    )
    .header("x-campaign-id", shop.campaign_id.to_string())
    .fresh_key("idempotency-key")
}

/// `BUYERS` buyers, `at_once` at a time, for the evening's `SEATS` seats on `day`.
async fn contend(
    server: &ServerProcess,
    shop: &Shop,
    day: NaiveDate,
    at_once: usize,
    url: &str,
) -> anyhow::Result<ContentionRound> {
    let call = express_call(shop, shop.evening, day);
    let started = Instant::now();
    let measured = load::run(server.addr, &call, at_once, BUYERS, StatusCode::OK).await?;
    let elapsed = started.elapsed();
    let count = |status: u16| measured.statuses.get(&status).copied().unwrap_or(0);
    let (sold, unprocessable) = (count(200), count(422));

    // Every 422 of the run had the same cause if one more buyer now gets that cause.
    let (status, body) = load::once(server.addr, &call).await?;
    let problem: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let kind = problem["type"].as_str().unwrap_or_default();
    if status != StatusCode::UNPROCESSABLE_ENTITY
        || !kind.ends_with("checkout-product-not-fulfillable")
    {
        bail!("after the run a buyer got {status} {kind}, not checkout-product-not-fulfillable");
    }

    let reserved = reserved_on_day(url, shop.evening_group, day).await?;
    Ok(ContentionRound {
        elapsed,
        sold,
        sold_out: unprocessable,
        other: measured.requests - sold - unprocessable,
        orders_stored: orders_on_day(url, shop.evening_group, day).await?,
        reserved,
    })
}

/// Places taken on `group`'s `day`, read in the database itself (0 when the day has no row).
async fn reserved_on_day(url: &str, group: Uuid, day: NaiveDate) -> anyhow::Result<i64> {
    const SQL: &str = "SELECT CAST(reserved AS BIGINT) FROM availability_day \
        WHERE availability_group_id = $1 AND day = $2";
    Ok(number_of_day(url, SQL, group, day).await?.unwrap_or(0))
}

/// Orders whose checkout books `group` on `day`, counted in the database itself.
async fn orders_on_day(url: &str, group: Uuid, day: NaiveDate) -> anyhow::Result<i64> {
    const SQL: &str = "SELECT COUNT(DISTINCT o.customer_order_id) FROM customer_order o \
        JOIN checkout_line l ON l.checkout_id = o.checkout_id \
        WHERE l.availability_group_id = $1 AND l.visit_date = $2";
    Ok(number_of_day(url, SQL, group, day).await?.unwrap_or(0))
}

/// The one number `sql` selects for (`$1` = group, `$2` = day), on either database.
async fn number_of_day(
    url: &str,
    sql: &str,
    group: Uuid,
    day: NaiveDate,
) -> anyhow::Result<Option<i64>> {
    Ok(if url.starts_with("sqlite:") {
        let mut db = sqlx::SqliteConnection::connect(url).await?;
        sqlx::query_scalar(sql)
            .bind(group)
            .bind(day)
            .fetch_optional(&mut db)
            .await?
    } else {
        let mut db = sqlx::PgConnection::connect(url).await?;
        sqlx::query_scalar(sql)
            .bind(group)
            .bind(day)
            .fetch_optional(&mut db)
            .await?
    })
}
