//! The benchmark's yardstick (only with `BOXOFFICE_BENCH_BASELINE=1`): a handler that answers
//! with bytes already in memory, behind the same middleware as every route. Its throughput is
//! the most any endpoint of this server can reach on the machine, so the benchmark reports the
//! real endpoints as a share of it (docs/benchmarks.md).

mod express;

use std::sync::{Arc, RwLock};

use axum::{
    body::Bytes,
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    Extension,
};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;

/// The bytes to answer with; one per router, so servers in one process keep their own.
type Held = Arc<RwLock<Bytes>>;

/// The routes when the baseline is switched on; none otherwise.
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    if state.config.bench_baseline {
        OpenApiRouter::new()
            .routes(routes!(baseline, set_baseline))
            .layer(Extension(Held::default()))
            .merge(express::routes())
    } else {
        OpenApiRouter::new()
    }
}

/// Benchmarks only: the bytes last stored with PUT, as application/json.
#[utoipa::path(get, path = "/bench/baseline", tag = "operations",
    responses((status = 200, content_type = "application/json", body = Object)))]
async fn baseline(Extension(held): Extension<Held>) -> Response {
    let body = held.read().unwrap_or_else(|e| e.into_inner()).clone();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Benchmarks only: stores the bytes GET answers with (a copy of a real response).
#[utoipa::path(put, path = "/bench/baseline", tag = "operations",
    request_body(content = String, content_type = "application/json"),
    responses((status = 204)))]
async fn set_baseline(Extension(held): Extension<Held>, body: Bytes) -> StatusCode {
    *held.write().unwrap_or_else(|e| e.into_inner()) = body;
    StatusCode::NO_CONTENT
}
