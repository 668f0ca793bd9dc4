//! Operational endpoints: liveness, readiness, Prometheus metrics, and the request metrics
//! middleware that feeds them.

use std::time::Instant;

use axum::{
    extract::{MatchedPath, Request, State},
    http::{header, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    error::{Error, ProblemType},
    http::{envelope::Data, openapi::Problem503},
    state::AppState,
};

/// The histogram of request durations, by method, route and status (its buckets: `lib.rs`).
pub const REQUEST_DURATION: &str = "http_request_duration_seconds";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
        .routes(routes!(metrics))
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    status: &'static str,
}

/// Liveness: the process serves requests.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, body = inline(app::wire::Envelope<Health>))))]
async fn healthz() -> Data<Health> {
    Data::ok(Health { status: "ok" })
}

/// Readiness: the database answers.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses((status = 200, body = inline(app::wire::Envelope<Health>)),
              Problem503))]
async fn readyz(State(state): State<AppState>) -> Result<Data<Health>, Error> {
    state.store.ping().await.map_err(|err| {
        tracing::warn!(error = %err, "readiness check failed");
        Error::new(
            ProblemType::ServiceUnavailable,
            "The database does not answer.",
        )
    })?;
    Ok(Data::ok(Health { status: "ready" }))
}

/// Prometheus metrics in the text exposition format.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, content_type = "text/plain; version=0.0.4", body = String)))]
async fn metrics(State(state): State<AppState>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}

/// The `route` label of a request no route matched.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// The `method` label: one of the standard methods, or `other`. Clients choose the method, so
/// taking it as sent would let anyone create label values (and memory) without end.
pub fn method_label(method: &Method) -> &'static str {
    const STANDARD: [&str; 9] = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
    ];
    STANDARD
        .into_iter()
        .find(|standard| *standard == method.as_str())
        .unwrap_or("other")
}

/// Counts requests and records their latency by method, route template and status. Every
/// label has a bounded set of values: the method by [`method_label`], the route by its
/// template (axum's `MatchedPath`, never the raw path) or [`UNMATCHED_ROUTE`], the status by
/// its code.
pub async fn record_metrics(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or(UNMATCHED_ROUTE, |p| p.as_str())
        .to_owned();
    let method = method_label(request.method());
    let started = Instant::now();
    let response = next.run(request).await;
    let labels = [
        ("method", method.to_owned()),
        ("route", route),
        ("status", response.status().as_u16().to_string()),
    ];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!(REQUEST_DURATION, &labels).record(started.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::DELETE), "DELETE");
        let invented = Method::from_bytes("X".repeat(2000).as_bytes()).unwrap();
        assert_eq!(method_label(&invented), "other");
        assert_eq!(
            method_label(&Method::from_bytes(b"PROPFIND").unwrap()),
            "other"
        );
    }
}
