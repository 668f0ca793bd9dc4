//! The purchase funnel for the host's analytics (docs/webframe.md, "Analytics"): GA4's
//! e-commerce events with their parameters, as data only; `host::track` posts them to the host
//! as `boxoffice:analytics`. The frame loads no tracker and sets no cookie; the host decides
//! whether and where they go.
//!
//! Nothing personal goes in: ids and titles of products, places, prices, the order's id and a
//! problem's type; never the customer's name, e-mail, address or anything typed.

use rust_decimal::Decimal;
use serde::Serialize;
use uuid::Uuid;

use crate::wire::{Checkout, Merchant, Money, Order, Product};

/// One funnel event: GA4's name and its parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "name", content = "params", rename_all = "snake_case")]
pub enum Analytics {
    /// A merchant's products were shown.
    ViewItemList(ItemList),
    /// The customer opened one of them.
    SelectItem(ItemList),
    /// A product's screen was shown.
    ViewItem(Basket),
    /// A reservation was made: the basket is held.
    AddToCart(Basket),
    /// A held basket went back without a purchase (its hold ran out).
    RemoveFromCart(Basket),
    /// The checkout of a new reservation opened.
    BeginCheckout(Basket),
    /// The customer's details (and delivery address) were accepted.
    AddShippingInfo(Basket),
    /// The customer was sent to the payment page.
    AddPaymentInfo(Basket),
    /// The order is paid.
    Purchase {
        transaction_id: Uuid,
        #[serde(flatten)]
        basket: Basket,
    },
    /// Money went back for tickets of the order `transaction_id` (posted by the manage
    /// page, `host::Outgoing::OrderCancelled`).
    #[cfg(feature = "ssr")]
    Refund {
        transaction_id: Uuid,
        currency: String,
        #[serde(with = "rust_decimal::serde::float")]
        value: Decimal,
    },
    /// The server refused a step of the purchase; `type` is the problem type's name
    /// (docs/errors.md), or `network` when it could not be reached.
    CheckoutError {
        #[serde(rename = "type")]
        kind: String,
    },
}

/// A list of products: `item_list_id` is the merchant's id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemList {
    pub item_list_id: Uuid,
    pub item_list_name: String,
    pub items: Vec<Item>,
}

/// What a basket is worth and what is in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Basket {
    pub currency: String,
    /// A JSON number, as GA4 reads it; the amounts themselves are computed in decimals.
    #[serde(with = "rust_decimal::serde::float")]
    pub value: Decimal,
    pub items: Vec<Item>,
}

/// GA4's item: a product with its price per ticket and how many.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub item_id: Uuid,
    pub item_name: String,
    /// The SKU.
    pub item_variant: String,
    #[serde(with = "rust_decimal::serde::float")]
    pub price: Decimal,
    pub quantity: u32,
    /// Position in a list, from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

impl Item {
    fn of_product(product: &Product, quantity: u32) -> Self {
        Self {
            item_id: product.id,
            item_name: product.title.clone(),
            item_variant: product.sku.clone(),
            price: product.unit_price.value,
            quantity,
            index: None,
        }
    }

    /// A line's price per ticket is what the customer pays for one: its total shared out.
    fn of_line(
        product_id: Uuid,
        title: &str,
        sku: &str,
        quantity: u32,
        line_total: &Money,
    ) -> Self {
        let price = if quantity == 0 {
            Decimal::ZERO
        } else {
            (line_total.value / Decimal::from(quantity)).round_dp(2)
        };
        Self {
            item_id: product_id,
            item_name: title.to_owned(),
            item_variant: sku.to_owned(),
            price,
            quantity,
            index: None,
        }
    }
}

impl ItemList {
    pub fn of_merchant(merchant: &Merchant, products: &[Product]) -> Self {
        let items = products
            .iter()
            .enumerate()
            .map(|(index, product)| Item {
                index: Some(index),
                ..Item::of_product(product, 1)
            })
            .collect();
        Self {
            item_list_id: merchant.id,
            item_list_name: merchant.name.clone(),
            items,
        }
    }

    /// The same list with only the product at `index`.
    pub fn selected(&self, index: usize) -> Self {
        Self {
            items: self.items.get(index).cloned().into_iter().collect(),
            ..self.clone()
        }
    }
}

impl Basket {
    pub fn of_product(product: &Product) -> Self {
        Self {
            currency: product.unit_price.currency.clone(),
            value: product.unit_price.value,
            items: vec![Item::of_product(product, 1)],
        }
    }

    /// The checkout's lines, worth what the customer pays (vouchers and discounts applied).
    pub fn of_checkout(checkout: &Checkout) -> Self {
        let items = checkout
            .lines
            .iter()
            .map(|l| Item::of_line(l.product_id, &l.title, &l.sku, l.quantity, &l.line_total))
            .collect();
        Self {
            currency: checkout.totals.total.currency.clone(),
            value: checkout.totals.total.value,
            items,
        }
    }

    pub fn of_order(order: &Order) -> Self {
        let items = order
            .items
            .iter()
            .map(|i| Item::of_line(i.product_id, &i.title, &i.sku, i.quantity, &i.line_total))
            .collect();
        Self {
            currency: order.total.currency.clone(),
            value: order.total.value,
            items,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::host::Outgoing;
    use serde_json::json;

    #[test]
    fn events_have_ga4_names_and_numeric_amounts() {
        let item = Item {
            item_id: Uuid::nil(),
            item_name: "Adult".into(),
            item_variant: "ADULT".into(),
            price: Decimal::new(2450, 2),
            quantity: 2,
            index: None,
        };
        let event = Outgoing::Analytics(Analytics::Purchase {
            transaction_id: Uuid::nil(),
            basket: Basket {
                currency: "EUR".into(),
                value: Decimal::new(4900, 2),
                items: vec![item],
            },
        });
        assert_eq!(
            serde_json::to_value(event).unwrap(),
            json!({
                "type": "boxoffice:analytics",
                "name": "purchase",
                "params": {
                    "transaction_id": Uuid::nil(), "currency": "EUR", "value": 49.0,
                    "items": [{ "item_id": Uuid::nil(), "item_name": "Adult",
                        "item_variant": "ADULT", "price": 24.5, "quantity": 2 }]
                }
            })
        );
        let error = Analytics::CheckoutError {
            kind: "checkout-date-in-past".into(),
        };
        assert_eq!(
            serde_json::to_value(Outgoing::Analytics(error)).unwrap(),
            json!({ "type": "boxoffice:analytics", "name": "checkout_error",
                "params": { "type": "checkout-date-in-past" } })
        );
    }

    #[test]
    fn a_lines_price_is_its_total_per_ticket() {
        let total = Money::new(Decimal::new(1000, 2), "EUR");
        let item = Item::of_line(Uuid::nil(), "T", "S", 3, &total);
        assert_eq!(item.price, Decimal::new(333, 2));
        assert_eq!(
            Item::of_line(Uuid::nil(), "T", "S", 0, &total).price,
            Decimal::ZERO
        );
    }
}
