use app::wire::Locale;
use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// The product type whose products carry an age group.
pub const TICKET: &str = "TICKET";
/// The ticket validity type under which `ticket_validity_date` is the last valid day.
pub const VALIDITY_PERIOD: &str = "VALIDITY_PERIOD";
/// The fulfillment provider over our own availability groups.
pub const INVENTORY_PROVIDER: &str = "inventory";

/// A product's title and conditions in one locale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProductTranslation {
    pub locale: Locale,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub title: String,
    #[serde(default)]
    #[schema(max_length = 10000)]
    pub conditions: String,
}

fn inventory() -> String {
    INVENTORY_PROVIDER.to_owned()
}

/// The writable fields of a product (create and full update). Translations and campaign
/// membership replace the stored ones as a whole.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProductInput {
    pub merchant_id: Uuid,
    /// The capacity the product draws on; a group of the same merchant. When absent, a create
    /// makes a dedicated group for the product and an update keeps the current group (or makes
    /// a dedicated one when the product moves to another merchant).
    pub availability_group_id: Option<Uuid>,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub title: String,
    #[schema(example = "TICKET", pattern = "^[A-Z_]{1,50}$")]
    pub product_type: String,
    #[serde(default)]
    pub physical_product: bool,
    /// Upstream catalog identifier; the key for commission settlement.
    #[schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")]
    pub sku: String,
    /// Only for product_type TICKET (e.g. adult, child).
    #[schema(max_length = 50, pattern = r"[^\s\u0085]|\ufeff")]
    pub age_group: Option<String>,
    /// Not negative, two decimals at most (as every amount here).
    #[schema(value_type = String, example = "12.50", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_price: Decimal,
    #[schema(value_type = String, example = "15.00", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str")]
    pub list_price: Decimal,
    #[schema(value_type = String, example = "0.50", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str", default)]
    pub booking_costs: Decimal,
    #[schema(value_type = String, example = "2.00", pattern = r"^[0-9]{1,8}(\.[0-9]{1,2})?$")]
    #[serde(with = "rust_decimal::serde::str", default)]
    pub visit_guarantee_cost: Decimal,
    #[serde(default)]
    pub no_date: bool,
    #[serde(default)]
    pub requires_timeslot: bool,
    #[serde(default)]
    #[schema(max_length = 10000)]
    pub conditions: String,
    /// VALIDITY_PERIOD or null.
    #[schema(pattern = "^VALIDITY_PERIOD$")]
    pub ticket_validity_type: Option<String>,
    /// Last valid day, inclusive; required exactly when ticket_validity_type is VALIDITY_PERIOD.
    pub ticket_validity_date: Option<NaiveDate>,
    /// Fulfillment provider (default `inventory`).
    #[serde(default = "inventory")]
    #[schema(pattern = "^[a-z0-9_-]{1,50}$")]
    pub provider: String,
    /// The campaigns that list this product, each once.
    #[serde(default)]
    #[schema(schema_with = distinct_ids)]
    pub campaign_ids: Vec<Uuid>,
    /// One per locale at most.
    #[serde(default)]
    #[schema(max_items = 4)]
    pub translations: Vec<ProductTranslation>,
    /// What may change after payment (docs/operator-catalog.md, "After the sale"); absent:
    /// nothing but the EU withdrawal of physical and undated products.
    #[serde(default)]
    pub after_sale: Option<app::wire::AfterSalePolicy>,
    /// The partner's share of each line of this product, overriding its campaign's: a
    /// percent of the line's net or a fixed amount per ticket (docs/settlement.md).
    #[serde(default)]
    pub commission: Option<app::wire::Charge>,
    /// What a checkout of it asks, once per booking or once per ticket (docs/operator-catalog.md,
    /// "Booking questions"); ids distinct, at most 20. Absent or null: none.
    #[serde(default)]
    #[schema(max_items = 20)]
    pub questions: Option<Vec<app::wire::Question>>,
}

/// `#[schema(schema_with = distinct_ids)]`: UUIDs, each at most once.
fn distinct_ids() -> utoipa::openapi::schema::ArrayBuilder {
    use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid))),
        )
        .unique_items(true)
}

/// A product, with its translations and campaign membership.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = AdminProduct)]
pub struct Product {
    pub product_id: Uuid,
    pub merchant_id: Uuid,
    pub availability_group_id: Uuid,
    pub title: String,
    pub product_type: String,
    pub physical_product: bool,
    pub sku: String,
    pub age_group: Option<String>,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "12.5")]
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_price: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "15")]
    #[serde(with = "rust_decimal::serde::str")]
    pub list_price: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "0.5")]
    #[serde(with = "rust_decimal::serde::str")]
    pub booking_costs: Decimal,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "2")]
    #[serde(with = "rust_decimal::serde::str")]
    pub visit_guarantee_cost: Decimal,
    pub no_date: bool,
    pub requires_timeslot: bool,
    pub conditions: String,
    pub ticket_validity_type: Option<String>,
    pub ticket_validity_date: Option<NaiveDate>,
    pub provider: String,
    /// In id order.
    #[sqlx(skip)]
    pub campaign_ids: Vec<Uuid>,
    #[sqlx(skip)]
    pub translations: Vec<ProductTranslation>,
    #[schema(value_type = Option<app::wire::AfterSalePolicy>)]
    pub after_sale: Option<sqlx::types::Json<app::wire::AfterSalePolicy>>,
    #[schema(value_type = Option<app::wire::Charge>)]
    #[sqlx(default)]
    pub commission: Option<sqlx::types::Json<app::wire::Charge>>,
    #[schema(value_type = Option<Vec<app::wire::Question>>)]
    #[sqlx(default)]
    pub questions: Option<sqlx::types::Json<Vec<app::wire::Question>>>,
    /// Its pictures in order, every language's alternative text (read-only: uploaded at
    /// `POST /admin/v1/products/{id}/images`).
    #[schema(value_type = Vec<super::StoredImage>)]
    #[sqlx(default)]
    pub images: sqlx::types::Json<Vec<super::StoredImage>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A product's title and conditions as shown in one locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalizedProduct<'a> {
    pub title: &'a str,
    pub conditions: &'a str,
}

impl Product {
    /// A museum's adult ticket, for tests.
    #[cfg(test)]
    pub fn example() -> Product {
        let now = Utc::now();
        Product {
            product_id: Uuid::nil(),
            merchant_id: Uuid::nil(),
            availability_group_id: Uuid::nil(),
            title: "Volwassene".into(),
            product_type: "TICKET".into(),
            physical_product: false,
            sku: "SKU-1".into(),
            age_group: Some("adult".into()),
            unit_price: Decimal::new(125, 1),
            list_price: Decimal::new(15, 0),
            booking_costs: Decimal::new(5, 1),
            visit_guarantee_cost: Decimal::ZERO,
            no_date: false,
            requires_timeslot: false,
            conditions: "Geldig op de gekozen dag".into(),
            ticket_validity_type: None,
            ticket_validity_date: None,
            provider: "inventory".into(),
            campaign_ids: vec![],
            translations: vec![ProductTranslation {
                locale: Locale::EnGb,
                title: "Adult".into(),
                conditions: "Valid on the chosen day".into(),
            }],
            after_sale: None,
            commission: None,
            questions: None,
            images: Default::default(),
            created_at: now,
            updated_at: now,
        }
    }

    /// Its booking questions (none when it asks none).
    pub fn questions(&self) -> &[app::wire::Question] {
        self.questions.as_ref().map_or(&[], |q| q.0.as_slice())
    }

    /// Title and conditions in `locale`, falling back to nl-NL and then to the product's own
    /// (untranslated) text.
    pub fn localized(&self, locale: Locale) -> LocalizedProduct<'_> {
        let pick = |l: Locale| self.translations.iter().find(|t| t.locale == l);
        match pick(locale).or_else(|| pick(Locale::NlNl)) {
            Some(t) => LocalizedProduct {
                title: &t.title,
                conditions: &t.conditions,
            },
            None => LocalizedProduct {
                title: &self.title,
                conditions: &self.conditions,
            },
        }
    }
}

/// Which products a listing returns; `None` matches all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProductFilter {
    pub merchant_id: Option<Uuid>,
    pub campaign_id: Option<Uuid>,
}

#[async_trait::async_trait]
pub trait ProductStore {
    /// Creates a product with its translations and campaign membership, and its dedicated
    /// availability group when none is named, in one transaction. Unknown references fail as
    /// `MissingReference` naming the field (`merchant_id`, `availability_group_id`,
    /// `campaign_ids[i]`); a group of another merchant as `InvalidReference`.
    async fn create_product(&self, product_id: Uuid, input: &ProductInput) -> StoreResult<Product>;
    async fn product(&self, product_id: Uuid) -> StoreResult<Option<Product>>;
    /// Replaces the writable fields, translations and campaign membership in one transaction;
    /// `None` when no such product exists. Fails as `create_product` does.
    async fn update_product(
        &self,
        product_id: Uuid,
        input: &ProductInput,
    ) -> StoreResult<Option<Product>>;
    /// Products in id order after `after` that match `filter`.
    async fn list_products(
        &self,
        filter: ProductFilter,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Product>>;
}
