use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// A customer's membership in a campaign: a standing percentage off their checkouts.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Membership {
    pub membership_id: Uuid,
    pub customer_id: Uuid,
    pub campaign_id: Uuid,
    #[schema(example = "Gold")]
    pub name: String,
    #[sqlx(try_from = "super::DbDecimal")]
    #[schema(value_type = String, example = "10.00")]
    #[serde(with = "super::two_decimals")]
    pub discount_percentage: Decimal,
    /// Last day the membership applies (inclusive); none means open-ended.
    pub valid_until: Option<NaiveDate>,
    pub created_at: DateTime<Utc>,
}

/// A new membership.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembershipInput {
    pub customer_id: Uuid,
    pub campaign_id: Uuid,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    /// Above 0 and at most 100, two decimals at most.
    #[schema(value_type = String, example = "10.00", pattern = r"^(100(\.0{1,2})?|[1-9][0-9]?(\.[0-9]{1,2})?|0\.(0[1-9]|[1-9][0-9]?))$")]
    #[serde(with = "super::two_decimals")]
    pub discount_percentage: Decimal,
    #[serde(default)]
    pub valid_until: Option<NaiveDate>,
}

#[async_trait::async_trait]
pub trait MembershipStore {
    /// Creates a membership; an unknown customer or campaign is a missing reference.
    async fn create_membership(
        &self,
        membership_id: Uuid,
        input: &MembershipInput,
    ) -> StoreResult<Membership>;
    /// Memberships in id order after `after`, of one customer when `customer_id` is set.
    async fn list_memberships(
        &self,
        customer_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Membership>>;
    /// The customer's memberships in the campaign that apply on `day`, deepest discount first.
    async fn active_memberships(
        &self,
        customer_id: Uuid,
        campaign_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Vec<Membership>>;
}
