//! A closed-loop HTTP/1.1 load generator: `connections` keep-alive connections, each sending
//! its next request as soon as the previous answer is read, until `total` requests are done.
//! Latency is measured per request, from writing it to reading the whole body.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// One request, repeated.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: Method,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// A header sent with a new UUID on every request (an Idempotency-Key: one per purchase).
    pub fresh_key: Option<String>,
}

impl Call {
    pub fn get(path: impl Into<String>) -> Self {
        Self {
            method: Method::GET,
            path: path.into(),
            headers: Vec::new(),
            body: Bytes::new(),
            fresh_key: None,
        }
    }

    /// Sends `name` with a new UUID on every request.
    pub fn fresh_key(mut self, name: &str) -> Self {
        self.fresh_key = Some(name.to_owned());
        self
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    pub fn post_json(path: impl Into<String>, body: &serde_json::Value) -> Self {
        Self {
            method: Method::POST,
            path: path.into(),
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: Bytes::from(serde_json::to_vec(body).expect("JSON serialises")),
            fresh_key: None,
        }
    }

    fn request(&self, addr: SocketAddr) -> Request<Full<Bytes>> {
        let mut builder = Request::builder()
            .method(self.method.clone())
            .uri(&self.path)
            .header("host", addr.to_string());
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        if let Some(name) = &self.fresh_key {
            builder = builder.header(name, uuid::Uuid::new_v4().to_string());
        }
        builder
            .body(Full::new(self.body.clone()))
            .expect("a valid request")
    }
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Measured {
    pub requests: usize,
    pub elapsed: Duration,
    /// Sorted, in microseconds.
    pub latencies_us: Vec<u64>,
    pub failures: usize,
    pub body_bytes: usize,
    /// How many answers came with each status.
    pub statuses: BTreeMap<u16, usize>,
}

impl Measured {
    pub fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The `q` quantile (0..=1) in milliseconds, nearest rank.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.latencies_us.is_empty() {
            return f64::NAN;
        }
        let rank = ((q * self.latencies_us.len() as f64).ceil() as usize)
            .clamp(1, self.latencies_us.len());
        self.latencies_us[rank - 1] as f64 / 1000.0
    }
}

/// One answer, read whole.
pub async fn once(addr: SocketAddr, call: &Call) -> anyhow::Result<(StatusCode, Bytes)> {
    let stream = TcpStream::connect(addr).await?;
    let io = TokioIo::new(stream);
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
    tokio::spawn(connection);
    let response = sender.send_request(call.request(addr)).await?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

/// Sends `total` copies of `call` over `connections` connections; an answer other than
/// `expect` counts as a failure.
pub async fn run(
    addr: SocketAddr,
    call: &Call,
    connections: usize,
    total: usize,
    expect: StatusCode,
) -> anyhow::Result<Measured> {
    let next = Arc::new(AtomicUsize::new(0));
    let call = Arc::new(call.clone());
    let started = Instant::now();
    let mut workers = Vec::with_capacity(connections);
    for _ in 0..connections {
        let (next, call) = (next.clone(), call.clone());
        workers.push(tokio::spawn(async move {
            let stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            let io = TokioIo::new(stream);
            let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
            tokio::spawn(connection);
            let mut latencies = Vec::new();
            let mut statuses = BTreeMap::<u16, usize>::new();
            let (mut failures, mut bytes) = (0, 0);
            while next.fetch_add(1, Ordering::Relaxed) < total {
                sender.ready().await?;
                let sent = Instant::now();
                let response = sender.send_request(call.request(addr)).await?;
                let ok = response.status() == expect;
                *statuses.entry(response.status().as_u16()).or_default() += 1;
                let body = response.into_body().collect().await?.to_bytes();
                latencies.push(sent.elapsed().as_micros() as u64);
                bytes += body.len();
                if !ok {
                    failures += 1;
                }
            }
            anyhow::Ok((latencies, failures, bytes, statuses))
        }));
    }
    let mut measured = Measured {
        requests: 0,
        elapsed: Duration::ZERO,
        latencies_us: Vec::with_capacity(total),
        failures: 0,
        body_bytes: 0,
        statuses: BTreeMap::new(),
    };
    for worker in workers {
        let (latencies, failures, bytes, statuses) = worker.await??;
        for (status, count) in statuses {
            *measured.statuses.entry(status).or_default() += count;
        }
        measured.latencies_us.extend(latencies);
        measured.failures += failures;
        measured.body_bytes += bytes;
    }
    measured.elapsed = started.elapsed();
    measured.requests = measured.latencies_us.len();
    measured.latencies_us.sort_unstable();
    Ok(measured)
}
