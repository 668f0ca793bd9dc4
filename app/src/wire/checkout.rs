//! Checkout requests and the checkout as the API shows it (docs/api-checkout.md, "The
//! calls").

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CheckoutStatus, Money, OrderStatus, PaymentStatus};

/// One line of a basket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BasketLine {
    pub product_id: Uuid,
    #[cfg_attr(feature = "ssr", schema(minimum = 1, maximum = 50))]
    pub quantity: u32,
}

impl BasketLine {
    /// At most this many of one product in a basket (docs/api-checkout.md); the frame offers
    /// no more.
    pub const MAX_QUANTITY: u32 = 50;
}

/// `Attribution` with every field under the same schema: 1 to 200 characters, at least one of
/// them not blank, none a control character (what the server accepts).
macro_rules! attribution {
    ($(#[$outer:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident,)* }) => {
        $(#[$outer])*
        pub struct $name {
            $(
                $(#[$field_meta])*
                #[cfg_attr(
                    feature = "ssr",
                    schema(
                        min_length = 1,
                        max_length = 200,
                        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
                    )
                )]
                pub $field: Option<String>,
            )*
        }
    };
}

attribution! {
    /// Where the customer came from: the embedding page's `utm_source`, `utm_medium`,
    /// `utm_campaign`, `utm_term`, `utm_content` and `ref`, which embed.js hands the frame. Each
    /// at most 200 printable characters; kept with the checkout and shown in its reads, its
    /// order's and its events (docs/webframe.md, "Attribution").
    #[serde_with::skip_serializing_none]
    #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
    #[serde(deny_unknown_fields)]
    pub struct Attribution {
        pub utm_source,
        pub utm_medium,
        pub utm_campaign,
        pub utm_term,
        pub utm_content,
        /// The host page's `ref` parameter.
        #[serde(rename = "ref")]
        pub reference,
    }
}

impl Attribution {
    /// The names of the fields, as in the host page's query and in the JSON.
    pub const NAMES: [&'static str; 6] = [
        "utm_source",
        "utm_medium",
        "utm_campaign",
        "utm_term",
        "utm_content",
        "ref",
    ];

    /// Each field by its name, in the order of [`Self::NAMES`].
    pub fn fields(&self) -> [(&'static str, Option<&str>); 6] {
        let values = [
            &self.utm_source,
            &self.utm_medium,
            &self.utm_campaign,
            &self.utm_term,
            &self.utm_content,
            &self.reference,
        ];
        let mut i = 0;
        values.map(|value| {
            i += 1;
            (Self::NAMES[i - 1], value.as_deref())
        })
    }

    /// The field called `name` (one of [`Self::NAMES`]), to fill it from a query.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        Some(match name {
            "utm_source" => &mut self.utm_source,
            "utm_medium" => &mut self.utm_medium,
            "utm_campaign" => &mut self.utm_campaign,
            "utm_term" => &mut self.utm_term,
            "utm_content" => &mut self.utm_content,
            "ref" => &mut self.reference,
            _ => return None,
        })
    }

    /// True when no field has a value.
    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, value)| value.is_none())
    }
}

/// The body of `POST /v2/checkouts`: the basket and the visit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckoutRequest {
    /// ISO 8601 date-time with a real time for timeslotted products (read in the merchant's
    /// zone), or a bare `YYYY-MM-DD` for products without timeslots.
    #[cfg_attr(feature = "ssr", schema(schema_with = super::visit_date))]
    pub date: String,
    pub flexible_date: bool,
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 20))]
    pub lines: Vec<BasketLine>,
    /// Invalid or exhausted codes are silently ignored.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(schema_with = super::voucher_codes))]
    pub voucher_codes: Vec<String>,
    #[serde(default)]
    #[cfg_attr(
        feature = "ssr",
        schema(min_length = 1, max_length = 200, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub external_reference: Option<String>,
    /// The same customer's open checkout this one reprices (the basket again with a voucher):
    /// it is not counted against what the customer may hold at once, since the caller
    /// releases it once this one holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<Uuid>,
    /// Where the customer came from (the host page's `utm_*` and `ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// A business buyer (or give it at confirm): the order gets an EN 16931 invoice (docs/settlement.md).
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buyer: Option<super::Buyer>,
    /// Answers to the basket's booking questions (or give them at confirm, which then needs the
    /// required ones; docs/api-checkout.md, "Booking questions").
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 1000)]
    pub answers: Vec<super::Answer>,
}

/// Where a physical product is shipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ShippingAddress {
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub street: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 20, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub house_number: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 20, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub postal_code: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub city: String,
    /// ISO 3166-1 alpha-2.
    #[cfg_attr(feature = "ssr", schema(schema_with = super::country_code))]
    pub country: String,
}

/// The body of `POST /v2/checkouts/{checkout_id}/confirm`: the customer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    #[cfg_attr(feature = "ssr", schema(format = Email, max_length = 254))]
    pub email: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub first_name: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub last_name: String,
    /// Absolute http(s) URL on an origin the partner registered; reached whatever the outcome,
    /// with `payment_id` added.
    #[cfg_attr(feature = "ssr", schema(schema_with = super::return_url))]
    pub return_url: String,
    /// Required when the checkout's `requires_shipping_address` is true.
    #[serde(default)]
    pub shipping_address: Option<ShippingAddress>,
    /// Newsletter ids the customer consented to.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(schema_with = super::newsletters))]
    pub newsletters: Vec<String>,
    /// A business buyer (replacing one given at the reservation): the order gets an EN 16931 invoice (docs/settlement.md).
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buyer: Option<super::Buyer>,
    /// Answers to the checkout's `questions`, replacing those given at the reservation when
    /// any are sent; every required question must then have its answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ssr", schema(max_items = 1000))]
    pub answers: Vec<super::Answer>,
}

/// The body of `POST /v2/checkouts/express`: the basket and the customer in one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ExpressCheckoutRequest {
    #[cfg_attr(feature = "ssr", schema(schema_with = super::visit_date))]
    pub date: String,
    pub flexible_date: bool,
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 20))]
    pub lines: Vec<BasketLine>,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(schema_with = super::voucher_codes))]
    pub voucher_codes: Vec<String>,
    #[serde(default)]
    #[cfg_attr(
        feature = "ssr",
        schema(min_length = 1, max_length = 200, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub external_reference: Option<String>,
    #[cfg_attr(feature = "ssr", schema(format = Email, max_length = 254))]
    pub email: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub first_name: String,
    #[cfg_attr(
        feature = "ssr",
        schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub last_name: String,
    #[cfg_attr(feature = "ssr", schema(schema_with = super::return_url))]
    pub return_url: String,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(schema_with = super::newsletters))]
    pub newsletters: Vec<String>,
    #[serde(default)]
    pub shipping_address: Option<ShippingAddress>,
    /// Where the customer came from (the host page's `utm_*` and `ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// A business buyer: the order gets an EN 16931 invoice (docs/settlement.md).
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buyer: Option<super::Buyer>,
    /// Answers to the basket's booking questions; every required one must have its answer.
    #[cfg(feature = "ssr")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 1000)]
    pub answers: Vec<super::Answer>,
}

impl ExpressCheckoutRequest {
    /// The two halves: what `POST /v2/checkouts` and its confirm take.
    pub fn split(self) -> (CheckoutRequest, ConfirmRequest) {
        (
            CheckoutRequest {
                date: self.date,
                flexible_date: self.flexible_date,
                lines: self.lines,
                voucher_codes: self.voucher_codes,
                external_reference: self.external_reference,
                replaces: None,
                attribution: self.attribution,
                #[cfg(feature = "ssr")]
                buyer: None,
                #[cfg(feature = "ssr")]
                answers: self.answers,
            },
            ConfirmRequest {
                email: self.email,
                first_name: self.first_name,
                last_name: self.last_name,
                return_url: self.return_url,
                shipping_address: self.shipping_address,
                newsletters: self.newsletters,
                #[cfg(feature = "ssr")]
                buyer: self.buyer,
                answers: Vec::new(),
            },
        )
    }
}

/// What a confirmation (or an express checkout) returns: where to send the customer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PlacedOrder {
    pub checkout_id: Uuid,
    /// Persist it: the handle for the order and its tickets.
    pub order_id: Uuid,
    #[cfg_attr(feature = "ssr", schema(example = "BX-7K3M-9Q2P"))]
    pub order_display_id: String,
    /// Redirect the customer here at once.
    pub payment_url: String,
}

/// An entry window, in the merchant's zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TimeslotWindow {
    pub timeslot_id: Uuid,
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime))]
    pub start_time: DateTime<FixedOffset>,
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime))]
    pub end_time: DateTime<FixedOffset>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CheckoutLine {
    pub product_id: Uuid,
    pub sku: String,
    pub title: String,
    pub age_group: Option<String>,
    pub quantity: u32,
    /// The price of the visit date.
    pub unit_price: Money,
    pub list_price: Money,
    /// Per ticket.
    pub booking_costs: Money,
    /// Per ticket; zero unless the flexible-date option was taken.
    pub visit_guarantee_cost: Money,
    /// `(unit_price + booking_costs + visit_guarantee_cost) × quantity`.
    pub line_total: Money,
    pub timeslot: Option<TimeslotWindow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AppliedVoucher {
    pub code: String,
    pub discount: Money,
}

/// The authoritative totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CheckoutTotals {
    /// Sum of the line totals.
    pub subtotal: Money,
    /// Vouchers and membership.
    pub discount_total: Money,
    pub membership_discount: Money,
    pub wallet_applied: Money,
    /// What the customer pays.
    pub total: Money,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentSummary {
    pub payment_id: Uuid,
    pub status: PaymentStatus,
    /// Present while the payment is OPEN.
    pub payment_url: Option<String>,
}

/// A checkout as `GET /v2/checkouts/{checkout_id}` and `POST /v2/checkouts` show it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Checkout {
    pub checkout_id: Uuid,
    pub status: CheckoutStatus,
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    /// In the merchant's zone.
    pub visit_date: NaiveDate,
    pub flexible_date: bool,
    pub lines: Vec<CheckoutLine>,
    pub vouchers: Vec<AppliedVoucher>,
    pub totals: CheckoutTotals,
    /// True when the basket holds a physical product: confirm then needs `shipping_address`.
    pub requires_shipping_address: bool,
    /// End of the hold on the places: while RESERVED the reservation's (15 minutes, once
    /// extended by 10), from CONFIRMED the payment window's (30 minutes from the confirmation).
    pub expires_at: DateTime<Utc>,
    /// When the hold was extended (`POST /v2/checkouts/{checkout_id}/extend`, once).
    pub hold_extended_at: Option<DateTime<Utc>>,
    /// Where the customer came from.
    pub attribution: Option<Attribution>,
    pub external_reference: Option<String>,
    pub order_id: Option<Uuid>,
    pub order_display_id: Option<String>,
    pub order_status: Option<OrderStatus>,
    pub payment: Option<PaymentSummary>,
    pub created_at: DateTime<Utc>,
    /// The basket's booking questions in the reader's language: a per-booking one once, a
    /// per-ticket one once for each line that asks it (`line`), answered once per ticket.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<super::AskedQuestion>,
    /// The answers given so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<super::Answer>,
}
