//! `ProductStore`: products and their translations.

use chrono::Utc;
use sqlx::query::Query;
use uuid::Uuid;

use super::{push_ids, Args, Conn, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, DbDecimal, Product, ProductFilter, ProductInput, ProductStore,
    ProductTranslation, StoreError, StoreResult,
};

impl SqlStore {
    /// Attaches each product's translations and campaign ids.
    async fn with_product_details(
        conn: &mut Conn,
        mut products: Vec<Product>,
    ) -> sqlx::Result<Vec<Product>> {
        if products.is_empty() {
            return Ok(products);
        }
        let in_list = |head: &str, tail: &str| {
            let mut query = sqlx::QueryBuilder::<Db>::new(head);
            push_ids(&mut query, products.iter().map(|p| p.product_id));
            query.push(tail);
            query
        };
        let translations: Vec<(Uuid, String, String, String)> = in_list(
            "SELECT product_id, locale, title, conditions FROM product_translation
             WHERE product_id IN (",
            ") ORDER BY product_id, locale",
        )
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
        let campaigns: Vec<(Uuid, Uuid)> = in_list(
            "SELECT product_id, campaign_id FROM campaign_product WHERE product_id IN (",
            ") ORDER BY product_id, campaign_id",
        )
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
        let mut by_product: std::collections::HashMap<Uuid, &mut Product> =
            products.iter_mut().map(|p| (p.product_id, p)).collect();
        for (product_id, locale, title, conditions) in translations {
            if let Some(p) = by_product.get_mut(&product_id) {
                p.translations.push(ProductTranslation {
                    locale: locale
                        .parse()
                        .map_err(|e: String| sqlx::Error::Decode(e.into()))?,
                    title,
                    conditions,
                });
            }
        }
        for (product_id, campaign_id) in campaigns {
            if let Some(p) = by_product.get_mut(&product_id) {
                p.campaign_ids.push(campaign_id);
            }
        }
        Ok(products)
    }

    /// The group a product written with `input` draws on: the named one (which must belong to
    /// the product's merchant), else the current one while the merchant stays, else a new
    /// group dedicated to the product.
    async fn product_group(
        conn: &mut Conn,
        input: &ProductInput,
        current: Option<(Uuid, Uuid)>,
    ) -> StoreResult<Uuid> {
        let merchant: Option<Uuid> =
            sqlx::query_scalar("SELECT merchant_id FROM merchant WHERE merchant_id = $1")
                .bind(input.merchant_id)
                .fetch_optional(&mut *conn)
                .await?;
        if merchant.is_none() {
            return Err(StoreError::MissingReference("merchant_id".into()));
        }
        if let Some(group_id) = input.availability_group_id {
            let owner: Option<Uuid> = sqlx::query_scalar(
                "SELECT merchant_id FROM availability_group WHERE availability_group_id = $1",
            )
            .bind(group_id)
            .fetch_optional(&mut *conn)
            .await?;
            return match owner {
                None => Err(StoreError::MissingReference("availability_group_id".into())),
                Some(owner) if owner != input.merchant_id => Err(StoreError::InvalidReference {
                    field: "availability_group_id".into(),
                    message: format!(
                        "availability group {group_id} belongs to another merchant; \
                             a product draws only on its own merchant's groups"
                    ),
                }),
                Some(_) => Ok(group_id),
            };
        }
        match current {
            Some((merchant_id, group_id)) if merchant_id == input.merchant_id => Ok(group_id),
            _ => {
                let group_id = crate::ids::random_id();
                sqlx::query(
                    "INSERT INTO availability_group (availability_group_id, merchant_id, name, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $4)",
                )
                .bind(group_id)
                .bind(input.merchant_id)
                .bind(&input.title)
                .bind(Utc::now())
                .execute(&mut *conn)
                .await?;
                Ok(group_id)
            }
        }
    }

    async fn replace_product_details(
        conn: &mut Conn,
        product_id: Uuid,
        input: &ProductInput,
    ) -> StoreResult<()> {
        sqlx::query("DELETE FROM product_translation WHERE product_id = $1")
            .bind(product_id)
            .execute(&mut *conn)
            .await?;
        for (i, t) in input.translations.iter().enumerate() {
            sqlx::query(
                "INSERT INTO product_translation (product_id, locale, title, conditions)
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(product_id)
            .bind(t.locale.tag())
            .bind(&t.title)
            .bind(&t.conditions)
            .execute(&mut *conn)
            .await
            .map_err(|e| StoreError::classify(e, &format!("translations[{i}].locale")))?;
        }
        sqlx::query("DELETE FROM campaign_product WHERE product_id = $1")
            .bind(product_id)
            .execute(&mut *conn)
            .await?;
        // One statement per campaign, so a foreign key failure names the campaign that is unknown.
        for (i, campaign_id) in input.campaign_ids.iter().enumerate() {
            sqlx::query("INSERT INTO campaign_product (campaign_id, product_id) VALUES ($1, $2)")
                .bind(campaign_id)
                .bind(product_id)
                .execute(&mut *conn)
                .await
                .map_err(|e| StoreError::classify(e, &format!("campaign_ids[{i}]")))?;
        }
        Ok(())
    }

    /// The product as stored, read inside the writing transaction.
    async fn product_in(conn: &mut Conn, product_id: Uuid) -> sqlx::Result<Option<Product>> {
        let product: Option<Product> =
            sqlx::query_as("SELECT * FROM product WHERE product_id = $1")
                .bind(product_id)
                .fetch_optional(&mut *conn)
                .await?;
        match product {
            Some(p) => Ok(Self::with_product_details(conn, vec![p]).await?.pop()),
            None => Ok(None),
        }
    }
}

#[async_trait::async_trait]
impl ProductStore for SqlStore {
    async fn create_product(&self, product_id: Uuid, input: &ProductInput) -> StoreResult<Product> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let group_id = Self::product_group(&mut tx, input, None).await?;
        product_values(
            sqlx::query(
                "INSERT INTO product (product_id, merchant_id, availability_group_id, title,
                 product_type, physical_product, sku, age_group, unit_price, list_price,
                 booking_costs, visit_guarantee_cost, no_date, requires_timeslot, conditions,
                 ticket_validity_type, ticket_validity_date, provider, after_sale, created_at,
                 updated_at, commission, questions)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 $18, $19, $20, $20, $21, $22)",
            ),
            product_id,
            group_id,
            input,
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::classify(e, "product"))?;
        Self::replace_product_details(&mut tx, product_id, input).await?;
        let product = Self::product_in(&mut tx, product_id)
            .await?
            .ok_or(sqlx::Error::RowNotFound)?;
        tx.commit().await?;
        Ok(product)
    }

    async fn product(&self, product_id: Uuid) -> StoreResult<Option<Product>> {
        let mut conn = self.pool.acquire().await?;
        Ok(Self::product_in(&mut conn, product_id).await?)
    }

    async fn update_product(
        &self,
        product_id: Uuid,
        input: &ProductInput,
    ) -> StoreResult<Option<Product>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let current: Option<(Uuid, Uuid)> = sqlx::query_as(
            "SELECT merchant_id, availability_group_id FROM product WHERE product_id = $1",
        )
        .bind(product_id)
        .fetch_optional(&mut *tx)
        .await?;
        if current.is_none() {
            return Ok(None);
        }
        let group_id = Self::product_group(&mut tx, input, current).await?;
        product_values(
            sqlx::query(
                "UPDATE product SET merchant_id = $2, availability_group_id = $3, title = $4,
                 product_type = $5, physical_product = $6, sku = $7, age_group = $8,
                 unit_price = $9, list_price = $10, booking_costs = $11,
                 visit_guarantee_cost = $12, no_date = $13, requires_timeslot = $14,
                 conditions = $15, ticket_validity_type = $16, ticket_validity_date = $17,
                 provider = $18, after_sale = $19, updated_at = $20, commission = $21,
                 questions = $22
             WHERE product_id = $1",
            ),
            product_id,
            group_id,
            input,
        )
        .execute(&mut *tx)
        .await?;
        Self::replace_product_details(&mut tx, product_id, input).await?;
        let product = Self::product_in(&mut tx, product_id).await?;
        tx.commit().await?;
        Ok(product)
    }

    async fn list_products(
        &self,
        filter: ProductFilter,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<Product>> {
        // Only the filters given become conditions: `($n IS NULL OR …)` kept SQLite from the
        // merchant index and made it scan every product (590 ms for one merchant's list at
        // 100,000 products; under 1 ms now). The campaign test is per row, on its key.
        let mut query = sqlx::QueryBuilder::<Db>::new("SELECT * FROM product WHERE 1 = 1");
        if let Some(after) = after {
            query.push(" AND product_id > ").push_bind(after);
        }
        if let Some(merchant_id) = filter.merchant_id {
            query.push(" AND merchant_id = ").push_bind(merchant_id);
        }
        if let Some(campaign_id) = filter.campaign_id {
            query
                .push(" AND EXISTS (SELECT 1 FROM campaign_product cp WHERE cp.campaign_id = ")
                .push_bind(campaign_id)
                .push(" AND cp.product_id = product.product_id)");
        }
        query
            .push(" ORDER BY product_id LIMIT ")
            .push_bind(i64::from(limit));
        let mut conn = self.pool.acquire().await?;
        let products = query.build_query_as().fetch_all(&mut *conn).await?;
        Ok(Self::with_product_details(&mut conn, products).await?)
    }
}

/// Binds a product's columns to `$1..$20` in the order the insert and the update name them:
/// the id, then the input's fields, then the time of the write.
fn product_values<'q>(
    query: Query<'q, Db, Args<'q>>,
    product_id: Uuid,
    group_id: Uuid,
    input: &'q ProductInput,
) -> Query<'q, Db, Args<'q>> {
    query
        .bind(product_id)
        .bind(input.merchant_id)
        .bind(group_id)
        .bind(&input.title)
        .bind(&input.product_type)
        .bind(input.physical_product)
        .bind(&input.sku)
        .bind(&input.age_group)
        .bind(DbDecimal(input.unit_price))
        .bind(DbDecimal(input.list_price))
        .bind(DbDecimal(input.booking_costs))
        .bind(DbDecimal(input.visit_guarantee_cost))
        .bind(input.no_date)
        .bind(input.requires_timeslot)
        .bind(&input.conditions)
        .bind(&input.ticket_validity_type)
        .bind(input.ticket_validity_date)
        .bind(&input.provider)
        .bind(input.after_sale.as_ref().map(sqlx::types::Json))
        .bind(Utc::now())
        .bind(input.commission.as_ref().map(sqlx::types::Json))
        .bind(
            input
                .questions
                .as_ref()
                .filter(|q| !q.is_empty())
                .map(sqlx::types::Json),
        )
}
