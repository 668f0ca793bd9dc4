use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A merchant's postal address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct MerchantAddress {
    pub street: String,
    /// Server-side only, as `country`: the frame shows the street and the city.
    #[cfg(feature = "ssr")]
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2 code.
    #[cfg(feature = "ssr")]
    #[schema(example = "NL")]
    pub country: String,
}

/// A point on the map in WGS 84 degrees (coordinates are not money, so floats are fine).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct GeoPoint {
    #[cfg_attr(feature = "ssr", schema(example = 52.366))]
    pub latitude: f64,
    #[cfg_attr(feature = "ssr", schema(example = 4.9166))]
    pub longitude: f64,
}

/// A merchant as partners see it; `name` and `description` are localized by Accept-Language
/// (falling back to nl-NL, then to the merchant's own text).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Merchant {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    #[cfg_attr(feature = "ssr", schema(example = "museum"))]
    pub category: String,
    pub address: MerchantAddress,
    /// Server-side only, as `image_url` and `website`: the frame does not show them and need
    /// not carry their decoding in its first load (docs/benchmarks.md, "The frame's size").
    #[cfg(feature = "ssr")]
    pub location: GeoPoint,
    /// IANA time zone; "today", past days and timeslot offsets are judged in it.
    /// Server-side only, as `currency`: the frame's prices and times carry their own.
    #[cfg(feature = "ssr")]
    #[schema(example = "Europe/Amsterdam")]
    pub timezone: String,
    /// Currency of the merchant's prices.
    #[cfg(feature = "ssr")]
    #[schema(example = "EUR")]
    pub currency: String,
    #[cfg(feature = "ssr")]
    pub image_url: Option<String>,
    #[cfg(feature = "ssr")]
    pub website: Option<String>,
    /// Its pictures, by the operator's order (docs/api-catalog.md, "Pictures").
    #[serde(default)]
    pub images: Vec<super::Image>,
}

/// A merchant found by search: the merchant, and its distance from the searched point when the
/// search was geo-filtered.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct MerchantMatch {
    #[serde(flatten)]
    pub merchant: Merchant,
    /// Great-circle distance from `latitude`/`longitude` of the query, in kilometres (three
    /// decimals); present only on geo-filtered searches.
    pub distance_km: Option<f64>,
}
