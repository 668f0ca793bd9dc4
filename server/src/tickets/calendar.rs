//! The order's calendar file (RFC 5545), written with `icalendar`: one VEVENT per visit, in
//! the merchant's zone with its VTIMEZONE. A timeslot is its start and end; a day ticket an
//! all-day date; a product without a date but with a validity period all-day through its last
//! valid day. Each event carries its tickets' QR codes as inline PNG attachments. The same file
//! is `GET /v2/me/fulfillment/orders/{id}/calendar.ics` and the mail's attachment.

use std::collections::BTreeMap;

use base64::{engine::general_purpose::STANDARD as BASE64, Engine};
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

/// The order's visits in order, with their tickets.
fn visits(doc: &OrderDoc) -> BTreeMap<Visit, Vec<&app::wire::Ticket>> {
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
        visits.entry(visit).or_insert_with(Vec::new).push(ticket);
    }
    visits
}

/// `text` as an iCalendar TEXT value may hold it (RFC 5545 §3.3.11): every line break (CR LF,
/// a lone CR, NEL, the Unicode separators) one LF, which `icalendar` writes escaped as `\n`;
/// other control characters, which TEXT does not allow, left out; tabs kept. `icalendar` escapes
/// LF but writes CR as it is, and a calendar client reads a CR as the end of the property, so a
/// merchant's name holding one would add properties of its own making. The operator API refuses
/// control characters in catalog texts (`Checks::text`); this holds for rows written before.
fn calendar_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => out.push('\n'),
            '\t' => out.push('\t'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The order's `.ics`; `host` makes the UIDs globally unique, `page_url` (the ticket page)
/// goes into each event's description.
pub fn ics(doc: &OrderDoc, host: &str, page_url: Option<&str>) -> String {
    let t = texts(doc.locale);
    let tzid = doc.zone.name();
    let mut calendar = Calendar::empty();
    calendar
        .append_property(icalendar::Property::new("VERSION", "2.0"))
        .append_property(icalendar::Property::new(
            "PRODID",
            "-//Boxoffice//Tickets//EN",
        ))
        .append_property(icalendar::Property::new("CALSCALE", "GREGORIAN"))
        .append_property(icalendar::Property::new("METHOD", "PUBLISH"));
    let visits = visits(doc);
    for (index, (visit, tickets)) in visits.iter().enumerate() {
        let count = tickets.len();
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
            .summary(&calendar_text(&format!(
                "{} {}",
                t.calendar_visit,
                doc.merchant_name()
            )))
            .description(&calendar_text(&description))
            .location(&calendar_text(&doc.address()));
        // Each ticket's QR code, the one a gate scans, as an inline image (RFC 5545 §3.8.1.1).
        for ticket in tickets {
            if let Ok(png) = super::qr::png(ticket.qr_content()) {
                let mut attach = icalendar::Property::new("ATTACH", BASE64.encode(png));
                attach
                    .add_parameter("FMTTYPE", "image/png")
                    .add_parameter("ENCODING", "BASE64")
                    .add_parameter("VALUE", "BINARY");
                event.append_multi_property(attach);
            }
        }
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

#[cfg(test)]
mod tests {
    use app::wire::{Money, Order, Ticket, TimeslotWindow};
    use chrono::{DateTime, NaiveDate, Utc};
    use icalendar::{Component, DatePerhapsTime};
    use uuid::Uuid;

    use super::*;
    use crate::store::{Address, Location, Merchant};

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn ticket(
        visit: Option<NaiveDate>,
        slot: Option<(&str, &str)>,
        until: Option<NaiveDate>,
    ) -> Ticket {
        Ticket {
            ticket_id: crate::ids::random_id(),
            code: "AAAA-BBBB-CCCC".into(),
            qr: None,
            product_id: crate::ids::random_id(),
            product_title: "Zoo".into(),
            age_group: None,
            visit_date: visit,
            timeslot: slot.map(|(start, end)| TimeslotWindow {
                timeslot_id: crate::ids::random_id(),
                start_time: DateTime::parse_from_rfc3339(start).unwrap(),
                end_time: DateTime::parse_from_rfc3339(end).unwrap(),
            }),
            valid_until: until,
            status: app::wire::TicketStatus::Valid,
            redeemed_at: None,
            replaced_by: None,
            answers: Vec::new(),
        }
    }

    fn doc(tickets: Vec<Ticket>) -> OrderDoc {
        let now = Utc::now();
        OrderDoc {
            order: Order {
                order_id: Uuid::from_u128(7),
                order_display_id: "BX-AAAA-BBBB".into(),
                checkout_id: crate::ids::random_id(),
                status: app::wire::OrderStatus::Paid,
                merchant_id: crate::ids::random_id(),
                visit_date: day(2027, 3, 20),
                total: Money::new(rust_decimal::Decimal::ONE, "EUR"),
                items: Vec::new(),
                tickets,
                attribution: None,
                created_at: now,
                last_mutation_date: now,
                after_sale: None,
                manage_url: None,
                refunds: Vec::new(),
                answers: Vec::new(),
            },
            locale: app::wire::Locale::NlNl,
            merchant: Merchant {
                merchant_id: crate::ids::random_id(),
                name: "Artis".into(),
                description: String::new(),
                category: "zoo".into(),
                address: Address {
                    street: "Plantage Kerklaan 38-40".into(),
                    postal_code: "1018 CZ".into(),
                    city: "Amsterdam".into(),
                    country: "NL".into(),
                },
                location: Location {
                    latitude: 52.36,
                    longitude: 4.88,
                },
                timezone: "Europe/Amsterdam".into(),
                currency: "EUR".into(),
                image_url: None,
                website: None,
                translations: Vec::new(),
                settlement: Default::default(),
                images: Default::default(),
                search_text: String::new(),
                created_at: now,
                updated_at: now,
            },
            zone: chrono_tz::Europe::Amsterdam,
            recipient: None,
            conditions: Vec::new(),
            vat: Vec::new(),
        }
    }

    #[test]
    fn timeslots_keep_their_local_times_across_a_daylight_saving_change() {
        // Europe/Amsterdam moves from +01:00 to +02:00 at 02:00 on 28 March 2027.
        let text = ics(
            &doc(vec![
                ticket(
                    Some(day(2027, 3, 27)),
                    Some(("2027-03-27T10:00:00+01:00", "2027-03-27T12:00:00+01:00")),
                    None,
                ),
                ticket(
                    Some(day(2027, 3, 28)),
                    Some(("2027-03-28T10:00:00+02:00", "2027-03-28T12:00:00+02:00")),
                    None,
                ),
            ]),
            "tickets.example",
            None,
        );
        assert!(
            text.contains("DTSTART;TZID=Europe/Amsterdam:20270327T100000"),
            "{text}"
        );
        assert!(
            text.contains("DTSTART;TZID=Europe/Amsterdam:20270328T100000"),
            "{text}"
        );
        assert!(text.contains("BEGIN:DAYLIGHT\r\nDTSTART:20270328T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200"), "{text}");
        assert!(
            text.find("BEGIN:VTIMEZONE") < text.find("BEGIN:VEVENT"),
            "{text}"
        );
        assert!(text.contains("SUMMARY:Bezoek aan Artis"), "{text}");

        let parsed: icalendar::Calendar = text.parse().unwrap();
        let starts: Vec<_> = parsed
            .components
            .iter()
            .filter_map(|c| c.as_event())
            .map(|e| e.get_start().unwrap())
            .collect();
        let at = |d: NaiveDate| {
            DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone {
                date_time: d.and_hms_opt(10, 0, 0).unwrap(),
                tzid: "Europe/Amsterdam".into(),
            })
        };
        assert_eq!(starts, [at(day(2027, 3, 27)), at(day(2027, 3, 28))]);
    }

    #[test]
    fn control_characters_in_texts_cannot_start_lines_of_their_own() {
        let mut doc = doc(vec![ticket(Some(day(2027, 4, 2)), None, None)]);
        doc.merchant.name = "Artis\r\nX-INJECTED:1\rX-CR:2\u{85}X-NEL:3\u{7}".into();
        doc.merchant.address.street = "Plantage\rX-STREET:4".into();
        let text = ics(&doc, "h", Some("https://tickets.example/t/1?k=2"));
        // Lines end in CR LF, folded lines go on with a space: nothing else ends a line.
        for line in text.split("\r\n") {
            assert!(!line.contains(['\r', '\n', '\u{85}', '\u{7}']), "{line:?}");
            assert!(!line.starts_with("X-"), "an injected property: {text}");
        }
        let unfolded = text.replace("\r\n ", "");
        assert!(
            unfolded.contains(r"SUMMARY:Bezoek aan Artis\nX-INJECTED:1\nX-CR:2\nX-NEL:3"),
            "{unfolded}"
        );
        assert!(
            unfolded.contains(r"LOCATION:Plantage\nX-STREET:4\, 1018 CZ"),
            "{unfolded}"
        );
        let parsed: icalendar::Calendar = text.parse().unwrap();
        let event = parsed.components[0].as_event().unwrap();
        assert!(event.property_value("X-INJECTED").is_none());
        assert_eq!(calendar_text("a\tb\u{2028}c"), "a\tb\nc");
    }

    #[test]
    fn a_product_without_a_date_is_all_day_through_its_last_valid_day() {
        let text = ics(
            &doc(vec![ticket(None, None, Some(day(2027, 4, 30)))]),
            "h",
            None,
        );
        assert!(text.contains("DTSTART;VALUE=DATE:20270320"), "{text}");
        assert!(text.contains("DTEND;VALUE=DATE:20270501"), "{text}");
        assert!(!text.contains("VTIMEZONE"), "dates float: {text}");
        assert!(
            text.contains("UID:00000000-0000-0000-0000-000000000007-0@h"),
            "{text}"
        );
    }
}
