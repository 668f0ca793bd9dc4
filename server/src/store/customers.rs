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
    /// The customer for `key`, created on first sight (in one statement, so two first
    /// sessions of one user at once still make one customer); later calls update the details
    /// they carry. Returns its id. An unknown client or issuer is a missing
    /// `partner_client_id` / `identity_issuer_id`.
    async fn upsert_customer(
        &self,
        key: CustomerKey<'_>,
        details: &CustomerDetails,
    ) -> StoreResult<Uuid>;
    async fn customer(&self, customer_id: Uuid) -> StoreResult<Option<Customer>>;
}
