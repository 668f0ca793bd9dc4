//! Credentials as the token and exchange endpoints take and return them, and the merchant's
//! onboarding status (docs/credentials.md).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A bearer as the token endpoints return it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct IssuedToken {
    pub access_token: String,
    /// Always `Bearer`.
    #[cfg_attr(feature = "ssr", schema(example = "Bearer"))]
    pub token_type: String,
    /// Seconds until it expires.
    pub expires_in: u64,
    /// When it expires (RFC 3339), for clients that prefer a time.
    pub expires_at: Option<DateTime<Utc>>,
}

/// The body of `POST /v1/session/identity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IdentityExchange {
    /// The identity provider's JWT (header.body.signature).
    pub identity_token: String,
}

/// The merchant bearer for an onboarding code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct MerchantToken {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: u64,
    /// The account the token is for, to pass as `debtorCode` to the onboarding call.
    pub debtor_code: String,
}

/// The body of `POST /{stage}/merchant-accounts/session/token`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct OnboardingCode {
    /// The code from the magic link.
    pub code: String,
}

/// Where the merchant stands and where to complete KYC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OnboardingStatus {
    pub debtor_code: String,
    pub status: super::MerchantAccountStatus,
    pub kyc_url: String,
}
