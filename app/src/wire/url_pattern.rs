//! The URL patterns the server checks and the OpenAPI document states, one text for both
//! (`server::validate` compiles them; a wire type's `schema` names them): a generated client and
//! the server agree on every string, which the judges test from both sides (`.ci/judges`,
//! schemathesis) and `openapi_document.rs` reads as ECMA-262, as JSON Schema validators do.

/// A host: a name or an IPv4 address.
macro_rules! host_pattern {
    () => {
        concat!(
            r"([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*",
            r"|((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
        )
    };
}

/// A port, 1 to 65535.
macro_rules! port_pattern {
    () => {
        r"6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}"
    };
}

/// An http(s) URL with `$extra` as one more alternative for a character of its path and query,
/// and `$fragment` after them (`""` for none). Its host is a name or an IPv4 address, its port
/// 1 to 65535, its path and query RFC 3986's characters or `%` escapes; no user.
macro_rules! http_url_pattern {
    ($extra:literal) => {
        http_url_pattern!($extra, "")
    };
    ($extra:literal, $fragment:literal) => {
        concat!(
            r"^https?://(",
            host_pattern!(),
            r")(:(",
            port_pattern!(),
            r"))?",
            r"(/([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}",
            $extra,
            r")*)*(\?([A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2}",
            $extra,
            r")*)?",
            $fragment,
            "$"
        )
    };
}

/// A partner's origin as a client record lists it (frame and return origins): scheme, host
/// (a name or an IPv4 address, as in the URL patterns) and port, nothing else; the port may
/// be `*`, any port (`http://localhost:*`).
pub const ORIGIN_PATTERN: &str = concat!(
    r"^https?://(",
    host_pattern!(),
    r")(:(\*|",
    port_pattern!(),
    r"))?$"
);

/// The http(s) URLs the API keeps as links or calls (a merchant's website and image, a
/// partner's webhook): no fragment.
pub const HTTP_URL_PATTERN: &str = http_url_pattern!("");

/// An identity issuer's key URL, where `{apiKey}` may stand in the path and the query.
pub const JWKS_URL_TEMPLATE_PATTERN: &str = http_url_pattern!(r"|\{apiKey\}");

/// Where a payment sends the customer back: a partner's page as a browser writes its address
/// (embed.js's default is the page's `location.href`), so with a fragment, and with the
/// characters a browser leaves as they are in a path, query and fragment (`[]{}|^` and the
/// backtick).
pub const RETURN_URL_PATTERN: &str = http_url_pattern!(
    r"|[\[\]{}|^`]",
    r"(#([A-Za-z0-9._~!$&'()*+,;=:@/?#-]|%[0-9A-Fa-f]{2}|[\[\]{}|^`])*)?"
);
