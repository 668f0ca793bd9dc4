use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// The four languages Boxoffice speaks. `nl-NL` is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Locale {
    #[default]
    #[serde(rename = "nl-NL")]
    NlNl,
    #[serde(rename = "en-GB")]
    EnGb,
    #[serde(rename = "de-DE")]
    DeDe,
    #[serde(rename = "fr-FR")]
    FrFr,
}

impl Locale {
    pub const ALL: [Locale; 4] = [Locale::NlNl, Locale::EnGb, Locale::DeDe, Locale::FrFr];

    /// The BCP 47 tag, e.g. `en-GB`.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::NlNl => "nl-NL",
            Locale::EnGb => "en-GB",
            Locale::DeDe => "de-DE",
            Locale::FrFr => "fr-FR",
        }
    }

    /// The primary language subtag, e.g. `en`.
    pub fn language(self) -> &'static str {
        &self.tag()[..2]
    }

    /// Picks the best supported locale for an `Accept-Language` header value.
    ///
    /// RFC 4647 lookup over the ranges in q-value order (ties keep header order): a range
    /// matches a supported tag exactly, or by its primary language (`en` and `en-US` give
    /// `en-GB`, `de-AT` gives `de-DE`). `*` takes the default; `q=0` excludes. A missing or
    /// malformed header gives the default, since a bad preference must not fail a request.
    pub fn negotiate(accept_language: Option<&str>) -> Locale {
        let Some(header) = accept_language else {
            return Locale::default();
        };
        let mut ranges: Vec<(&str, u16)> = header
            .split(',')
            .filter_map(|part| {
                let mut pieces = part.split(';');
                let range = pieces.next()?.trim();
                if range.is_empty() {
                    return None;
                }
                let q = pieces
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .map_or(Some(1000), parse_qvalue)?;
                Some((range, q))
            })
            .collect();
        ranges.sort_by_key(|r| std::cmp::Reverse(r.1));
        for (range, q) in ranges {
            if q == 0 {
                continue;
            }
            if range == "*" {
                return Locale::default();
            }
            if let Some(exact) = Locale::ALL
                .into_iter()
                .find(|l| l.tag().eq_ignore_ascii_case(range))
            {
                return exact;
            }
            let primary = range.split('-').next().unwrap_or(range);
            if let Some(by_language) = Locale::ALL
                .into_iter()
                .find(|l| l.language().eq_ignore_ascii_case(primary))
            {
                return by_language;
            }
        }
        Locale::default()
    }
}

/// A qvalue (RFC 9110 §12.4.2) in thousandths; `None` when malformed.
fn parse_qvalue(text: &str) -> Option<u16> {
    let value: f32 = text.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        .then(|| (value * 1000.0).round() as u16)
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

impl FromStr for Locale {
    type Err = String;

    /// Parses an exact supported tag, case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Locale::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unsupported locale `{s}`; use one of nl-NL, en-GB, de-DE, fr-FR")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::Locale::{self, *};

    #[test]
    fn negotiation_follows_rfc_4647_lookup_with_language_fallback() {
        let cases: &[(Option<&str>, Locale)] = &[
            (None, NlNl),
            (Some(""), NlNl),
            (Some("en"), EnGb),
            (Some("en-US"), EnGb),
            (Some("de-AT"), DeDe),
            (Some("FR-fr"), FrFr),
            (Some("es, en;q=0.5"), EnGb),
            (Some("en;q=0.5, de;q=0.9"), DeDe),
            (Some("en;q=0.5, de;q=0.5"), EnGb),
            (Some("de;q=0, en;q=0.1"), EnGb),
            (Some("*"), NlNl),
            (Some("ja, zh"), NlNl),
            (Some("en;q=abc, fr"), FrFr),
            (Some("en;q=2"), NlNl),
            (Some(";;;,,,"), NlNl),
        ];
        for (header, expected) in cases {
            assert_eq!(Locale::negotiate(*header), *expected, "header {header:?}");
        }
    }

    #[test]
    fn parses_exact_tags_only() {
        assert_eq!("en-gb".parse::<Locale>(), Ok(EnGb));
        assert!("en".parse::<Locale>().is_err());
    }
}
