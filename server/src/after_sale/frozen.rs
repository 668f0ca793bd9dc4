//! A product's policy as an order keeps it (docs/operator-catalog.md, "After the sale"):
//! frozen on each checkout line when its order is paid, with what the law adds made explicit,
//! so a later change of the product changes no order.

use app::wire::{AfterSalePolicy, RefundRule};
use serde::{Deserialize, Serialize};

/// The EU withdrawal period of a physical or undated product when its policy names none.
pub const DEFAULT_WITHDRAWAL_DAYS: u32 = 14;

/// The policy of one line, frozen at payment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frozen {
    #[serde(default)]
    pub refund_rules: Vec<RefundRule>,
    #[serde(default)]
    pub rebook_until: Option<String>,
    /// Days; 0: no withdrawal right (dated tickets).
    #[serde(default)]
    pub withdrawal_days: u32,
    /// Sold for a date (its deadlines count before the visit); an undated product's count
    /// before the end of its validity.
    #[serde(default)]
    pub dated: bool,
    /// Shipped: its withdrawal period counts from the recorded shipment.
    #[serde(default)]
    pub physical: bool,
}

/// Whether a product is a dated leisure ticket, which the withdrawal right does not cover.
pub fn exempt_from_withdrawal(physical: bool, no_date: bool) -> bool {
    !physical && !no_date
}

impl Frozen {
    /// The policy a product's sale carries: its own, with the withdrawal period the law
    /// gives physical and undated products when it names none.
    pub fn of(policy: Option<&AfterSalePolicy>, physical: bool, no_date: bool) -> Self {
        let default_days = if exempt_from_withdrawal(physical, no_date) {
            0
        } else {
            DEFAULT_WITHDRAWAL_DAYS
        };
        Self {
            refund_rules: policy.map(|p| p.refund_rules.clone()).unwrap_or_default(),
            rebook_until: policy.and_then(|p| p.rebook_until.clone()),
            withdrawal_days: policy
                .and_then(|p| p.withdrawal_days)
                .unwrap_or(default_days),
            dated: !no_date,
            physical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_law_gives_physical_and_undated_products_fourteen_days_and_dated_tickets_none() {
        assert_eq!(Frozen::of(None, true, false).withdrawal_days, 14);
        assert_eq!(Frozen::of(None, false, true).withdrawal_days, 14);
        assert_eq!(Frozen::of(None, false, false).withdrawal_days, 0);
        let policy = AfterSalePolicy {
            withdrawal_days: Some(30),
            ..AfterSalePolicy::default()
        };
        assert_eq!(Frozen::of(Some(&policy), false, true).withdrawal_days, 30);
    }
}
