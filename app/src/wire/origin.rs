//! Partner origins: a registered pattern (`scheme://host[:port]`, the port possibly `*`) and
//! whether an origin is one of them. The server checks return URLs with it, the frame the
//! page that embeds it.

/// Whether `origin` (`scheme://host[:port]`, as a URL's origin is written) is allowed by
/// `pattern`: the same origin, or with a `:*` port the same scheme and host on any port or
/// none. Letters compare case-insensitively, as hosts do.
pub fn origin_matches(pattern: &str, origin: &str) -> bool {
    let pattern = pattern.trim_end_matches('/');
    let Some(prefix) = pattern.strip_suffix(":*") else {
        return pattern.eq_ignore_ascii_case(origin);
    };
    let Some(rest) = origin
        .get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .map(|_| &origin[prefix.len()..])
    else {
        return false;
    };
    rest.is_empty()
        || rest
            .strip_prefix(':')
            .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::origin_matches;

    #[test]
    fn origins_match_exactly_or_on_any_port_of_a_wildcard() {
        assert!(origin_matches(
            "https://shop.example",
            "https://shop.example"
        ));
        assert!(origin_matches(
            "https://shop.example/",
            "https://shop.example"
        ));
        assert!(origin_matches(
            "HTTPS://Shop.Example",
            "https://shop.example"
        ));
        assert!(!origin_matches(
            "https://shop.example",
            "http://shop.example"
        ));
        assert!(!origin_matches(
            "https://shop.example",
            "https://shop.example.evil"
        ));
        assert!(!origin_matches(
            "https://shop.example",
            "https://shop.example:444"
        ));
        assert!(origin_matches(
            "http://localhost:*",
            "http://localhost:5173"
        ));
        assert!(origin_matches("http://localhost:*", "http://localhost"));
        assert!(!origin_matches(
            "http://localhost:*",
            "https://localhost:5173"
        ));
        assert!(!origin_matches(
            "http://localhost:*",
            "http://localhost.evil:80"
        ));
        assert!(!origin_matches(
            "http://localhost:*",
            "http://localhost:80x"
        ));
        assert!(!origin_matches("http://localhost:*", "http://local"));
        assert!(origin_matches(
            "http://127.0.0.1:3000",
            "http://127.0.0.1:3000"
        ));
    }
}
