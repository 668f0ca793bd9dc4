//! A scenario measured beside its baseline in alternating rounds.

use std::net::SocketAddr;

use anyhow::bail;
use hyper::StatusCode;

use crate::{
    load::{self, Call, Measured},
    report::Scenario,
};

pub struct Plan {
    pub name: String,
    pub call: Call,
    /// The yardstick: the same answer (or the same writes) with nothing else done.
    pub baseline: Call,
    /// The status every answer must have, of the call and of the baseline.
    pub expect: StatusCode,
    pub connections: usize,
    pub per_round: usize,
    pub target_p99_ms: Option<f64>,
    pub target_share: Option<f64>,
    pub target_rps: Option<f64>,
}

async fn round(addr: SocketAddr, plan: &Plan, call: &Call) -> anyhow::Result<Measured> {
    let measured = load::run(addr, call, plan.connections, plan.per_round, plan.expect).await?;
    if measured.failures > 0 {
        bail!(
            "{} {}: {} of {} answers were not {} (statuses {:?})",
            call.method,
            call.path,
            measured.failures,
            measured.requests,
            plan.expect,
            measured.statuses
        );
    }
    Ok(measured)
}

/// Warms both up, then measures the call and its baseline `rounds` times, alternating which
/// goes first so neither always runs on a warmer machine.
pub async fn measure(addr: SocketAddr, plan: &Plan, rounds: usize) -> anyhow::Result<Scenario> {
    let warmup = (plan.per_round / 10).clamp(20, 1000);
    load::run(addr, &plan.call, plan.connections, warmup, plan.expect).await?;
    load::run(addr, &plan.baseline, plan.connections, warmup, plan.expect).await?;
    let mut measured: Vec<(Measured, Measured)> = Vec::new();
    for n in 0..rounds {
        let (real, base) = if n % 2 == 0 {
            let real = round(addr, plan, &plan.call).await?;
            (real, round(addr, plan, &plan.baseline).await?)
        } else {
            let base = round(addr, plan, &plan.baseline).await?;
            (round(addr, plan, &plan.call).await?, base)
        };
        eprintln!(
            "  {} round {}: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms (limit {:.0} req/s, p99 {:.2} ms)",
            plan.name,
            n + 1,
            real.per_second(),
            real.quantile_ms(0.5),
            real.quantile_ms(0.99),
            base.per_second(),
            base.quantile_ms(0.99)
        );
        measured.push((real, base));
    }
    Ok(Scenario {
        name: plan.name.clone(),
        call: format!("{} {}", plan.call.method, plan.call.path),
        connections: plan.connections,
        per_round: plan.per_round,
        rounds: measured,
        target_p99_ms: plan.target_p99_ms,
        target_share: plan.target_share,
        target_rps: plan.target_rps,
    })
}
