//! `Accept-Language` negotiation: the `RequestLocale` extractor and the `Content-Language`
//! response header.

use std::convert::Infallible;

use app::wire::Locale;
use axum::{
    extract::{FromRequestParts, Request},
    http::{header, request::Parts, HeaderValue},
    middleware::Next,
    response::Response,
};

/// The locale negotiated from the request's `Accept-Language` (default nl-NL).
#[derive(Debug, Clone, Copy)]
pub struct RequestLocale(pub Locale);

fn negotiate(headers: &axum::http::HeaderMap) -> Locale {
    Locale::negotiate(
        headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    )
}

impl<S: Send + Sync> FromRequestParts<S> for RequestLocale {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(RequestLocale(negotiate(&parts.headers)))
    }
}

/// Answers every API response in the negotiated language with `Content-Language`.
pub async fn middleware(request: Request, next: Next) -> Response {
    let locale = negotiate(request.headers());
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .entry(header::CONTENT_LANGUAGE)
        .or_insert(HeaderValue::from_static(locale.tag()));
    response
}
