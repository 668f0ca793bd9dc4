//! Reading credentials from requests.

use axum::http::{header, HeaderMap};

/// The token of an `Authorization: Bearer …` header (scheme case-insensitive), if any.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}
