//! Per-address rate limits for the credential endpoints, answered with 429 `rate-limited` and
//! `Retry-After`. Limits are kept per node: with N nodes behind a balancer an address gets at
//! most N times the limit, which still stops brute force against codes and secrets.

use std::{net::IpAddr, num::NonZeroU32, sync::Arc};

use axum::{
    extract::{ConnectInfo, Request, State},
    http::{header, HeaderValue},
    middleware::Next,
    response::{IntoResponse, Response},
};
use governor::{clock::Clock, DefaultKeyedRateLimiter, Quota};

use crate::error::{Error, ProblemType};

/// A keyed limiter: `per_minute` requests per client address, refilled evenly.
#[derive(Clone)]
pub struct RateLimit {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
}

impl RateLimit {
    pub fn per_minute(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute.max(1)).expect("at least one"));
        Self {
            limiter: Arc::new(DefaultKeyedRateLimiter::keyed(quota)),
        }
    }
}

pub async fn middleware(State(limit): State<RateLimit>, request: Request, next: Next) -> Response {
    let address = request
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(address) = address {
        if let Err(not_until) = limit.limiter.check_key(&address) {
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            let seconds = wait.as_secs() + 1;
            let mut response = Error::new(
                ProblemType::RateLimited,
                format!("Too many requests from this address; retry in {seconds} s."),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            return response;
        }
    }
    next.run(request).await
}
