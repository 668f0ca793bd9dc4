//! `ImageStore`: pictures in their owner's row (`merchant.images`, `product.images`) and their
//! files in `image_file`.

use chrono::Utc;
use sqlx::types::Json;
use uuid::Uuid;

use super::{Conn, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, AddImage, ImageFileBytes, ImageOwner, ImageStore, NewImageFile, StoreResult,
    StoredImage, MAX_IMAGES,
};

/// The owner's table and key column.
fn table_of(owner: ImageOwner) -> (&'static str, &'static str, Uuid) {
    match owner {
        ImageOwner::Merchant(id) => ("merchant", "merchant_id", id),
        ImageOwner::Product(id) => ("product", "product_id", id),
    }
}

impl SqlStore {
    /// Locks the owner's row for the rest of the transaction (touching it) and reads its
    /// pictures; `None` when there is no such owner. The lock makes two changes of one
    /// owner's pictures run one after the other on PostgreSQL (SQLite's writes already do).
    async fn lock_images(
        conn: &mut Conn,
        owner: ImageOwner,
    ) -> StoreResult<Option<Vec<StoredImage>>> {
        let (table, key, id) = table_of(owner);
        let touched = sqlx::query(&format!(
            "UPDATE {table} SET updated_at = $2 WHERE {key} = $1"
        ))
        .bind(id)
        .bind(Utc::now())
        .execute(&mut *conn)
        .await?
        .rows_affected();
        if touched == 0 {
            return Ok(None);
        }
        let (images,): (Json<Vec<StoredImage>>,) =
            sqlx::query_as(&format!("SELECT images FROM {table} WHERE {key} = $1"))
                .bind(id)
                .fetch_one(&mut *conn)
                .await?;
        Ok(Some(images.0))
    }

    async fn write_images(
        conn: &mut Conn,
        owner: ImageOwner,
        images: &[StoredImage],
    ) -> StoreResult<()> {
        let (table, key, id) = table_of(owner);
        sqlx::query(&format!("UPDATE {table} SET images = $2 WHERE {key} = $1"))
            .bind(id)
            .bind(Json(images))
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl ImageStore for SqlStore {
    async fn add_image(
        &self,
        owner: ImageOwner,
        image: &StoredImage,
        append: bool,
        files: &[NewImageFile],
    ) -> StoreResult<AddImage> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let Some(mut images) = Self::lock_images(&mut tx, owner).await? else {
            return Ok(AddImage::NoOwner);
        };
        if images.len() >= MAX_IMAGES {
            return Ok(AddImage::Full);
        }
        for file in files {
            sqlx::query(
                "INSERT INTO image_file (image_id, name, content_type, etag, bytes, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(image.image_id)
            .bind(&file.name)
            .bind(&file.content_type)
            .bind(&file.etag)
            .bind(&file.bytes)
            .bind(image.created_at)
            .execute(&mut *tx)
            .await?;
        }
        let mut image = image.clone();
        if append {
            image.position = images
                .iter()
                .map(|i| i.position.saturating_add(1))
                .max()
                .unwrap_or(0);
        }
        images.push(image.clone());
        // Stable: among equal positions, the earlier upload stays first.
        images.sort_by_key(|i| i.position);
        Self::write_images(&mut tx, owner, &images).await?;
        tx.commit().await?;
        Ok(AddImage::Added(image))
    }

    async fn remove_image(&self, owner: ImageOwner, image_id: Uuid) -> StoreResult<Option<bool>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let Some(mut images) = Self::lock_images(&mut tx, owner).await? else {
            return Ok(None);
        };
        let before = images.len();
        images.retain(|i| i.image_id != image_id);
        if images.len() == before {
            return Ok(Some(false));
        }
        Self::write_images(&mut tx, owner, &images).await?;
        sqlx::query("DELETE FROM image_file WHERE image_id = $1")
            .bind(image_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(true))
    }

    async fn image_file(&self, image_id: Uuid, name: &str) -> StoreResult<Option<ImageFileBytes>> {
        Ok(sqlx::query_as(
            "SELECT content_type, etag, bytes FROM image_file WHERE image_id = $1 AND name = $2",
        )
        .bind(image_id)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?)
    }
}
