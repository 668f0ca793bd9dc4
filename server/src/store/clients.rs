use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// A partner client as the credential endpoints need it.
#[derive(Clone, sqlx::FromRow)]
pub struct PartnerClient {
    pub partner_client_id: Uuid,
    pub client_id: String,
    pub name: String,
    /// SHA-256 of the client secret.
    pub secret_hash: Vec<u8>,
    /// Origins allowed to frame the webframe and to receive its postMessages.
    pub frame_origins: sqlx::types::Json<Vec<String>>,
    /// Origins a checkout's return_url may point to.
    pub return_origins: sqlx::types::Json<Vec<String>>,
    pub created_at: DateTime<Utc>,
    /// Campaigns the client may sell in.
    #[sqlx(skip)]
    pub campaign_ids: Vec<Uuid>,
}

impl std::fmt::Debug for PartnerClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartnerClient")
            .field("client_id", &self.client_id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A client to create or replace with a known secret hash (the demo seeder, tests).
#[derive(Debug, Clone)]
pub struct ClientSeed {
    pub client_id: String,
    pub name: String,
    pub secret_hash: Vec<u8>,
    pub campaign_ids: Vec<Uuid>,
    pub frame_origins: Vec<String>,
    pub return_origins: Vec<String>,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
}

#[async_trait::async_trait]
pub trait ClientStore {
    async fn client_by_client_id(&self, client_id: &str) -> StoreResult<Option<PartnerClient>>;
    /// The public `client_id` of a partner client.
    async fn client_id_of(&self, partner_client_id: Uuid) -> StoreResult<Option<String>>;
    /// Creates the client, or replaces it when `client_id` exists; returns its id.
    async fn upsert_client(&self, seed: &ClientSeed) -> StoreResult<Uuid>;
}

/// Who a customer is known as.
#[derive(Debug, Clone)]
pub enum CustomerKey<'a> {
    /// The partner's own reference for its user.
    Partner {
        partner_client_id: Uuid,
        reference: &'a str,
    },
    /// A verified identity from an allow-listed identity provider.
    Identity {
        identity_issuer_id: Uuid,
        accountuid: &'a str,
    },
}

/// What a partner tells about its user; absent fields keep what was known.
#[derive(Debug, Clone, Default)]
pub struct CustomerDetails {
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub locale: Option<String>,
}

#[async_trait::async_trait]
pub trait CustomerStore {
    /// The customer for `key`, created on first sight; returns its id.
    async fn upsert_customer(
        &self,
        key: CustomerKey<'_>,
        details: &CustomerDetails,
    ) -> StoreResult<Uuid>;
}

/// An allow-listed identity provider.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct IdentityIssuer {
    pub identity_issuer_id: Uuid,
    pub issuer: String,
    pub jwks_url_template: String,
    pub audience: Option<String>,
}

#[async_trait::async_trait]
pub trait IssuerStore {
    async fn identity_issuer(&self, issuer: &str) -> StoreResult<Option<IdentityIssuer>>;
    async fn create_identity_issuer(
        &self,
        issuer: &str,
        jwks_url_template: &str,
        audience: Option<&str>,
    ) -> StoreResult<Uuid>;
}
