//! Settlement on the wire (docs/settlement.md): a merchant's VAT, the partner's commission
//! and the platform's fee as the operator sets them, and the ledger entries partners and the
//! operator read. Amounts are `Money`-style decimals written as text with two decimals.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A merchant's VAT: the rates its products are sold at and whether its prices include them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaxSettings {
    /// Whether the catalog's prices include VAT. `false`: each price is without VAT, and
    /// customers are shown and charged it with its product's VAT added, to the cent
    /// (docs/settlement.md, "Prices without VAT").
    #[serde(default = "yes")]
    #[schema(default = true)]
    pub prices_include_tax: bool,
    /// At most one rate without `product_ids` (the default for every other product); a
    /// product is named by one rate at most.
    #[schema(min_items = 1, max_items = 20)]
    pub rates: Vec<TaxRate>,
}

fn yes() -> bool {
    true
}

/// One VAT rate of a merchant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaxRate {
    /// What receipts and statements call it, e.g. "VAT 9%".
    #[schema(
        max_length = 100,
        example = "BTW laag",
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub name: String,
    /// 0 to 100, two decimals at most.
    #[schema(value_type = String, example = "9", pattern = r"^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$")]
    pub rate_percent: Decimal,
    /// The products sold at this rate (at least one); absent: every product no other rate
    /// names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 1)]
    pub product_ids: Option<Vec<Uuid>>,
}

/// A share of each line: `{"percent": "10"}` of its net (without VAT), 0 to 100 with two
/// decimals at most, or `{"fixed": {"value": "1.50", "currency": "EUR"}}` per ticket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "ChargeFields")]
pub enum Charge {
    Percent(Decimal),
    Fixed(FixedAmount),
}

/// What a `Charge` is read from: either field, so that both or neither is refused naming the
/// field the charge is in, with a sentence that says why.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChargeFields {
    #[serde(default)]
    percent: Option<Decimal>,
    #[serde(default)]
    fixed: Option<FixedAmount>,
}

impl TryFrom<ChargeFields> for Charge {
    type Error = &'static str;

    fn try_from(fields: ChargeFields) -> Result<Self, Self::Error> {
        match (fields.percent, fields.fixed) {
            (Some(percent), None) => Ok(Charge::Percent(percent)),
            (None, Some(fixed)) => Ok(Charge::Fixed(fixed)),
            _ => Err("give exactly one of percent (of the line's net) and fixed (per ticket)"),
        }
    }
}

/// An amount per ticket: `value` (text, two decimals at most) in `currency`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedAmount {
    pub value: Decimal,
    pub currency: String,
}

/// The document's `Charge`: one of two closed objects, so a body with both (or neither) is
/// outside the schema, as the server refuses it.
impl utoipa::PartialSchema for Charge {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};
        let text = |pattern: &str, example: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(pattern))
                .examples([example])
        };
        let closed = |object: ObjectBuilder| {
            object.additional_properties(Some(AdditionalProperties::FreeForm(false)))
        };
        let fixed = closed(
            ObjectBuilder::new()
                .property("value", text(r"^[0-9]{1,8}(\.[0-9]{1,2})?$", "1.50"))
                .property("currency", text("^[A-Z]{3}$", "EUR"))
                .required("value")
                .required("currency"),
        );
        OneOfBuilder::new()
            .item(closed(
                ObjectBuilder::new()
                    .property("percent", text(PERCENT, "10"))
                    .required("percent"),
            ))
            .item(closed(
                ObjectBuilder::new()
                    .property("fixed", fixed)
                    .required("fixed"),
            ))
            .description(Some(
                "A share of each line: `percent` of its net (without VAT), or `fixed` per ticket.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Charge {}

/// 0 to 100 with two decimals at most.
const PERCENT: &str = r"^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$";

/// A business buyer, for an EN 16931 invoice (docs/settlement.md, "Invoices for business
/// buyers"): its registered name and VAT id, whose two letters name its country.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Buyer {
    #[schema(
        max_length = 200,
        example = "Acme Travel B.V.",
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub company_name: String,
    /// Two capital letters (the country: `NL`, `DE`, `EL` for Greece) and 2 to 13 capital
    /// letters or digits, without spaces or dots.
    #[schema(example = "NL123456789B01", pattern = "^[A-Z]{2}[0-9A-Z]{2,13}$")]
    pub vat_id: String,
}

/// The tax of one rate in an amount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TaxAmount {
    pub name: String,
    #[schema(value_type = String, example = "9")]
    #[serde(with = "rust_decimal::serde::str")]
    pub rate_percent: Decimal,
    #[schema(value_type = String, example = "1.24")]
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
}

/// What caused a ledger entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// An order paid: one per line.
    Sale,
    /// Money given back (negative amounts).
    Refund,
    /// A date change's price difference: positive for a dearer day, negative for a cheaper.
    Rebooking,
}

impl EntryKind {
    pub const ALL: [EntryKind; 3] = [EntryKind::Sale, EntryKind::Refund, EntryKind::Rebooking];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Sale => "sale",
            EntryKind::Refund => "refund",
            EntryKind::Rebooking => "rebooking",
        }
    }
}

impl std::str::FromStr for EntryKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown ledger entry kind {s:?}"))
    }
}

/// One ledger entry: an order line's money moved by one cause. Signed amounts, in `currency`;
/// `gross = net + Σ tax.amount` and `net = commission + platform_fee + merchant_payout`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LedgerEntry {
    pub entry_id: Uuid,
    pub kind: EntryKind,
    pub booked_at: DateTime<Utc>,
    pub order_id: Uuid,
    pub order_display_id: String,
    /// The tickets it concerns (for a rebooking: the new ones).
    pub ticket_ids: Vec<Uuid>,
    pub sku: String,
    pub product_id: Uuid,
    pub merchant_id: Uuid,
    pub campaign_id: Uuid,
    pub partner_client_id: Option<Uuid>,
    #[schema(example = "EUR")]
    pub currency: String,
    #[schema(value_type = String, example = "24.00")]
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
    #[schema(value_type = String, example = "22.02")]
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
    pub tax: Vec<TaxAmount>,
    #[schema(value_type = String, example = "2.20")]
    #[serde(with = "rust_decimal::serde::str")]
    pub commission: Decimal,
    #[schema(value_type = String, example = "0.66")]
    #[serde(with = "rust_decimal::serde::str")]
    pub platform_fee: Decimal,
    #[schema(value_type = String, example = "19.16")]
    #[serde(with = "rust_decimal::serde::str")]
    pub merchant_payout: Decimal,
}

/// An order's VAT at one rate, as its receipts show it: what was paid at the rate (`gross`),
/// without VAT (`net`) and the VAT in it (`tax`). From the order's ledger entries, so
/// refunds and date changes are in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VatRow {
    #[schema(example = "BTW 9%")]
    pub name: String,
    #[schema(value_type = String, example = "9")]
    #[serde(with = "rust_decimal::serde::str")]
    pub rate_percent: Decimal,
    #[schema(value_type = String, example = "35.78")]
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
    #[schema(value_type = String, example = "3.22")]
    #[serde(with = "rust_decimal::serde::str")]
    pub tax: Decimal,
    #[schema(value_type = String, example = "39.00")]
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
}
