//! What a customer pays for a catalog price (docs/settlement.md, "Prices without VAT"): the
//! price itself when the merchant's prices include VAT (the default), or the price with its
//! product's VAT added when they do not (`tax.prices_include_tax: false`), rounded to the cent
//! half to even, as every amount.
//!
//! Every place that shows or charges a catalog price (the product list, the calendar, the
//! checkout's plan) passes it through here, so the customer is charged what was shown, and
//! the rest of the sale (vouchers, the split, the ledger) works on what was paid as for any
//! merchant. The split takes the VAT out of that again: for one ticket its net is the catalog
//! price exactly (the VAT added and taken out round the same cent), for a line of many the
//! VAT is rounded once over the line.

use rust_decimal::Decimal;
use uuid::Uuid;

use super::cents;
use crate::store::{CalendarDay, Merchant, Product};

/// How one product's catalog prices become what its customers pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sold {
    /// The VAT percent added to each price; none when prices include VAT.
    added: Option<Decimal>,
}

impl Sold {
    /// The way `merchant` sells `product_id`.
    pub fn of(merchant: &Merchant, product_id: Uuid) -> Self {
        let without_vat = merchant
            .settlement
            .tax
            .as_ref()
            .is_some_and(|t| !t.prices_include_tax);
        Self {
            added: without_vat
                .then(|| super::terms::rate_of(merchant, product_id).map(|r| r.rate_percent))
                .flatten(),
        }
    }

    /// What a customer pays for catalog price `price`.
    pub fn price(self, price: Decimal) -> Decimal {
        match self.added {
            Some(rate) => cents(price + price * rate / Decimal::ONE_HUNDRED),
            None => price,
        }
    }

    /// `product` with the prices its customers pay.
    pub fn product(self, mut product: Product) -> Product {
        if self.added.is_some() {
            product.unit_price = self.price(product.unit_price);
            product.list_price = self.price(product.list_price);
            product.booking_costs = self.price(product.booking_costs);
            product.visit_guarantee_cost = self.price(product.visit_guarantee_cost);
        }
        product
    }

    /// A priced day with the prices its customers pay.
    pub fn day(self, mut day: CalendarDay) -> CalendarDay {
        day.price = self.price(day.price);
        day.list_price = self.price(day.list_price);
        day
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settlement::split::{split, Rate, Terms};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn vat_is_added_to_the_cent_half_to_even() {
        let sold = Sold {
            added: Some(d("9")),
        };
        assert_eq!(sold.price(d("10.00")), d("10.90"));
        // 0.50 × 1.09 = 0.545: half to even.
        assert_eq!(sold.price(d("0.50")), d("0.54"));
        assert_eq!(Sold { added: None }.price(d("0.50")), d("0.50"));
    }

    /// For every price of whole cents up to 100.00 and the EU's common rates, the split of
    /// one ticket sold at the price with VAT added finds the catalog price as its net.
    #[test]
    fn one_tickets_net_is_its_catalog_price() {
        for rate in [
            "5", "5.5", "6", "7", "9", "10", "12", "19", "20", "21", "25", "27",
        ] {
            let sold = Sold {
                added: Some(d(rate)),
            };
            let terms = Terms {
                tax: Some(Rate {
                    name: "VAT".into(),
                    rate_percent: d(rate),
                }),
                commission: None,
                platform_fee: None,
            };
            for cents in 0..=10_000i64 {
                let net = Decimal::new(cents, 2);
                let parts = split(sold.price(net), 1, &terms);
                assert_eq!(parts.net(), net, "{net} at {rate} %");
            }
        }
    }
}
