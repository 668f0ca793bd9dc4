//! Rate limits, answered with 429 `rate-limited` and `Retry-After`, and the client address they
//! count by.
//!
//! The client address is the TCP peer, unless the peer is a trusted proxy
//! (`BOXOFFICE_TRUSTED_PROXIES`): then it is the right-most address of `X-Forwarded-For` (or
//! `Forwarded`, per `BOXOFFICE_FORWARDED_HEADER`) that is not itself a trusted proxy, so a
//! client cannot choose its own address by sending the header. A limit counts an IPv4 client by
//! its address and an IPv6 client by its network (`BOXOFFICE_RATE_LIMIT_IPV6_PREFIX`, a /64 by
//! default): one subscriber is handed a whole /64, so counting single IPv6 addresses would let
//! one client take a fresh address, and a fresh budget, for every request ([`address_key`]).
//! Limits are kept per node: with
//! N nodes behind a balancer an address gets at most N times the limit, which still stops
//! brute force against codes and secrets. Every limiter forgets keys that are back to a full
//! bucket once a minute, so its memory follows the recent callers, not every caller ever.

use std::{
    hash::Hash,
    net::{IpAddr, SocketAddr},
    num::NonZeroU32,
    sync::{Arc, Weak},
    time::Duration,
};

use axum::{
    extract::{ConnectInfo, Request, State},
    http::{header, HeaderMap, HeaderValue},
    middleware::Next,
    response::{IntoResponse, Response},
};
use governor::{clock::Clock, DefaultKeyedRateLimiter, Quota};
use ipnet::IpNet;

use crate::{
    config::ForwardedHeader,
    error::{Error, ProblemType},
};

/// How often idle keys are dropped from a limiter.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// The address a request is counted under (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// The key the limits count a request under: its client address through [`address_key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressKey(pub IpAddr);

/// Bits of an IPv6 client address a limit counts by when nothing else is configured.
pub const DEFAULT_IPV6_PREFIX: u8 = 64;

/// What resolving the client address needs: the trusted proxies and the header they write;
/// and how many bits of an IPv6 client address its limits count by.
#[derive(Debug, Clone)]
pub struct TrustedProxies {
    pub nets: Arc<[IpNet]>,
    pub header: ForwardedHeader,
    pub ipv6_prefix: u8,
}

impl TrustedProxies {
    fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.nets.iter().any(|net| net.contains(&address))
    }

    /// The client address of a request from `peer` with `headers`.
    pub fn client_address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let chain = match self.header {
            ForwardedHeader::XForwardedFor => x_forwarded_for(headers),
            ForwardedHeader::Forwarded => forwarded(headers),
        };
        // Right to left: each hop a trusted proxy appended; the first one not trusted is the
        // client. An entry that is no address ends the walk at the last trusted hop.
        let mut nearest = peer;
        for hop in chain.iter().rev() {
            match hop {
                Some(address) if self.trusts(*address) => nearest = *address,
                Some(address) => return *address,
                None => return nearest,
            }
        }
        nearest
    }
}

/// What a limit counts `address` under: an IPv4 address (or an IPv4-mapped one) as it is, an
/// IPv6 address by its first `v6_prefix` bits (at most 128), the rest zeroed. Every per-address
/// bound uses this, so one client is one key wherever it is counted.
pub fn address_key(address: IpAddr, v6_prefix: u8) -> IpAddr {
    match canonical(address) {
        IpAddr::V6(v6) => {
            let bits = u32::from(v6_prefix.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
        v4 => v4,
    }
}

/// IPv4-mapped IPv6 addresses count as the IPv4 address they carry.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// One hop of a forwarding header: an address, or `None` for anything else (`unknown`, an
/// obfuscated name, garbage).
fn hop(text: &str) -> Option<IpAddr> {
    let text = text.trim().trim_matches('"');
    let address = text
        .parse::<IpAddr>()
        .or_else(|_| text.parse::<SocketAddr>().map(|s| s.ip()))
        .or_else(|_| text.trim_start_matches('[').trim_end_matches(']').parse())
        .ok()?;
    Some(canonical(address))
}

/// The hops of every `X-Forwarded-For` line, left to right.
fn x_forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|value| {
            value
                .to_str()
                .map(|v| v.split(',').map(hop).collect())
                .unwrap_or_else(|_| vec![None])
        })
        .collect()
}

/// The `for=` hops of every `Forwarded` line (RFC 7239), left to right.
fn forwarded(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all(header::FORWARDED)
        .iter()
        .flat_map(|value| match value.to_str() {
            Ok(v) => v
                .split(',')
                .map(|element| {
                    element.split(';').find_map(|pair| {
                        let (name, value) = pair.trim().split_once('=')?;
                        name.eq_ignore_ascii_case("for").then(|| hop(value))
                    })?
                })
                .collect(),
            Err(_) => vec![None],
        })
        .collect()
}

/// Puts the [`ClientAddress`] and its [`AddressKey`] into the request's extensions, for the
/// limits.
pub async fn client_address_middleware(
    State(proxies): State<TrustedProxies>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(peer) = peer {
        let address = proxies.client_address(peer, request.headers());
        let key = address_key(address, proxies.ipv6_prefix);
        request.extensions_mut().insert(ClientAddress(address));
        request.extensions_mut().insert(AddressKey(key));
    }
    next.run(request).await
}

/// The client address of a request: the resolved one, or the TCP peer when the resolving
/// middleware did not run.
pub fn client_address(request: &Request) -> Option<IpAddr> {
    address_in(request.extensions())
}

fn address_in(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions.get::<ClientAddress>().map(|a| a.0).or_else(|| {
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| canonical(c.0.ip()))
    })
}

/// The client address as every per-address bound counts it ([`client_key`]), as a handler's
/// argument (`None` off a TCP connection, as in unit tests of a router).
#[derive(Debug, Clone, Copy)]
pub struct RequestAddress(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for RequestAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(RequestAddress(key_in(&parts.extensions)))
    }
}

/// What a request is counted under by every per-address bound: the resolved key, or the TCP
/// peer's (under the default prefix) when the resolving middleware did not run.
pub fn client_key(request: &Request) -> Option<IpAddr> {
    key_in(request.extensions())
}

fn key_in(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<AddressKey>()
        .map(|k| k.0)
        .or_else(|| address_in(extensions).map(|a| address_key(a, DEFAULT_IPV6_PREFIX)))
}

/// A keyed limiter, refilled evenly, pruned every minute.
#[derive(Clone)]
pub struct RateLimit<K: Hash + Eq + Clone + Send + Sync + 'static = IpAddr> {
    limiter: Arc<DefaultKeyedRateLimiter<K>>,
}

impl RateLimit<IpAddr> {
    /// `per_minute` requests per client address.
    pub fn per_minute(per_minute: u32) -> Self {
        Self::new(Quota::per_minute(
            NonZeroU32::new(per_minute.max(1)).expect("at least one"),
        ))
    }
}

impl<K: Hash + Eq + Clone + Send + Sync + 'static> RateLimit<K> {
    /// A limiter with `quota` per key, pruned every minute.
    pub fn new(quota: Quota) -> Self {
        Self::pruned_every(quota, PRUNE_EVERY)
    }

    /// A limiter with `quota` per key whose idle keys are dropped every `interval` (by a task
    /// that ends with the limiter; none outside a Tokio runtime).
    pub fn pruned_every(quota: Quota, interval: Duration) -> Self {
        let limiter = Arc::new(DefaultKeyedRateLimiter::keyed(quota));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(prune(Arc::downgrade(&limiter), interval));
        }
        Self { limiter }
    }

    /// How many keys the limiter holds.
    pub fn tracked(&self) -> usize {
        self.limiter.len()
    }

    /// Counts one request under `key`; beyond the quota, the refusal to answer with.
    pub fn check(&self, key: &K) -> Result<(), RateLimited> {
        let Err(not_until) = self.limiter.check_key(key) else {
            return Ok(());
        };
        let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
        Err(RateLimited {
            retry_after_secs: wait.as_secs() + 1,
        })
    }
}

/// A request over its limit: answered 429 `rate-limited` with `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited {
    pub retry_after_secs: u64,
}

impl IntoResponse for RateLimited {
    fn into_response(self) -> Response {
        let seconds = self.retry_after_secs;
        let mut response = Error::new(
            ProblemType::RateLimited,
            format!("Too many requests from this address; retry in {seconds} s."),
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        response
    }
}

/// Drops keys whose bucket is full again (they are as if never seen) and gives back the map's
/// spare room, every `interval`, until the limiter is gone.
async fn prune<K: Hash + Eq + Clone + Send + Sync + 'static>(
    limiter: Weak<DefaultKeyedRateLimiter<K>>,
    interval: Duration,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(limiter) = limiter.upgrade() else {
            return;
        };
        limiter.retain_recent();
        limiter.shrink_to_fit();
    }
}

/// Limits requests per client address (its [`client_key`]).
pub async fn middleware(State(limit): State<RateLimit>, request: Request, next: Next) -> Response {
    if let Some(address) = client_key(&request) {
        if let Err(refused) = limit.check(&address) {
            return refused.into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(nets: &[&str], header: ForwardedHeader) -> TrustedProxies {
        TrustedProxies {
            nets: nets.iter().map(|n| n.parse().unwrap()).collect(),
            header,
            ipv6_prefix: DEFAULT_IPV6_PREFIX,
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn forwarding_headers_count_only_from_trusted_proxies() {
        let lb = proxies(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let sent = headers(&[("x-forwarded-for", "1.2.3.4")]);
        // An untrusted peer's header is ignored: it could say anything.
        assert_eq!(
            lb.client_address(ip("203.0.113.9"), &sent),
            ip("203.0.113.9")
        );
        assert_eq!(lb.client_address(ip("10.0.0.2"), &sent), ip("1.2.3.4"));
        // The right-most untrusted hop wins; what the client prepended does not.
        let spoofed = headers(&[("x-forwarded-for", "6.6.6.6, 198.51.100.7, 10.0.0.3")]);
        assert_eq!(
            lb.client_address(ip("10.0.0.2"), &spoofed),
            ip("198.51.100.7")
        );
        // Several header lines read as one list; ports and brackets are tolerated.
        let lines = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "[2001:db8::1]:4711"),
        ]);
        assert_eq!(lb.client_address(ip("10.0.0.2"), &lines), ip("2001:db8::1"));
        // Garbage stops the walk at the nearest trusted hop.
        let garbage = headers(&[("x-forwarded-for", "1.2.3.4, nonsense, 10.0.0.5")]);
        assert_eq!(lb.client_address(ip("10.0.0.2"), &garbage), ip("10.0.0.5"));
        // No header: the proxy itself.
        assert_eq!(
            lb.client_address(ip("10.0.0.2"), &HeaderMap::new()),
            ip("10.0.0.2")
        );
        // No trusted proxies: always the peer.
        let none = proxies(&[], ForwardedHeader::XForwardedFor);
        assert_eq!(none.client_address(ip("10.0.0.2"), &sent), ip("10.0.0.2"));
    }

    #[test]
    fn the_forwarded_header_is_read_when_configured() {
        let lb = proxies(&["192.0.2.0/24"], ForwardedHeader::Forwarded);
        let sent = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            (
                "forwarded",
                "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https, for=192.0.2.60",
            ),
        ]);
        assert_eq!(
            lb.client_address(ip("192.0.2.1"), &sent),
            ip("2001:db8:cafe::17")
        );
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_network_and_an_ipv4_client_by_its_address() {
        let key = |text: &str, bits: u8| address_key(ip(text), bits);
        assert_eq!(key("2001:db8:1:2:aaaa::1", 64), ip("2001:db8:1:2::"));
        assert_eq!(
            key("2001:db8:1:2:ffff:ffff:ffff:ffff", 64),
            key("2001:db8:1:2::5", 64),
            "one /64, one key"
        );
        assert_ne!(key("2001:db8:1:3::1", 64), key("2001:db8:1:2::1", 64));
        assert_eq!(key("2001:db8:1:2:3::1", 48), ip("2001:db8:1::"));
        assert_eq!(key("2001:db8::1", 128), ip("2001:db8::1"));
        assert_eq!(key("2001:db8::1", 200), ip("2001:db8::1"), "capped at 128");
        assert_eq!(key("2001:db8::1", 0), ip("::"));
        assert_eq!(key("192.0.2.7", 64), ip("192.0.2.7"));
        assert_eq!(key("192.0.2.8", 0), ip("192.0.2.8"), "IPv4 is never masked");
        assert_eq!(key("::ffff:192.0.2.7", 64), ip("192.0.2.7"));
    }

    #[tokio::test]
    async fn idle_keys_are_pruned() {
        let limit: RateLimit<u32> = RateLimit::pruned_every(
            Quota::per_second(NonZeroU32::new(1000).unwrap()),
            Duration::from_millis(20),
        );
        for key in 0..5000 {
            assert!(limit.check(&key).is_ok());
        }
        assert_eq!(limit.tracked(), 5000);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            limit.tracked(),
            0,
            "keys back to a full bucket are forgotten"
        );
    }
}
