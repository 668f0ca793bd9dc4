use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{stored_names::stored_names, StoreResult};

stored_names! {
    /// How a session was started, which decides who may redeem its code; the public bearer's
    /// `mode` claim carries it too.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum SessionMode {
        /// The partner's own frontend calls the API; the partner redeems the code.
        Headless => "headless",
        /// The partner opens the hosted frame with the code; only the frame redeems it.
        Webframe => "webframe",
        /// Minted from a retail identity token; there is no code to redeem.
        Identity => "identity",
    }
}

/// A partner session: the one-time code (kept only as a hash) and what its bearer may do.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Session {
    pub partner_session_id: Uuid,
    /// `None` for sessions minted from an identity token.
    pub partner_client_id: Option<Uuid>,
    pub customer_id: Uuid,
    pub campaign_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    pub mode: SessionMode,
    /// The PKCE S256 challenge, when the partner sent one.
    pub code_challenge: Option<String>,
    pub code_expires_at: DateTime<Utc>,
    pub redeemed_at: Option<DateTime<Utc>>,
    pub bearer_jti: Option<Uuid>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub integrator_params: sqlx::types::Json<serde_json::Map<String, serde_json::Value>>,
    pub created_at: DateTime<Utc>,
    /// The customer fields the partner prefilled and locked (migration 0010).
    pub prefill: Option<sqlx::types::Json<app::wire::Prefill>>,
}

/// What a new session is made of.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub partner_session_id: Uuid,
    pub code_hash: Vec<u8>,
    pub partner_client_id: Option<Uuid>,
    pub customer_id: Uuid,
    pub campaign_id: Option<Uuid>,
    pub mode: SessionMode,
    pub code_challenge: Option<String>,
    pub code_expires_at: DateTime<Utc>,
    /// Set for sessions minted already redeemed (the identity exchange has no code to redeem).
    pub redeemed_with: Option<Uuid>,
    pub integrator_params: serde_json::Map<String, serde_json::Value>,
    /// The customer fields the partner prefills and locks at the checkout.
    pub prefill: Option<app::wire::Prefill>,
}

/// The outcome of trying to redeem a code.
#[derive(Debug, Clone)]
pub enum Redemption {
    /// This call redeemed it; the bearer with `jti` is the only one it will ever produce.
    Redeemed(Box<Session>),
    /// Unknown code, another client's, or the wrong mode.
    Invalid,
    /// Known and unused, but past its expiry.
    Expired,
    /// Already redeemed: the bearer it produced has now been revoked.
    Replayed,
}

#[async_trait::async_trait]
pub trait SessionStore {
    async fn create_session(&self, session: &NewSession) -> StoreResult<Session>;
    /// The session a code hash names, whatever its state.
    async fn session_by_code(&self, code_hash: &[u8]) -> StoreResult<Option<Session>>;
    async fn session(&self, partner_session_id: Uuid) -> StoreResult<Option<Session>>;
    /// The counter every change that takes a right away from a bearer moves (a session
    /// revoked, a partner client changed or removed): nodes re-read it to know when what they
    /// cached of bearers is out of date (`auth::cache`).
    async fn auth_revision(&self) -> StoreResult<i64>;
    /// Redeems a code in one conditional update, so of any number of concurrent attempts
    /// exactly one succeeds. `client` is the redeeming partner client (None: the hosted frame,
    /// which may redeem only webframe codes); a replay of a redeemed code revokes its session.
    async fn redeem_session_code(
        &self,
        code_hash: &[u8],
        client: Option<Uuid>,
        jti: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Redemption>;
}
