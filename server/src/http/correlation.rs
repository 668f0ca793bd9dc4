//! The correlation id: taken from a well-formed inbound `X-Correlation-Id` or made fresh,
//! kept in a task-local for the whole request (envelopes and problems read it from there),
//! put on the request's tracing span so every log line carries it, and echoed in the response.

use axum::{
    extract::Request,
    http::{HeaderName, HeaderValue},
    middleware::Next,
    response::Response,
};

pub static HEADER: HeaderName = HeaderName::from_static("x-correlation-id");

tokio::task_local! {
    static CORRELATION_ID: String;
}

/// The current request's correlation id, or `"none"` outside a request.
pub fn current() -> String {
    CORRELATION_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "none".to_owned())
}

/// Runs `work` (a task spawned for the request) under the request's correlation id `id`.
pub async fn scope<F: std::future::Future>(id: String, work: F) -> F::Output {
    CORRELATION_ID.scope(id, work).await
}

/// The id of a request, as an extension the tracing span reads.
#[derive(Debug, Clone)]
pub struct CorrelationId(pub String);

/// Accepts a caller's id only when it is short and plain, so it is safe in logs and headers.
fn inbound(request: &Request) -> Option<String> {
    let value = request.headers().get(&HEADER)?.to_str().ok()?;
    let plain = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    plain.then(|| value.to_owned())
}

pub async fn middleware(mut request: Request, next: Next) -> Response {
    let id = inbound(&request).unwrap_or_else(|| crate::ids::random_id().to_string());
    request.extensions_mut().insert(CorrelationId(id.clone()));
    let mut response = CORRELATION_ID.scope(id.clone(), next.run(request)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(HEADER.clone(), value);
    }
    response
}
