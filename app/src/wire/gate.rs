//! At the gate (docs/gate.md): what a gate sends when it scans a ticket, and what it is told.

use chrono::{DateTime, FixedOffset, NaiveDate};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{Problem, RedemptionStatus, TimeslotWindow};

/// A scan to redeem: `POST /v2/redemptions`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RedemptionRequest {
    #[cfg_attr(feature = "ssr", schema(schema_with = super::formats::scanned_code))]
    pub code: String,
    #[cfg_attr(feature = "ssr", schema(schema_with = super::formats::scan_nonce))]
    pub nonce: String,
    /// When the gate read the code; kept with the entry. Online, the ticket's window is judged
    /// at the server's clock.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>, format = DateTime))]
    pub scanned_at: Option<DateTime<FixedOffset>>,
}

/// One entry at a gate, as `POST /v2/redemptions` answers it and the operator lists it. Times
/// carry the merchant's offset.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Redemption {
    pub redemption_id: Uuid,
    /// REDEEMED; in the operator's list also UNDONE and CONFLICT.
    pub status: RedemptionStatus,
    pub ticket_id: Uuid,
    pub product_title: String,
    pub age_group: Option<String>,
    pub visit_date: Option<NaiveDate>,
    pub timeslot: Option<TimeslotWindow>,
    pub order_display_id: String,
    /// When the ticket was let in: the server's clock online, the scan's time offline.
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime))]
    pub redeemed_at: DateTime<FixedOffset>,
    pub gate_id: Uuid,
    /// Uploaded from an offline gate (`POST /v2/redemptions/batch`).
    #[serde(default)]
    pub offline: bool,
    /// When the gate took the entry back (UNDONE).
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>, format = DateTime))]
    pub undone_at: Option<DateTime<FixedOffset>>,
    /// The answers to the booking questions the gate is to check: the booking's, then the
    /// ticket holder's (a name, a child's age).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<super::GivenAnswer>,
}

/// Scans made offline, uploaded together: `POST /v2/redemptions/batch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RedemptionBatch {
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 500))]
    pub scans: Vec<OfflineScan>,
}

/// One offline scan: its time is when the visitor went in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct OfflineScan {
    #[cfg_attr(feature = "ssr", schema(schema_with = super::formats::scanned_code))]
    pub code: String,
    #[cfg_attr(feature = "ssr", schema(schema_with = super::formats::scan_nonce))]
    pub nonce: String,
    #[cfg_attr(feature = "ssr", schema(value_type = String, format = DateTime))]
    pub scanned_at: DateTime<FixedOffset>,
}

/// The outcome of one uploaded scan, in the order sent.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BatchResult {
    pub nonce: String,
    /// REDEEMED, CONFLICT (a second entry of a used ticket: kept, and reported) or REFUSED.
    pub status: RedemptionStatus,
    /// The entry kept (REDEEMED and CONFLICT).
    pub redemption_id: Option<Uuid>,
    /// Why it is a conflict or was refused, as `POST /v2/redemptions` would say it.
    pub problem: Option<Problem>,
}

/// The answer to a batch upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BatchResults {
    pub results: Vec<BatchResult>,
}

/// A device pairing itself with a gate: `POST /v2/gate-pairings`, with the code of the
/// gate's one-time pairing URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PairingRequest {
    #[cfg_attr(feature = "ssr", schema(min_length = 1, max_length = 128))]
    pub pairing_code: String,
}

/// A paired device's credential: client credentials for `/oauth/token`, good until the gate
/// is revoked. Shown once.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PairedDevice {
    pub gate_id: Uuid,
    pub gate_name: String,
    pub merchant_id: Uuid,
    /// The merchant's IANA zone, in which the gate's day is counted.
    pub timezone: String,
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for PairedDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairedDevice")
            .field("gate_id", &self.gate_id)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The JWS header `typ` of a ticket's QR token.
pub const TICKET_TOKEN_TYPE: &str = "bx-ticket";

/// The JWS header `typ` of a gate's offline manifest.
pub const MANIFEST_TYPE: &str = "bx-manifest";

/// How a manifest names a ticket: the first 16 bytes of the SHA-256 of its printed code,
/// base64url without padding (22 characters), so the list names no code a reader could use.
pub fn code_hash(code: &str) -> String {
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
    use sha2::{Digest, Sha256};
    URL_SAFE_NO_PAD.encode(&Sha256::digest(code.as_bytes())[..16])
}

/// A ticket's QR token's claims (docs/gate.md, "Signed codes"): what an offline gate checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TicketClaims {
    /// The ticket id.
    pub tid: Uuid,
    /// The printed code.
    pub code: String,
    /// The merchant.
    pub mid: Uuid,
    /// The product.
    pub pid: Uuid,
    /// What the window is: `slot` (a gate widens it by its margins), `day` or `undated`.
    pub kind: WindowKind,
    /// Valid from (Unix seconds).
    pub vf: i64,
    /// Valid until, exclusive (Unix seconds); absent: for good.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vu: Option<i64>,
}

/// What a ticket's validity window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowKind {
    Slot,
    Day,
    Undated,
}

/// A gate's offline manifest of a day (`GET /v2/gates/{gate_id}/manifest`, a compact JWS of
/// type [`MANIFEST_TYPE`]): what a device needs to judge a ticket's token without the server.
/// Tickets are named by [`code_hash`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateManifest {
    pub gate_id: Uuid,
    /// The day, on the merchant's calendar.
    pub date: NaiveDate,
    /// When it was made (Unix seconds): a device shows how old its list is.
    pub iat: i64,
    /// Tickets cancelled or replaced.
    pub revoked: Vec<String>,
    /// Tickets used (let in) by the time it was made.
    pub used: Vec<String>,
    /// The gate's merchant: a token of another is unknown here.
    pub merchant_id: Uuid,
    /// The products the gate admits; absent: all of the merchant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_ids: Option<Vec<Uuid>>,
    /// How long before a timeslot's start and after its end the gate lets in.
    pub early_minutes: u32,
    pub late_minutes: u32,
    /// The products' titles and age groups, so an offline answer names what the ticket is for.
    #[serde(default)]
    pub products: Vec<ManifestProduct>,
}

/// A product as an offline answer names it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestProduct {
    pub product_id: Uuid,
    pub title: String,
    /// The title in the languages the merchant translated it into, by locale tag
    /// (`en-GB`…): the scanner shows the one of its own language.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub titles: std::collections::BTreeMap<String, String>,
    pub age_group: Option<String>,
}

impl ManifestProduct {
    /// Its title in `locale` (a tag), else the merchant's own.
    pub fn title_in(&self, locale: &str) -> &str {
        self.titles.get(locale).unwrap_or(&self.title)
    }
}
