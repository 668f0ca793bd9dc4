//! A checkout's answers to its booking questions (docs/api-checkout.md, "Booking
//! questions"): checked against the basket's products when given (400), required ones
//! demanded when the checkout is confirmed (422 `checkout-answer-required`), and kept with
//! their question's labels so an order reads the same later, whatever the product asks then.
//!
//! A per-booking question is answered once (`line` and `ticket` absent), however many of the
//! basket's products ask it; a per-ticket one once for each ticket of each line whose product
//! asks it (`line`, `ticket`, both 0-based). Answers marked personal reach the customer, the
//! partner and the gate, never events, analytics or logs: nothing here logs a value.

use std::collections::HashSet;
use std::str::FromStr;

use app::wire::{
    Answer, AskedPer, AskedQuestion, FieldError, GivenAnswer, InputType, Locale, Question,
};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::Commerce;
pub use crate::store::StoredAnswer;
use crate::{
    catalog::questions::asked,
    error::{Error, ProblemType, Result},
    store::{CheckoutLineRecord, Product},
    validate::{is_email, Checks},
};

/// At most this many answers in one request (the schema's `maxItems` on `answers`).
pub const MAX_ANSWERS: usize = 1000;

/// The answers `answers` in `locale` (a read's).
pub fn given(answers: &[StoredAnswer], locale: Locale) -> Vec<GivenAnswer> {
    answers.iter().map(|a| a.given(locale)).collect()
}

/// The answers of the booking (not of one ticket).
pub fn of_booking(answers: &[StoredAnswer]) -> Vec<StoredAnswer> {
    answers
        .iter()
        .filter(|a| a.product_id.is_none())
        .cloned()
        .collect()
}

/// The answers of ticket `ticket` of the line of `product_id`, which that ticket keeps.
pub fn of_ticket(answers: &[StoredAnswer], product_id: Uuid, ticket: u32) -> Vec<StoredAnswer> {
    answers
        .iter()
        .filter(|a| a.product_id == Some(product_id) && a.ticket == Some(ticket))
        .cloned()
        .collect()
}

/// The products and quantities of a stored checkout's `lines`, in the order given (a read's).
pub async fn basket_of(
    state: &Commerce,
    lines: &[CheckoutLineRecord],
) -> Result<Vec<(Product, u32)>> {
    let (store, definitions) = (state.store.as_ref(), &state.catalog.definitions);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let product = definitions
            .product(store, line.product_id)
            .await?
            .ok_or_else(|| {
                anyhow::anyhow!("checkout line of unknown product {}", line.product_id)
            })?;
        out.push((product, u32::try_from(line.quantity).unwrap_or(0)));
    }
    Ok(out)
}

/// `basket` as the checks take it.
pub fn lines(basket: &[(Product, u32)]) -> Vec<(&Product, u32)> {
    basket.iter().map(|(p, q)| (p, *q)).collect()
}

/// One question a basket asks: per booking (`line` none) or for the tickets of `line`.
struct Asked<'a> {
    question: &'a Question,
    line: Option<u32>,
    quantity: u32,
}

/// What the basket's lines (each product and quantity, in order) ask: each per-booking
/// question once (by id, the first line's definition), then each line's per-ticket ones.
fn asked_by<'a>(lines: &[(&'a Product, u32)]) -> Vec<Asked<'a>> {
    let mut out: Vec<Asked<'a>> = Vec::new();
    let mut booking = HashSet::new();
    for (product, _) in lines {
        for q in product.questions() {
            if q.per == AskedPer::Booking && booking.insert(q.question_id.as_str()) {
                out.push(Asked {
                    question: q,
                    line: None,
                    quantity: 1,
                });
            }
        }
    }
    for (i, (product, quantity)) in lines.iter().enumerate() {
        for q in product.questions() {
            if q.per == AskedPer::Ticket {
                out.push(Asked {
                    question: q,
                    line: u32::try_from(i).ok(),
                    quantity: *quantity,
                });
            }
        }
    }
    out
}

/// The basket's questions in `locale`, as a checkout read shows them.
pub fn questions(lines: &[(&Product, u32)], locale: Locale) -> Vec<AskedQuestion> {
    asked_by(lines)
        .iter()
        .map(|a| asked(a.question, locale, a.line))
        .collect()
}

/// Whether `given` answers every required question of `lines`; `Err` is 422
/// `checkout-answer-required` naming each question without its answer.
pub fn require(lines: &[(&Product, u32)], given: &[StoredAnswer]) -> Result<()> {
    let has = |id: &str, product: Option<Uuid>, ticket: Option<u32>| {
        given
            .iter()
            .any(|a| a.question_id == id && a.product_id == product && a.ticket == ticket)
    };
    let mut missing = Vec::new();
    for a in asked_by(lines).iter().filter(|a| a.question.required) {
        let id = &a.question.question_id;
        let label = a.question.label.get(Locale::EnGb);
        match a.line {
            None if !has(id, None, None) => missing.push(FieldError::new(
                format!("answers.{id}"),
                "required",
                format!("the booking question {id} (\"{label}\") needs an answer"),
            )),
            None => {}
            Some(line) => {
                let product = Some(lines[line as usize].0.product_id);
                for ticket in (0..a.quantity).filter(|t| !has(id, product, Some(*t))) {
                    missing.push(FieldError::new(
                        format!("lines[{line}].tickets[{ticket}].answers.{id}"),
                        "required",
                        format!(
                            "the question {id} (\"{label}\") needs an answer for ticket {ticket} of line {line}"
                        ),
                    ));
                }
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::fields(ProblemType::CheckoutAnswerRequired, missing))
}

/// `given` checked against what `lines` ask (400 `request-validation-failed` naming each
/// answer at fault: a question the basket does not ask, a line or ticket it does not have, an
/// answer given twice, a value its input type refuses), kept with each question's labels.
pub fn resolve(lines: &[(&Product, u32)], given: &[Answer]) -> Result<Vec<StoredAnswer>> {
    let asked = asked_by(lines);
    let mut checks = Checks::default();
    if given.len() > MAX_ANSWERS {
        checks.fail(
            "answers",
            "too-many",
            format!("at most {MAX_ANSWERS} answers"),
        );
        return Err(checks.finish().unwrap_err());
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(given.len());
    for (i, answer) in given.iter().enumerate() {
        let at = format!("answers[{i}]");
        let id = answer.question_id.as_str();
        let found = match (answer.line, answer.ticket) {
            (None, None) => asked
                .iter()
                .find(|a| a.line.is_none() && a.question.question_id == id),
            (Some(line), Some(ticket)) => {
                let of_line = asked
                    .iter()
                    .find(|a| a.line == Some(line) && a.question.question_id == id);
                if of_line.is_some_and(|a| ticket >= a.quantity) {
                    checks.fail(
                        &format!("{at}.ticket"),
                        "out_of_range",
                        format!("{at}.ticket {ticket} is past the last ticket of line {line}"),
                    );
                    continue;
                }
                of_line
            }
            _ => {
                checks.fail(
                    &at,
                    "line_and_ticket",
                    format!("{at} needs both line and ticket (a per-ticket question) or neither"),
                );
                continue;
            }
        };
        let Some(found) = found else {
            checks.fail(
                &format!("{at}.question_id"),
                "unknown",
                format!("{at}.question_id {id:?} is not asked there by this basket"),
            );
            continue;
        };
        if !seen.insert((id, answer.line, answer.ticket)) {
            checks.fail(
                &at,
                "duplicate",
                format!("{at} answers the same question again"),
            );
            continue;
        }
        let value = answer.value.trim();
        check_value(&mut checks, &format!("{at}.value"), found.question, value);
        out.push(StoredAnswer {
            question_id: id.to_owned(),
            product_id: found.line.map(|line| lines[line as usize].0.product_id),
            ticket: answer.ticket,
            label: found.question.label.clone(),
            value: value.to_owned(),
            choice: found
                .question
                .options
                .iter()
                .find(|o| o.value == value)
                .map(|o| o.label.clone()),
            personal_data: found.question.personal_data,
        });
    }
    checks.finish()?;
    Ok(out)
}

/// The value as `question`'s input type takes it. Messages never repeat the value (it may be
/// personal data, and problems are logged).
fn check_value(checks: &mut Checks, field: &str, question: &Question, value: &str) {
    let ok = match question.input_type {
        InputType::Text => {
            checks.text(field, value, 1, 200);
            return;
        }
        InputType::Textarea => {
            let len = value.chars().count();
            (1..=2000).contains(&len)
                && !value
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\r')
        }
        InputType::Email => is_email(value),
        InputType::Tel => {
            (5..=30).contains(&value.len())
                && value.bytes().any(|b| b.is_ascii_digit())
                && value.bytes().all(|b| {
                    b.is_ascii_digit() || matches!(b, b' ' | b'+' | b'-' | b'(' | b')' | b'.')
                })
        }
        InputType::Date => NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok(),
        InputType::Select => question.options.iter().any(|o| o.value == value),
        InputType::Number => value.len() <= 30 && Decimal::from_str(value).is_ok(),
    };
    let expected = match question.input_type {
        InputType::Text => "one line of text",
        InputType::Textarea => "1 to 2000 characters of text",
        InputType::Email => "an e-mail address",
        InputType::Tel => "a telephone number (digits, spaces and + - ( ) .)",
        InputType::Date => "a date as YYYY-MM-DD",
        InputType::Select => "the value of one of the question's options",
        InputType::Number => "a decimal number",
    };
    checks.check(ok, field, "invalid", format!("{field} must be {expected}"));
}

#[cfg(test)]
mod tests;
