//! Checkout totals: the only place prices are computed. Pure, so every rule is a table test.
//!
//! Rules (docs/api-checkout.md, "Prices and discounts"):
//! - a line costs `(price of the day + booking costs + visit guarantee if flexible) × quantity`;
//! - vouchers and memberships discount the ticket amount (price × quantity), never the booking
//!   costs or the visit guarantee, which are the merchant's and provider's fees;
//! - vouchers apply in the order given, each to what is left of the ticket amount (a percentage
//!   of the remainder, or a fixed amount capped at it), so discounts never exceed the tickets;
//! - the best membership percentage then applies to what is left;
//! - the wallet pays last, up to the whole total, which never goes below zero;
//! - every amount is rounded to cents with banker's rounding when it is computed.

use rust_decimal::{Decimal, RoundingStrategy};
use uuid::Uuid;

/// One basket line with the prices of its visit date.
#[derive(Debug, Clone, PartialEq)]
pub struct LineInput {
    pub product_id: Uuid,
    pub quantity: u32,
    pub unit_price: Decimal,
    pub list_price: Decimal,
    pub booking_costs: Decimal,
    pub visit_guarantee_cost: Decimal,
}

/// A voucher that is valid for this checkout.
#[derive(Debug, Clone, PartialEq)]
pub struct VoucherInput {
    pub voucher_id: Uuid,
    pub kind: VoucherKind,
    pub value: Decimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoucherKind {
    /// `value` percent off.
    Percentage,
    /// `value` off, in the checkout's currency.
    Amount,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PricingInput {
    pub lines: Vec<LineInput>,
    pub flexible_date: bool,
    pub vouchers: Vec<VoucherInput>,
    /// The best membership discount of the customer, in percent.
    pub membership_percentage: Option<Decimal>,
    pub wallet_balance: Decimal,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LineQuote {
    pub product_id: Uuid,
    pub quantity: u32,
    pub unit_price: Decimal,
    pub list_price: Decimal,
    pub booking_costs: Decimal,
    /// Zero unless the flexible-date option was taken.
    pub visit_guarantee_cost: Decimal,
    pub line_total: Decimal,
}

/// The authoritative totals of a checkout.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub lines: Vec<LineQuote>,
    /// Sum of the line totals.
    pub subtotal: Decimal,
    /// Discount per voucher, in the order applied; a voucher that discounts nothing is listed with zero.
    pub voucher_discounts: Vec<(Uuid, Decimal)>,
    pub membership_discount: Decimal,
    /// Vouchers plus membership.
    pub discount_total: Decimal,
    pub wallet_applied: Decimal,
    /// What the customer pays.
    pub total: Decimal,
}

/// Rounds to cents, half to even.
pub fn cents(amount: Decimal) -> Decimal {
    let mut rounded = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    rounded.rescale(2);
    rounded
}

pub fn quote(input: &PricingInput) -> Quote {
    let hundred = Decimal::ONE_HUNDRED;
    let mut ticket_amount = Decimal::ZERO;
    let lines: Vec<LineQuote> = input
        .lines
        .iter()
        .map(|line| {
            let qty = Decimal::from(line.quantity);
            let guarantee = if input.flexible_date {
                line.visit_guarantee_cost
            } else {
                Decimal::ZERO
            };
            ticket_amount += cents(line.unit_price * qty);
            LineQuote {
                product_id: line.product_id,
                quantity: line.quantity,
                unit_price: cents(line.unit_price),
                list_price: cents(line.list_price),
                booking_costs: cents(line.booking_costs),
                visit_guarantee_cost: cents(guarantee),
                line_total: cents((line.unit_price + line.booking_costs + guarantee) * qty),
            }
        })
        .collect();
    let subtotal = cents(lines.iter().map(|l| l.line_total).sum());

    let mut discountable = ticket_amount;
    let voucher_discounts: Vec<(Uuid, Decimal)> = input
        .vouchers
        .iter()
        .map(|v| {
            let wanted = match v.kind {
                VoucherKind::Percentage => cents(discountable * v.value / hundred),
                VoucherKind::Amount => cents(v.value),
            };
            let discount = wanted.min(discountable).max(Decimal::ZERO);
            discountable -= discount;
            (v.voucher_id, discount)
        })
        .collect();
    let membership_discount = input
        .membership_percentage
        .map(|p| cents(discountable * p / hundred).min(discountable))
        .unwrap_or(Decimal::ZERO);
    let discount_total =
        cents(voucher_discounts.iter().map(|(_, d)| *d).sum::<Decimal>() + membership_discount);
    let after_discounts = (subtotal - discount_total).max(Decimal::ZERO);
    let wallet_applied = cents(input.wallet_balance.max(Decimal::ZERO).min(after_discounts));
    Quote {
        lines,
        subtotal,
        voucher_discounts,
        membership_discount: cents(membership_discount),
        discount_total,
        wallet_applied,
        total: cents(after_discounts - wallet_applied),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn line(qty: u32, price: &str, booking: &str, guarantee: &str) -> LineInput {
        LineInput {
            product_id: Uuid::from_u128(qty as u128),
            quantity: qty,
            unit_price: d(price),
            list_price: d(price),
            booking_costs: d(booking),
            visit_guarantee_cost: d(guarantee),
        }
    }

    fn voucher(n: u128, kind: VoucherKind, value: &str) -> VoucherInput {
        VoucherInput {
            voucher_id: Uuid::from_u128(n),
            kind,
            value: d(value),
        }
    }

    struct Case {
        name: &'static str,
        input: PricingInput,
        subtotal: &'static str,
        discount_total: &'static str,
        wallet_applied: &'static str,
        total: &'static str,
    }

    fn input(lines: Vec<LineInput>) -> PricingInput {
        PricingInput {
            lines,
            flexible_date: false,
            vouchers: vec![],
            membership_percentage: None,
            wallet_balance: Decimal::ZERO,
        }
    }

    #[test]
    fn the_pricing_table() {
        use VoucherKind::*;
        let cases = vec![
            Case {
                name: "price times quantity plus booking costs per ticket",
                input: input(vec![
                    line(2, "12.50", "1.00", "2.00"),
                    line(1, "8.00", "1.00", "2.00"),
                ]),
                subtotal: "36.00",
                discount_total: "0.00",
                wallet_applied: "0.00",
                total: "36.00",
            },
            Case {
                name: "visit guarantee per ticket only when flexible",
                input: PricingInput {
                    flexible_date: true,
                    ..input(vec![line(3, "10.00", "0.50", "1.50")])
                },
                subtotal: "36.00",
                discount_total: "0.00",
                wallet_applied: "0.00",
                total: "36.00",
            },
            Case {
                name: "a percentage voucher discounts tickets, not fees",
                input: PricingInput {
                    vouchers: vec![voucher(1, Percentage, "10")],
                    ..input(vec![line(2, "20.00", "2.00", "0")])
                },
                subtotal: "44.00",
                discount_total: "4.00",
                wallet_applied: "0.00",
                total: "40.00",
            },
            Case {
                name: "an amount voucher is capped at the ticket amount",
                input: PricingInput {
                    vouchers: vec![voucher(1, Amount, "100")],
                    ..input(vec![line(1, "15.00", "1.50", "0")])
                },
                subtotal: "16.50",
                discount_total: "15.00",
                wallet_applied: "0.00",
                total: "1.50",
            },
            Case {
                name: "vouchers apply in order to what is left",
                input: PricingInput {
                    vouchers: vec![voucher(1, Amount, "10"), voucher(2, Percentage, "50")],
                    ..input(vec![line(1, "30.00", "0", "0")])
                },
                subtotal: "30.00",
                discount_total: "20.00",
                wallet_applied: "0.00",
                total: "10.00",
            },
            Case {
                name: "membership applies after vouchers",
                input: PricingInput {
                    vouchers: vec![voucher(1, Amount, "10")],
                    membership_percentage: Some(d("25")),
                    ..input(vec![line(2, "25.00", "0", "0")])
                },
                subtotal: "50.00",
                discount_total: "20.00",
                wallet_applied: "0.00",
                total: "30.00",
            },
            Case {
                name: "the wallet pays last and never below zero",
                input: PricingInput {
                    membership_percentage: Some(d("10")),
                    wallet_balance: d("500"),
                    ..input(vec![line(1, "40.00", "2.00", "0")])
                },
                subtotal: "42.00",
                discount_total: "4.00",
                wallet_applied: "38.00",
                total: "0.00",
            },
            Case {
                name: "a partial wallet reduces the total",
                input: PricingInput {
                    wallet_balance: d("5.25"),
                    ..input(vec![line(1, "10.00", "0", "0")])
                },
                subtotal: "10.00",
                discount_total: "0.00",
                wallet_applied: "5.25",
                total: "4.75",
            },
            Case {
                name: "half cents round to even",
                input: PricingInput {
                    vouchers: vec![voucher(1, Percentage, "12.5")],
                    ..input(vec![line(1, "0.20", "0", "0")])
                },
                // 12.5% of 0.20 is 0.025: half to even gives 0.02 (half up would give 0.03).
                subtotal: "0.20",
                discount_total: "0.02",
                wallet_applied: "0.00",
                total: "0.18",
            },
            Case {
                name: "a free ticket stays free",
                input: PricingInput {
                    vouchers: vec![voucher(1, Amount, "5")],
                    wallet_balance: d("3"),
                    ..input(vec![line(4, "0", "0", "0")])
                },
                subtotal: "0.00",
                discount_total: "0.00",
                wallet_applied: "0.00",
                total: "0.00",
            },
        ];
        for case in cases {
            let q = quote(&case.input);
            assert_eq!(q.subtotal, d(case.subtotal), "{}: subtotal", case.name);
            assert_eq!(
                q.discount_total,
                d(case.discount_total),
                "{}: discount",
                case.name
            );
            assert_eq!(
                q.wallet_applied,
                d(case.wallet_applied),
                "{}: wallet",
                case.name
            );
            assert_eq!(q.total, d(case.total), "{}: total", case.name);
            assert_eq!(q.total.scale(), 2, "{}: two decimals", case.name);
            assert_eq!(
                q.subtotal - q.discount_total - q.wallet_applied,
                q.total,
                "{}: adds up",
                case.name
            );
        }
    }

    #[test]
    fn every_voucher_is_reported_even_when_it_discounts_nothing() {
        let q = quote(&PricingInput {
            vouchers: vec![
                voucher(1, VoucherKind::Amount, "50"),
                voucher(2, VoucherKind::Amount, "5"),
            ],
            ..input(vec![line(1, "20.00", "0", "0")])
        });
        assert_eq!(
            q.voucher_discounts,
            vec![
                (Uuid::from_u128(1), d("20.00")),
                (Uuid::from_u128(2), d("0.00"))
            ]
        );
    }
}
