//! The settlement share of the crash run (issue 43): after the kills, the ledger still says
//! what happened to the money. Every order with tickets has its `sale`, every cancellation
//! that gave money back has its `refund`, every entry balances, and each order's entries sum
//! to what was paid for it less what went back, to the cent (docs/settlement.md).

use std::collections::{HashMap, HashSet};

use rust_decimal::Decimal;
use sqlx::Connection;
use uuid::Uuid;

use crate::{crash_after_sale::AfterSale, crash_load::on_database};

/// The ledger as read after the last restart.
#[derive(Debug, Default)]
pub struct Ledger {
    /// order id → Σ gross of its entries.
    pub gross: HashMap<Uuid, Decimal>,
    /// Orders with a `sale` entry.
    pub sold: HashSet<Uuid>,
    /// Causes of `refund` entries (the refunds).
    pub refunds_booked: HashSet<Uuid>,
    /// Refunds of cancellations that gave money back.
    pub refunds_made: HashSet<Uuid>,
    /// Entries whose parts do not add up to their gross.
    pub unbalanced: usize,
    pub entries: usize,
}

fn decimal(text: &str) -> anyhow::Result<Decimal> {
    Ok(text.parse()?)
}

pub async fn read(url: &str) -> anyhow::Result<Ledger> {
    let mut out = Ledger::default();
    type Row = (Uuid, String, Uuid, String, String, String, String, String);
    let rows: Vec<Row> = on_database!(url, |conn| sqlx::query_as(
        "SELECT customer_order_id, kind, cause_id, CAST(gross AS TEXT), CAST(tax AS TEXT),
                CAST(commission AS TEXT), CAST(platform_fee AS TEXT), CAST(merchant_payout AS TEXT)
         FROM ledger_entry"
    )
    .fetch_all(&mut conn)
    .await?);
    for (order, kind, cause, gross, tax, commission, fee, payout) in rows {
        out.entries += 1;
        let gross = decimal(&gross)?;
        let tax: Vec<serde_json::Value> = serde_json::from_str(&tax)?;
        let tax: Decimal = tax
            .iter()
            .map(|t| decimal(t["amount"].as_str().unwrap_or("x")))
            .sum::<anyhow::Result<Decimal>>()?;
        if gross != tax + decimal(&commission)? + decimal(&fee)? + decimal(&payout)? {
            out.unbalanced += 1;
        }
        *out.gross.entry(order).or_default() += gross;
        match kind.as_str() {
            "sale" => {
                out.sold.insert(order);
            }
            "refund" => {
                out.refunds_booked.insert(cause);
            }
            _ => {}
        }
    }
    let made: Vec<(Uuid,)> = on_database!(url, |conn| {
        sqlx::query_as(
        "SELECT c.refund_id FROM order_change c JOIN refund r ON r.refund_id = c.refund_id
         WHERE c.kind <> 'REBOOKING' AND (CAST(r.amount AS NUMERIC) > 0 OR CAST(r.to_wallet AS NUMERIC) > 0)"
    )
    .fetch_all(&mut conn)
    .await?
    });
    out.refunds_made = made.into_iter().map(|(id,)| id).collect();
    Ok(out)
}

/// The settlement invariants, against what the after-sale share read of payments and refunds.
pub fn invariants(after: &AfterSale, ledger: &Ledger) -> Vec<(&'static str, bool, String)> {
    let unsold = after
        .paid
        .keys()
        .filter(|o| !ledger.sold.contains(o))
        .count();
    let unbooked = ledger
        .refunds_made
        .difference(&ledger.refunds_booked)
        .count();
    let off = after
        .paid
        .iter()
        .filter(|(order, paid)| {
            let refunded = after.refunded.get(order).copied().unwrap_or_default();
            let booked = ledger.gross.get(order).copied().unwrap_or_default();
            **paid - refunded != booked
        })
        .count();
    vec![
        (
            "every paid order has its sale entry and every refund its refund entry, every entry balances (gross = tax + commission + fee + payout)",
            unsold + unbooked + ledger.unbalanced == 0,
            format!(
                "{} entries, {} paid orders, {} refunds; {unsold} orders without a sale, {unbooked} refunds without an entry, {} unbalanced",
                ledger.entries,
                after.paid.len(),
                ledger.refunds_made.len(),
                ledger.unbalanced
            ),
        ),
        (
            "for every order, its ledger entries sum to paid − refunded, to the cent",
            off == 0,
            format!("{} orders, {off} off", after.paid.len()),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_sale_an_unbooked_refund_and_a_cent_off_are_caught() {
        let order = Uuid::from_u128(1);
        let refund = Uuid::from_u128(2);
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let mut after = AfterSale::default();
        after.paid.insert(order, d("26.00"));
        after.refunded.insert(order, d("13.00"));
        let mut ledger = Ledger::default();
        ledger.gross.insert(order, d("13.00"));
        ledger.sold.insert(order);
        ledger.refunds_made.insert(refund);
        ledger.refunds_booked.insert(refund);
        assert!(invariants(&after, &ledger).iter().all(|(_, held, _)| *held));
        ledger.gross.insert(order, d("13.01"));
        assert!(!invariants(&after, &ledger)[1].1, "a cent off");
        ledger.gross.insert(order, d("13.00"));
        ledger.refunds_booked.clear();
        assert!(
            !invariants(&after, &ledger)[0].1,
            "a refund without its entry"
        );
        ledger.refunds_booked.insert(refund);
        ledger.sold.clear();
        assert!(
            !invariants(&after, &ledger)[0].1,
            "an order without its sale"
        );
    }
}
