//! The Boxoffice load benchmark: starts the release server on loopback with its baselines
//! switched on, measures each scenario beside its baseline in alternating rounds, and
//! rewrites its section of docs/benchmarks.md. Two parts, run by default one after the other:
//! `catalog` (issue 4: product list, calendar, merchants page, search over 100,000
//! merchants), `express` (issue 5: express checkout on SQLite and Postgres, and 10,000
//! buyers for 100 seats) and `open` (issue 29: the open loop, latency at fixed rates). See
//! bench/run.sh.

mod after_sale;
mod catalog;
mod crash;
mod crash_after_sale;
mod crash_gate;
mod crash_load;
mod crash_octo;
mod crash_pictures;
mod crash_settlement;
mod crash_stripe;
mod express;
mod gate;
mod load;
mod measure;
mod open_loop;
mod process;
mod report;
mod seed;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

pub struct Args {
    pub server: PathBuf,
    pub merchants: usize,
    pub rounds: usize,
    pub out: PathBuf,
    /// Fewer requests per round, for trying the harness out.
    pub quick: bool,
    pub catalog: bool,
    pub express: bool,
    /// The open-loop part (`--only open`), in the default run too.
    pub open: bool,
    /// Only the customer's own reads of the catalog part (`--only customer`), over a catalog
    /// of `--merchants` merchants, written to a section of their own.
    pub customer_only: bool,
    /// A database on the Postgres server to connect to while creating the benchmark's own
    /// database; `None` measures the express checkout on SQLite only.
    pub postgres: Option<String>,
    /// Whether the express checkout is measured on SQLite too (`--no-sqlite`: Postgres only,
    /// for comparing two builds on it).
    pub sqlite: bool,
    /// Concurrent connections of the contention run.
    pub buyers_at_once: usize,
    /// The crash run (`--only crash`): never part of the default run.
    pub crash: bool,
    /// Cancellations and date changes (`--only after-sale`), in the default run beside the
    /// express checkout.
    pub after_sale: bool,
    /// Redemptions at the gate (`--only gate`), in the default run after the after-sale part.
    pub gate: bool,
    /// Where the express part keeps SQLite's file on disk (`--disk-dir`; by default a folder
    /// of its own under ./target, which is on the disk the project is on).
    pub disk_dir: PathBuf,
}

impl Args {
    /// `n` requests, or a tenth of them (at least 50) with `--quick`.
    pub fn scale(&self, n: usize) -> usize {
        if self.quick {
            (n / 10).max(50)
        } else {
            n
        }
    }
}

const USAGE: &str =
    "use --server PATH, --out PATH, --rounds N, --quick, --only catalog|customer|express|open|crash|after-sale|gate, \
     --merchants N, --postgres URL, --no-postgres, --no-sqlite, --buyers-at-once N, \
     --disk-dir PATH";

fn args() -> anyhow::Result<Args> {
    let mut args = Args {
        server: PathBuf::from("target/release/server"),
        merchants: 100_000,
        rounds: 5,
        out: PathBuf::from("docs/benchmarks.md"),
        quick: false,
        catalog: true,
        express: true,
        open: true,
        customer_only: false,
        postgres: Some(
            std::env::var("BENCH_POSTGRES_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned()),
        ),
        buyers_at_once: 100,
        sqlite: true,
        crash: false,
        after_sale: true,
        gate: true,
        disk_dir: PathBuf::from("target"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().context("a value after the flag");
        match arg.as_str() {
            "--server" => args.server = value()?.into(),
            "--merchants" => args.merchants = value()?.parse()?,
            "--rounds" => args.rounds = value()?.parse()?,
            "--out" => args.out = value()?.into(),
            "--quick" => args.quick = true,
            "--only" => {
                let part = value()?;
                (
                    args.catalog,
                    args.express,
                    args.open,
                    args.after_sale,
                    args.gate,
                ) = (false, false, false, false, false);
                match part.as_str() {
                    "catalog" => args.catalog = true,
                    "customer" => (args.catalog, args.customer_only) = (true, true),
                    "express" => args.express = true,
                    "open" => args.open = true,
                    "crash" => args.crash = true,
                    "after-sale" => args.after_sale = true,
                    "gate" => args.gate = true,
                    other => bail!("unknown part {other}; {USAGE}"),
                }
            }
            "--postgres" => args.postgres = Some(value()?),
            "--no-postgres" => args.postgres = None,
            "--no-sqlite" => args.sqlite = false,
            "--buyers-at-once" => args.buyers_at_once = value()?.parse()?,
            "--disk-dir" => args.disk_dir = value()?.into(),
            other => bail!("unknown argument {other}; {USAGE}"),
        }
    }
    if args.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    if args.express && !args.sqlite && args.postgres.is_none() {
        bail!("--no-sqlite and --no-postgres leave the express checkout nothing to run on");
    }
    Ok(args)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut args = args()?;
    args.server = std::fs::canonicalize(&args.server)
        .with_context(|| format!("the server binary {}", args.server.display()))?;
    // tmpfs when there is one: the benchmark measures the server, not the disk.
    let scratch = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let data_dir = scratch.join(format!("boxoffice-bench-{}", std::process::id()));
    std::fs::create_dir_all(&data_dir)?;
    std::fs::create_dir_all(&args.disk_dir)?;
    args.disk_dir = std::fs::canonicalize(&args.disk_dir)?
        .join(format!("boxoffice-bench-disk-{}", std::process::id()));
    std::fs::create_dir_all(&args.disk_dir)?;
    let result = run(&args, &data_dir).await;
    let _ = std::fs::remove_dir_all(&data_dir);
    let _ = std::fs::remove_dir_all(&args.disk_dir);
    result
}

async fn run(args: &Args, data_dir: &Path) -> anyhow::Result<()> {
    let mut page = std::fs::read_to_string(&args.out).unwrap_or_default();
    if args.catalog {
        let section = catalog::run(args, &data_dir.join("catalog")).await?;
        // The customer's reads alone have a section of their own, so they never replace the
        // whole catalog's table.
        let name = if args.customer_only {
            "customer"
        } else {
            "catalog"
        };
        page = report::splice(&page, name, &section);
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    if args.express {
        let section = express::run(args, &data_dir.join("express")).await?;
        page = report::splice(&page, "express", &section);
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    if args.after_sale {
        let section = after_sale::run(args).await?;
        page = report::splice(&page, "after-sale", &section);
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    if args.gate {
        let section = gate::run(args).await?;
        page = report::splice(&page, "gate", &section);
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    if args.open {
        let section = open_loop::run(args, &data_dir.join("open")).await?;
        page = report::splice(&page, "open", &section);
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    if args.crash {
        let runs = crash::run(args, &data_dir.join("crash")).await?;
        page = report::splice(&page, "crash", &crash::section(&process::machine(), &runs));
        std::fs::write(&args.out, &page)
            .with_context(|| format!("writing {}", args.out.display()))?;
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
