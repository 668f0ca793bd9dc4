//! The product list of a merchant in a campaign, with stock-aware availability, localized.

use std::collections::{HashMap, HashSet};

use app::wire::{self, Locale, Money};
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{
    availability::{self, Availability, ProductPrices},
    Catalog,
};
use crate::{
    error::{Error, ProblemType, Result},
    settlement::sold::Sold,
    store::{self, Merchant, Product, ProductFilter, Store},
    time::local_date,
};

/// Every product of `merchant_id` in `campaign_id`, in id order, as partners see them at `now`.
/// A merchant without products in the campaign (or an unknown one) has an empty list.
pub async fn product_list(
    store: &dyn Store,
    merchant_id: Uuid,
    campaign_id: Uuid,
    locale: Locale,
    base: &str,
    now: DateTime<Utc>,
) -> Result<Vec<wire::Product>> {
    let filter = ProductFilter {
        merchant_id: Some(merchant_id),
        campaign_id: Some(campaign_id),
    };
    let products = store.list_products(filter, None, u32::MAX).await?;
    if products.is_empty() {
        return Ok(Vec::new());
    }
    let merchant = store.merchant(merchant_id).await?.ok_or_else(|| {
        anyhow::anyhow!("products of merchant {merchant_id} without the merchant")
    })?;
    // The prices customers pay (VAT added when the catalog's are without it).
    let sold = |product_id| Sold::of(&merchant, product_id);
    let products: Vec<Product> = products
        .into_iter()
        .map(|p| sold(p.product_id).product(p))
        .collect();
    let today = local_date(merchant.zone()?, now);

    let dated: Vec<Uuid> = products
        .iter()
        .filter(|p| !p.no_date)
        .map(|p| p.product_id)
        .collect();
    // Every product with a calendar gets an entry, even with no day ahead (then it is sold
    // out); one without any is sold like a no_date product.
    let mut days: HashMap<Uuid, Vec<store::CalendarDay>> = store
        .products_with_calendar(&dated)
        .await?
        .into_iter()
        .map(|id| (id, Vec::new()))
        .collect();
    for row in store.calendars_from(&dated, today).await? {
        let day = sold(row.product_id).day(row.day);
        days.entry(row.product_id).or_default().push(day);
    }
    let slotted: Vec<Uuid> = products
        .iter()
        .filter(|p| !p.no_date && p.requires_timeslot)
        .map(|p| p.availability_group_id)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let open_slots: HashSet<(Uuid, NaiveDate)> = store
        .open_timeslot_days(&slotted, today, None, now)
        .await?
        .into_iter()
        .collect();

    Ok(products
        .iter()
        .map(|product| {
            let calendar: Option<Vec<availability::CalendarDay>> = days
                .get(&product.product_id)
                .filter(|_| !product.no_date)
                .map(|days| {
                    days.iter()
                        .map(|day| {
                            let open =
                                open_slots.contains(&(product.availability_group_id, day.date));
                            calendar_day(day, open)
                        })
                        .collect()
                });
            let availability = availability::availability(
                calendar.as_deref(),
                today,
                product.requires_timeslot,
                ProductPrices {
                    unit_price: product.unit_price,
                    list_price: product.list_price,
                },
            );
            to_wire(product, &availability, (locale, base), &merchant.currency)
        })
        .collect())
}

/// A stored day as the availability rules see it.
pub fn calendar_day(day: &store::CalendarDay, open_timeslot: bool) -> availability::CalendarDay {
    availability::CalendarDay {
        date: day.date,
        price: day.price,
        list_price: day.list_price,
        remaining: remaining(day.capacity, day.reserved),
        open_timeslot,
    }
}

/// Places left of `capacity` (`None` = unlimited) with `reserved` taken.
pub fn remaining(capacity: Option<i32>, reserved: i32) -> Option<i64> {
    capacity.map(|c| (i64::from(c) - i64::from(reserved)).max(0))
}

/// The wire form of a product with its availability, in `locale`, prices in `currency`, its
/// pictures' URLs under `base`.
pub fn to_wire(
    product: &Product,
    availability: &Availability,
    (locale, base): (Locale, &str),
    currency: &str,
) -> wire::Product {
    let money = |value| Money::new(value, currency);
    let text = product.localized(locale);
    wire::Product {
        id: product.product_id,
        title: text.title.to_owned(),
        product_type: product.product_type.clone(),
        physical_product: product.physical_product,
        sku: product.sku.clone(),
        age_group: product.age_group.clone(),
        unit_price: money(product.unit_price),
        list_price: money(product.list_price),
        booking_costs: money(product.booking_costs),
        visit_guarantee_cost: money(product.visit_guarantee_cost),
        no_date: product.no_date,
        requires_timeslot: product.requires_timeslot,
        best_effective_price: availability.best_effective_price.map(money),
        best_list_price: availability.best_list_price.map(money),
        best_discount_amount: availability.best_discount_amount.map(money),
        best_discount_percentage: availability.best_discount_percentage,
        first_available_date: availability.first_available_date,
        last_available_date: availability.last_available_date,
        sold_out: availability.sold_out,
        conditions: text.conditions.to_owned(),
        ticket_validity_type: product.ticket_validity_type.clone(),
        ticket_validity_date: product.ticket_validity_date,
        images: crate::images::to_wire(&product.images, locale, base),
        after_sale: product.after_sale.as_ref().map(|p| p.0.clone()),
        after_sale_text: crate::after_sale::texts::policy_sentence(
            &crate::after_sale::Frozen::of(
                product.after_sale.as_ref().map(|p| &p.0),
                product.physical_product,
                product.no_date,
            ),
            locale,
        ),
        questions: product
            .questions()
            .iter()
            .map(|q| super::questions::asked(q, locale, None))
            .collect(),
    }
}

/// A product of the campaign, with the prices its customers pay, and its merchant; 404
/// `product-not-found` when there is no such product or it is not in the campaign (the two
/// are not told apart).
pub async fn product_in_campaign(
    (catalog, store): (&Catalog, &dyn Store),
    product_id: Uuid,
    campaign_id: Uuid,
) -> Result<(Product, Merchant)> {
    let definitions = &catalog.definitions;
    let product = definitions
        .product(store, product_id)
        .await?
        .filter(|p| p.campaign_ids.contains(&campaign_id))
        .ok_or_else(|| {
            Error::new(
                ProblemType::ProductNotFound,
                format!("Product {product_id} is not in this campaign."),
            )
        })?;
    let merchant = definitions
        .merchant(store, product.merchant_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("product {product_id} without its merchant"))?;
    Ok((Sold::of(&merchant, product_id).product(product), merchant))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product() -> Product {
        Product::example()
    }

    #[test]
    fn the_wire_product_has_two_decimal_money_and_omits_best_fields_when_sold_out() {
        let sold_out = Availability {
            sold_out: true,
            ..Availability::default()
        };
        let json = serde_json::to_value(to_wire(&product(), &sold_out, (Locale::EnGb, ""), "EUR"))
            .unwrap();
        assert_eq!(json["title"], "Adult");
        assert_eq!(json["conditions"], "Valid on the chosen day");
        assert_eq!(
            json["unit_price"],
            serde_json::json!({ "value": "12.50", "currency": "EUR" })
        );
        assert_eq!(json["booking_costs"]["value"], "0.50");
        assert_eq!(json["visit_guarantee_cost"]["value"], "0.00");
        assert_eq!(json["sold_out"], true);
        for absent in [
            "best_effective_price",
            "best_list_price",
            "best_discount_amount",
            "best_discount_percentage",
            "first_available_date",
            "last_available_date",
            "ticket_validity_type",
            "ticket_validity_date",
        ] {
            assert!(json.get(absent).is_none(), "{absent} present in {json}");
        }
        let german = to_wire(&product(), &sold_out, (Locale::DeDe, ""), "EUR");
        assert_eq!(
            german.title, "Volwassene",
            "no German text: the base (nl) text"
        );
    }

    #[test]
    fn remaining_never_goes_below_zero_and_none_is_unlimited() {
        assert_eq!(remaining(Some(10), 3), Some(7));
        assert_eq!(remaining(Some(2), 5), Some(0));
        assert_eq!(remaining(None, 5), None);
    }
}
