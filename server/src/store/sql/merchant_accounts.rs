//! `MerchantAccountStore`: onboarding accounts of merchants.

use app::wire::{MerchantAccountStatus, Transition};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::mail::insert_mail;
use super::{Batch, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, MerchantAccount, MerchantAccountStore, NewMail, StoreError, StoreResult,
};

#[async_trait::async_trait]
impl MerchantAccountStore for SqlStore {
    async fn create_merchant_account(
        &self,
        a: &MerchantAccount,
        code_hash: &[u8],
        code_expires_at: DateTime<Utc>,
        magic_link: &NewMail,
    ) -> StoreResult<()> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        sqlx::query(
            "INSERT INTO merchant_account (merchant_account_id, merchant_id, debtor_code, email, legal_name,
                 provider_account_id, status, provider, charges_enabled, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        )
        .bind(a.merchant_account_id)
        .bind(a.merchant_id)
        .bind(&a.debtor_code)
        .bind(&a.email)
        .bind(&a.legal_name)
        .bind(&a.provider_account_id)
        .bind(a.status.as_str())
        .bind(&a.provider)
        .bind(a.charges_enabled)
        .bind(a.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "merchant_id"))?;
        sqlx::query(
            "INSERT INTO onboarding_code (onboarding_code_id, merchant_account_id, code_hash, expires_at, created_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(crate::ids::random_id())
        .bind(a.merchant_account_id)
        .bind(code_hash)
        .bind(code_expires_at)
        .bind(a.created_at)
        .execute(&mut *tx)
        .await?;
        let mut batch = Batch::default();
        insert_mail(&mut batch, magic_link);
        ThisBackend::flush(&mut batch, &mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn redeem_onboarding_code(
        &self,
        code_hash: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<Option<MerchantAccount>> {
        let account_id: Option<Uuid> = sqlx::query_scalar(
            "UPDATE onboarding_code SET redeemed_at = $2
             WHERE code_hash = $1 AND redeemed_at IS NULL AND expires_at > $2
             RETURNING merchant_account_id",
        )
        .bind(code_hash)
        .bind(now)
        .fetch_optional(&self.writer)
        .await?;
        match account_id {
            Some(id) => MerchantAccountStore::merchant_account(self, id).await,
            None => Ok(None),
        }
    }

    async fn merchant_account(
        &self,
        merchant_account_id: Uuid,
    ) -> StoreResult<Option<MerchantAccount>> {
        self.row_by_key(
            "SELECT * FROM merchant_account WHERE merchant_account_id = $1",
            merchant_account_id,
        )
        .await
    }

    async fn merchant_account_by_provider_id(
        &self,
        provider_account_id: &str,
    ) -> StoreResult<Option<MerchantAccount>> {
        self.row_by_key(
            "SELECT * FROM merchant_account WHERE provider_account_id = $1",
            provider_account_id,
        )
        .await
    }

    async fn transition_merchant_account(
        &self,
        merchant_account_id: Uuid,
        change: Transition<MerchantAccountStatus>,
    ) -> StoreResult<bool> {
        let moved = sqlx::query(
            "UPDATE merchant_account SET status = $3, updated_at = $4
             WHERE merchant_account_id = $1 AND status = $2",
        )
        .bind(merchant_account_id)
        .bind(change.from().as_str())
        .bind(change.to().as_str())
        .bind(Utc::now())
        .execute(&self.writer)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }
}
