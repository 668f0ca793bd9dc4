//! A product's calendar as partners read it: each priced day with its availability, the
//! group's remaining capacity, and its prices and discount.

use std::collections::HashSet;

use app::wire::{CalendarEntry, Money};
use chrono::{DateTime, NaiveDate, Utc};

use super::Catalog;
use super::{
    availability::discount,
    products::{calendar_day, remaining},
};
use crate::{
    error::Result,
    settlement::sold::Sold,
    store::{self, Merchant, Product, Store},
};

/// The entries of `days` for a product judged on `today` (merchant zone); `open_slot_days` are
/// the dates with a timeslot that has room and has not started.
pub fn entries(
    days: &[store::CalendarDay],
    today: NaiveDate,
    requires_timeslot: bool,
    open_slot_days: &HashSet<NaiveDate>,
    currency: &str,
) -> Vec<CalendarEntry> {
    days.iter()
        .map(|day| {
            let rules = calendar_day(day, open_slot_days.contains(&day.date));
            let (discount_amount, discount_percentage) =
                discount(day.price, day.list_price).unzip();
            CalendarEntry {
                date: day.date,
                available: rules.purchasable(today, requires_timeslot),
                remaining: remaining(day.capacity, day.reserved),
                effective_price: Money::new(day.price, currency),
                list_price: Money::new(day.list_price, currency),
                discount_amount: discount_amount.map(|a| Money::new(a, currency)),
                discount_percentage,
            }
        })
        .collect()
}

/// The calendar of `product` (of `merchant`) over `days` as its JSON (`[]` for a product sold
/// without a date), at the prices customers pay, from the node's copy of the answer when it
/// has one; otherwise read through the node's copies of its priced and open days
/// (`catalog::reads`).
pub async fn product_calendar_json(
    (catalog, store): (&Catalog, &dyn Store),
    product: &Product,
    merchant: &Merchant,
    today: NaiveDate,
    days: (NaiveDate, NaiveDate),
    now: DateTime<Utc>,
) -> Result<std::sync::Arc<[u8]>> {
    let currency = merchant.currency.as_str();
    let sold = Sold::of(merchant, product.product_id);
    let render = || async {
        let calendar = if product.no_date {
            Vec::new()
        } else {
            let priced: Vec<store::CalendarDay> = catalog
                .calendar(store, product.product_id, days)
                .await?
                .iter()
                .map(|day| sold.day(day.clone()))
                .collect();
            let open = if product.requires_timeslot {
                let group = product.availability_group_id;
                catalog.open_slot_days(store, group, days, now).await?
            } else {
                Default::default()
            };
            let timeslots = product.requires_timeslot;
            entries(&priced, today, timeslots, &open, currency)
        };
        let json = serde_json::to_vec(&calendar).map_err(anyhow::Error::from)?;
        Ok(std::sync::Arc::from(json))
    };
    catalog
        .calendar_answer(product.product_id, days, today, render)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    fn date(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 7, day).unwrap()
    }

    fn day(n: u32, price: i64, capacity: Option<i32>, reserved: i32) -> store::CalendarDay {
        store::CalendarDay {
            date: date(n),
            price: Decimal::new(price, 0),
            list_price: Decimal::new(20, 0),
            capacity,
            reserved,
        }
    }

    #[test]
    fn past_full_and_slotless_days_are_unavailable() {
        let days = [
            day(1, 15, Some(10), 0),
            day(2, 15, Some(10), 10),
            day(3, 20, None, 4),
            day(4, 15, Some(10), 2),
        ];
        let open = HashSet::from([date(3)]);
        let plain = entries(&days, date(2), false, &open, "EUR");
        let available: Vec<bool> = plain.iter().map(|e| e.available).collect();
        assert_eq!(available, [false, false, true, true]);
        assert_eq!(plain[0].remaining, Some(10));
        assert_eq!(plain[1].remaining, Some(0));
        assert_eq!(plain[2].remaining, None, "unlimited");
        assert_eq!(plain[3].remaining, Some(8));
        assert_eq!(
            plain[3].discount_amount,
            Some(Money::new(Decimal::new(5, 0), "EUR"))
        );
        assert_eq!(plain[3].discount_percentage, Some(Decimal::new(2500, 2)));
        assert_eq!(plain[2].discount_amount, None, "not discounted");

        let slotted = entries(&days, date(2), true, &open, "EUR");
        let available: Vec<bool> = slotted.iter().map(|e| e.available).collect();
        assert_eq!(
            available,
            [false, false, true, false],
            "only the day with an open slot"
        );
    }
}
