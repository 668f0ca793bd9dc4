//! Credentials as the token and exchange endpoints take and return them, and the merchant's
//! onboarding status (docs/credentials.md).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

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

/// The customer fields a partner's backend sent with `POST /v1/session` (`user.email`,
/// `user.first_name`, `user.last_name`) and those of them it locked (`user.locked`): the frame
/// fills its form with them and shows a locked one read-only, and the server refuses a
/// checkout under the session's bearer whose locked field differs (422 `checkout-field-locked`;
/// docs/credentials.md, "Prefill and locked fields"). It comes from the partner's backend, so
/// the page cannot forge it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Prefill {
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// The locked fields' names (`email`, `first_name`, `last_name`); each has a value.
    #[serde(default)]
    pub locked: Vec<String>,
}

impl Prefill {
    /// The fields a partner may prefill and lock, as the checkout names them.
    pub const FIELDS: [&'static str; 3] = ["email", "first_name", "last_name"];

    /// The value of the field `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        match name {
            "email" => self.email.as_deref(),
            "first_name" => self.first_name.as_deref(),
            "last_name" => self.last_name.as_deref(),
            _ => None,
        }
    }

    /// Whether the partner locked the field `name`.
    pub fn is_locked(&self, name: &str) -> bool {
        self.locked.iter().any(|locked| locked == name)
    }
}

/// `GET /v2/me`: who a public bearer speaks for, and what its session prefills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Me {
    pub customer_id: Uuid,
    pub session_id: Uuid,
    pub client_id: String,
    pub campaign_id: Option<Uuid>,
    /// headless, webframe or identity.
    pub mode: String,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub integrator_params: serde_json::Map<String, serde_json::Value>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The customer fields the partner sent with the session, and which it locked (empty for
    /// an identity session).
    #[serde(default)]
    pub prefill: Prefill,
}
