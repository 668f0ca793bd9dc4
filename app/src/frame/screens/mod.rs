//! One file (or folder) per screen, each a route.

pub mod checkout;
pub mod gate;
pub mod ledger;
pub mod merchant;
pub mod merchants;
pub mod onboarding;
pub mod orders;
pub mod pay;
pub mod product;
pub mod return_screen;
