//! What a policy gives, ticket by ticket, at a moment (pure): the refund of cancelling it, the
//! order's quote, whether its date can change and whether it can be withdrawn from. The
//! routes and screens show what this computes; nothing else decides it.

use app::wire::{Money, OrderAfterSale, RefundRule, TicketStatus};
use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use rust_decimal::{Decimal, RoundingStrategy};
use uuid::Uuid;

use super::{
    allocate::ticket_refund,
    frozen::Frozen,
    policy::{last_refund_deadline, rule_at, Before},
};

/// One ticket as the policy sees it.
#[derive(Debug, Clone)]
pub struct Held {
    pub ticket_id: Uuid,
    pub status: TicketStatus,
    /// What was paid for it after vouchers and wallet.
    pub share: Decimal,
    /// The part of `share` that paid booking costs and the visit guarantee.
    pub fees: Decimal,
    /// When its visit starts, for the deadlines; `None`: no date and no validity end.
    pub start: Option<DateTime<Utc>>,
    /// When it was paid (issued).
    pub paid_at: DateTime<Utc>,
    pub policy: Frozen,
}

/// The part of `share` that paid fees, in the proportion fees have in the ticket's price.
pub fn fees_in(share: Decimal, fees: Decimal, price: Decimal) -> Decimal {
    if price.is_zero() {
        return Decimal::ZERO;
    }
    (share * fees / price)
        .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
        .min(share)
}

/// How much of a ticket cancelling it gives back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Percent {
    /// The policy's rule at the moment (the customer).
    Policy,
    /// The policy's rule, with this percent at most (a partner); above it is refused.
    AtMost(Decimal),
    /// This percent whatever the policy says, no fee kept (the operator's goodwill).
    Exactly(Decimal),
    /// All of it (a withdrawal, a day the merchant closed).
    Full,
}

/// The refund of `held` under `rule` at `percent`: of its share (less its fees when the rule
/// keeps them), less the rule's fee.
pub fn refund_under(held: &Held, percent: Decimal, rule: Option<&RefundRule>) -> Decimal {
    let keep_fees = rule.is_some_and(|r| r.keep_fees);
    let fee = rule
        .and_then(|r| r.fee.as_ref())
        .map_or(Decimal::ZERO, |m| m.value);
    let base = if keep_fees {
        held.share - held.fees
    } else {
        held.share
    };
    ticket_refund(base, percent, fee)
}

/// The rule in force for `held` at `now` and its deadline.
pub fn rule_now(held: &Held, zone: Tz, now: DateTime<Utc>) -> Option<(&RefundRule, DateTime<Utc>)> {
    rule_at(&held.policy.refund_rules, held.start?, zone, now)
}

/// When `held`'s date stops being changeable; `None` when it never is.
pub fn rebook_deadline(held: &Held, zone: Tz) -> Option<DateTime<Utc>> {
    if !held.policy.dated {
        return None;
    }
    let until = Before::parse(held.policy.rebook_until.as_deref()?).ok()?;
    Some(until.before(held.start?, zone))
}

/// A ticket's EU withdrawal period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    /// No withdrawal right (dated leisure tickets; `withdrawal_days` 0).
    None,
    /// A physical product not shipped yet: the period has not begun and stays open.
    Open,
    /// The period ends at this instant.
    Until(DateTime<Utc>),
}

/// `held`'s withdrawal period: to the end of its last day in the merchant's zone, counted
/// from its payment (undated) or its shipment (physical).
pub fn withdrawal_end(held: &Held, zone: Tz, shipped_on: Option<NaiveDate>) -> Withdrawal {
    let days = held.policy.withdrawal_days;
    if days == 0 {
        return Withdrawal::None;
    }
    let from = if held.policy.physical {
        match shipped_on {
            Some(day) => day,
            None => return Withdrawal::Open,
        }
    } else {
        held.paid_at.with_timezone(&zone).date_naive()
    };
    from.checked_add_days(Days::new(u64::from(days) + 1))
        .and_then(|after_last| {
            super::policy::visit_start(zone, None, Some(after_last), None)
                .or_else(|| crate::time::local_to_utc(zone, after_last, NaiveTime::MIN))
        })
        .map_or(Withdrawal::None, Withdrawal::Until)
}

/// Whether `held` can be withdrawn from at `now`.
pub fn withdrawable(
    held: &Held,
    zone: Tz,
    shipped_on: Option<NaiveDate>,
    now: DateTime<Utc>,
) -> bool {
    match withdrawal_end(held, zone, shipped_on) {
        Withdrawal::None => false,
        Withdrawal::Open => true,
        Withdrawal::Until(end) => now < end,
    }
}

/// What an order allows at `now`, from its tickets.
pub fn quote(
    tickets: &[Held],
    zone: Tz,
    now: DateTime<Utc>,
    currency: &str,
    shipped_on: Option<NaiveDate>,
) -> OrderAfterSale {
    let valid: Vec<&Held> = tickets
        .iter()
        .filter(|t| t.status == TicketStatus::Valid)
        .collect();
    let mut out = OrderAfterSale::default();
    let mut refund = Decimal::ZERO;
    for held in &valid {
        if let Some((rule, deadline)) = rule_now(held, zone, now) {
            out.cancellable = true;
            refund += refund_under(held, rule.refund_percent, Some(rule));
            out.quote_until = Some(out.quote_until.map_or(deadline, |q| q.min(deadline)));
        }
        if let Some(start) = held.start {
            if let Some(last) = last_refund_deadline(&held.policy.refund_rules, start, zone) {
                out.cancel_until = Some(out.cancel_until.map_or(last, |c| c.max(last)));
            }
        }
        if let Some(deadline) = rebook_deadline(held, zone) {
            out.rebook_until = Some(out.rebook_until.map_or(deadline, |r| r.min(deadline)));
        }
        match withdrawal_end(held, zone, shipped_on) {
            Withdrawal::None => {}
            Withdrawal::Open => out.withdrawable = true,
            Withdrawal::Until(end) => {
                if now < end {
                    out.withdrawable = true;
                }
                out.withdrawal_until = Some(out.withdrawal_until.map_or(end, |w| w.max(end)));
            }
        }
    }
    if valid
        .iter()
        .any(|h| h.policy.physical && shipped_on.is_none() && h.policy.withdrawal_days > 0)
    {
        // Not shipped yet: the period has not begun, so it has no end to show.
        out.withdrawal_until = None;
    }
    out.rebookable = out.rebook_until.is_some_and(|until| now < until);
    if out.cancellable {
        out.refund_quote = Some(Money::new(refund, currency));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMSTERDAM: Tz = chrono_tz::Europe::Amsterdam;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn rule(until: &str, percent: &str) -> RefundRule {
        RefundRule {
            until: until.into(),
            refund_percent: d(percent),
            fee: None,
            keep_fees: false,
        }
    }

    fn held(share: &str, start: &str, policy: Frozen) -> Held {
        Held {
            ticket_id: Uuid::nil(),
            status: TicketStatus::Valid,
            share: d(share),
            fees: d("1.00"),
            start: Some(utc(start)),
            paid_at: utc("2026-10-01T10:00:00Z"),
            policy,
        }
    }

    #[test]
    fn the_quote_follows_the_first_open_rule_across_the_clock_change() {
        let policy = Frozen {
            refund_rules: vec![rule("PT48H", "100"), rule("PT24H", "50")],
            rebook_until: Some("P1D".into()),
            dated: true,
            ..Frozen::default()
        };
        // 10:00 in Amsterdam on the Monday after the clocks went back (09:00 UTC).
        let tickets = [
            held("12.50", "2026-10-26T09:00:00Z", policy.clone()),
            held("7.25", "2026-10-26T09:00:00Z", policy),
        ];
        let q = |now: &str| quote(&tickets, AMSTERDAM, utc(now), "EUR", None);
        let full = q("2026-10-24T08:59:59Z");
        assert_eq!(full.refund_quote, Some(Money::new(d("19.75"), "EUR")));
        assert_eq!(full.quote_until, Some(utc("2026-10-24T09:00:00Z")));
        assert_eq!(full.cancel_until, Some(utc("2026-10-25T09:00:00Z")));
        // A day before on the calendar: 10:00 on Sunday, which is +01:00 again.
        assert_eq!(full.rebook_until, Some(utc("2026-10-25T09:00:00Z")));
        assert!(full.rebookable);
        let half = q("2026-10-24T09:00:00Z");
        assert_eq!(half.refund_quote, Some(Money::new(d("9.87"), "EUR"))); // 6.25 + 3.625→3.62 (even)
        let none = q("2026-10-25T09:00:00Z");
        assert!(!none.cancellable && none.refund_quote.is_none() && !none.rebookable);
        assert!(!none.withdrawable);
    }

    #[test]
    fn a_rule_keeps_its_fee_and_the_fees_when_it_says_so() {
        let keep = RefundRule {
            fee: Some(Money::new(d("2.00"), "EUR")),
            keep_fees: true,
            ..rule("PT1H", "100")
        };
        let h = held("12.50", "2026-12-24T09:00:00Z", Frozen::default());
        assert_eq!(refund_under(&h, d("100"), Some(&keep)), d("9.50"));
        assert_eq!(refund_under(&h, d("100"), None), d("12.50"));
        assert_eq!(fees_in(d("10.27"), d("2.50"), d("12.50")), d("2.05"));
        assert_eq!(fees_in(d("1.00"), d("0"), d("0")), d("0"));
    }

    #[test]
    fn withdrawal_runs_to_the_end_of_its_last_day_from_payment_or_shipment() {
        let undated = Frozen {
            withdrawal_days: 14,
            ..Frozen::default()
        };
        let h = held("10.00", "2026-12-31T23:00:00Z", undated);
        // Paid 1 October (Amsterdam): the 15th is the last day, ending at 22:00 UTC (+02:00).
        let end = utc("2026-10-15T22:00:00Z");
        assert_eq!(withdrawal_end(&h, AMSTERDAM, None), Withdrawal::Until(end));
        assert!(withdrawable(
            &h,
            AMSTERDAM,
            None,
            utc("2026-10-15T21:59:59Z")
        ));
        assert!(!withdrawable(&h, AMSTERDAM, None, end));
        let physical = Held {
            policy: Frozen {
                withdrawal_days: 14,
                physical: true,
                ..Frozen::default()
            },
            ..h.clone()
        };
        assert_eq!(withdrawal_end(&physical, AMSTERDAM, None), Withdrawal::Open);
        let shipped = "2026-10-20".parse().unwrap();
        assert_eq!(
            withdrawal_end(&physical, AMSTERDAM, Some(shipped)),
            Withdrawal::Until(utc("2026-11-03T23:00:00Z"))
        );
        let dated = Held {
            policy: Frozen::default(),
            ..h
        };
        assert_eq!(withdrawal_end(&dated, AMSTERDAM, None), Withdrawal::None);
    }
}
