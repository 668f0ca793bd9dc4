//! The release server as a child process on a free loopback port, requests to set it up, and
//! a description of the machine for the report.

use std::{
    net::SocketAddr,
    path::Path,
    process::{Child, Command, Stdio},
    time::Duration,
};

use anyhow::{bail, Context};
use hyper::StatusCode;
use serde_json::Value;

use crate::{
    load::{self, Call},
    report::Machine,
};

/// The server, killed when dropped.
pub struct ServerProcess {
    child: Child,
    pub addr: SocketAddr,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary` over `data_dir` (its SQLite database, unless `extra` sets `DATABASE_URL`)
/// with the baselines mounted, and waits until it is ready.
pub async fn start(
    binary: &Path,
    data_dir: &Path,
    extra: &[(&str, &str)],
) -> anyhow::Result<ServerProcess> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse()?;
    let log = std::fs::File::create(data_dir.join(format!("server-{port}.log")))?;
    let mut command = Command::new(binary);
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("BOXOFFICE_LISTEN", addr.to_string())
        .env("BOXOFFICE_PUBLIC_URL", format!("http://{addr}"))
        .env("BOXOFFICE_DATA_DIR", data_dir)
        .env("BOXOFFICE_DEMO", "0")
        .env("BOXOFFICE_BENCH_BASELINE", "1")
        .env("BOXOFFICE_LOG", "warn")
        .env("BOXOFFICE_PUBLIC_TOKEN_TTL", "14400")
        .env("BOXOFFICE_BODY_LIMIT", "268435456")
        // Every buyer of the load runs is on 127.0.0.1, many with one session: lift the
        // bounds on what one buyer holds (docs/security.md, "Holds").
        .env("BOXOFFICE_HOLD_RESERVATIONS", "0")
        .env("BOXOFFICE_HOLD_RESERVATIONS_PER_DAY", "0")
        .env("BOXOFFICE_HOLD_PLACES", "0")
        .env("BOXOFFICE_HOLD_PLACES_PER_DAY", "0")
        .stdout(Stdio::null())
        .stderr(log);
    for (name, value) in extra {
        command.env(name, value);
    }
    let child = command
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let server = ServerProcess { child, addr };
    for _ in 0..600 {
        if let Ok((StatusCode::OK, _)) = load::once(addr, &Call::get("/readyz")).await {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!(
        "the server did not become ready; see {}",
        data_dir.display()
    )
}

/// The JSON answer of `call`, which must come with `expect`.
pub async fn json_of(addr: SocketAddr, call: &Call, expect: StatusCode) -> anyhow::Result<Value> {
    let (status, body) = load::once(addr, call).await?;
    if status != expect {
        bail!(
            "{} {} answered {status}: {}",
            call.method,
            call.path,
            String::from_utf8_lossy(&body)
        );
    }
    if body.is_empty() {
        return Ok(Value::Null);
    }
    Ok(serde_json::from_slice(&body)?)
}

pub fn machine() -> Machine {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let memory = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:").map(|v| v.trim().to_owned()))
        .unwrap_or_default();
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    Machine {
        cpu,
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        memory,
        kernel: format!("Linux {}", read("/proc/sys/kernel/osrelease").trim()),
        rustc,
        date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
    }
}
