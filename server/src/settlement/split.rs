//! How money splits into tax, the partner's commission, the platform's fee and the merchant's
//! payout, and how a part of it is taken back: the one rounding rule (docs/settlement.md,
//! "Rounding"). Pure, so every rule is a table test and the ledger's identities a property.
//!
//! - A line splits once, at payment: its VAT is `gross × rate / (100 + rate)`, its net the
//!   rest; a percent commission or fee is of that net; each is rounded to the cent, half to
//!   even, and the payout takes what is left, so `gross = tax + commission + fee + payout`
//!   holds exactly. A fixed commission or fee is per ticket; neither takes more than the net.
//! - The line's parts are then shared over its tickets (largest remainder, by what each
//!   ticket's holder paid), so each ticket carries parts that add up to the line's.
//! - Taking back a ticket's whole share gives back exactly its parts; taking back part of it
//!   gives back each part in proportion, rounded the same way, the payout again the rest.

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

use app::wire::TaxAmount;

use crate::after_sale::allocate::allocate;

/// Rounds to the cent, half to even, with two decimals written.
pub fn cents(amount: Decimal) -> Decimal {
    let mut rounded = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    rounded.rescale(2);
    rounded
}

/// A share of a line: a percent of its net, or an amount per ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    Percent(Decimal),
    Fixed(Decimal),
}

impl Rule {
    /// What the rule takes of `net` for `tickets` tickets, never more than `cap`.
    fn take(self, net: Decimal, tickets: u32, cap: Decimal) -> Decimal {
        let wanted = match self {
            Rule::Percent(p) => cents(net * p / Decimal::ONE_HUNDRED),
            Rule::Fixed(each) => cents(each * Decimal::from(tickets)),
        };
        wanted.min(cap).max(Decimal::ZERO)
    }
}

/// The VAT rate a line is sold at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    pub name: String,
    pub rate_percent: Decimal,
}

/// What a line is split by, frozen with its payment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terms {
    /// `None`: the merchant charges no VAT.
    pub tax: Option<Rate>,
    pub commission: Option<Rule>,
    pub platform_fee: Option<Rule>,
}

/// A line's money as its order keeps it (`checkout_line.money`): the terms it was sold under
/// and how its gross split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineMoney {
    pub terms: Terms,
    pub parts: Parts,
}

/// An amount split: `gross = Σ tax + commission + platform_fee + merchant_payout`, signed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parts {
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
    pub tax: Vec<TaxAmount>,
    #[serde(with = "rust_decimal::serde::str")]
    pub commission: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub platform_fee: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub merchant_payout: Decimal,
}

impl Parts {
    /// Without VAT.
    pub fn net(&self) -> Decimal {
        self.gross - self.tax_total()
    }

    pub fn tax_total(&self) -> Decimal {
        self.tax.iter().map(|t| t.amount).sum()
    }

    /// The same amounts with the other sign (a refund of a sale).
    pub fn negated(&self) -> Parts {
        Parts {
            gross: -self.gross,
            tax: self
                .tax
                .iter()
                .map(|t| TaxAmount {
                    amount: -t.amount,
                    ..t.clone()
                })
                .collect(),
            commission: -self.commission,
            platform_fee: -self.platform_fee,
            merchant_payout: -self.merchant_payout,
        }
    }

    /// Adds `other`, rate by rate.
    pub fn add(&mut self, other: &Parts) {
        self.gross += other.gross;
        for t in &other.tax {
            match self
                .tax
                .iter_mut()
                .find(|mine| mine.rate_percent == t.rate_percent && mine.name == t.name)
            {
                Some(mine) => mine.amount += t.amount,
                None => self.tax.push(t.clone()),
            }
        }
        self.commission += other.commission;
        self.platform_fee += other.platform_fee;
        self.merchant_payout += other.merchant_payout;
    }

    /// `self + other`.
    pub fn plus(&self, other: &Parts) -> Parts {
        let mut sum = self.clone();
        sum.add(other);
        sum
    }

    /// Whether the identity holds: gross = tax + commission + fee + payout.
    pub fn balances(&self) -> bool {
        self.gross == self.tax_total() + self.commission + self.platform_fee + self.merchant_payout
    }
}

/// How `gross`, paid for `tickets` tickets, splits under `terms`.
pub fn split(gross: Decimal, tickets: u32, terms: &Terms) -> Parts {
    let gross = cents(gross);
    let tax: Vec<TaxAmount> = terms
        .tax
        .iter()
        .map(|rate| TaxAmount {
            name: rate.name.clone(),
            rate_percent: rate.rate_percent,
            amount: cents(gross * rate.rate_percent / (Decimal::ONE_HUNDRED + rate.rate_percent)),
        })
        .collect();
    let net = gross - tax.iter().map(|t| t.amount).sum::<Decimal>();
    let commission = terms
        .commission
        .map_or(Decimal::ZERO, |r| r.take(net, tickets, net));
    let platform_fee = terms
        .platform_fee
        .map_or(Decimal::ZERO, |r| r.take(net, tickets, net - commission));
    Parts {
        gross,
        tax,
        commission,
        platform_fee,
        merchant_payout: net - commission - platform_fee,
    }
}

/// `line` shared over tickets that paid `shares` (which sum to its gross): each ticket's
/// parts, which add up to the line's exactly.
pub fn per_ticket(line: &Parts, shares: &[Decimal]) -> Vec<Parts> {
    let taxes: Vec<Vec<Decimal>> = line
        .tax
        .iter()
        .map(|t| allocate(t.amount, shares))
        .collect();
    let commissions = allocate(line.commission, shares);
    let fees = allocate(line.platform_fee, shares);
    shares
        .iter()
        .enumerate()
        .map(|(i, share)| {
            let tax: Vec<TaxAmount> = line
                .tax
                .iter()
                .zip(&taxes)
                .map(|(t, amounts)| TaxAmount {
                    amount: amounts[i],
                    ..t.clone()
                })
                .collect();
            let tax_total: Decimal = tax.iter().map(|t| t.amount).sum();
            Parts {
                gross: *share,
                tax,
                commission: commissions[i],
                platform_fee: fees[i],
                merchant_payout: *share - tax_total - commissions[i] - fees[i],
            }
        })
        .collect()
}

/// The part `amount` (between zero and `of.gross`) of `of`: all of it when it is the whole,
/// else each part in proportion, rounded to the cent, the payout the rest.
pub fn part(of: &Parts, amount: Decimal) -> Parts {
    let amount = cents(amount);
    if amount == of.gross {
        return of.clone();
    }
    if of.gross.is_zero() || amount.is_zero() {
        return Parts {
            gross: amount,
            tax: of
                .tax
                .iter()
                .map(|t| TaxAmount {
                    amount: Decimal::ZERO,
                    ..t.clone()
                })
                .collect(),
            merchant_payout: amount,
            ..Parts::default()
        };
    }
    let scale = |x: Decimal| cents(x * amount / of.gross);
    let tax: Vec<TaxAmount> = of
        .tax
        .iter()
        .map(|t| TaxAmount {
            amount: scale(t.amount),
            ..t.clone()
        })
        .collect();
    let commission = scale(of.commission);
    let platform_fee = scale(of.platform_fee);
    let tax_total: Decimal = tax.iter().map(|t| t.amount).sum();
    Parts {
        gross: amount,
        tax,
        commission,
        platform_fee,
        merchant_payout: amount - tax_total - commission - platform_fee,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn terms(rate: &str, commission: Option<Rule>, fee: Option<Rule>) -> Terms {
        Terms {
            tax: Some(Rate {
                name: format!("VAT {rate}%"),
                rate_percent: d(rate),
            }),
            commission,
            platform_fee: fee,
        }
    }

    #[test]
    fn a_line_splits_into_vat_commission_fee_and_payout_to_the_cent() {
        // 2 × 12.00 at 9 %: VAT 24 × 9 / 109 = 1.9816… → 1.98; net 22.02; 10 % of it 2.202
        // → 2.20; 3 % 0.6606 → 0.66; the payout the rest.
        let p = split(
            d("24.00"),
            2,
            &terms(
                "9",
                Some(Rule::Percent(d("10"))),
                Some(Rule::Percent(d("3"))),
            ),
        );
        assert_eq!(p.tax[0].amount, d("1.98"));
        assert_eq!(p.net(), d("22.02"));
        assert_eq!(p.commission, d("2.20"));
        assert_eq!(p.platform_fee, d("0.66"));
        assert_eq!(p.merchant_payout, d("19.16"));
        assert!(p.balances());
    }

    #[test]
    fn half_a_cent_rounds_to_the_even_cent() {
        // Net 10.25 at 10 %: 1.025 → 1.02 (even); net 10.35: 1.035 → 1.04.
        let none = |c| Terms {
            tax: None,
            commission: Some(Rule::Percent(d("10"))),
            platform_fee: c,
        };
        assert_eq!(split(d("10.25"), 1, &none(None)).commission, d("1.02"));
        assert_eq!(split(d("10.35"), 1, &none(None)).commission, d("1.04"));
    }

    #[test]
    fn a_fixed_commission_is_per_ticket_and_never_more_than_the_net() {
        let fixed = |each| terms("21", Some(Rule::Fixed(d(each))), Some(Rule::Fixed(d("1"))));
        let p = split(d("30.25"), 3, &fixed("2"));
        assert_eq!(p.net(), d("25.00"));
        assert_eq!((p.commission, p.platform_fee), (d("6.00"), d("3.00")));
        // A ticket discounted to 1.21: net 1.00, all of it commission, no fee left to take.
        let p = split(d("1.21"), 1, &fixed("2"));
        assert_eq!((p.commission, p.platform_fee), (d("1.00"), d("0.00")));
        assert_eq!(p.merchant_payout, d("0.00"));
        assert!(p.balances());
    }

    #[test]
    fn without_vat_the_net_is_the_gross() {
        let p = split(d("15.00"), 1, &Terms::default());
        assert!(p.tax.is_empty());
        assert_eq!(p.merchant_payout, d("15.00"));
    }

    #[test]
    fn a_whole_share_taken_back_is_exactly_its_parts() {
        let line = split(
            d("35.00"),
            3,
            &terms("9", Some(Rule::Percent(d("12.5"))), None),
        );
        let tickets = per_ticket(&line, &[d("11.67"), d("11.67"), d("11.66")]);
        let mut sum = Parts::default();
        for t in &tickets {
            assert!(t.balances(), "{t:?}");
            assert_eq!(&part(t, t.gross), t);
            sum.add(t);
        }
        assert_eq!(sum, line);
    }

    #[test]
    fn half_a_ticket_taken_back_gives_back_each_part_in_proportion() {
        let ticket = split(
            d("20.00"),
            1,
            &terms("21", Some(Rule::Percent(d("10"))), None),
        );
        // VAT 3.47, commission 1.65, payout 14.88; half: 1.735 → 1.74, 0.825 → 0.82.
        let half = part(&ticket, d("10.00"));
        assert_eq!(half.tax[0].amount, d("1.74"));
        assert_eq!(half.commission, d("0.82"));
        assert_eq!(half.merchant_payout, d("7.44"));
        assert!(half.balances());
    }

    /// docs/settlement.md, "Worked examples", computed.
    #[test]
    fn the_documented_examples_hold() {
        // A 5.00 voucher over 2 × 12.00 at 9 % and 10.00 at 21 %: shares by price.
        let shares = allocate(d("29.00"), &[d("12"), d("12"), d("10")]);
        assert_eq!(shares, [d("10.24"), d("10.23"), d("8.53")]);
        let ten = Some(Rule::Percent(d("10")));
        let adults = split(shares[0] + shares[1], 2, &terms("9", ten, None));
        let book = split(shares[2], 1, &terms("21", ten, None));
        let amounts = |p: &Parts| {
            (
                p.gross,
                p.tax[0].amount,
                p.net(),
                p.commission,
                p.merchant_payout,
            )
        };
        assert_eq!(
            amounts(&adults),
            (d("20.47"), d("1.69"), d("18.78"), d("1.88"), d("16.90"))
        );
        assert_eq!(
            amounts(&book),
            (d("8.53"), d("1.48"), d("7.05"), d("0.70"), d("6.35"))
        );
        // The first adult cancelled under a 50 % policy.
        let tickets = per_ticket(&adults, &shares[..2]);
        assert_eq!(
            amounts(&tickets[0]),
            (d("10.24"), d("0.85"), d("9.39"), d("0.94"), d("8.45"))
        );
        assert_eq!(
            amounts(&tickets[1]),
            (d("10.23"), d("0.84"), d("9.39"), d("0.94"), d("8.45"))
        );
        let half = part(
            &tickets[0],
            crate::after_sale::allocate::ticket_refund(shares[0], d("50"), Decimal::ZERO),
        );
        assert_eq!(
            amounts(&half),
            (d("5.12"), d("0.42"), d("4.70"), d("0.47"), d("4.23"))
        );
        // A fixed 2.00 on a 20.00 ticket at 21 % with a 50 % voucher, and discounted to 2.42.
        let fixed = terms("21", Some(Rule::Fixed(d("2.00"))), None);
        assert_eq!(
            amounts(&split(d("10.00"), 1, &fixed)),
            (d("10.00"), d("1.74"), d("8.26"), d("2.00"), d("6.26"))
        );
        assert_eq!(
            amounts(&split(d("2.42"), 1, &fixed)),
            (d("2.42"), d("0.42"), d("2.00"), d("2.00"), d("0.00"))
        );
    }

    fn rule() -> impl Strategy<Value = Option<Rule>> {
        prop_oneof![
            Just(None),
            (0u32..=10_000).prop_map(|p| Some(Rule::Percent(Decimal::new(p.into(), 2)))),
            (0u32..=1_000).prop_map(|c| Some(Rule::Fixed(Decimal::new(c.into(), 2)))),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]

        /// Whatever the terms and shares, every part balances, the tickets add up to the
        /// line, and taking every ticket back in any pieces gives back exactly the line.
        #[test]
        fn taking_everything_back_in_pieces_gives_back_exactly_the_sale(
            cents_each in proptest::collection::vec(0i64..100_000, 1..8),
            rate in prop_oneof![Just("0"), Just("9"), Just("21"), Just("5.5")],
            commission in rule(),
            fee in rule(),
            cut in 0u32..=100,
        ) {
            let shares: Vec<Decimal> = cents_each.iter().map(|c| Decimal::new(*c, 2)).collect();
            let gross: Decimal = shares.iter().sum();
            let line = split(gross, shares.len() as u32, &terms(rate, commission, fee));
            prop_assert!(line.balances());
            prop_assert!(line.merchant_payout >= Decimal::ZERO);
            let tickets = per_ticket(&line, &shares);
            let mut back = Parts::default();
            for t in &tickets {
                prop_assert!(t.balances());
                // A partial refund first, then the rest of the ticket.
                let first = part(t, cents(t.gross * Decimal::from(cut) / Decimal::ONE_HUNDRED));
                let rest = part(&t.plus(&first.negated()), t.gross - first.gross);
                prop_assert!(first.balances() && rest.balances());
                back.add(&first);
                back.add(&rest);
            }
            prop_assert_eq!(back, line);
        }
    }
}
