//! Pictures of merchants and products (docs/operator-catalog.md, "Pictures"): an upload is
//! checked and encoded once ([`encode`]), kept with its owner ([`crate::store::ImageStore`]),
//! served at stable URLs ([`serve`]) and shown in the owner's reads ([`to_wire`]) and in OCTO's
//! `media`.

pub mod encode;
pub mod serve;

use app::wire::{self, ImageRole, Locale, LocalizedText};
use chrono::Utc;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{
    error::{Error, ProblemType, Result},
    state::AppState,
    store::{AddImage, ImageFileRef, ImageOwner, NewImageFile, StoredImage, MAX_IMAGES},
};
use encode::{Format, Refusal};

/// The path under which a picture's files are served: `/images/{image_id}/{name}`.
pub const PATH: &str = "/images";

/// The width `url` of a read points at: the WebP closest to it is what a card or a phone's
/// screen shows best without `srcset`.
const PREFERRED_WIDTH: u32 = 640;

/// A picture as the operator sends it, its file still undecoded.
pub struct Upload {
    pub bytes: Vec<u8>,
    pub role: ImageRole,
    pub alt: LocalizedText,
    pub position: Option<u32>,
}

/// Decodes, checks and encodes `upload`, then keeps it as `owner`'s picture. A refused file,
/// a missing owner or a full list keeps nothing.
pub async fn add(state: &AppState, owner: ImageOwner, upload: Upload) -> Result<StoredImage> {
    let Upload {
        bytes,
        role,
        alt,
        position,
    } = upload;
    let prepared = tokio::task::spawn_blocking(move || encode::prepare(&bytes))
        .await
        .map_err(anyhow::Error::from)?
        .map_err(refused)?;
    let files: Vec<NewImageFile> = prepared
        .renditions
        .iter()
        .map(|r| NewImageFile {
            name: r.file_name(),
            content_type: r.format.content_type().to_owned(),
            etag: etag(&r.bytes),
            bytes: r.bytes.clone(),
        })
        .collect();
    let image = StoredImage {
        image_id: crate::ids::random_id(),
        role,
        alt,
        // Set by the store when none is given: after the last (`ImageStore::add_image`).
        position: position.unwrap_or_default(),
        width: prepared.width,
        height: prepared.height,
        files: prepared
            .renditions
            .iter()
            .map(|r| ImageFileRef {
                name: r.file_name(),
                content_type: r.format.content_type().to_owned(),
                width: r.width,
                height: r.height,
            })
            .collect(),
        created_at: Utc::now(),
    };
    let append = position.is_none();
    match state.store.add_image(owner, &image, append, &files).await? {
        AddImage::Added(image) => {
            state.commerce.catalog.changed();
            Ok(image)
        }
        AddImage::NoOwner => Err(owner_not_found(owner)),
        AddImage::Full => Err(Error::new(
            ProblemType::Conflict,
            format!("It already has {MAX_IMAGES} pictures; delete one first."),
        )),
    }
}

/// Removes `owner`'s picture `image_id` and its files.
pub async fn remove(state: &AppState, owner: ImageOwner, image_id: Uuid) -> Result<()> {
    match state.store.remove_image(owner, image_id).await? {
        Some(true) => {
            state.commerce.catalog.changed();
            Ok(())
        }
        Some(false) => Err(Error::new(
            ProblemType::ImageNotFound,
            format!("There is no picture {image_id} here."),
        )),
        None => Err(owner_not_found(owner)),
    }
}

fn owner_not_found(owner: ImageOwner) -> Error {
    match owner {
        ImageOwner::Merchant(id) => Error::new(
            ProblemType::MerchantNotFound,
            format!("Merchant {id} was not found."),
        ),
        ImageOwner::Product(id) => Error::new(
            ProblemType::ProductNotFound,
            format!("Product {id} was not found."),
        ),
    }
}

/// The problem of a refused file.
fn refused(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Unsupported => Error::new(
            ProblemType::ImageUnsupported,
            "The file is not a PNG, JPEG or WebP picture.",
        ),
        Refusal::Unreadable(why) => Error::new(
            ProblemType::ImageUnreadable,
            format!("The picture cannot be read: {why}."),
        ),
        Refusal::TooLarge { width, height } if width > 0 => Error::new(
            ProblemType::ImageTooLarge,
            format!(
                "The picture is {width} × {height} pixels; at most {} pixels a side and {} megapixels are taken.",
                encode::MAX_SIDE,
                encode::MAX_PIXELS / 1_000_000
            ),
        ),
        Refusal::TooLarge { .. } => Error::new(
            ProblemType::ImageTooLarge,
            "The picture needs more memory to decode than a picture may.",
        ),
    }
}

/// A strong `ETag` of `bytes`: a digest, quoted.
fn etag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

/// The URL of a file of picture `image_id`.
pub fn file_url(base: &str, image_id: Uuid, name: &str) -> String {
    format!("{base}{PATH}/{image_id}/{name}")
}

/// `images` as a partner reads them: alt texts in `locale`, URLs under `base` (the public
/// origin).
pub fn to_wire(images: &[StoredImage], locale: Locale, base: &str) -> Vec<wire::Image> {
    images
        .iter()
        .map(|i| one_to_wire(i, locale, base))
        .collect()
}

fn one_to_wire(image: &StoredImage, locale: Locale, base: &str) -> wire::Image {
    let webp: Vec<&ImageFileRef> = image
        .files
        .iter()
        .filter(|f| f.content_type == Format::Webp.content_type())
        .collect();
    let preferred = webp
        .iter()
        .min_by_key(|f| f.width.abs_diff(PREFERRED_WIDTH))
        .copied();
    let srcset = webp
        .iter()
        .map(|f| format!("{} {}w", file_url(base, image.image_id, &f.name), f.width))
        .collect::<Vec<_>>()
        .join(", ");
    wire::Image {
        url: preferred.map_or_else(String::new, |f| file_url(base, image.image_id, &f.name)),
        width: preferred.map_or(image.width, |f| f.width),
        height: preferred.map_or(image.height, |f| f.height),
        alt: image.alt.get(locale).to_owned(),
        role: image.role,
        srcset,
    }
}

/// The JPEG of a picture (OCTO's `Media` has no WebP type).
pub fn jpeg_url(image: &StoredImage, base: &str) -> Option<String> {
    image
        .files
        .iter()
        .find(|f| f.content_type == Format::Jpeg.content_type())
        .map(|f| file_url(base, image.image_id, &f.name))
}

#[cfg(test)]
mod tests;
