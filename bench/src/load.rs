//! The HTTP/1.1 load generators, over keep-alive connections:
//! - [`run`], closed loop: each connection sends its next request as soon as the previous
//!   answer is read, until `total` requests are done; latency from writing a request to reading
//!   its whole body. It finds the most a server answers, but a slow answer also delays the
//!   requests behind it, so its latencies hide the queue (coordinated omission);
//! - [`run_at_rate`], open loop: requests fall due on a fixed schedule whatever the answers,
//!   and latency counts from when a request was due, so time spent waiting for a connection
//!   (the queue) is in it, as a user arriving on their own would feel it.

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
use hyper::{client::conn::http1::SendRequest, Method, Request, StatusCode};
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

/// A backend bearer of the partner client `client_id` from the server at `addr` (a bearer
/// names the server address that issued it: each restart of the crash run's server has its
/// own).
pub async fn client_token(
    addr: SocketAddr,
    client_id: &str,
    client_secret: &str,
) -> anyhow::Result<String> {
    let call = Call {
        method: Method::POST,
        path: "/oauth/token".into(),
        headers: vec![(
            "content-type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        )],
        body: format!(
            "grant_type=client_credentials&client_id={client_id}&client_secret={client_secret}"
        )
        .into(),
        fresh_key: None,
    };
    let (status, body) = once(addr, &call).await?;
    anyhow::ensure!(
        status == StatusCode::OK,
        "a bearer of {client_id}: {status}"
    );
    let token: serde_json::Value = serde_json::from_slice(&body)?;
    Ok(token["access_token"]
        .as_str()
        .unwrap_or_default()
        .to_owned())
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

/// One answer on the kept-alive connection `sender`, read whole.
pub async fn on(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    call: &Call,
) -> anyhow::Result<(StatusCode, Bytes)> {
    sender.ready().await?;
    let response = sender.send_request(call.request(addr)).await?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

/// Sends `total` copies of `call`, one due every `1 / rate` seconds from the start, over at
/// most `connections` connections (each takes the next due request once it is free); an answer
/// other than `expect` counts as a failure. `elapsed` runs to the last answer, so
/// `per_second()` is the rate achieved.
pub async fn run_at_rate(
    addr: SocketAddr,
    call: &Call,
    connections: usize,
    rate: f64,
    total: usize,
    expect: StatusCode,
) -> anyhow::Result<Measured> {
    anyhow::ensure!(rate > 0.0, "the rate must be positive");
    let schedule = Schedule {
        // A moment for the connections to open before the first request falls due.
        start: Instant::now() + Duration::from_millis(200),
        interval: Duration::from_secs_f64(1.0 / rate),
    };
    let next = Arc::new(AtomicUsize::new(0));
    let call = Arc::new(call.clone());
    let mut workers = Vec::with_capacity(connections);
    for _ in 0..connections {
        let (next, call) = (next.clone(), call.clone());
        workers.push(tokio::spawn(async move {
            let mut sender = connect(addr).await?;
            let mut tally = Tally::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    break;
                }
                let due = schedule.due(n);
                tokio::time::sleep_until(due.into()).await;
                sender.ready().await?;
                let response = sender.send_request(call.request(addr)).await?;
                let status = response.status();
                let body = response.into_body().collect().await?.to_bytes();
                tally.add(due.elapsed(), status, expect, body.len());
            }
            anyhow::Ok(tally)
        }));
    }
    let mut tallies = Vec::with_capacity(connections);
    for worker in workers {
        tallies.push(worker.await??);
    }
    Ok(Tally::measured(tallies, schedule.start.elapsed()))
}

/// When each request of an open-loop run falls due.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    start: Instant,
    interval: Duration,
}

impl Schedule {
    /// The `n`th request's due time (from 0), computed from the start, so rounding never adds up.
    fn due(&self, n: usize) -> Instant {
        self.start + self.interval.mul_f64(n as f64)
    }
}

/// What one connection of a run saw.
#[derive(Debug, Default)]
struct Tally {
    latencies_us: Vec<u64>,
    failures: usize,
    bytes: usize,
    statuses: BTreeMap<u16, usize>,
}

impl Tally {
    fn add(&mut self, latency: Duration, status: StatusCode, expect: StatusCode, bytes: usize) {
        self.latencies_us.push(latency.as_micros() as u64);
        *self.statuses.entry(status.as_u16()).or_default() += 1;
        self.bytes += bytes;
        if status != expect {
            self.failures += 1;
        }
    }

    fn measured(tallies: Vec<Tally>, elapsed: Duration) -> Measured {
        let mut measured = Measured {
            requests: 0,
            elapsed,
            latencies_us: Vec::new(),
            failures: 0,
            body_bytes: 0,
            statuses: BTreeMap::new(),
        };
        for tally in tallies {
            measured.latencies_us.extend(tally.latencies_us);
            measured.failures += tally.failures;
            measured.body_bytes += tally.bytes;
            for (status, count) in tally.statuses {
                *measured.statuses.entry(status).or_default() += count;
            }
        }
        measured.requests = measured.latencies_us.len();
        measured.latencies_us.sort_unstable();
        measured
    }
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
            let mut sender = connect(addr).await?;
            let mut tally = Tally::default();
            while next.fetch_add(1, Ordering::Relaxed) < total {
                sender.ready().await?;
                let sent = Instant::now();
                let response = sender.send_request(call.request(addr)).await?;
                let status = response.status();
                let body = response.into_body().collect().await?.to_bytes();
                tally.add(sent.elapsed(), status, expect, body.len());
            }
            anyhow::Ok(tally)
        }));
    }
    let mut tallies = Vec::with_capacity(connections);
    for worker in workers {
        tallies.push(worker.await??);
    }
    Ok(Tally::measured(tallies, started.elapsed()))
}

/// A keep-alive HTTP/1.1 connection to `addr`, without Nagle's delay.
pub async fn connect(addr: SocketAddr) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_fall_due_on_the_schedule_from_its_start() {
        let start = Instant::now();
        let schedule = Schedule {
            start,
            interval: Duration::from_secs_f64(1.0 / 300.0),
        };
        assert_eq!(schedule.due(0), start);
        // 300 a second: the 300th is due one second after the start, without drift.
        let late = schedule.due(300).duration_since(start);
        assert!((late.as_secs_f64() - 1.0).abs() < 1e-6, "{late:?}");
    }

    /// A server that answers each request after `delay`, one at a time per connection.
    async fn slow_server(delay: Duration) -> SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = stream.read(&mut buf).await {
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buf[..n]);
                        // Bodiless GETs: each request ends at its blank line.
                        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                            seen.drain(..end + 4);
                            tokio::time::sleep(delay).await;
                            let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                            if stream.write_all(answer).await.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        addr
    }

    #[tokio::test]
    async fn the_open_loop_counts_the_queue_the_closed_loop_hides() {
        // One connection, answers taking 20 ms, requests due every 5 ms: the closed loop sees
        // 20 ms each; the open loop sees the queue grow behind the slow answers.
        let addr = slow_server(Duration::from_millis(20)).await;
        let call = Call::get("/");
        let closed = run(addr, &call, 1, 20, StatusCode::OK).await.unwrap();
        let open = run_at_rate(addr, &call, 1, 200.0, 20, StatusCode::OK)
            .await
            .unwrap();
        assert_eq!((closed.failures, open.failures), (0, 0));
        assert_eq!(open.requests, 20);
        assert!(
            closed.quantile_ms(0.99) < 60.0,
            "{}",
            closed.quantile_ms(0.99)
        );
        // The last request was due at 95 ms and answered at about 400 ms.
        assert!(open.quantile_ms(1.0) > 200.0, "{}", open.quantile_ms(1.0));
    }
}
