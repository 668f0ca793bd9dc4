//! Which VAT rate, commission and platform fee a line is sold under (frozen with its payment),
//! and the checks of what the operator sets (docs/settlement.md, "Setting it up").

use app::wire::{Charge, TaxRate, TaxSettings};
use rust_decimal::Decimal;

use super::{split::Rate, Rule, Terms};
use crate::{
    store::{Campaign, Merchant, Product},
    validate::Checks,
};

/// The terms `product` sells under in `campaign`, for an order in `currency`: the merchant's
/// rate naming the product (else its default rate), the product's commission (else the
/// campaign's) and the merchant's fee. A fixed amount in another currency than the order's
/// does not apply (the operator's checks keep a merchant's and product's in its currency).
pub fn terms_of(
    merchant: &Merchant,
    product: &Product,
    campaign: &Campaign,
    currency: &str,
) -> Terms {
    let tax = rate_of(merchant, product.product_id).map(|r| Rate {
        name: r.name.clone(),
        rate_percent: r.rate_percent,
    });
    let commission = product
        .commission
        .as_ref()
        .or(campaign.commission.as_ref())
        .and_then(|c| rule(c, currency));
    let platform_fee = merchant
        .settlement
        .platform_fee
        .as_ref()
        .and_then(|c| rule(c, currency));
    Terms {
        tax,
        commission,
        platform_fee,
    }
}

/// The merchant's VAT rate of `product_id`: the rate naming it, else the default rate; none
/// without VAT settings.
pub fn rate_of(merchant: &Merchant, product_id: uuid::Uuid) -> Option<&TaxRate> {
    let settings = merchant.settlement.tax.as_ref()?;
    let named = settings.rates.iter().find(|r| {
        r.product_ids
            .as_ref()
            .is_some_and(|ids| ids.contains(&product_id))
    });
    named.or_else(|| settings.rates.iter().find(|r| r.product_ids.is_none()))
}

fn rule(charge: &Charge, currency: &str) -> Option<Rule> {
    match charge {
        Charge::Percent(p) => Some(Rule::Percent(*p)),
        Charge::Fixed(m) if m.currency == currency => Some(Rule::Fixed(m.value)),
        Charge::Fixed(_) => None,
    }
}

/// Checks a commission or fee at `field`: a percent 0 to 100, or a fixed amount not negative
/// (in `currency` when one is given), two decimals at most.
pub fn check_charge(checks: &mut Checks, field: &str, charge: &Charge, currency: Option<&str>) {
    match charge {
        Charge::Percent(p) => check_percent(checks, &format!("{field}.percent"), *p),
        Charge::Fixed(m) => {
            checks.non_negative_amount(&format!("{field}.fixed.value"), m.value);
            checks.currency(&format!("{field}.fixed.currency"), &m.currency);
            if let Some(currency) = currency.filter(|c| *c != m.currency) {
                checks.fail(
                    &format!("{field}.fixed.currency"),
                    "currency",
                    format!("a fixed amount is in the merchant's currency, {currency}"),
                );
            }
        }
    }
}

fn check_percent(checks: &mut Checks, field: &str, p: Decimal) {
    if p.is_sign_negative() || p > Decimal::ONE_HUNDRED || p.normalize().scale() > 2 {
        checks.fail(
            field,
            "range",
            "a percentage is 0 to 100 with two decimals at most",
        );
    }
}

/// Checks a merchant's VAT settings.
pub fn check_tax(checks: &mut Checks, tax: &TaxSettings) {
    if tax.rates.is_empty() || tax.rates.len() > 20 {
        checks.fail("tax.rates", "length", "1 to 20 rates");
    }
    let mut named = std::collections::HashSet::new();
    let mut defaults = 0;
    for (i, rate) in tax.rates.iter().enumerate() {
        checks.text(&format!("tax.rates[{i}].name"), &rate.name, 1, 100);
        check_percent(
            checks,
            &format!("tax.rates[{i}].rate_percent"),
            rate.rate_percent,
        );
        match &rate.product_ids {
            None => defaults += 1,
            Some(ids) => {
                if ids.is_empty() {
                    checks.fail(
                        &format!("tax.rates[{i}].product_ids"),
                        "length",
                        "name at least one product, or leave product_ids out for the default rate",
                    );
                }
                for id in ids {
                    if !named.insert(*id) {
                        checks.fail(
                            &format!("tax.rates[{i}].product_ids"),
                            "duplicate",
                            format!("product {id} is named by two rates"),
                        );
                    }
                }
            }
        }
    }
    if defaults > 1 {
        checks.fail(
            "tax.rates",
            "default",
            "at most one rate leaves product_ids out (the default rate)",
        );
    }
}

/// Checks a VAT identification number's form: two letters, then 2 to 13 letters or digits.
pub fn check_vat_id(checks: &mut Checks, field: &str, vat_id: &str) {
    let b = vat_id.as_bytes();
    let fine = (4..=15).contains(&b.len())
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    if !fine {
        checks.fail(
            field,
            "pattern",
            "a VAT id is two capital letters and 2 to 13 capital letters or digits, e.g. NL123456789B01",
        );
    }
}
