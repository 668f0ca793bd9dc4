//! An order's VAT per rate for its receipts, the ticket mail and the ticket page: summed from
//! its ledger entries, so what was refunded or moved since is in it.

use std::collections::BTreeMap;

use app::wire::{LedgerEntry, VatRow};
use rust_decimal::Decimal;

use super::cents;

/// The VAT rows of `entries` (an order's), by rate; a rate nothing is left of is left out,
/// as are entries without VAT.
pub fn of_entries(entries: &[LedgerEntry]) -> Vec<VatRow> {
    let mut rows: BTreeMap<(Decimal, String), (Decimal, Decimal)> = BTreeMap::new();
    for entry in entries {
        for tax in &entry.tax {
            let (gross, vat) = rows
                .entry((tax.rate_percent.normalize(), tax.name.clone()))
                .or_default();
            // One line is one product at one rate: its whole gross is at that rate.
            *gross += entry.gross;
            *vat += tax.amount;
        }
    }
    rows.into_iter()
        .filter(|(_, (gross, _))| !gross.is_zero())
        .map(|((rate_percent, name), (gross, tax))| VatRow {
            name,
            rate_percent,
            net: cents(gross - tax),
            tax: cents(tax),
            gross: cents(gross),
        })
        .collect()
}
