//! Guarantees that no error reaches a client as anything but problem+json: unknown routes get
//! a `not-found` problem, and any bare error response a layer or axum produced (405, 408, 413,
//! a panic's 500, …) is rewritten into the problem of its status.

use axum::{
    extract::Request,
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};

use crate::error::{problem_response, Error, ProblemType};

/// Handler for routes that do not exist.
pub async fn not_found(request: Request) -> Error {
    Error::new(
        ProblemType::NotFound,
        format!(
            "No resource at {} {}",
            request.method(),
            request.uri().path()
        ),
    )
}

pub async fn middleware(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || already_rendered(&response) {
        return response;
    }
    let kind = match status {
        StatusCode::NOT_FOUND => ProblemType::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ProblemType::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => ProblemType::RequestTimeout,
        StatusCode::PAYLOAD_TOO_LARGE => ProblemType::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ProblemType::UnsupportedMediaType,
        StatusCode::UNAUTHORIZED => ProblemType::TokenInvalid,
        StatusCode::FORBIDDEN => ProblemType::Forbidden,
        StatusCode::TOO_MANY_REQUESTS => ProblemType::RateLimited,
        StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT => {
            ProblemType::ServiceUnavailable
        }
        s if s.is_client_error() => ProblemType::RequestValidationFailed,
        _ => ProblemType::InternalError,
    };
    let detail = match kind {
        ProblemType::InternalError => "The request could not be completed.".to_owned(),
        ProblemType::ServiceUnavailable => {
            "The request could not be completed in time; retry later.".to_owned()
        }
        _ => kind.title().to_owned(),
    };
    let mut problem = Error::new(kind, detail).to_problem();
    problem.status = status.as_u16();
    let mut rewritten = problem_response(&problem);
    // Keep headers that tell the client what to do next, such as `Allow` and `Retry-After`.
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = response.headers().get(&name) {
            rewritten.headers_mut().insert(name, value.clone());
        }
    }
    rewritten.into_response()
}

/// Problem documents pass untouched, and so do the frame's own HTML error pages.
/// Marks an error response answered in a shape of its own contract (OCTO's errors on the
/// OCTO routes, docs/octo.md), which this middleware leaves as it is.
#[derive(Debug, Clone, Copy)]
pub struct OwnShape;

fn already_rendered(response: &Response) -> bool {
    response.extensions().get::<OwnShape>().is_some()
        || response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| {
                ct.starts_with("application/problem+json") || ct.starts_with("text/html")
            })
}
