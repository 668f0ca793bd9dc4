//! Amounts as Stripe takes them: integers of the currency's minor unit (cents for EUR, yen
//! for JPY), converted from and to `rust_decimal` exactly, never through a float.
//!
//! An amount with more decimals than its currency has is refused, not rounded: totals are
//! already rounded to the cent where they are priced (docs/api-checkout.md). The one amount
//! computed here, the platform's application fee, is rounded half to even to the minor unit.

use rust_decimal::{Decimal, RoundingStrategy};

/// Stripe's zero-decimal currencies (docs.stripe.com/currencies#zero-decimal).
const ZERO_DECIMAL: &[&str] = &[
    "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV",
    "XAF", "XOF", "XPF",
];
/// Stripe's three-decimal currencies (docs.stripe.com/currencies#three-decimal).
const THREE_DECIMAL: &[&str] = &["BHD", "JOD", "KWD", "OMR", "TND"];

/// Decimals of `currency`'s minor unit as Stripe counts them.
pub fn exponent(currency: &str) -> u32 {
    let currency = currency.to_ascii_uppercase();
    if ZERO_DECIMAL.contains(&currency.as_str()) {
        0
    } else if THREE_DECIMAL.contains(&currency.as_str()) {
        3
    } else {
        2
    }
}

/// `amount` in `currency`'s minor unit; an error when it has finer decimals than the unit,
/// is negative, or does not fit.
pub fn to_minor_units(amount: Decimal, currency: &str) -> anyhow::Result<i64> {
    let scaled = amount
        .checked_mul(Decimal::from(10_i64.pow(exponent(currency))))
        .ok_or_else(|| anyhow::anyhow!("{amount} {currency} is too large for a payment"))?;
    anyhow::ensure!(
        !amount.is_sign_negative(),
        "a payment of {amount} {currency} is negative"
    );
    anyhow::ensure!(
        scaled.fract().is_zero(),
        "{amount} {currency} is finer than the currency's minor unit"
    );
    i64::try_from(scaled.trunc())
        .map_err(|_| anyhow::anyhow!("{amount} {currency} is too large for a payment"))
}

/// `minor` units of `currency` as a decimal amount.
pub fn from_minor_units(minor: i64, currency: &str) -> Decimal {
    Decimal::new(minor, exponent(currency))
}

/// `percent` of `amount` in minor units, rounded half to even to the minor unit.
pub fn fee_minor_units(amount: Decimal, percent: Decimal, currency: &str) -> anyhow::Result<i64> {
    let fee = amount
        .checked_mul(percent)
        .ok_or_else(|| anyhow::anyhow!("the fee on {amount} {currency} is too large"))?
        / Decimal::ONE_HUNDRED;
    let fee = fee.round_dp_with_strategy(exponent(currency), RoundingStrategy::MidpointNearestEven);
    to_minor_units(fee, currency)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(value: &str) -> Decimal {
        value.parse().unwrap()
    }

    #[test]
    fn cents_yen_and_fils_are_exact() {
        assert_eq!(to_minor_units(d("12.34"), "EUR").unwrap(), 1234);
        assert_eq!(to_minor_units(d("12.3"), "eur").unwrap(), 1230);
        assert_eq!(to_minor_units(d("0"), "EUR").unwrap(), 0);
        assert_eq!(to_minor_units(d("1500"), "JPY").unwrap(), 1500);
        assert_eq!(to_minor_units(d("1.234"), "KWD").unwrap(), 1234);
        // 0.1 + 0.2 as a float is not 0.3; as decimals it is 30 cents exactly.
        assert_eq!(to_minor_units(d("0.1") + d("0.2"), "EUR").unwrap(), 30);
    }

    #[test]
    fn finer_than_the_unit_negative_or_huge_is_refused() {
        assert!(to_minor_units(d("12.345"), "EUR").is_err());
        assert!(to_minor_units(d("1500.5"), "JPY").is_err());
        assert!(to_minor_units(d("-1"), "EUR").is_err());
        assert!(to_minor_units(Decimal::MAX, "EUR").is_err());
    }

    #[test]
    fn minor_units_read_back() {
        assert_eq!(from_minor_units(1234, "EUR"), d("12.34"));
        assert_eq!(from_minor_units(1500, "JPY"), d("1500"));
        for cents in [0, 1, 99, 100, 123_456_789] {
            assert_eq!(
                to_minor_units(from_minor_units(cents, "EUR"), "EUR").unwrap(),
                cents
            );
        }
    }

    #[test]
    fn the_fee_rounds_half_to_even() {
        assert_eq!(fee_minor_units(d("10.00"), d("5"), "EUR").unwrap(), 50);
        // 2.5 % of 0.50 is 1.25 cents: down to 1; of 0.70 it is 1.75: up to 2.
        assert_eq!(fee_minor_units(d("0.50"), d("2.5"), "EUR").unwrap(), 1);
        assert_eq!(fee_minor_units(d("0.70"), d("2.5"), "EUR").unwrap(), 2);
        // 0.125 → 0.12, 0.135 → 0.14 (to even).
        assert_eq!(fee_minor_units(d("1.25"), d("10"), "EUR").unwrap(), 12);
        assert_eq!(fee_minor_units(d("1.35"), d("10"), "EUR").unwrap(), 14);
        assert_eq!(fee_minor_units(d("999"), d("0"), "EUR").unwrap(), 0);
        assert_eq!(fee_minor_units(d("333"), d("10"), "JPY").unwrap(), 33);
    }
}
