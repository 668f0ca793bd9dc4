use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// An end user, known to us through a partner client's reference or an identity issuer.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Customer {
    pub customer_id: Uuid,
    pub partner_client_id: Option<Uuid>,
    /// The partner's own id for the user, unique per partner client.
    pub reference: Option<String>,
    pub identity_issuer_id: Option<Uuid>,
    /// The identity provider's account id, unique per issuer.
    pub external_id: Option<String>,
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub locale: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What a partner tells us about a user; absent fields leave what we know unchanged.
#[derive(Debug, Clone, Default)]
pub struct CustomerProfile {
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub locale: Option<String>,
}

#[async_trait::async_trait]
pub trait CustomerStore {
    /// The customer a partner client knows as `reference`, created on first sight; later
    /// calls update the profile fields they carry. An unknown client is a missing
    /// `partner_client_id`.
    async fn upsert_customer_by_reference(
        &self,
        partner_client_id: Uuid,
        reference: &str,
        profile: &CustomerProfile,
    ) -> StoreResult<Customer>;
    async fn customer(&self, customer_id: Uuid) -> StoreResult<Option<Customer>>;
}
