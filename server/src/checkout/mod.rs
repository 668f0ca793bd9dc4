//! Checkout: basket, reservation, confirmation, express checkout, and their pricing.

pub mod basket;
pub mod pricing;
pub mod visit;
