//! The headers of a page opened by a key in its URL (the ticket page, the Stripe payment
//! page): never cached, referred, framed, sniffed or indexed, under the page's own script
//! policy, so the key leaves in no `Referer` and no cache.

use axum::{
    http::{header, HeaderValue},
    response::Response,
};

/// `response` with the keyed page's headers and `policy` as its `Content-Security-Policy`.
pub fn kept_to_itself(mut response: Response, policy: HeaderValue) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::HeaderName::from_static("x-robots-tag"),
            "noindex, nofollow",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}
