//! Checkout: basket, reservation, confirmation, express checkout, and their pricing.

pub mod pricing;
