//! `CustomerStore`.

use chrono::Utc;
use uuid::Uuid;

use super::SqlStore;
use crate::store::{
    Customer, CustomerDetails, CustomerKey, CustomerStore, StoreError, StoreResult,
};

#[async_trait::async_trait]
impl CustomerStore for SqlStore {
    async fn upsert_customer(
        &self,
        key: CustomerKey<'_>,
        details: &CustomerDetails,
    ) -> StoreResult<Uuid> {
        let (partner, reference, issuer, external, conflict, owner) = match key {
            CustomerKey::Partner {
                partner_client_id,
                reference,
            } => (
                Some(partner_client_id),
                Some(reference),
                None,
                None,
                "(partner_client_id, reference)",
                "partner_client_id",
            ),
            CustomerKey::Identity {
                identity_issuer_id,
                accountuid,
            } => (
                None,
                None,
                Some(identity_issuer_id),
                Some(accountuid),
                "(identity_issuer_id, external_id)",
                "identity_issuer_id",
            ),
        };
        let sql = format!(
            "INSERT INTO customer (customer_id, partner_client_id, reference, identity_issuer_id, external_id,
                 email, first_name, last_name, locale, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             ON CONFLICT {conflict} DO UPDATE SET
                 email = COALESCE(excluded.email, customer.email),
                 first_name = COALESCE(excluded.first_name, customer.first_name),
                 last_name = COALESCE(excluded.last_name, customer.last_name),
                 locale = COALESCE(excluded.locale, customer.locale),
                 updated_at = excluded.updated_at
             RETURNING customer_id"
        );
        sqlx::query_scalar(&sql)
            .bind(crate::ids::random_id())
            .bind(partner)
            .bind(reference)
            .bind(issuer)
            .bind(external)
            .bind(&details.email)
            .bind(&details.first_name)
            .bind(&details.last_name)
            .bind(&details.locale)
            .bind(Utc::now())
            .fetch_one(&self.writer)
            .await
            .map_err(|e| StoreError::classify(e, owner))
    }

    async fn customer(&self, customer_id: Uuid) -> StoreResult<Option<Customer>> {
        self.row_by_key("SELECT * FROM customer WHERE customer_id = $1", customer_id)
            .await
    }
}
