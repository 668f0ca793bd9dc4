//! What the mail's text and HTML parts and the ticket page say of an order, worded once in the
//! order's language with `app::format`: each writer only lays these out.

use std::borrow::Cow;

use app::{
    format,
    wire::{GivenAnswer, Money, Ticket},
};

use super::{order_doc::OrderDoc, texts::texts};

/// The visit as one line: `Monday 7 December 2026, 09:00–11:00` (the time when every ticket
/// is for the same timeslot).
pub fn visit_line(doc: &OrderDoc) -> String {
    let locale = doc.format_locale();
    let mut line = format::date_long(locale, doc.order.visit_date);
    let mut slots = doc.order.tickets.iter().filter_map(|t| t.timeslot.as_ref());
    if let Some(first) = slots.next() {
        if slots.all(|s| s.timeslot_id == first.timeslot_id) {
            line.push_str(", ");
            line.push_str(&format::time_range(
                locale,
                &first.start_time,
                &first.end_time,
            ));
        }
    }
    line
}

/// The subject: `Artis: your tickets for Monday 7 December 2026`.
pub fn subject(doc: &OrderDoc) -> String {
    let t = texts(doc.locale);
    format!(
        "{}: {} {}",
        doc.merchant_name(),
        t.subject_tickets,
        format::date_long(doc.format_locale(), doc.order.visit_date)
    )
}

/// One ticket's facts as (label, value): product, age group, when, validity, code, then its
/// holder's answers to the booking questions (labelled as the merchant asked them).
pub fn ticket_facts(doc: &OrderDoc, ticket: &Ticket) -> Vec<(Cow<'static, str>, String)> {
    let (t, locale) = (texts(doc.locale), doc.format_locale());
    let mut facts = vec![(t.ticket.into(), ticket.product_title.clone())];
    if let Some(age) = &ticket.age_group {
        facts.push((t.age_group.into(), age.clone()));
    }
    if let Some(day) = ticket.visit_date {
        let mut when = format::date_long(locale, day);
        if let Some(slot) = &ticket.timeslot {
            when.push_str(", ");
            when.push_str(&format::time_range(
                locale,
                &slot.start_time,
                &slot.end_time,
            ));
        }
        facts.push((t.visit.into(), when));
    }
    // A validity that ends on the visit day says nothing the visit does not.
    if let Some(last) = ticket
        .valid_until
        .filter(|last| Some(*last) != ticket.visit_date)
    {
        facts.push((t.valid_until.into(), format::date_long(locale, last)));
    }
    facts.push((t.code.into(), ticket.code.clone()));
    facts.extend(answers(&ticket.answers));
    facts
}

/// The answers to the per-booking questions as (label, value).
pub fn booking_answers(doc: &OrderDoc) -> Vec<(Cow<'static, str>, String)> {
    answers(&doc.order.answers)
}

fn answers(answers: &[GivenAnswer]) -> Vec<(Cow<'static, str>, String)> {
    answers
        .iter()
        .map(|a| {
            let shown = a.choice.as_ref().unwrap_or(&a.value);
            (Cow::Owned(a.label.clone()), shown.clone())
        })
        .collect()
}

/// The order's lines as (description, amount), then its total as the server computed it.
pub fn totals(doc: &OrderDoc) -> (Vec<(String, String)>, String) {
    let locale = doc.format_locale();
    let lines = doc
        .order
        .items
        .iter()
        .map(|item| {
            let mut what = format!("{} × {}", item.quantity, item.title);
            if let Some(age) = &item.age_group {
                what.push_str(&format!(" ({age})"));
            }
            (what, format::money(locale, &item.line_total))
        })
        .collect();
    (lines, format::money(locale, &doc.order.total))
}

/// The VAT in the total as (description, amount): each rate's ("of which BTW 9%"), then the
/// total without VAT; nothing when no VAT is charged.
pub fn vat(doc: &OrderDoc) -> Vec<(String, String)> {
    let (t, locale) = (texts(doc.locale), doc.format_locale());
    let currency = &doc.order.total.currency;
    let money = |value| format::money(locale, &Money::new(value, currency.clone()));
    let mut rows: Vec<(String, String)> = doc
        .vat
        .iter()
        .map(|row| (format!("{} {}", t.of_which, row.name), money(row.tax)))
        .collect();
    if !rows.is_empty() {
        let net = doc.vat.iter().map(|row| row.net).sum();
        rows.push((t.total_without_vat.to_owned(), money(net)));
    }
    rows
}
