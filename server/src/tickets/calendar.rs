//! The order's calendar file (RFC 5545), written with `icalendar`: one VEVENT per visit, in
//! the merchant's zone with its VTIMEZONE. A timeslot is its start and end; a day ticket an
//! all-day date; a product without a date but with a validity period all-day through its last
//! valid day. The same file is `GET /v2/me/fulfillment/orders/{id}/calendar.ics` and the mail's
//! attachment.

use std::collections::BTreeMap;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};
use icalendar::{Calendar, CalendarDateTime, Component, Event, EventLike};

use super::{order_doc::OrderDoc, texts::texts, vtimezone::vtimezone};

/// When a visit happens, in the merchant's local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Visit {
    Slot(NaiveDateTime, NaiveDateTime),
    /// All day, from the first to the last day (inclusive).
    Days(NaiveDate, NaiveDate),
}

/// The order's visits in order, with how many tickets each has.
fn visits(doc: &OrderDoc) -> BTreeMap<Visit, usize> {
    let mut visits = BTreeMap::new();
    for ticket in &doc.order.tickets {
        let visit = if let Some(slot) = &ticket.timeslot {
            Visit::Slot(
                slot.start_time.with_timezone(&doc.zone).naive_local(),
                slot.end_time.with_timezone(&doc.zone).naive_local(),
            )
        } else if let Some(day) = ticket.visit_date {
            Visit::Days(day, day)
        } else if let Some(last) = ticket.valid_until {
            Visit::Days(doc.order.visit_date.min(last), last)
        } else {
            continue;
        };
        *visits.entry(visit).or_insert(0) += 1;
    }
    visits
}

/// The order's `.ics`; `host` makes the UIDs globally unique, `page_url` (the ticket page)
/// goes into each event's description.
pub fn ics(doc: &OrderDoc, host: &str, page_url: Option<&str>) -> String {
    let t = texts(doc.locale);
    let tzid = doc.zone.name();
    let mut calendar = Calendar::new();
    let visits = visits(doc);
    for (index, (visit, count)) in visits.iter().enumerate() {
        let mut description = format!(
            "{} {} · {count} {}",
            t.order, doc.order.order_display_id, t.tickets_count
        );
        if let Some(url) = page_url {
            description.push_str(&format!("\n{}: {url}", t.open_online));
        }
        let mut event = Event::new();
        event
            // Stable per order and visit: importing the file again updates the entry.
            .uid(&format!("{}-{index}@{host}", doc.order.order_id))
            .timestamp(doc.order.created_at)
            .summary(&format!("{} {}", t.calendar_visit, doc.merchant_name()))
            .description(&description)
            .location(&doc.address());
        match *visit {
            Visit::Slot(start, end) => {
                event
                    .starts(CalendarDateTime::WithTimezone {
                        date_time: start,
                        tzid: tzid.to_owned(),
                    })
                    .ends(CalendarDateTime::WithTimezone {
                        date_time: end,
                        tzid: tzid.to_owned(),
                    });
            }
            // DTEND of an all-day event is the day after its last (RFC 5545 §3.6.1).
            Visit::Days(first, last) => {
                event.starts(first).ends(last + Duration::days(1));
            }
        }
        calendar.push(event.done());
    }
    let text = calendar.done().to_string();
    let years = visits.keys().map(|v| match v {
        Visit::Slot(start, _) => start.year(),
        Visit::Days(first, _) => first.year(),
    });
    let (Some(first), Some(last)) = (years.clone().min(), years.max()) else {
        return text;
    };
    if !visits.keys().any(|v| matches!(v, Visit::Slot(..))) {
        // All-day dates are floating: no zone to describe.
        return text;
    }
    // The zone's definition goes before the events that name it.
    match text.find("BEGIN:VEVENT") {
        Some(at) => format!(
            "{}{}{}",
            &text[..at],
            vtimezone(doc.zone, first, last),
            &text[at..]
        ),
        None => text,
    }
}
