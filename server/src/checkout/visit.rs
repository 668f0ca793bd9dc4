//! The visit a checkout is for, from the `date` the partner sends (docs/api-checkout.md, "Dates").
//!
//! An ISO 8601 date-time is converted to the merchant's zone and its local date is the visit
//! date; a date-time without an offset is read as the merchant's local time. A bare
//! `YYYY-MM-DD` is accepted for products without timeslots. Timeslotted products need a real
//! local time that equals a slot start: a missing or midnight time is `checkout-timeslot-required`
//! (midnight UTC can land on the wrong local day, and providers reject it).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;

/// What the `date` field said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisitInput {
    /// `YYYY-MM-DD`.
    Date(NaiveDate),
    /// A date-time with an offset (or `Z`).
    Instant(DateTime<Utc>),
    /// A date-time without an offset: the merchant's local time.
    Local(NaiveDateTime),
}

impl VisitInput {
    /// Parses an ISO 8601 date or date-time; `None` when it is neither.
    pub fn parse(text: &str) -> Option<VisitInput> {
        let text = text.trim();
        if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
            return Some(VisitInput::Instant(instant.with_timezone(&Utc)));
        }
        for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
            if let Ok(local) = NaiveDateTime::parse_from_str(text, format) {
                return Some(VisitInput::Local(local));
            }
        }
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .map(VisitInput::Date)
    }
}

/// The visit in the merchant's zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    pub date: NaiveDate,
    /// The local time, when one was given.
    pub time: Option<NaiveTime>,
}

impl Visit {
    pub fn resolve(input: VisitInput, zone: Tz) -> Visit {
        match input {
            VisitInput::Date(date) => Visit { date, time: None },
            VisitInput::Instant(instant) => {
                let local = instant.with_timezone(&zone).naive_local();
                Visit {
                    date: local.date(),
                    time: Some(local.time()),
                }
            }
            VisitInput::Local(local) => Visit {
                date: local.date(),
                time: Some(local.time()),
            },
        }
    }

    /// The time to match against slot starts; `None` when missing or midnight.
    pub fn slot_time(&self) -> Option<NaiveTime> {
        self.time.filter(|t| *t != NaiveTime::MIN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn an_instant_is_read_in_the_merchants_zone() {
        let input = VisitInput::parse("2026-12-01T23:30:00Z").unwrap();
        let amsterdam = Visit::resolve(input, chrono_tz::Europe::Amsterdam);
        assert_eq!(
            amsterdam.date,
            date(2026, 12, 2),
            "00:30 the next day in Amsterdam"
        );
        assert_eq!(amsterdam.time, NaiveTime::from_hms_opt(0, 30, 0));
        let kiritimati = Visit::resolve(
            VisitInput::parse("2026-12-01T10:00:00Z").unwrap(),
            chrono_tz::Pacific::Kiritimati,
        );
        assert_eq!(kiritimati.date, date(2026, 12, 2), "UTC+14");
        let offset = Visit::resolve(
            VisitInput::parse("2026-03-29T10:00:00+02:00").unwrap(),
            chrono_tz::Europe::Amsterdam,
        );
        assert_eq!(
            offset.time,
            NaiveTime::from_hms_opt(10, 0, 0),
            "summer time began that night"
        );
    }

    #[test]
    fn a_local_date_time_and_a_bare_date_are_taken_as_they_are() {
        let local = Visit::resolve(
            VisitInput::parse("2026-12-01T09:30").unwrap(),
            chrono_tz::Europe::Amsterdam,
        );
        assert_eq!(
            (local.date, local.time),
            (date(2026, 12, 1), NaiveTime::from_hms_opt(9, 30, 0))
        );
        let bare = Visit::resolve(
            VisitInput::parse("2026-12-01").unwrap(),
            chrono_tz::Europe::Amsterdam,
        );
        assert_eq!(
            (bare.date, bare.time, bare.slot_time()),
            (date(2026, 12, 1), None, None)
        );
    }

    #[test]
    fn midnight_is_no_slot_time() {
        let midnight = Visit::resolve(
            VisitInput::parse("2026-12-01T00:00:00").unwrap(),
            chrono_tz::Europe::Amsterdam,
        );
        assert_eq!(midnight.slot_time(), None);
    }

    #[test]
    fn nonsense_is_not_a_visit() {
        for bad in [
            "",
            "tomorrow",
            "2026-13-01",
            "01-12-2026",
            "2026-12-01T25:00",
        ] {
            assert_eq!(VisitInput::parse(bad), None, "{bad}");
        }
    }
}
