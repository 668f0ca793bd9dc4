//! Voucher redemptions, each one conditional update.

use uuid::Uuid;

use super::SqlCheckoutTx;
use crate::store::{StoreResult, VoucherTx};

#[async_trait::async_trait]
impl VoucherTx for SqlCheckoutTx {
    async fn redeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<bool> {
        self.flush().await?;
        let redeemed = sqlx::query(
            "UPDATE voucher SET redeemed = redeemed + 1
             WHERE voucher_id = $1 AND (max_redemptions IS NULL OR redeemed < max_redemptions)",
        )
        .bind(voucher_id)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(redeemed == 1)
    }

    async fn unredeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<()> {
        self.flush().await?;
        sqlx::query(
            "UPDATE voucher SET redeemed = redeemed - 1 WHERE voucher_id = $1 AND redeemed > 0",
        )
        .bind(voucher_id)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    async fn release_checkout_vouchers(&mut self, checkout_id: Uuid) -> StoreResult<Vec<Uuid>> {
        self.flush().await?;
        Ok(sqlx::query_scalar(
            "UPDATE checkout_voucher SET released = TRUE
             WHERE checkout_id = $1 AND released = FALSE
             RETURNING voucher_id",
        )
        .bind(checkout_id)
        .fetch_all(&mut *self.tx)
        .await?)
    }
}
