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

use crate::{
    i18n::{td_string, Locale},
    wire::{OrderStatus, TicketStatus},
};

/// An order's status in words.
pub fn order_status_text(locale: Locale, status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::PendingPayment => td_string!(locale, status.PENDING_PAYMENT),
        OrderStatus::Paid => td_string!(locale, status.PAID),
        OrderStatus::Fulfilled => td_string!(locale, status.FULFILLED),
        OrderStatus::Cancelled => td_string!(locale, status.CANCELLED),
    }
}

/// A ticket's status in words.
pub fn ticket_status_text(locale: Locale, status: TicketStatus) -> &'static str {
    match status {
        TicketStatus::Valid => td_string!(locale, status.VALID),
        TicketStatus::Used => td_string!(locale, status.USED),
        TicketStatus::Cancelled => td_string!(locale, status.CANCELLED),
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
