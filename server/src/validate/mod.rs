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
    /// A text given per language (`{"nl-NL": …, "en-GB": …}`): at least one language, each
    /// text 1 to 200 characters.
    pub fn localized(&mut self, field: &str, text: &app::wire::LocalizedText) {
        let texts = text.texts();
        self.check(
            texts.iter().any(|(_, text)| text.is_some()),
            field,
            "required",
            format!("{field} needs a text in at least one language"),
        );
        for (locale, text) in texts {
            if let Some(text) = text {
                self.text(&format!("{field}.{}", locale.tag()), text, 1, 200);
            }
        }
    }

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
mod tests;
