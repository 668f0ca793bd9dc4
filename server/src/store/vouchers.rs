use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// How a voucher discounts: a percentage of the lines it applies to, or a fixed amount in the
/// checkout's currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum VoucherKind {
    Percentage,
    Amount,
}

impl VoucherKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VoucherKind::Percentage => "PERCENTAGE",
            VoucherKind::Amount => "AMOUNT",
        }
    }
}

impl TryFrom<String> for VoucherKind {
    type Error = String;

    fn try_from(value: String) -> Result<Self, String> {
        match value.as_str() {
            "PERCENTAGE" => Ok(VoucherKind::Percentage),
            "AMOUNT" => Ok(VoucherKind::Amount),
            other => Err(format!("unknown voucher kind {other}")),
        }
    }
}

/// A voucher code of a campaign.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Voucher {
    pub voucher_id: Uuid,
    pub campaign_id: Uuid,
    /// Upper-case; customers' codes are matched after the same normalisation.
    #[schema(example = "SUMMER10")]
    pub code: String,
    #[sqlx(try_from = "String")]
    pub kind: VoucherKind,
    /// A percentage (PERCENTAGE) or an amount (AMOUNT), with two decimals.
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "10.00")]
    #[serde(with = "super::two_decimals")]
    pub value: Decimal,
    /// When set, the voucher applies only to this merchant's products.
    pub merchant_id: Option<Uuid>,
    /// When set, at most this many checkouts may redeem it.
    pub max_redemptions: Option<i32>,
    /// Checkouts holding or having used a redemption (read-only).
    pub redeemed: i32,
    /// Valid from this instant (inclusive) ...
    pub valid_from: Option<DateTime<Utc>>,
    /// ... until this instant (exclusive).
    pub valid_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The writable fields of a voucher (create and full update).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VoucherInput {
    pub campaign_id: Uuid,
    /// Trimmed and upper-cased when stored (1 to 64 letters, digits, `.`, `_` or `-`); unique
    /// within the campaign.
    #[schema(pattern = r"^\s*[A-Za-z0-9._-]{1,64}\s*$")]
    pub code: String,
    pub kind: VoucherKind,
    /// Above zero, at most two decimals; a percentage is at most 100.
    #[schema(value_type = String, example = "10.00", pattern = r"^([1-9][0-9]{0,7}(\.[0-9]{1,2})?|0\.(0[1-9]|[1-9][0-9]?))$")]
    #[serde(with = "super::two_decimals")]
    pub value: Decimal,
    #[serde(default)]
    pub merchant_id: Option<Uuid>,
    #[serde(default)]
    #[schema(minimum = 1)]
    pub max_redemptions: Option<i32>,
    #[serde(default)]
    pub valid_from: Option<DateTime<Utc>>,
    #[serde(default)]
    pub valid_until: Option<DateTime<Utc>>,
}

/// The form every voucher code is stored and looked up in, so `summer10 ` finds `SUMMER10`.
pub fn normalize_voucher_code(code: &str) -> String {
    code.trim().to_uppercase()
}

/// The outcome of updating a voucher.
#[derive(Debug, Clone, PartialEq)]
pub enum VoucherUpdate {
    Updated(Voucher),
    NotFound,
    /// `max_redemptions` would fall below the redemptions already made (this many).
    BelowRedeemed(i32),
}

#[async_trait::async_trait]
pub trait VoucherStore {
    /// Creates a voucher; `input.code` must already be normalised. A code taken in the
    /// campaign is a conflict; an unknown campaign or merchant a missing reference.
    async fn create_voucher(&self, voucher_id: Uuid, input: &VoucherInput) -> StoreResult<Voucher>;
    async fn voucher(&self, voucher_id: Uuid) -> StoreResult<Option<Voucher>>;
    /// Replaces the writable fields (`redeemed` stays).
    async fn update_voucher(
        &self,
        voucher_id: Uuid,
        input: &VoucherInput,
    ) -> StoreResult<VoucherUpdate>;
    /// Deletes a voucher no checkout used (`false`: no such voucher); a used one is a conflict.
    async fn delete_voucher(&self, voucher_id: Uuid) -> StoreResult<bool>;
    /// Vouchers in id order after `after`, of one campaign when `campaign_id` is set.
    async fn list_vouchers(
        &self,
        campaign_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Voucher>>;
    /// The voucher `code` names in the campaign if it can be redeemed at `now`: inside its
    /// validity window and with redemptions left. `code` is normalised here.
    async fn valid_voucher(
        &self,
        campaign_id: Uuid,
        code: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Voucher>>;
}
