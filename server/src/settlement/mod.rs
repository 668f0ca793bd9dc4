//! Settlement (docs/settlement.md): what each line sold splits into (VAT, the partner's
//! commission, the platform's fee, the merchant's payout), the ledger entries every sale,
//! refund and date change books in its own transaction, and the statements read from them.
//!
//! - `split`: the one rounding rule, pure.
//! - `terms`: which VAT rate, commission and fee a line is sold under, and their checks.
//! - `book`: the entries a sale, a refund or a rebooking books.
//! - `statement`: a party's month, summed per sku and currency, as JSON or CSV, signed.
//! - `vat`: an order's VAT per rate, for its receipts.
//! - `sold`: what a customer pays for a catalog price, VAT added when prices are without it.
//! - `invoice`: a business buyer's EN 16931 invoice and credit notes, from the ledger;
//!   `cii` writes them as UN/CEFACT CII XML.

pub mod book;
pub mod cii;
pub mod invoice;
pub mod read;
pub mod sold;
pub mod split;
pub mod statement;
pub mod terms;
pub mod vat;

pub use split::{cents, Parts, Rule, Terms};
