//! Nobody frames this service's responses unless a page says otherwise: every response without
//! a `Content-Security-Policy` of its own gets `frame-ancestors 'none'` (the demo shop, the
//! sandbox KYC page, the API's answers, every error). Only the frame's pages set their own
//! policy (`frame::headers`), which is the one place partners' origins are let in.

use axum::{
    extract::Request,
    http::{header, HeaderValue},
    middleware::Next,
    response::Response,
};

pub async fn middleware(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static("frame-ancestors 'none'"));
    response
}
