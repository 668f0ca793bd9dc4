//! The frame's server functions' input errors as the API answers them.

use axum::{
    extract::Request,
    middleware::Next,
    response::{IntoResponse, Response},
};

use crate::error::{Error, ProblemType};

/// Leptos answers a server-function call whose arguments do not decode with a 500; that is the
/// caller's mistake, so it becomes `400 request-validation-failed`. The function's own failures
/// stay 500 (and the fallback renders them as `internal-error` without their text).
pub async fn server_fn_input_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if !response.headers().contains_key("serverfnerror") {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return Error::new(ProblemType::InternalError, "").into_response();
    };
    let text = String::from_utf8_lossy(&bytes);
    let is_input_error = ["Args|", "Deserialization|", "MissingArg|"]
        .iter()
        .any(|prefix| text.starts_with(prefix));
    if is_input_error {
        let detail = text.split_once('|').map_or("", |(_, d)| d).to_owned();
        return Error::invalid_field("body", "invalid", detail).into_response();
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}
