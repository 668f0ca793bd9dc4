//! Medians over rounds, and docs/benchmarks.md.

use std::fmt::Write;

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
}

fn median(mut values: Vec<f64>) -> f64 {
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
    pub failures: usize,
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
            failures: self
                .rounds
                .iter()
                .map(|(r, b)| r.failures + b.failures)
                .sum(),
        }
    }

    /// Whether the targets hold, as a table cell.
    pub fn verdict(&self) -> String {
        let s = self.summary();
        let mut parts = Vec::new();
        if let Some(share) = self.target_share {
            let ok = s.rps >= share * s.base_rps;
            parts.push(format!(
                "≥ {:.0} % of limit: {}",
                share * 100.0,
                if ok { "met" } else { "NOT met" }
            ));
        }
        if let Some(p99) = self.target_p99_ms {
            let ok = s.p99 < p99;
            parts.push(format!(
                "p99 < {p99} ms: {}",
                if ok { "met" } else { "NOT met" }
            ));
        }
        if parts.is_empty() {
            "(no target)".to_owned()
        } else {
            parts.join("; ")
        }
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

/// The whole of docs/benchmarks.md.
pub fn markdown(
    machine: &Machine,
    merchants: usize,
    rounds: usize,
    scenarios: &[Scenario],
    notes: &[String],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Benchmarks\n\n\
         Written by `bench/run.sh` (the `bench` crate); rerun it to refresh this page. Numbers are\n\
         medians over {rounds} rounds. Each round measures the real endpoint and, right beside it,\n\
         `/bench/baseline`: an axum handler behind the same middleware that answers with the very\n\
         bytes the real endpoint returned, held in memory. The baseline is the most this server can\n\
         do on this machine for a response of that size, so the real endpoint is reported as a\n\
         share of it (the limit).\n"
    );
    let _ = writeln!(out, "## Machine\n");
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(out, "| CPU | {} |", machine.cpu);
    let _ = writeln!(out, "| cores | {} |", machine.cores);
    let _ = writeln!(out, "| memory | {} |", machine.memory);
    let _ = writeln!(out, "| kernel | {} |", machine.kernel);
    let _ = writeln!(out, "| rustc | {} |", machine.rustc);
    let _ = writeln!(out, "| measured | {} |", machine.date);
    let _ = writeln!(
        out,
        "\nThe server (release build, embedded SQLite in tmpfs, `BOXOFFICE_LOG=warn`) and the load\n\
         generator share these cores, so every figure includes the generator's own cost; the\n\
         baseline carries the same cost, which is why the comparison is made against it.\n"
    );
    let _ = writeln!(out, "## Data\n");
    let _ = writeln!(
        out,
        "{merchants} merchants, each with a product in the benchmark campaign (so every one is in\n\
         the campaign and searchable), named from Dutch word lists with diacritics (`Café`, `Liège`,\n\
         `Köln`), scattered around 24 cities; a quarter have an English name too. One of them, the\n\
         product-list merchant, has eight products: two sharing a gate's capacity, a discounted\n\
         family ticket, a timeslotted tour (7 slots a day), a small-capacity evening, a voucher,\n\
         a physical guide book and an annual pass, with 90 days of calendar.\n"
    );
    let _ = writeln!(out, "## Results\n");
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
    let failures: usize = scenarios.iter().map(|s| s.summary().failures).sum();
    let _ = writeln!(
        out,
        "\nUnexpected statuses during the measurements: {failures}.\n"
    );
    if !notes.is_empty() {
        let _ = writeln!(out, "## Notes\n");
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
        out.push('\n');
    }
    out
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
