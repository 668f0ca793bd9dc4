//! One file per screen (each a route), and the texts several screens share.

pub mod checkout;
pub mod ledger;
pub mod merchant;
pub mod merchants;
pub mod onboarding;
pub mod orders;
pub mod pay;
pub mod product;
pub mod return_screen;

use crate::i18n::{td_string, Locale};

/// An order's, checkout's or ticket's status in words.
pub fn status_text(locale: Locale, status: &str) -> &'static str {
    match status {
        "PENDING_PAYMENT" | "CONFIRMED" | "RESERVED" => td_string!(locale, status.PENDING_PAYMENT),
        "PAID" => td_string!(locale, status.PAID),
        "FULFILLED" => td_string!(locale, status.FULFILLED),
        "CANCELLED" | "EXPIRED" => td_string!(locale, status.CANCELLED),
        "VALID" => td_string!(locale, status.VALID),
        "USED" => td_string!(locale, status.USED),
        _ => td_string!(locale, status.other),
    }
}

/// A merchant category in words; an unknown one is shown as the API gave it.
pub fn category_text(locale: Locale, category: &str) -> String {
    match category {
        "museum" => td_string!(locale, category.museum).into(),
        "zoo" => td_string!(locale, category.zoo).into(),
        "park" => td_string!(locale, category.park).into(),
        "event" => td_string!(locale, category.event).into(),
        other => other.to_owned(),
    }
}
