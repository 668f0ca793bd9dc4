//! The VTIMEZONE of a merchant's IANA zone for the years an order's visits fall in, from
//! chrono-tz's rules (RFC 5545 §3.6.5): one observance at the start of the span and one per
//! offset change in it, each with its exact onset, so a client without the zone database (or
//! with an older one) still puts the visit at the right local time.
//!
//! Written as text, not with `icalendar`'s generic component: that writer adds `DTSTAMP` and
//! `UID` to every component it writes, which RFC 5545 does not allow in VTIMEZONE and its
//! observances, and strict clients refuse.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::{OffsetComponents, OffsetName, Tz};

/// The VTIMEZONE component of `zone` covering the calendar years `first` to `last`, CRLF
/// line ends included.
pub fn vtimezone(zone: Tz, first: i32, last: i32) -> String {
    let start = utc(first, 1, 1);
    let end = utc(last + 1, 1, 1);
    let mut out = format!("BEGIN:VTIMEZONE\r\nTZID:{}\r\n", zone.name());
    let at_start = zone.offset_from_utc_datetime(&start.naive_utc());
    let before = seconds(&at_start);
    observance(&mut out, &at_start, before, local(start, before));
    let mut previous = before;
    let mut t = start;
    while t < end {
        let next = t + Duration::hours(1);
        let offset = zone.offset_from_utc_datetime(&next.naive_utc());
        if seconds(&offset) != previous {
            let onset = first_with(zone, t, next, seconds(&offset));
            let at = zone.offset_from_utc_datetime(&onset.naive_utc());
            observance(&mut out, &at, previous, local(onset, previous));
            previous = seconds(&offset);
        }
        t = next;
    }
    out.push_str("END:VTIMEZONE\r\n");
    out
}

/// One STANDARD or DAYLIGHT observance starting at the local time `onset` (in the offset
/// before it, as RFC 5545 asks).
fn observance(out: &mut String, offset: &chrono_tz::TzOffset, from: i32, onset: NaiveDateTime) {
    let kind = if offset.dst_offset().is_zero() {
        "STANDARD"
    } else {
        "DAYLIGHT"
    };
    out.push_str(&format!(
        "BEGIN:{kind}\r\nDTSTART:{}\r\nTZOFFSETFROM:{}\r\nTZOFFSETTO:{}\r\n",
        onset.format("%Y%m%dT%H%M%S"),
        utc_offset(from),
        utc_offset(seconds(offset)),
    ));
    if let Some(name) = offset.abbreviation() {
        out.push_str(&format!("TZNAME:{name}\r\n"));
    }
    out.push_str(&format!("END:{kind}\r\n"));
}

/// The first second in `(from, to]` at which `zone` has the offset `target`.
fn first_with(
    zone: Tz,
    mut from: DateTime<Utc>,
    mut to: DateTime<Utc>,
    target: i32,
) -> DateTime<Utc> {
    while to - from > Duration::seconds(1) {
        let mid = from + (to - from) / 2;
        if seconds(&zone.offset_from_utc_datetime(&mid.naive_utc())) == target {
            to = mid;
        } else {
            from = mid;
        }
    }
    to
}

fn seconds(offset: &chrono_tz::TzOffset) -> i32 {
    offset.fix().local_minus_utc()
}

fn local(at: DateTime<Utc>, offset: i32) -> NaiveDateTime {
    at.naive_utc() + Duration::seconds(i64::from(offset))
}

fn utc(year: i32, month: u32, day: u32) -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(year, month, day)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map_or_else(Utc::now, |d| d.and_utc())
}

/// `+0100`, `-0330`.
fn utc_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.abs() / 60;
    format!("{sign}{:02}{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amsterdam_has_both_changes_of_a_year_at_their_local_onsets() {
        let text = vtimezone(chrono_tz::Europe::Amsterdam, 2026, 2026);
        assert!(
            text.starts_with("BEGIN:VTIMEZONE\r\nTZID:Europe/Amsterdam\r\n"),
            "{text}"
        );
        assert!(text.contains("BEGIN:DAYLIGHT\r\nDTSTART:20260329T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n"), "{text}");
        assert!(text.contains("BEGIN:STANDARD\r\nDTSTART:20261025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n"), "{text}");
    }

    #[test]
    fn a_zone_without_changes_has_one_observance() {
        let text = vtimezone(chrono_tz::Asia::Tokyo, 2026, 2026);
        assert_eq!(text.matches("BEGIN:STANDARD").count(), 1, "{text}");
        assert!(text.contains("TZOFFSETTO:+0900"), "{text}");
    }
}
