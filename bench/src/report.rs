//! Medians over rounds, and the sections of docs/benchmarks.md.

use std::{fmt::Write, time::Duration};

use crate::load::Measured;

/// One benchmarked call and its baseline, measured in alternating rounds.
pub struct Scenario {
    pub name: String,
    pub call: String,
    pub connections: usize,
    pub per_round: usize,
    pub rounds: Vec<(Measured, Measured)>,
    /// The p99 the scenario must stay under, in ms, and the share of the baseline's
    /// throughput it must reach.
    pub target_p99_ms: Option<f64>,
    pub target_share: Option<f64>,
    /// The throughput it must reach, in requests a second.
    pub target_rps: Option<f64>,
}

/// How many checkouts shared each flush to disk in one round of a scenario.
pub struct Flushes {
    pub name: String,
    pub checkouts: usize,
    pub flushes: f64,
    pub per_flush: f64,
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

pub struct Summary {
    pub rps: f64,
    pub p50: f64,
    pub p99: f64,
    pub base_rps: f64,
    pub base_p50: f64,
    pub base_p99: f64,
    pub bytes: usize,
}

impl Scenario {
    pub fn summary(&self) -> Summary {
        let real =
            |f: fn(&Measured) -> f64| median(self.rounds.iter().map(|(r, _)| f(r)).collect());
        let base =
            |f: fn(&Measured) -> f64| median(self.rounds.iter().map(|(_, b)| f(b)).collect());
        let first = &self.rounds[0].0;
        Summary {
            rps: real(Measured::per_second),
            p50: real(|m| m.quantile_ms(0.5)),
            p99: real(|m| m.quantile_ms(0.99)),
            base_rps: base(Measured::per_second),
            base_p50: base(|m| m.quantile_ms(0.5)),
            base_p99: base(|m| m.quantile_ms(0.99)),
            bytes: first.body_bytes / first.requests.max(1),
        }
    }

    /// Whether the targets hold, as a table cell.
    pub fn verdict(&self) -> String {
        let s = self.summary();
        let mut parts = Vec::new();
        if let Some(share) = self.target_share {
            parts.push(format!(
                "≥ {:.0} % of limit: {}",
                share * 100.0,
                met(s.rps >= share * s.base_rps)
            ));
        }
        if let Some(rps) = self.target_rps {
            parts.push(format!("≥ {rps:.0} req/s: {}", met(s.rps >= rps)));
        }
        if let Some(p99) = self.target_p99_ms {
            parts.push(format!("p99 < {p99} ms: {}", met(s.p99 < p99)));
        }
        if parts.is_empty() {
            "(no target)".to_owned()
        } else {
            parts.join("; ")
        }
    }
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub memory: String,
    pub kernel: String,
    pub rustc: String,
    pub date: String,
}

pub(crate) fn machine_table(out: &mut String, machine: &Machine) {
    let _ = writeln!(out, "| machine | |\n|---|---|");
    let _ = writeln!(out, "| CPU | {} |", machine.cpu);
    let _ = writeln!(out, "| cores | {} |", machine.cores);
    let _ = writeln!(out, "| memory | {} |", machine.memory);
    let _ = writeln!(out, "| kernel | {} |", machine.kernel);
    let _ = writeln!(out, "| rustc | {} |", machine.rustc);
    let _ = writeln!(out, "| measured | {} |\n", machine.date);
    let _ = writeln!(
        out,
        "The server (release build, `BOXOFFICE_LOG=warn`, SQLite files in tmpfs) and the load generator\n\
         share these cores, so every figure includes the generator's own cost; the baseline\n\
         carries the same cost, which is why the comparison is made against it.\n"
    );
}

fn results_table(out: &mut String, scenarios: &[Scenario]) {
    let _ = writeln!(
        out,
        "| scenario | request | conn. | requests × rounds | body | req/s | p50 ms | p99 ms | limit req/s | limit p50 / p99 ms | share of limit | targets |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for s in scenarios {
        let m = s.summary();
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} × {} | {} | {:.0} | {:.2} | {:.2} | {:.0} | {:.2} / {:.2} | {:.0} % | {} |",
            s.name,
            s.call,
            s.connections,
            s.per_round,
            s.rounds.len(),
            human_bytes(m.bytes),
            m.rps,
            m.p50,
            m.p99,
            m.base_rps,
            m.base_p50,
            m.base_p99,
            100.0 * m.rps / m.base_rps,
            s.verdict()
        );
    }
    let _ = writeln!(
        out,
        "\nEvery answer's status was checked: a run with one unexpected status fails instead of \
         reporting.\n"
    );
}

/// The lowest and highest p99 of the rounds, of the endpoint and of its limit.
fn spread(out: &mut String, scenarios: &[Scenario]) {
    let range = |values: Vec<f64>| {
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{low:.1}–{high:.1}")
    };
    let _ = writeln!(
        out,
        "| scenario | p99 ms of the rounds | limit p99 ms of the rounds |\n|---|---|---|"
    );
    for s in scenarios {
        let real = s.rounds.iter().map(|(r, _)| r.quantile_ms(0.99)).collect();
        let limit = s.rounds.iter().map(|(_, b)| b.quantile_ms(0.99)).collect();
        let _ = writeln!(out, "| {} | {} | {} |", s.name, range(real), range(limit));
    }
    out.push('\n');
}

fn notes(out: &mut String, notes: &[&str]) {
    let _ = writeln!(out, "Notes:\n");
    for note in notes {
        let _ = writeln!(out, "- {note}");
    }
    out.push('\n');
}

/// The catalog part (issue 4).
pub fn catalog_section(
    machine: &Machine,
    merchants: usize,
    rounds: usize,
    scenarios: &[Scenario],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Catalog reads\n\n\
         `bench/run.sh --only catalog`. Medians over {rounds} rounds. Each round measures the real\n\
         endpoint and, right beside it, `/bench/baseline`: an axum handler behind the same\n\
         middleware that answers with the very bytes the real endpoint returned, held in memory.\n\
         The baseline is the most this server can do on this machine for a response of that\n\
         size, so the real endpoint is reported as a share of it (the limit).\n"
    );
    machine_table(&mut out, machine);
    let _ = writeln!(
        out,
        "Data: {merchants} merchants, each with a product in the benchmark campaign (so every one\n\
         is in the campaign and searchable), named from Dutch word lists with diacritics (`Café`,\n\
         `Liège`, `Köln`), scattered around 24 cities; a quarter have an English name too. One of\n\
         them, the product-list merchant, has eight products: two sharing a gate's capacity, a\n\
         discounted family ticket, a timeslotted tour (7 slots a day), a small-capacity evening,\n\
         a voucher, a physical guide book and an annual pass, with 90 days of calendar. Embedded\n\
         SQLite, except the rows marked Postgres.\n"
    );
    results_table(&mut out, scenarios);
    notes(
        &mut out,
        &[
            "The product list is served from a per-node cache keyed by (merchant, campaign, \
             locale); an entry is dropped at any catalog or capacity change made through the node \
             (a generation counter) and lives at most `BOXOFFICE_CATALOG_CACHE_TTL` (5 s) for \
             changes made through other nodes. Per request only the envelope around the cached \
             bytes is written. Its \"copies off\" row is the same build with \
             `BOXOFFICE_CATALOG_CACHE_TTL=0`: four queries and a serialisation per request.",
            "Search answers from an in-memory index per node (an inverted index of folded words \
             with their merchants, rebuilt after a catalog change), not from SQL, and writes \
             each matching merchant from JSON rendered once per language and index; the \
             response size dominates an unlimited search. The one-word query matches about 3 % \
             of the merchants; the radius search skips merchants by latitude before computing \
             distances.",
            "The frame's reads (calendar, timeslots, merchants page, merchant) spend no query \
             when the node's copies vouch for them: the bearer's session and the client's \
             campaign come from the auth cache (`auth/cache.rs`; a revocation reaches every node \
             within `BOXOFFICE_AUTH_REVISION_INTERVAL_MS`, 1 s), the data from the catalog's \
             copies (`catalog/reads.rs`; the product-list rule: this node's changes at once, \
             other nodes' within `BOXOFFICE_CATALOG_CACHE_TTL`). The \"copies off\" rows are the \
             same build with both switched off (`BOXOFFICE_CATALOG_CACHE_TTL=0`, \
             `BOXOFFICE_AUTH_REVISION_INTERVAL_MS=0`): every read then spends its queries, as \
             before issue 29. The Postgres rows run on a catalog of at most 2,000 merchants.",
            "Each server is measured once it has built its search index (the harness's first \
             search waits for that build), so no round runs beside the node's start-up work.",
            "Responses are not compressed in these runs (the generator sends no Accept-Encoding).",
        ],
    );
    out
}

/// One contention run: `buyers` express checkouts racing for `seats`.
pub struct ContentionRound {
    pub elapsed: Duration,
    /// 200 answers.
    pub sold: usize,
    /// 422 `checkout-product-not-fulfillable` answers.
    pub sold_out: usize,
    /// Anything else.
    pub other: usize,
    /// Orders and reserved places found in the database afterwards.
    pub orders_stored: i64,
    pub reserved: i64,
}

pub struct Contention {
    pub backend: String,
    pub buyers: usize,
    pub at_once: usize,
    pub seats: usize,
    pub rounds: Vec<ContentionRound>,
}

impl Contention {
    fn exact(&self) -> bool {
        self.rounds.iter().all(|r| {
            r.sold == self.seats
                && r.orders_stored == self.seats as i64
                && r.reserved == self.seats as i64
                && r.sold_out == self.buyers - self.seats
                && r.other == 0
        })
    }
}

/// The express checkout part (issue 5).
pub fn express_section(
    machine: &Machine,
    rounds: usize,
    scenarios: &[Scenario],
    flushes: &[Flushes],
    contention: &[Contention],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Express checkout\n\n\
         `bench/run.sh --only express`. Medians over {rounds} rounds. Each round measures\n\
         `POST /v2/checkouts/express` (a guest buying one ticket for a fixed day, a new\n\
         Idempotency-Key per request) and, right beside it, `POST /bench/baseline/express`: the\n\
         same writes in the same order through the same store, committed the same way (on SQLite\n\
         in the writer's group commit), with none of the reads, checks, pricing or provider calls:\n\
         claim the key; write the checkout, confirmed, and its line; write the order and payment;\n\
         store the response under the key; write `CheckoutStarted` and\n\
         `CheckoutFulfillmentRegistered` with their deliveries; take the capacity with the commit.\n\
         That is the fastest this machine can durably commit those rows, the limit the real\n\
         endpoint is reported against.\n"
    );
    machine_table(&mut out, machine);
    let _ = writeln!(
        out,
        "Every request of a run books the same product on the same day, so all of them update\n\
         one capacity row: the worst case for the database, on purpose. SQLite (WAL; every\n\
         answer waits for the WAL's flush to disk, which for the group commits runs beside the\n\
         writer) runs once with its file on disk and once in tmpfs, where a flush costs\n\
         nothing; Postgres is the machine's local server, its data on disk (a fresh\n\
         database per run, default settings, so every commit is flushed), once as configured and\n\
         once with `commit_delay`.\n"
    );
    results_table(&mut out, scenarios);
    spread(&mut out, scenarios);
    let _ = writeln!(
        out,
        "Checkouts per flush to disk, over one more round of the real endpoint: SQLite's group\n\
         commits (one flush of the WAL covers one or more of them), Postgres's WAL fsyncs\n\
         (`pg_stat_wal.wal_sync`).\n\n\
         | scenario | checkouts | flushes | checkouts per flush |\n|---|---|---|---|"
    );
    for f in flushes {
        let _ = writeln!(
            out,
            "| {} | {} | {:.0} | {:.1} |",
            f.name, f.checkouts, f.flushes, f.per_flush
        );
    }
    out.push('\n');
    notes(
        &mut out,
        &[
            "At a fixed number of clients, latency is clients ÷ throughput (Little's law): at 8 \
             clients, 2,500 checkouts a second is a mean of 3.2 ms each. On two cores shared by \
             the generator, the server and (for Postgres) its database backends, every \
             statement's round trip is CPU the others wait for.",
            "SQLite has one writer. Each checkout's writes are a savepoint in a transaction \
             shared with the checkouts that queued for the writer while the one before \
             committed, and every one of them is answered only once that commit is on disk; \
             the flush runs on a thread of its own while the writer goes on with the next group \
             (`store/sqlite/group_commit.rs`, `wal_flush.rs`). Postgres takes writers at once and shares the \
             flush of commits that reach its WAL together on its own; `commit_delay` makes each \
             flush wait for more.",
            "The real endpoint does everything the limit does plus the read that must be \
             current (the day's price and places) and the request's validation, pricing and \
             JSON; the campaign, product, merchant and the partner's return origins come from the \
             node's copies (docs/api-checkout.md). On SQLite the read runs on a read-only \
             connection beside the writer.",
            "Places are taken by the commit, after everything else (docs/api-checkout.md); on \
             Postgres the update of the day's capacity row and the `COMMIT` are one message, so \
             the row is locked only while the database runs them, never over a round trip; before \
             the update the message queues for the day (an advisory lock, granted in the order \
             asked), as the row lock itself goes to whichever waiter gets there first.",
            "The machines these figures come from are VMs whose hosts take CPU time from them \
             (vmstat's steal column read up to 23 % in one session): the same binary's medians \
             differed by up to a third from one run to the next, more than most single changes \
             move them. The table above gives the spread of the rounds.",
        ],
    );
    let _ = writeln!(out, "### Contention: many buyers, few seats\n");
    let _ = writeln!(
        out,
        "Every buyer sends one express checkout for one seat of the same day at once over\n\
         their own keys; the day has the seats and nothing else. Afterwards the database is\n\
         read: orders stored for that day and the day's reserved counter. Target: exactly the\n\
         seats sold, in under 3 s. A buyer refused for a sold-out day writes nothing: the plan\n\
         reads the places left and refuses before the Idempotency-Key is claimed. After each\n\
         round one more buyer is sent and must get `checkout-product-not-fulfillable`.\n"
    );
    let _ = writeln!(
        out,
        "| backend | buyers | at once | seats | rounds | 200 (sold) | 422 not fulfillable | other | orders stored | reserved | elapsed s (median, max) | targets |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for c in contention {
        let per_round = |f: fn(&ContentionRound) -> String| {
            let mut values: Vec<String> = c.rounds.iter().map(f).collect();
            values.dedup();
            values.join(" / ")
        };
        let elapsed: Vec<f64> = c.rounds.iter().map(|r| r.elapsed.as_secs_f64()).collect();
        let max = elapsed.iter().copied().fold(0.0, f64::max);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}, {:.2} | exactly {} sold: {}; < 3 s: {} |",
            c.backend,
            c.buyers,
            c.at_once,
            c.seats,
            c.rounds.len(),
            per_round(|r| r.sold.to_string()),
            per_round(|r| r.sold_out.to_string()),
            per_round(|r| r.other.to_string()),
            per_round(|r| r.orders_stored.to_string()),
            per_round(|r| r.reserved.to_string()),
            median(elapsed.clone()),
            max,
            c.seats,
            met(c.exact()),
            met(max < 3.0),
        );
    }
    out.push('\n');
    out
}

const TITLE: &str = "# Benchmarks\n\n\
    Written by `bench/run.sh` (the `bench` crate): it builds the release server, starts it on\n\
    loopback with `BOXOFFICE_BENCH_BASELINE=1` (which mounts the baselines under `/bench/`), and\n\
    drives it with its own closed-loop HTTP/1.1 generator. Each part rewrites only its own\n\
    section of this page; rerun a part with `bench/run.sh --only catalog`, `--only express` or `--only open`.\n";

/// `page` with the section named `name` replaced by `section` (or added at the end).
pub fn splice(page: &str, name: &str, section: &str) -> String {
    let begin = format!("<!-- bench:{name} -->");
    let end = format!("<!-- /bench:{name} -->");
    let block = format!("{begin}\n{section}{end}\n");
    let mut page = if page.trim().is_empty() {
        format!("{TITLE}\n")
    } else {
        page.to_owned()
    };
    match (page.find(&begin), page.find(&end)) {
        (Some(from), Some(to)) if to > from => {
            let to = to + end.len();
            let to = if page[to..].starts_with('\n') {
                to + 1
            } else {
                to
            };
            page.replace_range(from..to, &block);
        }
        _ => {
            if !page.ends_with("\n\n") {
                page.push('\n');
            }
            page.push_str(&block);
        }
    }
    page
}

fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    } else if n >= 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::splice;

    #[test]
    fn splice_replaces_only_its_own_section() {
        let page = splice("", "catalog", "catalog one\n");
        let page = splice(&page, "express", "express one\n");
        let page = splice(&page, "catalog", "catalog two\n");
        assert!(page.starts_with("# Benchmarks"));
        assert!(page.contains("catalog two\n") && !page.contains("catalog one"));
        assert!(page.contains("express one\n"));
        assert!(page.find("catalog two") < page.find("express one"));
        assert_eq!(page.matches("<!-- bench:catalog -->").count(), 1);
    }
}
