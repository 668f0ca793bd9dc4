//! After the sale (issue 41; docs/api-checkout.md, "After the sale"): a paid order's tickets
//! cancelled, withdrawn from or moved to another day under the policy its products had when it
//! was paid, and money given back to the cent. Each rule exists once, here; the REST routes
//! (customer, partner, operator), the frame and the ticket page show what these compute.
//!
//! - `policy`: durations before the visit, in the merchant's IANA zone across daylight-saving
//!   changes, and which refund rule applies at a moment;
//! - `frozen`: a product's policy as an order keeps it; `checks`: its rules when written;
//! - `allocate`: what an order paid shared over its tickets, and a ticket's refund;
//! - `terms`: ticket by ticket, what the policy gives now, and the order's quote;
//! - `facts`: an order with everything the rules need, read once, and its view now;
//! - `change`: the one transaction of a cancellation or a withdrawal;
//! - `rebook`: the one transaction of a date change;
//! - `closure`: a day or slot the merchant cancels;
//! - `requests`: who may ask for which change (customer, partner, operator);
//! - `mail`: the mails about a change;
//! - `page`, `page_view`, `page_texts`: the customer's "manage your booking" page.

pub mod allocate;
pub mod change;
pub mod checks;
pub mod closure;
pub mod facts;
pub mod frozen;
pub mod host_messages;
pub mod mail;
mod moves;
pub mod page;
pub mod page_texts;
pub mod page_view;
pub mod policy;
pub mod rebook;
pub mod rebook_payment;
mod refund_parts;
pub mod requests;
pub mod terms;
pub mod texts;

pub use frozen::Frozen;

/// Who asks for a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// The order's owner, by the public bearer.
    Customer,
    /// The partner whose session made the order, by its backend bearer.
    Partner,
    /// The operator.
    Operator,
}

impl Actor {
    /// The reason a change it asks for carries.
    pub fn reason(self) -> Reason {
        match self {
            Self::Customer => Reason::Customer,
            Self::Partner => Reason::Partner,
            Self::Operator => Reason::Operator,
        }
    }
}

/// Who or what caused a change after the sale (the `reason` of `orders.TicketsCancelled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Reason {
    Customer,
    Partner,
    Operator,
    Withdrawal,
    MerchantClosed,
}

impl Reason {
    const ALL: [Reason; 5] = [
        Self::Customer,
        Self::Partner,
        Self::Operator,
        Self::Withdrawal,
        Self::MerchantClosed,
    ];

    /// The reason `as_str` names.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Customer => "CUSTOMER",
            Self::Partner => "PARTNER",
            Self::Operator => "OPERATOR",
            Self::Withdrawal => "WITHDRAWAL",
            Self::MerchantClosed => "MERCHANT_CLOSED",
        }
    }
}

/// What a change after the sale did (table `order_change`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Cancellation,
    Withdrawal,
    Rebooking,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cancellation => "CANCELLATION",
            Self::Withdrawal => "WITHDRAWAL",
            Self::Rebooking => "REBOOKING",
        }
    }

    /// The mail that tells the customer of it.
    pub fn mail(self) -> app::wire::MailKind {
        match self {
            Self::Cancellation => app::wire::MailKind::Cancellation,
            Self::Withdrawal => app::wire::MailKind::Withdrawal,
            Self::Rebooking => app::wire::MailKind::Rebooking,
        }
    }
}
