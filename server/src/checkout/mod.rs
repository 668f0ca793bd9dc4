//! Checkout: basket, reservation, confirmation, express checkout, and what follows payment.
//!
//! - `plan`: basket and date → products, visit, slots and prices (reads only);
//! - `reserve`: the reservation transaction (provider, vouchers, wallet, checkout, event);
//! - `place`: the payment opened at the provider, then the order written inside a transaction
//!   (order, payment, event);
//! - `create`, `confirm`, `express`, `read`, `extend`: the operations of the API; `view` and
//!   `order_view` what a checkout and an order look like on the wire, `customer_copies`
//!   the node's copies of a customer's orders and ledger entries; `receipt` a paid order's signed receipt;
//! - `idempotency`: the Idempotency-Key rule of the express checkout;
//! - `holds`: what one buyer (customer, session, client address) may hold at once;
//! - `lifecycle`: payment outcomes, expiry, release, tickets, loyalty, and the sweeper;
//! - `commerce`: what all of it works with (the router's state hands it over);
//! - `pricing`: every amount, pure; `visit`, `basket`, `customer`: input rules.

pub mod answers;
pub mod basket;
pub mod commerce;
pub mod confirm;
pub mod create;
pub mod customer;
pub mod customer_copies;
pub mod express;
pub mod extend;
pub mod holds;
pub mod idempotency;
pub mod lifecycle;
pub mod on_account;
pub mod order_view;
pub mod place;
pub mod plan;
pub mod pricing;
pub mod read;
pub mod receipt;
pub mod rehold;
pub mod reserve;
pub mod view;
pub mod visit;

pub use commerce::Commerce;
