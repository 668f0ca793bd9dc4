//! Conditional requests (RFC 9110 §13): whether `If-None-Match` already names the current
//! representation, so the answer can be 304 without a body.

use axum::http::{header, HeaderMap, HeaderValue};

/// Whether `If-None-Match` matches `etag` by weak comparison (as §13.1.2 prescribes for this
/// header): `*`, or any listed tag with the same opaque value, `W/` or not.
pub fn none_match(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let current = opaque(etag.to_str().unwrap_or_default());
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || (!tag.is_empty() && opaque(tag) == current))
}

fn opaque(tag: &str) -> &str {
    tag.strip_prefix("W/").unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn matches_listed_weak_and_wildcard_tags_only() {
        let etag = HeaderValue::from_static("\"abc\"");
        assert!(none_match(&with("\"abc\""), &etag));
        assert!(none_match(&with("\"x\", W/\"abc\""), &etag));
        assert!(none_match(&with("*"), &etag));
        assert!(!none_match(&with("\"abcd\""), &etag));
        assert!(
            !none_match(&with("abc"), &etag),
            "an unquoted tag is another tag"
        );
        assert!(!none_match(&HeaderMap::new(), &etag));
    }
}
