//! Partner credentials: client authentication and backend bearers, sessions and their one-time
//! codes, the exchange of codes (by partners and by the hosted frame) and of retail partners'
//! identity tokens for public bearers. The HTTP handlers in `api/` and the frame's server
//! functions both call these, so every rule exists once.

pub mod client_auth;
pub mod identity;
pub mod pkce;
pub mod sessions;

use serde::Serialize;

/// A bearer as the token endpoints return it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct IssuedToken {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until it expires.
    pub expires_in: u64,
    /// When it expires (RFC 3339), for clients that prefer a time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}
