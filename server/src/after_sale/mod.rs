//! After the sale (issue 41, in progress): the rules a merchant's policy is judged by, kept
//! apart from the routes that will use them so each rule exists once and is tested alone.
//!
//! - `policy`: a refund rule's deadline before the visit, in the merchant's IANA zone across
//!   daylight-saving changes, and which rule applies at a moment;
//! - `allocate`: what an order paid shared over its tickets to the cent, and a ticket's refund
//!   from its share, so refunds add up to what was paid over any history.
//!
//! Not yet built on them: the policy on products and its freezing on order lines, the order's
//! quote, the cancellation, rebooking and withdrawal routes, their mails and screens
//! (docs/payments.md, "Refunds", says what the provider side already does).

pub mod allocate;
pub mod policy;
