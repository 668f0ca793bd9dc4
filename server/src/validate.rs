//! Input checks that collect every invalid field into one `request-validation-failed` problem.

use std::{collections::HashSet, hash::Hash};

use app::wire::FieldError;
use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;

use crate::error::{Error, Result};

/// The largest amount an input may name: 8 digits before the point, what every amount column
/// stores (`loyalty_points_per_unit` is NUMERIC(10,2)), and with which 20 lines of 50 places
/// still total within the NUMERIC(14,2) of checkout totals. Above it PostgreSQL would refuse
/// the row; the document's amount patterns say the same (`^[0-9]{1,8}…`).
pub const MAX_AMOUNT: Decimal = Decimal::from_parts(0x540B_E3FF, 2, 0, false, 2); // 99999999.99

/// The URL patterns, one text for the server (`Checks::http_url`, `return_url`) and the OpenAPI
/// document (`http_url_schema`, the wire types' `return_url`); written in `app::wire`, which
/// both read.
pub use app::wire::{
    HTTP_URL_PATTERN, JWKS_URL_TEMPLATE_PATTERN, ORIGIN_PATTERN, RETURN_URL_PATTERN,
};

static HTTP_URL: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(HTTP_URL_PATTERN).expect("a valid pattern"));
static JWKS_URL_TEMPLATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(JWKS_URL_TEMPLATE_PATTERN).expect("a valid pattern")
});
static ORIGIN: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(ORIGIN_PATTERN).expect("a valid pattern"));
static RETURN_URL: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(RETURN_URL_PATTERN).expect("a valid pattern"));

/// A checkout's `return_url` as [`RETURN_URL_PATTERN`] states it, parsed; `None` when it is not
/// one. Exactly the pattern: the document tells a client every URL the server takes.
pub fn return_url(value: &str) -> Option<url::Url> {
    if !RETURN_URL.is_match(value) {
        return None;
    }
    url::Url::parse(value)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// The document's schema of a URL field ([`HTTP_URL_PATTERN`]); `null` when it is optional.
fn url_schema(pattern: &str, nullable: bool) -> utoipa::openapi::schema::ObjectBuilder {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let types = if nullable {
        SchemaType::from_iter([Type::String, Type::Null])
    } else {
        SchemaType::Type(Type::String)
    };
    ObjectBuilder::new()
        .schema_type(types)
        .pattern(Some(pattern))
        .examples(["https://www.example.com/tickets"])
}

/// `#[schema(schema_with = …)]` of an optional URL field.
pub fn http_url_schema() -> utoipa::openapi::schema::ObjectBuilder {
    url_schema(HTTP_URL_PATTERN, true)
        .description(Some("An absolute http(s) URL at a public address."))
}

/// `#[schema(schema_with = …)]` of an optional URL field where blank means none.
pub fn blank_or_http_url_schema() -> utoipa::openapi::schema::ObjectBuilder {
    url_schema(&format!(r"^\s*$|{HTTP_URL_PATTERN}"), true).description(Some(
        "An absolute http(s) URL at a public address; blank is none.",
    ))
}

/// `#[schema(schema_with = …)]` of `jwks_url_template`.
pub fn jwks_url_template_schema() -> utoipa::openapi::schema::ObjectBuilder {
    url_schema(JWKS_URL_TEMPLATE_PATTERN, false)
        .description(Some(
            "An absolute http(s) URL at a public address, `{apiKey}` its only placeholder.",
        ))
        .examples(["https://id.retailer.example/{apiKey}/.well-known/jwks.json"])
}

/// Collects field errors; `finish` fails with all of them at once.
#[derive(Debug, Default)]
pub struct Checks {
    errors: Vec<FieldError>,
}

impl Checks {
    pub fn fail(&mut self, field: &str, code: &str, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, code, message));
    }

    /// Records a failure when `ok` is false.
    pub fn check(&mut self, ok: bool, field: &str, code: &str, message: impl Into<String>) {
        if !ok {
            self.fail(field, code, message);
        }
    }

    /// Text of `min..=max` characters, not blank when `min > 0`, without control characters:
    /// texts reach mails, calendar files and wallet passes, where a carriage return or a line
    /// break would start a line of the text's own making (a `.ics` property, a header).
    pub fn text(&mut self, field: &str, value: &str, min: usize, max: usize) {
        let len = value.chars().count();
        if min > 0 && value.trim().is_empty() {
            self.fail(field, "required", format!("{field} must not be empty"));
        } else if len < min || len > max {
            self.fail(
                field,
                "length",
                format!("{field} must be {min} to {max} characters"),
            );
        } else if value.chars().any(char::is_control) {
            self.fail(
                field,
                "control_character",
                format!(
                    "{field} must not hold control characters (line breaks, tabs and the like)"
                ),
            );
        }
    }

    /// An amount of money: not negative, at most [`MAX_AMOUNT`], at most two decimals.
    pub fn non_negative_amount(&mut self, field: &str, value: Decimal) {
        if value.is_sign_negative() {
            self.fail(field, "negative", format!("{field} must not be negative"));
        } else if value > MAX_AMOUNT {
            self.too_large(field);
        } else if value.normalize().scale() > 2 {
            self.fail(
                field,
                "precision",
                format!("{field} must have at most two decimals"),
            );
        }
    }

    /// An absolute http(s) URL as [`HTTP_URL_PATTERN`] states it.
    pub fn http_url(&mut self, field: &str, value: &str) {
        if !(HTTP_URL.is_match(value) && is_http_url(value)) {
            self.fail(
                field,
                "url",
                format!("{field} must be an absolute http(s) URL"),
            );
        }
    }

    /// An origin: scheme, host and optional port, nothing else (`http://localhost:*` allowed).
    pub fn origin(&mut self, field: &str, value: &str) {
        if !is_origin_pattern(value) {
            self.fail(
                field,
                "origin",
                format!(
                    "{field} must be an origin such as https://shop.example or http://localhost:*"
                ),
            );
        }
    }

    /// A list of origins, each named by its index (`frame_origins[2]`), at most `max` of them.
    pub fn origins(&mut self, field: &str, values: &[String], max: usize) {
        if values.len() > max {
            self.fail(
                field,
                "too_many",
                format!("{field} may hold at most {max} origins"),
            );
        }
        for (i, value) in values.iter().enumerate() {
            self.origin(&format!("{field}[{i}]"), value);
        }
    }

    /// An identity issuer's key URL ([`JWKS_URL_TEMPLATE_PATTERN`]): `{apiKey}` its only
    /// placeholder, and an absolute http(s) URL once it is filled in.
    pub fn jwks_url_template(&mut self, field: &str, value: &str) {
        let filled = value.replace("{apiKey}", "sample-value");
        if filled.contains(['{', '}']) {
            self.fail(
                field,
                "placeholder",
                format!("{field} may contain only the placeholder {{apiKey}}"),
            );
        } else if !(JWKS_URL_TEMPLATE.is_match(value) && is_http_url(&filled)) {
            self.fail(
                field,
                "url",
                format!(
                    "{field} must be an absolute http(s) URL once its placeholder is filled in"
                ),
            );
        }
    }

    /// A machine identifier: `min..=max` ASCII letters, digits, `.`, `_` or `-`, the characters
    /// that travel unescaped in URLs, form bodies and HTTP Basic credentials.
    pub fn identifier(&mut self, field: &str, value: &str, min: usize, max: usize) {
        let ok = (min..=max).contains(&value.len())
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        self.check(
            ok,
            field,
            "identifier",
            format!("{field} must be {min} to {max} letters, digits, '.', '_' or '-'"),
        );
    }

    /// An amount that must be above zero, at most [`MAX_AMOUNT`], with at most two decimals.
    pub fn positive_amount(&mut self, field: &str, value: Decimal) {
        if value <= Decimal::ZERO {
            self.fail(field, "not_positive", format!("{field} must be above zero"));
        } else if value > MAX_AMOUNT {
            self.too_large(field);
        } else {
            self.two_decimals(field, value);
        }
    }

    /// A percentage above 0 and at most 100, with at most two decimals.
    pub fn percentage(&mut self, field: &str, value: Decimal) {
        if value <= Decimal::ZERO || value > Decimal::ONE_HUNDRED {
            self.fail(
                field,
                "out_of_range",
                format!("{field} must be above 0 and at most 100"),
            );
        } else {
            self.two_decimals(field, value);
        }
    }

    fn too_large(&mut self, field: &str) {
        self.fail(
            field,
            "too_large",
            format!("{field} must be at most {MAX_AMOUNT}"),
        );
    }

    fn two_decimals(&mut self, field: &str, value: Decimal) {
        if value.normalize().scale() > 2 {
            self.fail(
                field,
                "precision",
                format!("{field} must have at most two decimals"),
            );
        }
    }

    /// An IANA time zone name such as `Europe/Amsterdam`.
    pub fn timezone(&mut self, field: &str, value: &str) {
        if value.parse::<chrono_tz::Tz>().is_err() {
            self.fail(
                field,
                "timezone",
                format!("{field} must be an IANA time zone such as Europe/Amsterdam"),
            );
        }
    }

    /// An ISO 4217 style currency code: three upper-case letters.
    pub fn currency(&mut self, field: &str, value: &str) {
        let ok = value.len() == 3 && value.bytes().all(|b| b.is_ascii_uppercase());
        self.check(
            ok,
            field,
            "currency",
            format!("{field} must be a three-letter currency code such as EUR"),
        );
    }

    /// An ISO 3166-1 alpha-2 country code, upper case (`is_country`).
    pub fn country(&mut self, field: &str, value: &str) {
        self.check(
            is_country(value),
            field,
            "country",
            format!("{field} must be an ISO 3166-1 alpha-2 country code such as NL"),
        );
    }

    /// A plausible e-mail address: one `@`, a local part, a dotted domain, no spaces.
    pub fn email(&mut self, field: &str, value: &str) {
        self.check(
            is_email(value),
            field,
            "email",
            format!("{field} must be an e-mail address"),
        );
    }

    /// A finite number within `min..=max`.
    pub fn in_range(&mut self, field: &str, value: f64, min: f64, max: f64) {
        self.check(
            value.is_finite() && (min..=max).contains(&value),
            field,
            "out_of_range",
            format!("{field} must be between {min} and {max}"),
        );
    }

    /// A date range `from..=until` of at most `max_days` days; a failure names `until_field`.
    pub fn date_range(
        &mut self,
        until_field: &str,
        from: NaiveDate,
        until: NaiveDate,
        max_days: i64,
    ) {
        if until < from {
            self.fail(
                until_field,
                "before_from",
                format!("{until_field} must not be before from"),
            );
        } else if (until - from).num_days() + 1 > max_days {
            self.fail(
                until_field,
                "range_too_long",
                format!("from..{until_field} may span at most {max_days} days"),
            );
        }
    }

    /// A time of day written `HH:MM` (24-hour clock), returned when valid.
    pub fn time_of_day(&mut self, field: &str, value: &str) -> Option<NaiveTime> {
        let parsed = (value.len() == 5 && value.as_bytes()[2] == b':')
            .then(|| NaiveTime::parse_from_str(value, "%H:%M").ok())
            .flatten();
        if parsed.is_none() {
            self.fail(
                field,
                "time",
                format!("{field} must be a time of day written HH:MM, such as 09:30"),
            );
        }
        parsed
    }

    /// Every value that repeats an earlier one fails as `field(index)`.
    pub fn distinct<T: Eq + Hash>(
        &mut self,
        values: impl IntoIterator<Item = T>,
        field: impl Fn(usize) -> String,
    ) {
        let mut seen = HashSet::new();
        for (i, value) in values.into_iter().enumerate() {
            if !seen.insert(value) {
                let name = field(i);
                let message = format!("{name} repeats an earlier value");
                self.fail(&name, "duplicate", message);
            }
        }
    }

    /// The failures recorded so far.
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    pub fn finish(self) -> Result<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.errors))
        }
    }
}

/// Whether `value` is an absolute http(s) URL with a host.
pub fn is_http_url(value: &str) -> bool {
    matches!(url::Url::parse(value), Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// Whether `value` looks like an e-mail address; delivery is the real test, this catches typos.
pub fn is_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    value.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether `value` is an origin as [`ORIGIN_PATTERN`] states it (`http://localhost:*` allowed).
pub fn is_origin_pattern(value: &str) -> bool {
    ORIGIN.is_match(value)
}

/// Whether `code` is the ISO 3166-1 alpha-2 code of a country, in upper case. The one country
/// list of the server (merchants' addresses and customers' shipping addresses alike), from the
/// `celes` crate, which follows ISO's changes.
pub fn is_country(code: &str) -> bool {
    code.len() == 2
        && code.bytes().all(|b| b.is_ascii_uppercase())
        && celes::Country::from_alpha2(code).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_amount_has_eight_digits_before_the_point() {
        assert_eq!(MAX_AMOUNT.to_string(), "99999999.99");
        let mut checks = Checks::default();
        checks.non_negative_amount("a", MAX_AMOUNT);
        checks.positive_amount("b", MAX_AMOUNT);
        assert!(checks.finish().is_ok());
        let mut checks = Checks::default();
        checks.non_negative_amount("a", "100000000".parse().unwrap());
        checks.positive_amount("b", "100000000.00".parse().unwrap());
        assert_eq!(
            failed_with_codes(checks),
            [
                ("a".into(), "too_large".into()),
                ("b".into(), "too_large".into())
            ]
        );
    }

    #[test]
    fn origins() {
        for ok in [
            "https://shop.example",
            "http://localhost:*",
            "http://127.0.0.1:3000",
            "https://shop.example:65535",
        ] {
            assert!(is_origin_pattern(ok), "{ok}");
        }
        for bad in [
            "shop.example",
            "https://shop.example/path",
            "ftp://x",
            "https://",
            "https://a:b",
            "https://u@x",
            "https://shop.example:65536",
            "https://shop.example:0",
            "http://[::1]:8080",
        ] {
            assert!(!is_origin_pattern(bad), "{bad}");
        }
    }

    fn failed_fields(checks: Checks) -> Vec<String> {
        match checks.finish() {
            Ok(()) => Vec::new(),
            Err(Error::Problem { errors, .. }) => errors.into_iter().map(|e| e.field).collect(),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn ranges_dates_times_and_repeats() {
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        let mut checks = Checks::default();
        checks.in_range("lat", 90.0, -90.0, 90.0);
        checks.date_range("until", d("2026-01-01"), d("2026-12-31"), 366);
        checks.date_range("until", d("2028-01-01"), d("2028-12-31"), 366);
        assert_eq!(
            checks.time_of_day("t", "23:59"),
            NaiveTime::from_hms_opt(23, 59, 0)
        );
        checks.distinct([1, 2, 3], |i| format!("x[{i}]"));
        assert!(failed_fields(checks).is_empty());

        let mut checks = Checks::default();
        checks.in_range("a", 90.5, -90.0, 90.0);
        checks.in_range("b", f64::NAN, -90.0, 90.0);
        checks.date_range("c", d("2026-01-02"), d("2026-01-01"), 366);
        checks.date_range("d", d("2026-01-01"), d("2027-01-02"), 366);
        for bad in ["24:00", "9:30", "09:30:00", "0930", "ab:cd"] {
            assert_eq!(checks.time_of_day("e", bad), None, "{bad}");
        }
        checks.distinct(["x", "y", "x"], |i| format!("f[{i}]"));
        let fields = failed_fields(checks);
        assert_eq!(
            fields,
            ["a", "b", "c", "d", "e", "e", "e", "e", "e", "f[2]"]
        );
    }

    #[test]
    fn emails() {
        for ok in ["a@b.nl", "first.last+tag@sub.example.com"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "", "a", "a@b", "@b.nl", "a@@b.nl", "a b@c.nl", "a@.nl", "a@b.",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn amounts() {
        let mut checks = Checks::default();
        checks.non_negative_amount("a", "1.50".parse().unwrap());
        checks.non_negative_amount("b", "1.500".parse().unwrap());
        assert!(checks.finish().is_ok());
        let mut checks = Checks::default();
        checks.non_negative_amount("c", "-1".parse().unwrap());
        checks.non_negative_amount("d", "1.005".parse().unwrap());
        let Err(Error::Problem { errors, .. }) = checks.finish() else {
            panic!()
        };
        assert_eq!(errors.len(), 2);
    }

    fn failed_with_codes(checks: Checks) -> Vec<(String, String)> {
        match checks.finish() {
            Ok(()) => Vec::new(),
            Err(Error::Problem { errors, .. }) => {
                errors.into_iter().map(|e| (e.field, e.code)).collect()
            }
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn texts_hold_no_control_characters() {
        let mut checks = Checks::default();
        checks.text("cr", "Artis\r\nX-INJECTED:1", 1, 200);
        checks.text("tab", "tab\there", 1, 200);
        checks.text("bell", "bell\u{7}", 1, 200);
        checks.text("nel", "next\u{85}line", 1, 200);
        checks.text("fine", "Café Ü 東京 – “quoted”", 1, 200);
        let control = |field: &str| (field.to_owned(), "control_character".to_owned());
        assert_eq!(
            failed_with_codes(checks),
            [
                control("cr"),
                control("tab"),
                control("bell"),
                control("nel")
            ]
        );
    }

    #[test]
    fn url_templates() {
        let mut checks = Checks::default();
        checks.jwks_url_template("a", "https://idp.example/{apiKey}/jwks");
        checks.jwks_url_template("b", "https://idp.example/jwks?key={apiKey}");
        checks.jwks_url_template("c", "https://idp.example/jwks");
        assert!(failed_with_codes(checks).is_empty());
        let mut checks = Checks::default();
        checks.jwks_url_template("typo", "https://idp.example/{apikey}");
        checks.jwks_url_template("relative", "/{apiKey}/jwks");
        checks.jwks_url_template("scheme", "ftp://idp.example/{apiKey}");
        checks.jwks_url_template("host", "https://idp.example*/{apiKey}");
        let codes = failed_with_codes(checks);
        assert_eq!(
            codes,
            [
                ("typo".into(), "placeholder".into()),
                ("relative".into(), "url".into()),
                ("scheme".into(), "url".into()),
                ("host".into(), "url".into()),
            ]
        );
    }

    /// A return URL is taken as a browser writes a page's address, and exactly when the
    /// document's pattern matches it.
    #[test]
    fn return_urls_are_what_the_pattern_says() {
        let pattern = regex::Regex::new(RETURN_URL_PATTERN).unwrap();
        let taken = [
            "http://localhost:8080/tickets/done?basket=7",
            "https://shop.example:65535/back?order=1&lang=nl#tickets",
            "http://127.0.0.1:3000/return?items[]=1&q={a|b}#/route?x=1#y",
            "https://shop.example",
        ];
        for url in taken {
            assert!(return_url(url).is_some(), "{url}");
            assert!(pattern.is_match(url), "{url}");
        }
        let refused = [
            " https://shop.example/back",
            "https://shop.example/back space",
            "https://user@shop.example/",
            "https://shop.example:65536/",
            "https://[::1]/",
            "ftp://shop.example/",
            "https://shop.example/<script>",
            "https://shop.example/%zz",
        ];
        for url in refused {
            assert!(return_url(url).is_none(), "{url}");
            assert!(!pattern.is_match(url), "{url}");
        }
    }

    /// The document's URL pattern is the server's rule: what it matches is a URL the server
    /// parses, and what it does not is refused.
    #[test]
    fn http_urls_are_what_the_pattern_says() {
        let taken = [
            "https://www.example.com",
            "http://example.com:8080/a/b.html",
            "https://shop.example/path;v=1/~x?utm_source=a&ref=b%20c",
            "https://93.184.216.34:65535/",
        ];
        let refusals = |url: &str| {
            let mut checks = Checks::default();
            checks.http_url("url", url);
            failed_with_codes(checks).len()
        };
        for url in taken {
            assert_eq!(refusals(url), 0, "{url}");
        }
        let refused = [
            "https://example.com*",
            "https://exa mple.com",
            " https://example.com",
            "https://example.com/#top",
            "https://user@example.com/",
            "https://example.com:0/",
            "https://example.com:65536/",
            "https://[::1]/",
            "https://example.com/%zz",
            "https://1.2.3.04/",
            "https://example.com/ä",
            "ftp://example.com/",
            "HTTPS://EXAMPLE.COM/",
        ];
        for url in refused {
            assert_eq!(refusals(url), 1, "{url}");
        }
    }

    #[test]
    fn identifiers() {
        let mut checks = Checks::default();
        checks.identifier("a", "demo-partner", 3, 64);
        checks.identifier("b", "pc_0f.A", 3, 64);
        assert!(failed_with_codes(checks).is_empty());
        let mut checks = Checks::default();
        checks.identifier("space", "a b c", 3, 64);
        checks.identifier("colon", "a:bc", 3, 64);
        checks.identifier("short", "ab", 3, 64);
        checks.identifier("unicode", "café", 3, 64);
        assert_eq!(failed_with_codes(checks).len(), 4);
    }

    #[test]
    fn positive_amounts_and_percentages() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let mut checks = Checks::default();
        checks.positive_amount("a", d("0.01"));
        checks.percentage("b", d("100"));
        checks.percentage("c", d("12.50"));
        assert!(failed_with_codes(checks).is_empty());
        let mut checks = Checks::default();
        checks.positive_amount("zero", d("0"));
        checks.positive_amount("negative", d("-5"));
        checks.positive_amount("cents", d("1.001"));
        checks.percentage("above", d("100.01"));
        checks.percentage("none", d("0"));
        checks.percentage("fine", d("0.005"));
        let codes: Vec<String> = failed_with_codes(checks)
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        assert_eq!(
            codes,
            [
                "not_positive",
                "not_positive",
                "precision",
                "out_of_range",
                "out_of_range",
                "precision"
            ]
        );
    }

    #[test]
    fn origin_lists_name_the_index() {
        let mut checks = Checks::default();
        checks.origins(
            "frame_origins",
            &["https://ok.example".into(), "https://x/path".into()],
            10,
        );
        assert_eq!(
            failed_with_codes(checks),
            [("frame_origins[1]".into(), "origin".into())]
        );
    }
}
