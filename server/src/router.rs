//! The whole service: every route with its middleware, and the OpenAPI document that
//! describes them.

use axum::{extract::DefaultBodyLimit, http::StatusCode, middleware, Extension, Router};
use tower::ServiceBuilder;
use tower_http::{
    catch_panic::CatchPanicLayer, compression::CompressionLayer, timeout::TimeoutLayer,
    trace::TraceLayer,
};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::{
    admin, api, auth, bench_baseline, demo, frame,
    http::{
        correlation, drain, fallback, framing, locale, openapi, ops,
        rate_limit::{self, TrustedProxies},
    },
    sandbox,
    state::AppState,
};

/// Every route of the service with its middleware, and the OpenAPI document describing them.
pub fn router(state: AppState) -> (Router, serde_json::Value) {
    let (api, mut doc) = OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(ops::router())
        .merge(openapi::router())
        .merge(admin::router())
        .merge(auth::jwks::router())
        .merge(crate::images::serve::router())
        .merge(api::router(&state))
        .merge(sandbox::router())
        .merge(crate::payments::router())
        .merge(demo::shop::router(&state))
        .merge(demo::mail::router())
        .merge(crate::tickets::page::router())
        .merge(bench_baseline::router(&state))
        .split_for_parts();
    openapi::mark_operator_operations(&mut doc);
    openapi::complete_operations(&mut doc, state.config.public_url.as_str());
    let mut doc = serde_json::to_value(&doc).expect("OpenAPI serialises");
    crate::http::openapi_links::add_links(&mut doc);
    let document = openapi::Document(serde_json::to_vec(&doc).expect("OpenAPI serialises").into());

    let app = api
        .merge(frame::router(&state))
        .merge(crate::after_sale::page::router())
        .merge(crate::octo::router())
        .fallback(fallback::not_found)
        .layer(Extension(document))
        .with_state(state.clone());

    let proxies = TrustedProxies {
        nets: state.config.trusted_proxies.clone().into(),
        header: state.config.forwarded_header,
        ipv6_prefix: state.config.rate_limit_ipv6_prefix,
    };
    // Outermost first: the correlation id must exist before anything logs or fails, and the
    // problem rewriter must see every response, panics included; so must the framing default.
    // The client address (behind trusted proxies, from their header) is resolved once, for
    // every rate limit.
    let layers = ServiceBuilder::new()
        .layer(middleware::from_fn(correlation::middleware))
        .layer(middleware::from_fn(framing::middleware))
        .layer(middleware::from_fn_with_state(
            proxies,
            rate_limit::client_address_middleware,
        ))
        .layer(TraceLayer::new_for_http().make_span_with(|request: &axum::extract::Request| {
            let id = request
                .extensions()
                .get::<correlation::CorrelationId>()
                .map_or("", |c| c.0.as_str());
            tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), correlation_id = %id)
        })
        // The access log: one line per request at info, in the span above (method, the path
        // without its query, the correlation id), with the status and duration. Queries,
        // headers (bearers) and bodies are never logged: they carry codes and customers.
        .on_response(|response: &axum::response::Response, latency: std::time::Duration, _: &tracing::Span| {
            tracing::info!(
                status = response.status().as_u16(),
                duration_ms = latency.as_secs_f64() * 1000.0,
                "answered"
            );
        }))
        .layer(middleware::from_fn(ops::record_metrics))
        .layer(middleware::from_fn(fallback::middleware))
        .layer(CatchPanicLayer::new())
        .layer(middleware::from_fn(locale::middleware))
        .layer(CompressionLayer::new())
        // Outside the timeout, so reading the rest of a body after an early answer (a 401, a
        // 413) does not turn that answer into a 503; it has its own bound (`http/drain.rs`).
        .layer(middleware::from_fn_with_state(
            drain::Drain {
                limit: state.config.body_limit_bytes,
                within: state.config.request_timeout(),
            },
            drain::middleware,
        ))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            state.config.request_timeout(),
        ))
        .layer(DefaultBodyLimit::max(state.config.body_limit_bytes));
    (app.layer(layers), doc)
}
