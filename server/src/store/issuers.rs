use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// An identity provider whose tokens the identity bearer exchange accepts (the allow-list).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct IdentityIssuer {
    pub identity_issuer_id: Uuid,
    /// The exact `iss` claim of the provider's tokens.
    #[schema(example = "https://id.retailer.example")]
    pub issuer: String,
    /// Where the provider's keys are; `{apiKey}` is replaced by the token's `apiKey` claim.
    #[schema(example = "https://id.retailer.example/{apiKey}/.well-known/jwks.json")]
    pub jwks_url_template: String,
    /// When set, tokens must carry this `aud`.
    pub audience: Option<String>,
    /// The `apiKey` claims whose keys are trusted. Required when `jwks_url_template` uses
    /// `{apiKey}`: a token with another apiKey is refused before any key is fetched.
    #[schema(example = json!(["3_retail-site-key"]))]
    pub api_keys: Option<Vec<String>>,
    /// The campaigns whose sessions this issuer's tokens may open, in id order; the exchange
    /// refuses any other campaign.
    pub campaign_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// An issuer's row, without its campaigns.
#[derive(sqlx::FromRow)]
pub(crate) struct IdentityIssuerRow {
    pub identity_issuer_id: Uuid,
    pub issuer: String,
    pub jwks_url_template: String,
    pub audience: Option<String>,
    pub api_keys: Option<sqlx::types::Json<Vec<String>>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl IdentityIssuerRow {
    pub(crate) fn with_campaigns(self, campaign_ids: Vec<Uuid>) -> IdentityIssuer {
        IdentityIssuer {
            identity_issuer_id: self.identity_issuer_id,
            issuer: self.issuer,
            jwks_url_template: self.jwks_url_template,
            audience: self.audience,
            api_keys: self.api_keys.map(|keys| keys.0),
            campaign_ids,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// The writable fields of an identity issuer (create and full update).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityIssuerInput {
    #[schema(max_length = 500, pattern = r"[^\s\u0085]|\ufeff")]
    pub issuer: String,
    #[schema(schema_with = crate::validate::jwks_url_template_schema)]
    pub jwks_url_template: String,
    #[serde(default)]
    #[schema(max_length = 500)]
    pub audience: Option<String>,
    /// Required when `jwks_url_template` uses `{apiKey}`; absent or null otherwise.
    #[serde(default)]
    #[schema(max_items = 100, inline, value_type = Option<Vec<ApiKey>>)]
    pub api_keys: Option<Vec<String>>,
    #[serde(default)]
    #[schema(max_items = 100)]
    pub campaign_ids: Vec<Uuid>,
}

/// An apiKey: 1 to 128 letters, digits, `.`, `_`, `~` or `-` (surrounding blanks are trimmed).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documents `api_keys`' items
#[schema(pattern = r"^\s*[A-Za-z0-9._~-]{1,128}\s*$")]
struct ApiKey(String);

impl IdentityIssuerInput {
    /// Trims `issuer`, the audience and the apiKeys, not the URL (the document's pattern has no
    /// spaces); an empty audience means none. `issuer` is compared byte for byte with the
    /// `iss` claim, so nothing else about it is changed.
    pub fn normalize(&mut self) {
        self.issuer = self.issuer.trim().to_owned();
        if let Some(audience) = &mut self.audience {
            *audience = audience.trim().to_owned();
        }
        if self.audience.as_deref() == Some("") {
            self.audience = None;
        }
        if let Some(keys) = &mut self.api_keys {
            for key in keys.iter_mut() {
                *key = key.trim().to_owned();
            }
            let mut seen = std::collections::HashSet::new();
            keys.retain(|key| seen.insert(key.clone()));
        }
        let mut seen = std::collections::HashSet::new();
        self.campaign_ids.retain(|id| seen.insert(*id));
    }
}

#[async_trait::async_trait]
pub trait IssuerStore {
    /// Creates an issuer; a taken `issuer` is a conflict, an unknown campaign a missing
    /// `campaign_ids[i]`.
    async fn create_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<IdentityIssuer>;
    async fn identity_issuer(
        &self,
        identity_issuer_id: Uuid,
    ) -> StoreResult<Option<IdentityIssuer>>;
    /// The allow-listed issuer a token's `iss` claim names, with its campaigns.
    async fn identity_issuer_by_issuer(&self, issuer: &str) -> StoreResult<Option<IdentityIssuer>>;
    async fn update_identity_issuer(
        &self,
        identity_issuer_id: Uuid,
        input: &IdentityIssuerInput,
    ) -> StoreResult<Option<IdentityIssuer>>;
    /// Deletes an issuer no customer came from (`false`: no such issuer); otherwise a conflict.
    async fn delete_identity_issuer(&self, identity_issuer_id: Uuid) -> StoreResult<bool>;
    /// Issuers in id order, after `after`.
    async fn list_identity_issuers(
        &self,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<IdentityIssuer>>;
}
