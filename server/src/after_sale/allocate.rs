//! Money shared out to the cent so that the parts always add up (issue 41): what an order paid
//! after vouchers and wallet, shared over its tickets in proportion to their prices; a refund
//! computed per ticket from its share, so cancelling tickets one by one refunds exactly what
//! cancelling them together does, and never more than was paid.
//!
//! The one rounding rule: a share is the exact proportion truncated to the cent, and the cents
//! left over go one each to the largest remainders (the earlier ticket on a tie); a refund is
//! its percent of a share rounded half to even to the cent, less the rule's fee, never below
//! zero.

use rust_decimal::{Decimal, RoundingStrategy};

/// `total` shared over `weights` in proportion, each part to the cent, the parts summing to
/// `total` exactly. Zero weights share equally; no weights, no parts.
pub fn allocate(total: Decimal, weights: &[Decimal]) -> Vec<Decimal> {
    if weights.is_empty() {
        return Vec::new();
    }
    let sum: Decimal = weights.iter().sum();
    let weights: Vec<Decimal> = if sum.is_zero() {
        vec![Decimal::ONE; weights.len()]
    } else {
        weights.to_vec()
    };
    let sum: Decimal = weights.iter().sum();
    let cent = Decimal::new(1, 2);
    let exact: Vec<Decimal> = weights.iter().map(|w| total * w / sum).collect();
    let mut parts: Vec<Decimal> = exact
        .iter()
        .map(|e| e.round_dp_with_strategy(2, RoundingStrategy::ToZero))
        .collect();
    let mut left = total - parts.iter().sum::<Decimal>();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    // Largest remainder first; the earlier ticket on a tie (a stable sort).
    order.sort_by(|&a, &b| (exact[b] - parts[b]).cmp(&(exact[a] - parts[a])));
    for i in order.into_iter().cycle() {
        if left < cent {
            break;
        }
        parts[i] += cent;
        left -= cent;
    }
    parts
}

/// What cancelling one ticket refunds of its `share` at `percent`, less `fee`.
pub fn ticket_refund(share: Decimal, percent: Decimal, fee: Decimal) -> Decimal {
    let refund = (share * percent / Decimal::ONE_HUNDRED)
        .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    (refund - fee).max(Decimal::ZERO).min(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn shares_add_up_to_the_cent() {
        assert_eq!(
            allocate(d("10.00"), &[d("1"), d("1"), d("1")]),
            [d("3.34"), d("3.33"), d("3.33")]
        );
        assert_eq!(
            allocate(d("0.01"), &[d("5"), d("5")]),
            [d("0.01"), d("0.00")]
        );
        assert_eq!(
            allocate(d("7.50"), &[d("0"), d("0")]),
            [d("3.75"), d("3.75")]
        );
        assert_eq!(allocate(d("9.99"), &[]), Vec::<Decimal>::new());
        // A voucher took 5.00 off 12.50 + 15.00 + 0.50: 23.00 paid, shared by price.
        let parts = allocate(d("23.00"), &[d("12.50"), d("15.00"), d("0.50")]);
        assert_eq!(parts.iter().sum::<Decimal>(), d("23.00"));
        assert_eq!(parts, [d("10.27"), d("12.32"), d("0.41")]);
    }

    #[test]
    fn any_split_of_any_total_adds_up() {
        for cents in [0_i64, 1, 2, 99, 100, 101, 1999, 4950, 123_457] {
            let total = Decimal::new(cents, 2);
            for weights in [
                vec![d("1")],
                vec![d("1"), d("2")],
                vec![d("3.33"), d("3.33"), d("3.34")],
                vec![d("12.50"), d("12.50"), d("12.50"), d("0.50")],
            ] {
                let parts = allocate(total, &weights);
                assert_eq!(
                    parts.iter().sum::<Decimal>(),
                    total,
                    "{total} over {weights:?}"
                );
                assert!(parts
                    .iter()
                    .all(|p| !p.is_sign_negative() && p.scale() <= 2));
            }
        }
    }

    #[test]
    fn one_by_one_refunds_what_all_at_once_does_and_never_more_than_paid() {
        let shares = allocate(d("23.00"), &[d("12.50"), d("15.00"), d("0.50")]);
        for percent in [d("100"), d("50"), d("33.3"), d("0")] {
            let each: Decimal = shares
                .iter()
                .map(|s| ticket_refund(*s, percent, Decimal::ZERO))
                .sum();
            assert!(each <= d("23.00"));
            if percent == d("100") {
                assert_eq!(each, d("23.00"));
            }
        }
        assert_eq!(ticket_refund(d("10.27"), d("50"), Decimal::ZERO), d("5.14")); // 5.135 → even
        assert_eq!(ticket_refund(d("10.25"), d("50"), Decimal::ZERO), d("5.12")); // 5.125 → even
        assert_eq!(ticket_refund(d("10.27"), d("100"), d("2.00")), d("8.27"));
        assert_eq!(ticket_refund(d("1.00"), d("100"), d("2.00")), d("0"));
    }
}
