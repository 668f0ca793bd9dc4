//! Stock-aware availability of a product, computed from its calendar: which days can be bought,
//! the best prices among them, and whether the product is sold out. Pure, so every rule of the
//! contract is a unit test.
//!
//! Rules (docs/api-catalog.md, "Products" and "Availability"):
//! - a day is purchasable when it is today or later in the merchant's zone, has a price, has
//!   capacity left (none set = unlimited), and, for timeslotted products, has a slot with room
//!   that has not started yet;
//! - best_* and first/last_available_date come from purchasable days only; the best price is the
//!   cheapest day (the earliest on a tie), its list price is that day's;
//! - `sold_out` is true exactly when a date-based product has a calendar but no purchasable day;
//! - every best_* field is present exactly when the product is not sold out: a product with
//!   nothing discounted has a best discount of zero, so an absent field only ever means
//!   "sold out", never "free" or "no discount";
//! - a product without a calendar (no_date, or no calendar rows at all) is always purchasable at
//!   its unit price and is never sold out; it has no availability dates.

use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};

/// One calendar day of a product, with the capacity its availability group has left.
#[derive(Debug, Clone, PartialEq)]
pub struct CalendarDay {
    pub date: NaiveDate,
    pub price: Decimal,
    pub list_price: Decimal,
    /// Capacity left that day; `None` is unlimited.
    pub remaining: Option<i64>,
    /// For timeslotted products: whether a slot with room that has not started exists.
    pub open_timeslot: bool,
}

impl CalendarDay {
    /// Whether this day can be bought, judged on `today` in the merchant's zone.
    pub fn purchasable(&self, today: NaiveDate, requires_timeslot: bool) -> bool {
        self.date >= today
            && self.remaining.is_none_or(|r| r > 0)
            && (!requires_timeslot || self.open_timeslot)
    }

    /// `list_price - price` when positive.
    pub fn discount_amount(&self) -> Option<Decimal> {
        discount(self.price, self.list_price).map(|(amount, _)| amount)
    }

    pub fn discount_percentage(&self) -> Option<Decimal> {
        discount(self.price, self.list_price).map(|(_, pct)| pct)
    }
}

/// The discount of `price` against `list_price`, as an amount and a percentage (two decimals).
pub fn discount(price: Decimal, list_price: Decimal) -> Option<(Decimal, Decimal)> {
    (list_price > price && list_price > Decimal::ZERO).then(|| {
        let amount = list_price - price;
        let pct = (amount * Decimal::ONE_HUNDRED / list_price)
            .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
        (amount, pct)
    })
}

/// The derived availability fields of a product.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Availability {
    pub best_effective_price: Option<Decimal>,
    pub best_list_price: Option<Decimal>,
    pub best_discount_amount: Option<Decimal>,
    pub best_discount_percentage: Option<Decimal>,
    pub first_available_date: Option<NaiveDate>,
    pub last_available_date: Option<NaiveDate>,
    pub sold_out: bool,
}

/// The product's static prices, used when it has no calendar.
#[derive(Debug, Clone, Copy)]
pub struct ProductPrices {
    pub unit_price: Decimal,
    pub list_price: Decimal,
}

/// Availability of a product whose calendar is `calendar` (any order; past days may be
/// included), or `None` when it has no calendar: sold without a date, or never given one.
pub fn availability(
    calendar: Option<&[CalendarDay]>,
    today: NaiveDate,
    requires_timeslot: bool,
    prices: ProductPrices,
) -> Availability {
    let Some(days) = calendar else {
        let (amount, pct) = discount(prices.unit_price, prices.list_price)
            .unwrap_or((Decimal::ZERO, Decimal::ZERO));
        return Availability {
            best_effective_price: Some(prices.unit_price),
            best_list_price: Some(prices.list_price),
            best_discount_amount: Some(amount),
            best_discount_percentage: Some(pct),
            ..Availability::default()
        };
    };
    let open: Vec<&CalendarDay> = days
        .iter()
        .filter(|d| d.purchasable(today, requires_timeslot))
        .collect();
    let Some(cheapest) = open
        .iter()
        .min_by(|a, b| a.price.cmp(&b.price).then(a.date.cmp(&b.date)))
    else {
        return Availability {
            sold_out: true,
            ..Availability::default()
        };
    };
    Availability {
        best_effective_price: Some(cheapest.price),
        best_list_price: Some(cheapest.list_price),
        best_discount_amount: Some(
            open.iter()
                .filter_map(|d| d.discount_amount())
                .max()
                .unwrap_or(Decimal::ZERO),
        ),
        best_discount_percentage: Some(
            open.iter()
                .filter_map(|d| d.discount_percentage())
                .max()
                .unwrap_or(Decimal::ZERO),
        ),
        first_available_date: open.iter().map(|d| d.date).min(),
        last_available_date: open.iter().map(|d| d.date).max(),
        sold_out: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn date(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, day).unwrap()
    }

    fn day(n: u32, price: &str, list: &str, remaining: Option<i64>) -> CalendarDay {
        CalendarDay {
            date: date(n),
            price: d(price),
            list_price: d(list),
            remaining,
            open_timeslot: true,
        }
    }

    const PRICES: ProductPrices = ProductPrices {
        unit_price: Decimal::from_parts(2000, 0, 0, false, 2),
        list_price: Decimal::from_parts(2500, 0, 0, false, 2),
    };

    #[test]
    fn best_price_comes_from_the_cheapest_purchasable_day() {
        let days = [
            day(9, "5.00", "20.00", Some(10)),  // past
            day(10, "18.00", "20.00", Some(0)), // sold out that day
            day(11, "15.00", "20.00", Some(3)),
            day(12, "12.00", "20.00", None), // unlimited
            day(13, "12.00", "16.00", Some(1)),
            day(14, "19.00", "20.00", Some(5)),
        ];
        let a = availability(Some(&days), date(10), false, PRICES);
        assert_eq!(a.best_effective_price, Some(d("12.00")));
        assert_eq!(
            a.best_list_price,
            Some(d("20.00")),
            "list price of the earliest cheapest day"
        );
        assert_eq!(a.best_discount_amount, Some(d("8.00")));
        assert_eq!(a.best_discount_percentage, Some(d("40.00")));
        assert_eq!(a.first_available_date, Some(date(11)));
        assert_eq!(a.last_available_date, Some(date(14)));
        assert!(!a.sold_out);
    }

    #[test]
    fn all_days_full_or_past_is_sold_out_with_nothing_else() {
        let full = [day(10, "10", "10", Some(0)), day(11, "10", "10", Some(0))];
        let past = [day(1, "10", "10", None), day(2, "10", "10", Some(5))];
        // A calendar read from today on: the product has days, none of them ahead.
        let none_ahead: [CalendarDay; 0] = [];
        for days in [&full[..], &past[..], &none_ahead[..]] {
            let a = availability(Some(days), date(10), false, PRICES);
            assert_eq!(
                a,
                Availability {
                    sold_out: true,
                    ..Availability::default()
                }
            );
        }
    }

    #[test]
    fn without_a_calendar_a_product_is_never_sold_out() {
        let a = availability(None, date(10), false, PRICES);
        assert!(!a.sold_out);
        assert_eq!(a.best_effective_price, Some(d("20.00")));
        assert_eq!(a.best_discount_amount, Some(d("5.00")));
        assert_eq!(a.first_available_date, None);
    }

    #[test]
    fn a_timeslotted_day_needs_an_open_slot() {
        let mut closed = day(11, "10", "10", Some(5));
        closed.open_timeslot = false;
        let a = availability(Some(&[closed.clone()]), date(10), true, PRICES);
        assert!(a.sold_out);
        let a = availability(Some(&[closed]), date(10), false, PRICES);
        assert!(!a.sold_out, "slots matter only for timeslotted products");
    }

    #[test]
    fn without_a_discount_the_best_discount_is_zero_not_absent() {
        let a = availability(Some(&[day(11, "20", "20", None)]), date(10), false, PRICES);
        assert_eq!(a.best_discount_amount, Some(Decimal::ZERO));
        assert_eq!(a.best_discount_percentage, Some(Decimal::ZERO));
        let undiscounted = ProductPrices {
            unit_price: d("20"),
            list_price: d("20"),
        };
        let a = availability(None, date(10), false, undiscounted);
        assert_eq!(a.best_discount_amount, Some(Decimal::ZERO));
        assert_eq!(a.best_discount_percentage, Some(Decimal::ZERO));
        assert_eq!(discount(d("20"), d("20")), None);
        assert_eq!(
            discount(d("25"), d("20")),
            None,
            "a price above list is no discount"
        );
        assert_eq!(
            discount(d("7.00"), d("9.00")),
            Some((d("2.00"), d("22.22")))
        );
    }
}
