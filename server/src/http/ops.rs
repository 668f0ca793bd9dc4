//! Operational endpoints: liveness, readiness, Prometheus metrics, and the request metrics
//! middleware that feeds them.

use std::time::Instant;

use axum::{
    extract::{MatchedPath, Request, State},
    http::{header, StatusCode},
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

/// Counts requests and records their latency by method, route template and status.
pub async fn record_metrics(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = request.method().to_string();
    let started = Instant::now();
    let response = next.run(request).await;
    let labels = [
        ("method", method),
        ("route", route),
        ("status", response.status().as_u16().to_string()),
    ];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    response
}
