//! What the API's values say to the customer, in their language: statuses, categories, and a
//! refused step of the purchase.

use crate::{
    frame::api::ApiError,
    i18n::{td_string, Locale},
    wire::{OrderStatus, ProblemType, TicketStatus},
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

/// What a refused reservation means to the customer, in their language.
pub fn problem_text(locale: Locale, error: &ApiError) -> String {
    let text = match error.problem_type() {
        Some(ProblemType::CheckoutProductNotFulfillable) => {
            td_string!(locale, problem.not_fulfillable)
        }
        Some(ProblemType::CheckoutProductNotPriceable) => td_string!(locale, problem.not_priceable),
        Some(ProblemType::CheckoutDateInPast) => td_string!(locale, problem.date_in_past),
        Some(ProblemType::CheckoutFulfillmentRequestRejected) => {
            td_string!(locale, problem.rejected)
        }
        Some(ProblemType::CheckoutHoldLimitReached) => td_string!(locale, problem.hold_limit),
        Some(ProblemType::CheckoutTimeslotRequired) => td_string!(locale, product.need_time),
        Some(ProblemType::CheckoutHoldAlreadyExtended) => {
            td_string!(locale, problem.already_extended)
        }
        Some(ProblemType::CheckoutNotReserved) => td_string!(locale, checkout.hold_expired),
        _ => td_string!(locale, problem.generic),
    };
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_hold_is_told_in_the_customers_language() {
        let refused = ApiError::Problem(crate::wire::Problem {
            kind: crate::wire::ProblemType::CheckoutHoldLimitReached.uri(),
            #[cfg(feature = "ssr")]
            title: String::new(),
            status: 409,
            #[cfg(feature = "ssr")]
            detail: "This customer may hold 4 open checkouts at once".into(),
            correlation_id: String::new(),
            errors: Vec::new(),
            #[cfg(feature = "ssr")]
            error: None,
            #[cfg(feature = "ssr")]
            error_description: None,
            #[cfg(feature = "ssr")]
            gate: None,
        });
        let generic = problem_text(Locale::en_GB, &ApiError::Network);
        for (locale, words) in [
            (Locale::en_GB, "on hold"),
            (Locale::nl_NL, "houdt al zoveel tickets vast"),
            (Locale::de_DE, "reserviert"),
            (Locale::fr_FR, "réservés"),
        ] {
            let text = problem_text(locale, &refused);
            assert!(text.contains(words), "{locale:?}: {text}");
            assert_ne!(text, generic);
        }
    }
}
