use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[cfg(feature = "ssr")]
use super::AfterSalePolicy;
use super::Money;

/// An item of the product list (docs/api-catalog.md, "Products"), localized by Accept-Language.
///
/// The `best_*` fields and the availability dates are absent (never null, never zero) when
/// `sold_out` is true; a product without a calendar has no availability dates.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Product {
    pub id: Uuid,
    pub title: String,
    #[cfg_attr(feature = "ssr", schema(example = "TICKET"))]
    pub product_type: String,
    /// Shipped: the checkout will need a shipping address. Server-side only, as
    /// `best_discount_amount` and `last_available_date`: the frame does not show them and need
    /// not carry their decoding in its first load (docs/benchmarks.md, "The frame's size").
    #[cfg(feature = "ssr")]
    pub physical_product: bool,
    /// Upstream catalog identifier, the key for commission settlement.
    pub sku: String,
    /// Only for product_type TICKET, e.g. adult or child.
    pub age_group: Option<String>,
    pub unit_price: Money,
    pub list_price: Money,
    /// Surcharge per ticket.
    pub booking_costs: Money,
    /// Surcharge per ticket for the flexible-date option.
    pub visit_guarantee_cost: Money,
    /// Sold without a date: no calendar, no date picker; checkout takes today's date.
    pub no_date: bool,
    /// An entry window must be chosen from POST /v2/fulfillment/timeslots.
    pub requires_timeslot: bool,
    /// Cheapest price among purchasable days.
    pub best_effective_price: Option<Money>,
    /// List price of the day with the best price.
    pub best_list_price: Option<Money>,
    /// Deepest discount among purchasable days (0.00 when none is discounted).
    #[cfg(feature = "ssr")]
    pub best_discount_amount: Option<Money>,
    /// Deepest discount in percent, two decimals (0 when none is discounted).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::percentage"
    )]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<f64>, example = 20.0))]
    pub best_discount_percentage: Option<Decimal>,
    pub first_available_date: Option<NaiveDate>,
    #[cfg(feature = "ssr")]
    pub last_available_date: Option<NaiveDate>,
    /// A date-based product with no purchasable day left (all sold out or past).
    pub sold_out: bool,
    /// Merchant terms to show before purchase.
    pub conditions: String,
    /// VALIDITY_PERIOD: valid through `ticket_validity_date` inclusive.
    pub ticket_validity_type: Option<String>,
    pub ticket_validity_date: Option<NaiveDate>,
    /// Its pictures, by the operator's order (docs/api-catalog.md, "Pictures").
    #[serde(default)]
    pub images: Vec<super::Image>,
    /// What may change after payment (cancel, change the date, withdraw); absent: nothing but
    /// the EU withdrawal of physical and undated products. Server-side only: the frame shows
    /// `after_sale_text` and need not carry the policy's reader in its bundle.
    #[cfg(feature = "ssr")]
    #[serde(default)]
    pub after_sale: Option<AfterSalePolicy>,
    /// The policy in a sentence in the reader's language ("Free cancellation until 48 h
    /// before your visit"); absent when there is nothing to say.
    #[serde(default)]
    pub after_sale_text: Option<String>,
    /// What a checkout of it asks (docs/api-checkout.md, "Booking questions"), in the reader's
    /// language. Server-side only: the frame reads them from its checkout.
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<super::AskedQuestion>,
}
