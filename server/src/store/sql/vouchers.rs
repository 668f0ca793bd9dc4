//! `VoucherStore`.

use chrono::{DateTime, Utc};
use sqlx::query::QueryAs;
use uuid::Uuid;

use super::references::require_row;
use super::{Args, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, vouchers::normalize_voucher_code, DbDecimal, StoreError, StoreResult,
    Voucher, VoucherInput, VoucherStore, VoucherUpdate,
};

/// Checks what a voucher refers to, naming the field that fails.
async fn require_voucher_references(
    conn: &mut <Db as sqlx::Database>::Connection,
    input: &VoucherInput,
) -> StoreResult<()> {
    require_row(conn, "campaign", input.campaign_id, "campaign_id").await?;
    if let Some(merchant_id) = input.merchant_id {
        require_row(conn, "merchant", merchant_id, "merchant_id").await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl VoucherStore for SqlStore {
    async fn create_voucher(&self, voucher_id: Uuid, input: &VoucherInput) -> StoreResult<Voucher> {
        let now = Utc::now();
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        require_voucher_references(&mut tx, input).await?;
        let voucher = voucher_values(
            sqlx::query_as(
                "INSERT INTO voucher (voucher_id, campaign_id, code, kind, value, merchant_id,
                 max_redemptions, valid_from, valid_until, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             RETURNING *",
            ),
            voucher_id,
            input,
            now,
        )
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "A voucher with this code in this campaign"))?;
        tx.commit().await?;
        Ok(voucher)
    }

    async fn voucher(&self, voucher_id: Uuid) -> StoreResult<Option<Voucher>> {
        self.row_by_key("SELECT * FROM voucher WHERE voucher_id = $1", voucher_id)
            .await
    }

    async fn update_voucher(
        &self,
        voucher_id: Uuid,
        input: &VoucherInput,
    ) -> StoreResult<VoucherUpdate> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        require_voucher_references(&mut tx, input).await?;
        // The redemption limit may not drop below what checkouts already hold; the condition
        // is in the UPDATE itself so a concurrent redemption cannot slip between check and write.
        let voucher: Option<Voucher> = voucher_values(
            sqlx::query_as(
            "UPDATE voucher SET campaign_id = $2, code = $3, kind = $4, value = $5, merchant_id = $6,
                 max_redemptions = $7, valid_from = $8, valid_until = $9, updated_at = $10
             WHERE voucher_id = $1 AND ($7 IS NULL OR redeemed <= $7)
             RETURNING *",
            ),
            voucher_id,
            input,
            Utc::now(),
        )
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "A voucher with this code in this campaign"))?;
        let outcome = match voucher {
            Some(voucher) => VoucherUpdate::Updated(voucher),
            None => {
                let redeemed: Option<i32> =
                    sqlx::query_scalar("SELECT redeemed FROM voucher WHERE voucher_id = $1")
                        .bind(voucher_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                match redeemed {
                    Some(redeemed) => VoucherUpdate::BelowRedeemed(redeemed),
                    None => VoucherUpdate::NotFound,
                }
            }
        };
        tx.commit().await?;
        Ok(outcome)
    }

    async fn delete_voucher(&self, voucher_id: Uuid) -> StoreResult<bool> {
        let deleted = sqlx::query("DELETE FROM voucher WHERE voucher_id = $1")
            .bind(voucher_id)
            .execute(&self.writer)
            .await
            .map_err(|e| StoreError::classify_delete(e, "The voucher"))?;
        Ok(deleted.rows_affected() > 0)
    }

    async fn list_vouchers(
        &self,
        campaign_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Voucher>> {
        Ok(sqlx::query_as(
            "SELECT * FROM voucher
             WHERE ($1 IS NULL OR campaign_id = $1) AND ($2 IS NULL OR voucher_id > $2)
             ORDER BY voucher_id LIMIT $3",
        )
        .bind(campaign_id)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    async fn valid_voucher(
        &self,
        campaign_id: Uuid,
        code: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Voucher>> {
        Ok(sqlx::query_as(
            "SELECT * FROM voucher
             WHERE campaign_id = $1 AND code = $2
               AND (valid_from IS NULL OR valid_from <= $3)
               AND (valid_until IS NULL OR valid_until > $3)
               AND (max_redemptions IS NULL OR redeemed < max_redemptions)",
        )
        .bind(campaign_id)
        .bind(normalize_voucher_code(code))
        .bind(now)
        .fetch_optional(&self.pool)
        .await?)
    }
}

/// Binds a voucher's columns to `$1..$10` in the order the insert and the update name them:
/// the id, then the input's fields, then the time of the write.
fn voucher_values<'q>(
    query: QueryAs<'q, Db, Voucher, Args<'q>>,
    voucher_id: Uuid,
    input: &'q VoucherInput,
    now: DateTime<Utc>,
) -> QueryAs<'q, Db, Voucher, Args<'q>> {
    query
        .bind(voucher_id)
        .bind(input.campaign_id)
        .bind(&input.code)
        .bind(input.kind.as_str())
        .bind(DbDecimal(input.value))
        .bind(input.merchant_id)
        .bind(input.max_redemptions)
        .bind(input.valid_from)
        .bind(input.valid_until)
        .bind(now)
}
