//! When a ticket lets its holder in (docs/gate.md, "When a ticket is valid"), judged in the
//! merchant's IANA zone: a day ticket from its day's first instant to the next day's; a slot
//! from its start less the gate's `early_minutes` to its end plus `late_minutes`; an undated
//! ticket from the day it was issued to the end of its last valid day, or always without one.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::time::{day_start, local_date};

/// A ticket's validity as a gate judges it: what the ticket says, before a gate's margins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    Slot {
        start: DateTime<Utc>,
        end: DateTime<Utc>,
    },
    Day(NaiveDate),
    /// Undated: from its issue to the end of `until` (inclusive), or for good.
    Undated {
        issued: DateTime<Utc>,
        until: Option<NaiveDate>,
    },
}

/// From when until when (exclusive) a gate lets a ticket in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: DateTime<Utc>,
    pub until: Option<DateTime<Utc>>,
}

impl Window {
    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        self.from <= at && self.until.is_none_or(|until| at < until)
    }
}

/// The window a gate with these margins lets a ticket of `validity` in.
pub fn window(validity: Validity, zone: Tz, early_minutes: i32, late_minutes: i32) -> Window {
    match validity {
        Validity::Slot { start, end } => Window {
            from: start - Duration::minutes(early_minutes.into()),
            until: Some(end + Duration::minutes(late_minutes.into())),
        },
        Validity::Day(day) => Window {
            from: start_of(zone, day),
            until: day.succ_opt().map(|next| start_of(zone, next)),
        },
        Validity::Undated { issued, until } => Window {
            from: start_of(zone, local_date(zone, issued)),
            until: until
                .and_then(|last| last.succ_opt())
                .map(|next| start_of(zone, next)),
        },
    }
}

/// A day's first instant; every IANA zone has one within its first hours.
fn start_of(zone: Tz, day: NaiveDate) -> DateTime<Utc> {
    day_start(zone, day).unwrap_or_else(|| day.and_time(chrono::NaiveTime::MIN).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMSTERDAM: Tz = chrono_tz::Europe::Amsterdam;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_day_ticket_is_valid_from_its_midnight_to_the_next_in_the_merchants_zone() {
        let w = window(Validity::Day(day("2026-07-01")), AMSTERDAM, 30, 15);
        // Summer time: UTC+2. The gate's margins are for slots only.
        assert_eq!(w.from, utc("2026-06-30T22:00:00Z"));
        assert_eq!(w.until, Some(utc("2026-07-01T22:00:00Z")));
        assert!(!w.contains(utc("2026-06-30T21:59:59Z")));
        assert!(w.contains(utc("2026-06-30T22:00:00Z")));
        assert!(!w.contains(utc("2026-07-01T22:00:00Z")));
    }

    #[test]
    fn the_day_clocks_go_back_has_25_hours_and_the_day_they_go_forward_23() {
        let autumn = window(Validity::Day(day("2026-10-25")), AMSTERDAM, 0, 0);
        assert_eq!(autumn.until.unwrap() - autumn.from, Duration::hours(25));
        let spring = window(Validity::Day(day("2026-03-29")), AMSTERDAM, 0, 0);
        assert_eq!(spring.until.unwrap() - spring.from, Duration::hours(23));
    }

    #[test]
    fn a_slot_opens_early_minutes_before_its_start_and_closes_late_minutes_after_its_end() {
        let slot = Validity::Slot {
            start: utc("2026-07-01T08:00:00Z"),
            end: utc("2026-07-01T09:00:00Z"),
        };
        let w = window(slot, AMSTERDAM, 30, 10);
        assert!(!w.contains(utc("2026-07-01T07:29:59Z")));
        assert!(w.contains(utc("2026-07-01T07:30:00Z")));
        assert!(w.contains(utc("2026-07-01T09:09:59Z")));
        assert!(!w.contains(utc("2026-07-01T09:10:00Z")));
    }

    #[test]
    fn an_undated_ticket_runs_from_its_issue_day_to_the_end_of_its_last_day() {
        let w = window(
            Validity::Undated {
                issued: utc("2026-07-01T10:00:00Z"),
                until: Some(day("2026-07-31")),
            },
            AMSTERDAM,
            30,
            0,
        );
        assert_eq!(w.from, utc("2026-06-30T22:00:00Z"));
        assert_eq!(w.until, Some(utc("2026-07-31T22:00:00Z")));
        let forever = window(
            Validity::Undated {
                issued: utc("2026-07-01T10:00:00Z"),
                until: None,
            },
            AMSTERDAM,
            0,
            0,
        );
        assert!(forever.contains(utc("2036-01-01T00:00:00Z")));
    }
}
