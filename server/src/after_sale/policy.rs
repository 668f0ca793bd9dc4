//! A product's after-sale policy (issue 41; docs/operator-catalog.md, "After the sale"): refund
//! rules by how long before the visit, a date-change deadline, and the EU withdrawal period.
//! Deadlines are judged in the merchant's IANA zone: a duration's days count on the merchant's
//! calendar (wall clock), its hours, minutes and seconds as elapsed time, so "P1D" before a
//! 10:00 visit is 10:00 the day before also across a daylight-saving change, while "PT24H" is
//! exactly 24 hours earlier.

use app::wire::RefundRule;
use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;

/// A duration before the visit, as ISO 8601 (`PT48H`, `P2D`, `P1DT12H`, `P1W`). Years and
/// months are refused: their length depends on the month, which no merchant means by "before".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Before {
    days: u32,
    seconds: u32,
}

impl Before {
    /// Its calendar days and its elapsed seconds, as written.
    pub fn parts(self) -> (u32, u32) {
        (self.days, self.seconds)
    }

    /// Its length counting a day as 24 hours: how rules are put in order.
    pub fn nominal_seconds(self) -> u64 {
        u64::from(self.days) * 86_400 + u64::from(self.seconds)
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let duration: iso8601::Duration = text
            .parse()
            .map_err(|_| format!("`{text}` is not an ISO 8601 duration such as PT48H or P2D"))?;
        match duration {
            iso8601::Duration::Weeks(weeks) => Ok(Self {
                days: weeks.checked_mul(7).ok_or("too long")?,
                seconds: 0,
            }),
            iso8601::Duration::YMDHMS {
                year,
                month,
                day,
                hour,
                minute,
                second,
                millisecond,
            } => {
                if year != 0 || month != 0 {
                    return Err(format!(
                        "`{text}` counts years or months, whose length varies; use days (P30D)"
                    ));
                }
                if millisecond != 0 {
                    return Err(format!("`{text}` has fractions of a second"));
                }
                let seconds = u64::from(hour) * 3600 + u64::from(minute) * 60 + u64::from(second);
                let seconds = u32::try_from(seconds).map_err(|_| "too long".to_owned())?;
                if day > 3650 || seconds > 3650 * 86_400 {
                    return Err(format!("`{text}` is longer than ten years"));
                }
                Ok(Self { days: day, seconds })
            }
        }
    }

    /// The moment this long before `start` (an instant), the days counted on `zone`'s
    /// calendar at the same wall-clock time (the earlier instant when that time occurs twice,
    /// the first one after it when it does not occur), then the rest as elapsed time.
    pub fn before(self, start: DateTime<Utc>, zone: Tz) -> DateTime<Utc> {
        let local = start.with_timezone(&zone).naive_local();
        let day = local.date() - Days::new(u64::from(self.days));
        let wall = day.and_time(local.time());
        let shifted = zone
            .from_local_datetime(&wall)
            .earliest()
            .or_else(|| {
                // The skipped hour of a spring-forward: the same offset as before the gap.
                zone.from_local_datetime(&(wall + chrono::Duration::hours(1)))
                    .earliest()
            })
            .map_or(start, |t| t.with_timezone(&Utc));
        shifted - chrono::Duration::seconds(i64::from(self.seconds))
    }
}

impl std::fmt::Display for Before {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (h, m, s) = (
            self.seconds / 3600,
            self.seconds / 60 % 60,
            self.seconds % 60,
        );
        write!(f, "P")?;
        if self.days > 0 {
            write!(f, "{}D", self.days)?;
        }
        if self.seconds > 0 || self.days == 0 {
            write!(f, "T")?;
            if h > 0 {
                write!(f, "{h}H")?;
            }
            if m > 0 {
                write!(f, "{m}M")?;
            }
            if s > 0 || self.seconds == 0 {
                write!(f, "{s}S")?;
            }
        }
        Ok(())
    }
}

/// When a visit starts, for its deadlines: a timeslot's start; a dated ticket's day at 00:00
/// in the merchant's zone; an undated product with a validity period, the end of its last day.
pub fn visit_start(
    zone: Tz,
    slot_start: Option<DateTime<Utc>>,
    day: Option<NaiveDate>,
    valid_until: Option<NaiveDate>,
) -> Option<DateTime<Utc>> {
    if let Some(start) = slot_start {
        return Some(start);
    }
    match (day, valid_until) {
        (Some(day), _) => crate::time::day_start(zone, day),
        (None, Some(last)) => crate::time::day_start(zone, last.succ_opt()?),
        (None, None) => None,
    }
}

/// The rule of `rules` that applies at `now` for a visit starting at `start` (the first whose
/// deadline has not passed), with that deadline; `None` when every deadline has passed.
pub fn rule_at(
    rules: &[RefundRule],
    start: DateTime<Utc>,
    zone: Tz,
    now: DateTime<Utc>,
) -> Option<(&RefundRule, DateTime<Utc>)> {
    rules.iter().find_map(|rule| {
        let deadline = Before::parse(&rule.until).ok()?.before(start, zone);
        (now < deadline).then_some((rule, deadline))
    })
}

/// The last moment any of `rules` refunds something for a visit starting at `start`.
pub fn last_refund_deadline(
    rules: &[RefundRule],
    start: DateTime<Utc>,
    zone: Tz,
) -> Option<DateTime<Utc>> {
    rules
        .iter()
        .filter(|rule| rule.refund_percent > Decimal::ZERO)
        .filter_map(|rule| Some(Before::parse(&rule.until).ok()?.before(start, zone)))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMSTERDAM: Tz = chrono_tz::Europe::Amsterdam;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn durations_parse_in_days_hours_and_weeks_and_refuse_months() {
        assert_eq!(
            Before::parse("PT48H").unwrap(),
            Before {
                days: 0,
                seconds: 172_800
            }
        );
        assert_eq!(
            Before::parse("P2D").unwrap(),
            Before {
                days: 2,
                seconds: 0
            }
        );
        assert_eq!(
            Before::parse("P1DT12H").unwrap(),
            Before {
                days: 1,
                seconds: 43_200
            }
        );
        assert_eq!(
            Before::parse("P1W").unwrap(),
            Before {
                days: 7,
                seconds: 0
            }
        );
        assert!(Before::parse("P1M").is_err());
        assert!(Before::parse("P1Y").is_err());
        assert!(Before::parse("48h").is_err());
        assert!(Before::parse("").is_err());
        assert_eq!(Before::parse("P1DT12H").unwrap().to_string(), "P1DT12H");
        assert_eq!(Before::parse("PT30M").unwrap().to_string(), "PT30M");
    }

    #[test]
    fn hours_are_elapsed_time_and_days_wall_clock_across_spring_forward() {
        // Sunday 2026-03-29 Amsterdam moves from +01:00 to +02:00 at 02:00.
        let visit = utc("2026-03-30T08:00:00Z"); // Monday 10:00 +02:00
                                                 // 48 elapsed hours: Saturday 08:00 UTC, which is 09:00 +01:00.
        assert_eq!(
            Before::parse("PT48H").unwrap().before(visit, AMSTERDAM),
            utc("2026-03-28T08:00:00Z")
        );
        // Two calendar days: Saturday at 10:00 local, +01:00 then: 09:00 UTC.
        assert_eq!(
            Before::parse("P2D").unwrap().before(visit, AMSTERDAM),
            utc("2026-03-28T09:00:00Z")
        );
    }

    #[test]
    fn a_wall_clock_time_the_clocks_skip_moves_past_the_gap() {
        // 02:30 on 2026-03-29 does not exist in Amsterdam; a day before 02:30 on the 30th
        // lands at 03:30 +02:00, the first wall-clock time after the gap at the same distance.
        let visit = utc("2026-03-30T00:30:00Z"); // Monday 02:30 +02:00
        assert_eq!(
            Before::parse("P1D").unwrap().before(visit, AMSTERDAM),
            utc("2026-03-29T01:30:00Z")
        );
    }

    #[test]
    fn a_dated_visit_starts_at_midnight_in_the_merchants_zone() {
        let day = "2026-10-25".parse().unwrap(); // clocks go back at 03:00 that night
        assert_eq!(
            visit_start(AMSTERDAM, None, Some(day), None),
            Some(utc("2026-10-24T22:00:00Z"))
        );
        let valid_until = "2026-12-31".parse().unwrap();
        assert_eq!(
            visit_start(AMSTERDAM, None, None, Some(valid_until)),
            Some(utc("2026-12-31T23:00:00Z"))
        );
        let slot = utc("2026-10-25T09:00:00Z");
        assert_eq!(
            visit_start(AMSTERDAM, Some(slot), Some(day), None),
            Some(slot)
        );
        assert_eq!(visit_start(AMSTERDAM, None, None, None), None);
    }

    #[test]
    fn the_first_rule_not_yet_past_applies_one_second_either_side() {
        let rules = vec![
            RefundRule {
                until: "PT48H".into(),
                refund_percent: Decimal::ONE_HUNDRED,
                fee: None,
                keep_fees: false,
            },
            RefundRule {
                until: "PT24H".into(),
                refund_percent: Decimal::new(50, 0),
                fee: None,
                keep_fees: false,
            },
        ];
        let visit = utc("2026-11-01T09:00:00Z"); // the Sunday after clocks went back
        let at = |s: &str| {
            rule_at(&rules, visit, AMSTERDAM, utc(s))
                .map(|(rule, deadline)| (rule.refund_percent, deadline))
        };
        let full = utc("2026-10-30T09:00:00Z");
        let half = utc("2026-10-31T09:00:00Z");
        assert_eq!(
            at("2026-10-30T08:59:59Z"),
            Some((Decimal::ONE_HUNDRED, full))
        );
        assert_eq!(
            at("2026-10-30T09:00:00Z"),
            Some((Decimal::new(50, 0), half))
        );
        assert_eq!(
            at("2026-10-31T08:59:59Z"),
            Some((Decimal::new(50, 0), half))
        );
        assert_eq!(at("2026-10-31T09:00:00Z"), None);
        assert_eq!(last_refund_deadline(&rules, visit, AMSTERDAM), Some(half));
    }
}
