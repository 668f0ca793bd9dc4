//! Wall-clock times in a merchant's IANA zone and the instants they name. Every merchant has a
//! zone; slots, "today" and "past" are judged there, while the store keeps UTC instants.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The UTC instant of `time` on `date` in `zone`, or `None` when that local time does not exist
/// (the hour skipped when clocks go forward).
///
/// A local time that occurs twice (the hour repeated when clocks go back) takes the earlier
/// instant: a slot then opens at its first occurrence, and since every local time maps to the
/// earlier side, later local times still give later instants on that day.
pub fn local_to_utc(zone: Tz, date: NaiveDate, time: NaiveTime) -> Option<DateTime<Utc>> {
    zone.from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|local| local.with_timezone(&Utc))
}

/// `instant` as the wall clock of `zone` shows it, with that moment's offset (what the wire
/// shows for timeslots: RFC 3339 with the merchant's offset).
pub fn in_zone(instant: DateTime<Utc>, zone: Tz) -> DateTime<FixedOffset> {
    instant.with_timezone(&zone).fixed_offset()
}

/// The first instant of `date` in `zone`: its midnight, or, where clocks skip midnight (as
/// some zones did), the first whole hour that exists.
pub fn day_start(zone: Tz, date: NaiveDate) -> Option<DateTime<Utc>> {
    (0..=3).find_map(|h| local_to_utc(zone, date, NaiveTime::from_hms_opt(h, 0, 0)?))
}

/// `instant` as both databases keep it: to the microsecond (PostgreSQL's precision), so an
/// answer made from it says what a later read of the stored value says.
pub fn to_stored(instant: DateTime<Utc>) -> DateTime<Utc> {
    use chrono::DurationRound;
    instant
        .duration_trunc(chrono::Duration::microseconds(1))
        .unwrap_or(instant)
}

/// The calendar date in `zone` at `now`.
pub fn local_date(zone: Tz, now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&zone).date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn time(s: &str) -> NaiveTime {
        NaiveTime::parse_from_str(s, "%H:%M").unwrap()
    }

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    const AMSTERDAM: Tz = chrono_tz::Europe::Amsterdam;

    #[test]
    fn amsterdam_spring_forward_skips_the_missing_hour() {
        let day = date("2026-03-29");
        assert_eq!(
            local_to_utc(AMSTERDAM, day, time("01:59")),
            Some(utc("2026-03-29T00:59:00Z"))
        );
        assert_eq!(local_to_utc(AMSTERDAM, day, time("02:00")), None);
        assert_eq!(local_to_utc(AMSTERDAM, day, time("02:30")), None);
        assert_eq!(
            local_to_utc(AMSTERDAM, day, time("03:00")),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        assert_eq!(
            local_to_utc(AMSTERDAM, day, time("10:00")),
            Some(utc("2026-03-29T08:00:00Z"))
        );
        assert_eq!(
            local_to_utc(AMSTERDAM, date("2026-03-28"), time("10:00")),
            Some(utc("2026-03-28T09:00:00Z"))
        );
    }

    #[test]
    fn amsterdam_fall_back_takes_the_earlier_of_the_repeated_hour() {
        let day = date("2026-10-25");
        assert_eq!(
            local_to_utc(AMSTERDAM, day, time("02:30")),
            Some(utc("2026-10-25T00:30:00Z")),
            "02:30 CEST (+02:00), not 02:30 CET"
        );
        assert_eq!(
            local_to_utc(AMSTERDAM, day, time("03:00")),
            Some(utc("2026-10-25T02:00:00Z"))
        );
        assert_eq!(
            in_zone(utc("2026-10-25T00:30:00Z"), AMSTERDAM).to_rfc3339(),
            "2026-10-25T02:30:00+02:00"
        );
        assert_eq!(
            in_zone(utc("2026-10-25T09:00:00Z"), AMSTERDAM).to_rfc3339(),
            "2026-10-25T10:00:00+01:00"
        );
    }

    #[test]
    fn auckland_transitions_and_a_local_date_ahead_of_utc() {
        let auckland = chrono_tz::Pacific::Auckland;
        // NZ daylight time ends on the first Sunday of April (03:00 NZDT → 02:00 NZST).
        assert_eq!(
            local_to_utc(auckland, date("2026-04-05"), time("02:30")),
            Some(utc("2026-04-04T13:30:00Z")),
            "the earlier 02:30 is still NZDT (+13:00)"
        );
        // It starts on the last Sunday of September (02:00 NZST → 03:00 NZDT).
        assert_eq!(
            local_to_utc(auckland, date("2026-09-27"), time("02:30")),
            None
        );
        // A morning slot there is on the previous UTC day.
        let instant = local_to_utc(auckland, date("2026-01-10"), time("09:00")).unwrap();
        assert_eq!(instant, utc("2026-01-09T20:00:00Z"));
        assert_eq!(
            in_zone(instant, auckland).to_rfc3339(),
            "2026-01-10T09:00:00+13:00"
        );
    }

    #[test]
    fn kiritimati_is_fourteen_hours_ahead_so_its_today_differs_from_utc() {
        let kiritimati = chrono_tz::Pacific::Kiritimati;
        assert_eq!(
            local_to_utc(kiritimati, date("2026-01-01"), time("00:30")),
            Some(utc("2025-12-31T10:30:00Z"))
        );
        let now = utc("2025-12-31T12:00:00Z");
        assert_eq!(local_date(kiritimati, now), date("2026-01-01"));
        assert_eq!(local_date(AMSTERDAM, now), date("2025-12-31"));
    }
}
