//! `ImageStore`: the pictures of merchants and products. Each owner keeps the list of its
//! pictures in its own row (column `images`, ordered), so every read of a merchant or product
//! has them without another query; the files themselves are rows of `image_file`, read only
//! when a picture is fetched.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// Whose picture it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageOwner {
    Merchant(Uuid),
    Product(Uuid),
}

/// One file of a picture, as the owner's list names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImageFileRef {
    /// The file's name under the picture's URL: `640.webp`, `1280.jpg`.
    #[schema(example = "640.webp")]
    pub name: String,
    #[schema(example = "image/webp")]
    pub content_type: String,
    pub width: u32,
    pub height: u32,
}

/// A picture as its owner keeps it: every language's alternative text, its role and place,
/// and its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StoredImage {
    pub image_id: Uuid,
    pub role: app::wire::ImageRole,
    pub alt: app::wire::LocalizedText,
    /// Reads list pictures by position, ascending (upload order among equals).
    pub position: u32,
    /// The upright size of the upload, in pixels.
    pub width: u32,
    pub height: u32,
    /// The WebP files, narrowest first, then the JPEG.
    pub files: Vec<ImageFileRef>,
    pub created_at: DateTime<Utc>,
}

/// A file to keep with a new picture.
#[derive(Debug, Clone)]
pub struct NewImageFile {
    pub name: String,
    pub content_type: String,
    /// A strong validator of the bytes (a digest), quoted as `ETag` sends it.
    pub etag: String,
    pub bytes: Vec<u8>,
}

/// A kept file, as it is served.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ImageFileBytes {
    pub content_type: String,
    pub etag: String,
    pub bytes: Vec<u8>,
}

/// What became of a picture to add.
#[derive(Debug, Clone, PartialEq)]
pub enum AddImage {
    /// Added, as kept.
    Added(StoredImage),
    /// The owner does not exist.
    NoOwner,
    /// The owner already has as many pictures as it may.
    Full,
}

/// The most pictures one merchant or product has.
pub const MAX_IMAGES: usize = 20;

#[async_trait::async_trait]
pub trait ImageStore {
    /// Adds `image` to `owner`'s pictures and keeps its files, in one transaction that first
    /// locks the owner's row (two uploads at once both land); when `append`, its position is
    /// one after the last picture's.
    async fn add_image(
        &self,
        owner: ImageOwner,
        image: &StoredImage,
        append: bool,
        files: &[NewImageFile],
    ) -> StoreResult<AddImage>;
    /// Removes the picture from `owner` with its files: `None` when the owner does not exist,
    /// `Some(false)` when it has no such picture.
    async fn remove_image(&self, owner: ImageOwner, image_id: Uuid) -> StoreResult<Option<bool>>;
    /// The file `name` of picture `image_id`.
    async fn image_file(&self, image_id: Uuid, name: &str) -> StoreResult<Option<ImageFileBytes>>;
}
