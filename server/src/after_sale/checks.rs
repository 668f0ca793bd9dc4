//! A product's after-sale policy checked with the product's other fields when the operator
//! writes it (400 naming each field; docs/operator-catalog.md, "After the sale").

use rust_decimal::Decimal;

use super::{frozen::exempt_from_withdrawal, policy::Before};
use crate::{store::ProductInput, validate::Checks};

/// The policy's own rules, checked with the product's other fields (400 naming each field).
pub fn check(input: &ProductInput, checks: &mut Checks) {
    let Some(policy) = &input.after_sale else {
        return;
    };
    let mut last: Option<Before> = None;
    for (i, rule) in policy.refund_rules.iter().enumerate() {
        let field = format!("after_sale.refund_rules[{i}]");
        match Before::parse(&rule.until) {
            Ok(before) => {
                // Rules are read first to last and the first open one applies, so each must
                // end closer to the visit than the one before it.
                if let Some(previous) = last {
                    checks.check(
                        before.nominal_seconds() < previous.nominal_seconds(),
                        &format!("{field}.until"),
                        "order",
                        "each rule must end closer to the visit than the rule before it",
                    );
                }
                last = Some(before);
            }
            Err(message) => checks.fail(&format!("{field}.until"), "invalid", message),
        }
        checks.check(
            rule.refund_percent >= Decimal::ZERO
                && rule.refund_percent <= Decimal::ONE_HUNDRED
                && rule.refund_percent.scale() <= 2,
            &format!("{field}.refund_percent"),
            "range",
            "refund_percent must be a decimal string from 0 to 100 with two decimals at most",
        );
        if let Some(fee) = &rule.fee {
            checks.non_negative_amount(&format!("{field}.fee"), fee.value);
        }
    }
    checks.check(
        policy.refund_rules.len() <= 10,
        "after_sale.refund_rules",
        "too_many",
        "at most 10 refund rules",
    );
    if let Some(until) = &policy.rebook_until {
        if let Err(message) = Before::parse(until) {
            checks.fail("after_sale.rebook_until", "invalid", message);
        }
        checks.check(
            !input.no_date,
            "after_sale.rebook_until",
            "not_allowed",
            "an undated product has no visit date to change",
        );
    }
    if let Some(days) = policy.withdrawal_days {
        checks.check(
            days == 0 || !exempt_from_withdrawal(input.physical_product, input.no_date),
            "after_sale.withdrawal_days",
            "not_allowed",
            "dated leisure tickets carry no withdrawal right (Art. 16(l) of the Consumer Rights Directive); offer refund_rules instead",
        );
        checks.check(
            days <= 365,
            "after_sale.withdrawal_days",
            "range",
            "withdrawal_days must be 0 to 365",
        );
    }
}
