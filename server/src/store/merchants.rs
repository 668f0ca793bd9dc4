use app::wire::Locale;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// A merchant's postal address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub street: String,
    #[schema(max_length = 20, pattern = r"[^\s\u0085]|\ufeff")]
    pub postal_code: String,
    #[schema(max_length = 100, pattern = r"[^\s\u0085]|\ufeff")]
    pub city: String,
    /// ISO 3166-1 alpha-2 code.
    #[schema(schema_with = app::wire::country_code)]
    pub country: String,
}

/// A point on the map (WGS 84 degrees).
#[derive(
    Debug, Clone, Copy, PartialEq, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Location {
    #[schema(example = 52.3600, minimum = -90, maximum = 90)]
    pub latitude: f64,
    #[schema(example = 4.8852, minimum = -180, maximum = 180)]
    pub longitude: f64,
}

/// A merchant's name and description in one locale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MerchantTranslation {
    pub locale: Locale,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    #[serde(default)]
    #[schema(max_length = 5000)]
    pub description: String,
}

/// The writable fields of a merchant (create and full update). Translations replace the
/// stored ones as a whole.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MerchantInput {
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    #[serde(default)]
    #[schema(max_length = 5000)]
    pub description: String,
    #[schema(example = "museum", max_length = 100, pattern = r"[^\s\u0085]|\ufeff")]
    pub category: String,
    pub address: Address,
    pub location: Location,
    /// IANA time zone; "today", "past" and timeslot times are judged in it.
    #[schema(schema_with = timezone_name)]
    pub timezone: String,
    /// Three upper-case letters (ISO 4217).
    #[schema(example = "EUR", pattern = "^[A-Z]{3}$")]
    pub currency: String,
    #[schema(schema_with = crate::validate::http_url_schema)]
    pub image_url: Option<String>,
    #[schema(schema_with = crate::validate::http_url_schema)]
    pub website: Option<String>,
    /// One per locale at most.
    #[serde(default)]
    #[schema(max_items = 4)]
    pub translations: Vec<MerchantTranslation>,
    /// Absent: no VAT is charged (receipts show none).
    #[serde(default)]
    pub tax: Option<app::wire::TaxSettings>,
    /// The seller's registered name, as an invoice states it.
    #[serde(default)]
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub legal_name: Option<String>,
    /// The seller's VAT identification number: two letters and 2 to 13 letters or digits.
    #[serde(default)]
    #[schema(example = "NL123456789B01", pattern = "^[A-Z]{2}[0-9A-Z]{2,13}$")]
    pub vat_id: Option<String>,
    /// The seller's registered address (absent: the visiting address).
    #[serde(default)]
    pub legal_address: Option<Address>,
    /// The operator's share of every line: a percent of its net or a fixed amount per ticket.
    #[serde(default)]
    pub platform_fee: Option<app::wire::Charge>,
}

/// What settlement and invoices need of a merchant (docs/settlement.md), as stored: its VAT,
/// the seller an invoice names, and the platform's fee on its sales (`MerchantInput`'s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct MerchantSettlement {
    #[schema(value_type = Option<app::wire::TaxSettings>)]
    pub tax: Option<sqlx::types::Json<app::wire::TaxSettings>>,
    pub legal_name: Option<String>,
    pub vat_id: Option<String>,
    #[schema(value_type = Option<Address>)]
    pub legal_address: Option<sqlx::types::Json<Address>>,
    #[schema(value_type = Option<app::wire::Charge>)]
    pub platform_fee: Option<sqlx::types::Json<app::wire::Charge>>,
}

/// The spelling of every IANA time zone name (`Area/Location`, letters, digits, `_`, `+`, `-`):
/// the document's check of a zone, which the server's (chrono-tz's table) narrows to the names
/// it knows. Not the names themselves as an enum: generated clients turn 600 names into
/// identifiers, and `GMT0`, `GMT-0` and `GMT+0` collide (openapi-python-client stops on them).
const TIMEZONE_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$";

/// `#[schema(schema_with = timezone_name)]`: an IANA time zone name, checked by the server
/// against the names it knows (`Checks::timezone`).
fn timezone_name() -> utoipa::openapi::schema::ObjectBuilder {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .pattern(Some(TIMEZONE_PATTERN))
        .description(Some(
            "An IANA time zone name (the tz database), such as Europe/Amsterdam. A name the server does not know is refused with 400 `request-validation-failed` (code `timezone`).",
        ))
        .examples(["Europe/Amsterdam"])
}

impl MerchantInput {
    /// What search matches against: name, translated names, city and category, folded.
    pub fn search_text(&self) -> String {
        let mut parts = vec![self.name.as_str()];
        parts.extend(self.translations.iter().map(|t| t.name.as_str()));
        parts.push(&self.address.city);
        parts.push(&self.category);
        crate::text::fold(&parts.join(" "))
    }
}

/// A merchant, with its translations.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = AdminMerchant)]
pub struct Merchant {
    pub merchant_id: Uuid,
    pub name: String,
    pub description: String,
    pub category: String,
    #[sqlx(flatten)]
    pub address: Address,
    #[sqlx(flatten)]
    pub location: Location,
    pub timezone: String,
    pub currency: String,
    pub image_url: Option<String>,
    pub website: Option<String>,
    #[sqlx(skip)]
    pub translations: Vec<MerchantTranslation>,
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub settlement: MerchantSettlement,
    /// Its pictures in order, every language's alternative text (read-only: uploaded at
    /// `POST /admin/v1/merchants/{id}/images`).
    #[schema(value_type = Vec<super::StoredImage>)]
    pub images: sqlx::types::Json<Vec<super::StoredImage>>,
    /// Name, translated names, city and category, lower-cased without diacritics (read-only).
    pub search_text: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A merchant's name and description as shown in one locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalizedMerchant<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

impl Merchant {
    /// The merchant's zone. Zones are validated on every write, so a failure means the row was
    /// changed behind the API's back.
    pub fn zone(&self) -> anyhow::Result<chrono_tz::Tz> {
        self.timezone.parse().map_err(|_| {
            anyhow::anyhow!(
                "merchant {} has an unknown time zone {:?}",
                self.merchant_id,
                self.timezone
            )
        })
    }

    /// Name and description in `locale`, falling back to nl-NL and then to the merchant's own
    /// (untranslated) text.
    pub fn localized(&self, locale: Locale) -> LocalizedMerchant<'_> {
        let pick = |l: Locale| self.translations.iter().find(|t| t.locale == l);
        match pick(locale).or_else(|| pick(Locale::NlNl)) {
            Some(t) => LocalizedMerchant {
                name: &t.name,
                description: &t.description,
            },
            None => LocalizedMerchant {
                name: &self.name,
                description: &self.description,
            },
        }
    }
}

#[async_trait::async_trait]
pub trait MerchantStore {
    /// Creates a merchant and its translations in one transaction.
    async fn create_merchant(
        &self,
        merchant_id: Uuid,
        input: &MerchantInput,
    ) -> StoreResult<Merchant>;
    async fn merchant(&self, merchant_id: Uuid) -> StoreResult<Option<Merchant>>;
    /// Replaces the writable fields and the translations in one transaction; `None` when no
    /// such merchant exists.
    async fn update_merchant(
        &self,
        merchant_id: Uuid,
        input: &MerchantInput,
    ) -> StoreResult<Option<Merchant>>;
    /// Merchants in id order after `after`; with `campaign_id`, only those with a product in
    /// that campaign.
    async fn list_merchants(
        &self,
        campaign_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Merchant>>;
    /// Whether one of the merchant's products is in the campaign (which puts the merchant in it).
    async fn merchant_in_campaign(&self, merchant_id: Uuid, campaign_id: Uuid)
        -> StoreResult<bool>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merchant(translations: Vec<MerchantTranslation>) -> Merchant {
        Merchant {
            merchant_id: Uuid::nil(),
            name: "Base".into(),
            description: "base".into(),
            category: "zoo".into(),
            address: Address {
                street: "s".into(),
                postal_code: "1".into(),
                city: "c".into(),
                country: "NL".into(),
            },
            location: Location {
                latitude: 0.0,
                longitude: 0.0,
            },
            timezone: "Europe/Amsterdam".into(),
            currency: "EUR".into(),
            image_url: None,
            website: None,
            translations,
            settlement: MerchantSettlement::default(),
            images: Default::default(),
            search_text: String::new(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    fn translation(locale: Locale, name: &str) -> MerchantTranslation {
        MerchantTranslation {
            locale,
            name: name.into(),
            description: format!("{name} text"),
        }
    }

    #[test]
    fn localized_text_falls_back_to_dutch_then_to_the_base_text() {
        let m = merchant(vec![
            translation(Locale::NlNl, "Dierentuin"),
            translation(Locale::EnGb, "Zoo"),
        ]);
        assert_eq!(m.localized(Locale::EnGb).name, "Zoo");
        assert_eq!(m.localized(Locale::EnGb).description, "Zoo text");
        assert_eq!(m.localized(Locale::DeDe).name, "Dierentuin");
        let untranslated = merchant(vec![translation(Locale::FrFr, "Zoo FR")]);
        assert_eq!(untranslated.localized(Locale::DeDe).name, "Base");
        assert_eq!(untranslated.localized(Locale::FrFr).name, "Zoo FR");
    }

    #[test]
    fn search_text_folds_names_city_and_category() {
        let input = MerchantInput {
            name: "Café Zoë".into(),
            description: "not searched".into(),
            category: "Dierentuin".into(),
            address: Address {
                street: "Straße 1".into(),
                postal_code: "1000".into(),
                city: "Köln".into(),
                country: "DE".into(),
            },
            location: Location {
                latitude: 0.0,
                longitude: 0.0,
            },
            timezone: "Europe/Berlin".into(),
            currency: "EUR".into(),
            image_url: None,
            website: None,
            translations: vec![translation(Locale::FrFr, "Zoo Élysée")],
            tax: None,
            legal_name: None,
            vat_id: None,
            legal_address: None,
            platform_fee: None,
        };
        assert_eq!(input.search_text(), "cafe zoe zoo elysee koln dierentuin");
    }
}
