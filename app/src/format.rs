//! Money, dates and times as each of the four locales writes them.
//!
//! The locale data (separators, where the currency symbol goes, month and weekday names) lives
//! in `locales/*.json` under `fmt`, beside the texts, so translators keep it and the server
//! render and the browser produce the same characters. ICU4X would carry the same facts, but its
//! compiled data holds every CLDR locale (far past the WASM budget) and its datagen needs the
//! network at build time, which this project's builds do not have.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Timelike, Utc};
use rust_decimal::{Decimal, RoundingStrategy};

use crate::{
    i18n::{td_string, Locale},
    wire::Money,
};

/// `amount` in `locale`, with the currency's symbol where the locale puts it.
pub fn money(locale: Locale, amount: &Money) -> String {
    let digits = decimal(locale, amount.value, 2);
    match symbol(&amount.currency) {
        Some(symbol) => td_string!(locale, fmt.money, symbol, amount = digits).to_string(),
        None => td_string!(
            locale,
            fmt.money_code,
            code = amount.currency.as_str(),
            amount = digits
        )
        .to_string(),
    }
}

/// A price in a calendar cell: no symbol, and no decimals when they are zero.
pub fn compact_amount(locale: Locale, amount: &Money) -> String {
    let scale = if amount.value.fract().is_zero() { 0 } else { 2 };
    decimal(locale, amount.value, scale)
}

/// A discount percentage, whole: `22` for 22.22 (a badge, not a price; the prices are exact).
pub fn percent(locale: Locale, value: Decimal) -> String {
    decimal(locale, value, 0)
}

fn symbol(currency: &str) -> Option<&'static str> {
    match currency {
        "EUR" => Some("€"),
        "GBP" => Some("£"),
        _ => None,
    }
}

/// `value` rounded to `scale` decimals, grouped by thousands, with the locale's separators.
pub fn decimal(locale: Locale, value: Decimal, scale: u32) -> String {
    let mut rounded = value.round_dp_with_strategy(scale, RoundingStrategy::MidpointNearestEven);
    rounded.rescale(scale);
    let text = rounded.abs().to_string();
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let group = td_string!(locale, fmt.group);
    let mut out = String::new();
    if rounded.is_sign_negative() && !rounded.is_zero() {
        out.push('−');
    }
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push_str(group);
        }
        out.push(digit);
    }
    if !fraction.is_empty() {
        out.push_str(td_string!(locale, fmt.decimal));
        out.push_str(fraction);
    }
    out
}

/// `Monday 7 December 2026`, in the locale's order.
pub fn date_long(locale: Locale, date: NaiveDate) -> String {
    td_string!(
        locale,
        fmt.date_long,
        weekday = weekday_name(locale, date),
        day = date.day(),
        month = month_name(locale, date.month()),
        year = date.year()
    )
    .to_string()
}

/// `7 December 2026`, in the locale's order.
pub fn date_medium(locale: Locale, date: NaiveDate) -> String {
    td_string!(
        locale,
        fmt.date_medium,
        day = date.day(),
        month = month_name(locale, date.month()),
        year = date.year()
    )
    .to_string()
}

/// The calendar day of an instant where the customer is, in the browser's time zone. Only for
/// screens that render in the browser (those with the customer's own data: orders, points); a
/// server render would use the server's zone.
pub fn customers_day(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&chrono::Local).date_naive()
}

/// `December 2026`: a calendar's caption.
pub fn month_year(locale: Locale, year: i32, month: u32) -> String {
    td_string!(
        locale,
        fmt.month_year,
        month = month_name(locale, month),
        year
    )
    .to_string()
}

/// The month's name; `month` is 1-based.
pub fn month_name(locale: Locale, month: u32) -> &'static str {
    nth(
        td_string!(locale, fmt.months),
        month.saturating_sub(1) as usize,
    )
}

fn weekday_name(locale: Locale, date: NaiveDate) -> &'static str {
    nth(
        td_string!(locale, fmt.weekdays),
        date.weekday().num_days_from_monday() as usize,
    )
}

/// Short weekday names, Monday first.
pub fn weekdays_short(locale: Locale) -> impl Iterator<Item = &'static str> {
    td_string!(locale, fmt.weekdays_short).split(',')
}

/// Full weekday names, Monday first.
pub fn weekdays_long(locale: Locale) -> impl Iterator<Item = &'static str> {
    td_string!(locale, fmt.weekdays).split(',')
}

fn nth(list: &'static str, index: usize) -> &'static str {
    list.split(',').nth(index).unwrap_or_default()
}

/// The wall-clock time at the place of the visit (the offset the server gave), `09:30`. All
/// four locales use the 24-hour clock.
pub fn time(at: &DateTime<FixedOffset>) -> String {
    format!("{:02}:{:02}", at.hour(), at.minute())
}

/// `09:00–11:00`.
pub fn time_range(
    locale: Locale,
    start: &DateTime<FixedOffset>,
    end: &DateTime<FixedOffset>,
) -> String {
    td_string!(locale, fmt.time_range, start = time(start), end = time(end)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eur(value: &str) -> Money {
        Money::new(value.parse().unwrap(), "EUR")
    }

    #[test]
    fn money_follows_each_locale() {
        assert_eq!(money(Locale::en_GB, &eur("1234.5")), "€1,234.50");
        assert_eq!(money(Locale::nl_NL, &eur("17.5")), "€\u{a0}17,50");
        assert_eq!(money(Locale::de_DE, &eur("1234.5")), "1.234,50\u{a0}€");
        assert_eq!(
            money(Locale::fr_FR, &eur("1234.5")),
            "1\u{202f}234,50\u{a0}€"
        );
        assert_eq!(
            money(Locale::en_GB, &Money::new("3".parse().unwrap(), "CHF")),
            "3.00 CHF"
        );
    }

    #[test]
    fn decimals_round_like_the_server_and_group_thousands() {
        assert_eq!(decimal(Locale::en_GB, "0.125".parse().unwrap(), 2), "0.12");
        assert_eq!(
            decimal(Locale::en_GB, "1000000".parse().unwrap(), 0),
            "1,000,000"
        );
        assert_eq!(decimal(Locale::en_GB, "-5".parse().unwrap(), 2), "−5.00");
        assert_eq!(compact_amount(Locale::nl_NL, &eur("22.00")), "22");
        assert_eq!(compact_amount(Locale::nl_NL, &eur("17.50")), "17,50");
        assert_eq!(percent(Locale::de_DE, "22.73".parse().unwrap()), "23");
        assert_eq!(percent(Locale::de_DE, "20.00".parse().unwrap()), "20");
    }

    #[test]
    fn dates_are_written_in_the_locales_order() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
        assert_eq!(date_long(Locale::en_GB, day), "Monday 7 December 2026");
        assert_eq!(date_long(Locale::nl_NL, day), "maandag 7 december 2026");
        assert_eq!(date_long(Locale::de_DE, day), "Montag, 7. Dezember 2026");
        assert_eq!(date_medium(Locale::fr_FR, day), "7 décembre 2026");
        assert_eq!(month_year(Locale::de_DE, 2026, 3), "März 2026");
        assert_eq!(weekdays_short(Locale::nl_NL).count(), 7);
    }

    #[test]
    fn times_keep_the_merchants_offset() {
        let start = DateTime::parse_from_rfc3339("2026-03-29T09:00:00+02:00").unwrap();
        let end = DateTime::parse_from_rfc3339("2026-03-29T11:30:00+02:00").unwrap();
        assert_eq!(time_range(Locale::en_GB, &start, &end), "09:00–11:30");
    }
}
