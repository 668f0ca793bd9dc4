//! `MerchantStore`: merchants and their translations.

use chrono::Utc;
use sqlx::{query::QueryAs, types::Json};
use uuid::Uuid;

use super::{push_ids, Args, Conn, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, Merchant, MerchantInput, MerchantStore, MerchantTranslation, StoreError,
    StoreResult,
};

impl SqlStore {
    /// Translations of the given merchants, keyed by merchant.
    async fn merchant_translations_of(
        conn: &mut Conn,
        merchant_ids: &[Uuid],
    ) -> sqlx::Result<std::collections::HashMap<Uuid, Vec<MerchantTranslation>>> {
        let mut by_merchant = std::collections::HashMap::<_, Vec<_>>::new();
        if merchant_ids.is_empty() {
            return Ok(by_merchant);
        }
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT merchant_id, locale, name, description FROM merchant_translation
             WHERE merchant_id IN (",
        );
        push_ids(&mut query, merchant_ids.iter().copied());
        query.push(") ORDER BY merchant_id, locale");
        let rows: Vec<(Uuid, String, String, String)> =
            query.build_query_as().fetch_all(&mut *conn).await?;
        for (merchant_id, locale, name, description) in rows {
            by_merchant
                .entry(merchant_id)
                .or_default()
                .push(MerchantTranslation {
                    locale: locale
                        .parse()
                        .map_err(|e: String| sqlx::Error::Decode(e.into()))?,
                    name,
                    description,
                });
        }
        Ok(by_merchant)
    }

    /// Attaches each merchant's translations.
    async fn with_merchant_translations(
        conn: &mut Conn,
        mut merchants: Vec<Merchant>,
    ) -> sqlx::Result<Vec<Merchant>> {
        let ids: Vec<_> = merchants.iter().map(|m| m.merchant_id).collect();
        let mut translations = Self::merchant_translations_of(conn, &ids).await?;
        for merchant in &mut merchants {
            merchant.translations = translations
                .remove(&merchant.merchant_id)
                .unwrap_or_default();
        }
        Ok(merchants)
    }

    async fn replace_merchant_translations(
        conn: &mut Conn,
        merchant_id: Uuid,
        translations: &[MerchantTranslation],
    ) -> StoreResult<()> {
        sqlx::query("DELETE FROM merchant_translation WHERE merchant_id = $1")
            .bind(merchant_id)
            .execute(&mut *conn)
            .await?;
        for (i, t) in translations.iter().enumerate() {
            sqlx::query(
                "INSERT INTO merchant_translation (merchant_id, locale, name, description)
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(merchant_id)
            .bind(t.locale.tag())
            .bind(&t.name)
            .bind(&t.description)
            .execute(&mut *conn)
            .await
            .map_err(|e| StoreError::classify(e, &format!("translations[{i}].locale")))?;
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl MerchantStore for SqlStore {
    async fn create_merchant(
        &self,
        merchant_id: Uuid,
        input: &MerchantInput,
    ) -> StoreResult<Merchant> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let mut merchant: Merchant = merchant_values(
            sqlx::query_as(
            "INSERT INTO merchant (merchant_id, name, description, category, street, postal_code,
                 city, country, latitude, longitude, timezone, currency, image_url, website,
                 search_text, created_at, updated_at, tax, legal_name, vat_id, legal_address,
                 platform_fee)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16,
                 $17, $18, $19, $20, $21)
             RETURNING *",
            ),
            merchant_id,
            input,
        )
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "merchant"))?;
        Self::replace_merchant_translations(&mut tx, merchant_id, &input.translations).await?;
        merchant.translations = input.translations.clone();
        merchant.translations.sort_by_key(|t| t.locale.tag());
        tx.commit().await?;
        Ok(merchant)
    }

    async fn merchant(&self, merchant_id: Uuid) -> StoreResult<Option<Merchant>> {
        let mut conn = self.pool.acquire().await?;
        let merchant: Option<Merchant> =
            sqlx::query_as("SELECT * FROM merchant WHERE merchant_id = $1")
                .bind(merchant_id)
                .fetch_optional(&mut *conn)
                .await?;
        let Some(merchant) = merchant else {
            return Ok(None);
        };
        Ok(Self::with_merchant_translations(&mut conn, vec![merchant])
            .await?
            .pop())
    }

    async fn update_merchant(
        &self,
        merchant_id: Uuid,
        input: &MerchantInput,
    ) -> StoreResult<Option<Merchant>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let merchant: Option<Merchant> = merchant_values(
            sqlx::query_as(
                "UPDATE merchant SET name = $2, description = $3, category = $4, street = $5,
                 postal_code = $6, city = $7, country = $8, latitude = $9, longitude = $10,
                 timezone = $11, currency = $12, image_url = $13, website = $14,
                 search_text = $15, updated_at = $16, tax = $17, legal_name = $18, vat_id = $19,
                 legal_address = $20, platform_fee = $21
             WHERE merchant_id = $1
             RETURNING *",
            ),
            merchant_id,
            input,
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(mut merchant) = merchant else {
            return Ok(None);
        };
        Self::replace_merchant_translations(&mut tx, merchant_id, &input.translations).await?;
        merchant.translations = input.translations.clone();
        merchant.translations.sort_by_key(|t| t.locale.tag());
        tx.commit().await?;
        Ok(Some(merchant))
    }

    // The campaign test is a nested EXISTS, product first: written as a join, SQLite's
    // planner started from the campaign's products and scanned all of them for every
    // merchant (6.6 s for a page of 100,000 merchants; 1 ms now).
    async fn list_merchants(
        &self,
        campaign_id: Option<Uuid>,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Merchant>> {
        let mut conn = self.pool.acquire().await?;
        let merchants = sqlx::query_as(
            "SELECT * FROM merchant
             WHERE ($1 IS NULL OR merchant_id > $1)
               AND ($2 IS NULL OR EXISTS (
                   SELECT 1 FROM product
                   WHERE product.merchant_id = merchant.merchant_id
                     AND EXISTS (SELECT 1 FROM campaign_product cp
                                 WHERE cp.campaign_id = $2 AND cp.product_id = product.product_id)))
             ORDER BY merchant_id LIMIT $3",
        )
        .bind(after)
        .bind(campaign_id)
        .bind(i64::from(limit))
        .fetch_all(&mut *conn)
        .await?;
        Ok(Self::with_merchant_translations(&mut conn, merchants).await?)
    }

    async fn merchant_in_campaign(
        &self,
        merchant_id: Uuid,
        campaign_id: Uuid,
    ) -> StoreResult<bool> {
        let found: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM product
             WHERE product.merchant_id = $1
               AND EXISTS (SELECT 1 FROM campaign_product cp
                           WHERE cp.campaign_id = $2 AND cp.product_id = product.product_id)
             LIMIT 1",
        )
        .bind(merchant_id)
        .bind(campaign_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }
}

/// Binds a merchant's columns to `$1..$16` in the order the insert and the update name them:
/// the id, then the input's fields, then the time of the write.
fn merchant_values<'q>(
    query: QueryAs<'q, Db, Merchant, Args<'q>>,
    merchant_id: Uuid,
    input: &'q MerchantInput,
) -> QueryAs<'q, Db, Merchant, Args<'q>> {
    query
        .bind(merchant_id)
        .bind(&input.name)
        .bind(&input.description)
        .bind(&input.category)
        .bind(&input.address.street)
        .bind(&input.address.postal_code)
        .bind(&input.address.city)
        .bind(&input.address.country)
        .bind(input.location.latitude)
        .bind(input.location.longitude)
        .bind(&input.timezone)
        .bind(&input.currency)
        .bind(&input.image_url)
        .bind(&input.website)
        .bind(input.search_text())
        .bind(Utc::now())
        .bind(input.tax.clone().map(Json))
        .bind(&input.legal_name)
        .bind(&input.vat_id)
        .bind(input.legal_address.clone().map(Json))
        .bind(input.platform_fee.clone().map(Json))
}
