//! After the sale (docs/api-checkout.md, "After the sale"): a product's policy, what an order
//! allows now, its refunds, and the requests that cancel, withdraw or move a visit.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{Money, Order};

/// One refund rule: until `until` before the visit starts, `refund_percent` of what was paid
/// comes back, less `fee` per ticket.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RefundRule {
    /// An ISO 8601 duration before the visit starts (`PT48H`, `P2D`); days count on the
    /// merchant's calendar, hours as elapsed time.
    #[cfg_attr(
        feature = "ssr",
        schema(
            example = "PT48H",
            pattern = r"^P(?=[0-9]|T[0-9])([0-9]+W|([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?)$"
        )
    )]
    pub until: String,
    /// A decimal string from 0 to 100.
    #[cfg_attr(
        feature = "ssr",
        schema(value_type = String, example = "100", pattern = r"^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$")
    )]
    pub refund_percent: Decimal,
    /// Kept per ticket after the percent (pretix's `_keep`).
    #[serde(default)]
    pub fee: Option<Money>,
    /// Booking costs and the visit guarantee are not refunded.
    #[serde(default)]
    pub keep_fees: bool,
}

/// A product's after-sale policy; absent, nothing changes after payment (but the EU
/// withdrawal of physical and undated products).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AfterSalePolicy {
    /// The first rule whose deadline has not passed applies.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(max_items = 10))]
    pub refund_rules: Vec<RefundRule>,
    /// An ISO 8601 duration before the visit: the last moment its date can be changed.
    #[serde(default)]
    #[cfg_attr(
        feature = "ssr",
        schema(
            example = "PT24H",
            pattern = r"^P(?=[0-9]|T[0-9])([0-9]+W|([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?)$"
        )
    )]
    pub rebook_until: Option<String>,
    /// The EU withdrawal period in days (default 14 for physical and undated products; dated
    /// tickets have none).
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(maximum = 365))]
    pub withdrawal_days: Option<u32>,
}

/// What an order allows now, computed at the read (null where nothing applies). The frame
/// reads only the three answers (its order screen links to the manage page for each), so
/// the rest is server-side only and stays out of the WASM.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OrderAfterSale {
    pub cancellable: bool,
    /// What cancelling every still valid ticket refunds now.
    #[cfg(feature = "ssr")]
    pub refund_quote: Option<Money>,
    /// When `refund_quote` changes (the applying rule's deadline).
    #[cfg(feature = "ssr")]
    pub quote_until: Option<DateTime<Utc>>,
    /// The last moment any rule refunds anything.
    #[cfg(feature = "ssr")]
    pub cancel_until: Option<DateTime<Utc>>,
    pub rebookable: bool,
    #[cfg(feature = "ssr")]
    pub rebook_until: Option<DateTime<Utc>>,
    pub withdrawable: bool,
    /// The end of the withdrawal period; null while a shipment is not recorded.
    #[cfg(feature = "ssr")]
    pub withdrawal_until: Option<DateTime<Utc>>,
}

/// Money given back for some tickets: `amount` is all of it, `to_wallet` the part that went
/// back to the wallet it was paid with, `to_provider` the part the payment provider returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OrderRefund {
    pub refund_id: Uuid,
    pub ticket_ids: Vec<Uuid>,
    pub amount: Money,
    pub to_wallet: Money,
    pub to_provider: Money,
    /// PENDING until the provider answers, then SUCCEEDED or FAILED.
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// `POST …/cancellation` by the customer.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CancellationRequest {
    /// Absent: every valid ticket.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 200))]
    pub ticket_ids: Option<Vec<Uuid>>,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(max_length = 500))]
    pub note: Option<String>,
}

/// `POST …/cancellation` by a partner or the operator: `refund_percent` below the policy's
/// (a partner) or any (the operator's goodwill).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ManagedCancellationRequest {
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 200))]
    pub ticket_ids: Option<Vec<Uuid>>,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(max_length = 500))]
    pub note: Option<String>,
    /// A decimal string from 0 to 100; absent: the policy's.
    #[cfg_attr(
        feature = "ssr",
        schema(value_type = Option<String>, example = "50", pattern = r"^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$")
    )]
    #[serde(default)]
    pub refund_percent: Option<Decimal>,
}

/// `POST …/withdrawal`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WithdrawalRequest {
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 200))]
    pub ticket_ids: Option<Vec<Uuid>>,
}

/// `POST …/rebooking`: the new `date` in the express checkout's format.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RebookingRequest {
    #[cfg_attr(feature = "ssr", schema(example = "2026-12-24T10:00:00+01:00"))]
    pub date: String,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(min_items = 1, max_items = 200))]
    pub ticket_ids: Option<Vec<Uuid>>,
}

/// The answer of a cancellation, withdrawal or date change: the order as it now is, the
/// refund it made (if any) and, for a dearer day, where to pay the difference.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AfterSaleOutcome {
    pub order: Order,
    pub refund: Option<OrderRefund>,
    pub payment_url: Option<String>,
}
