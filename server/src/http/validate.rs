//! Input checks that collect every invalid field into one `request-validation-failed` problem.

use app::wire::FieldError;
use rust_decimal::Decimal;

use crate::error::{Error, Result};

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

    /// Text of `min..=max` characters, not blank when `min > 0`.
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
        }
    }

    /// An amount of money: not negative, at most two decimals.
    pub fn non_negative_amount(&mut self, field: &str, value: Decimal) {
        if value.is_sign_negative() {
            self.fail(field, "negative", format!("{field} must not be negative"));
        } else if value.normalize().scale() > 2 {
            self.fail(
                field,
                "precision",
                format!("{field} must have at most two decimals"),
            );
        }
    }

    /// An absolute http(s) URL.
    pub fn http_url(&mut self, field: &str, value: &str) {
        match url::Url::parse(value) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
            _ => self.fail(
                field,
                "url",
                format!("{field} must be an absolute http(s) URL"),
            ),
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

    /// An ISO 3166-1 alpha-2 style country code: two upper-case letters.
    pub fn country(&mut self, field: &str, value: &str) {
        let ok = value.len() == 2 && value.bytes().all(|b| b.is_ascii_uppercase());
        self.check(
            ok,
            field,
            "country",
            format!("{field} must be a two-letter country code such as NL"),
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

    pub fn finish(self) -> Result<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.errors))
        }
    }
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

/// `scheme://host[:port]` with no path, query or user info; the port may be `*`.
pub fn is_origin_pattern(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") || rest.is_empty() {
        return false;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.contains(']') || h.ends_with(']') => (h, Some(p)),
        _ => (rest, None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'[' | b']' | b':'));
    let port_ok = match port {
        None => true,
        Some("*") => true,
        Some(p) => p.parse::<u16>().is_ok(),
    };
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for ok in [
            "https://shop.example",
            "http://localhost:*",
            "http://127.0.0.1:3000",
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
        ] {
            assert!(!is_origin_pattern(bad), "{bad}");
        }
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
}
