//! Pictures of merchants and products as partners read them (docs/api-catalog.md, "Pictures").

use serde::{Deserialize, Serialize};

/// What a picture shows of its owner: the one that stands for it (`cover`), one of more
/// (`gallery`), or its brand (`logo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImageRole {
    Cover,
    Gallery,
    Logo,
}

/// A picture, with its alternative text in the reader's language. Its files never change
/// (a new upload is a new picture), so they are cached for a year.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Image {
    /// The WebP rendition closest to 640 pixels wide.
    #[cfg_attr(
        feature = "ssr",
        schema(
            example = "https://boxoffice.example/images/0b9e6a54-6f43-4c2c-9c1e-3a8d8f1a2b3c/640.webp"
        )
    )]
    pub url: String,
    /// The width of `url`'s rendition, in pixels.
    pub width: u32,
    /// The height of `url`'s rendition, in pixels.
    pub height: u32,
    /// What the picture shows, for who cannot see it (in the reader's language, else the
    /// first of Dutch, English, any).
    pub alt: String,
    pub role: ImageRole,
    /// Every WebP rendition and its width, as `<img srcset>` takes it
    /// (`…/320.webp 320w, …/640.webp 640w, …/1280.webp 1280w`).
    pub srcset: String,
}

/// The picture that stands for an owner: its first cover, else its first picture of any role
/// but a logo (a logo cropped as a cover shows nothing).
pub fn cover(images: &[Image]) -> Option<&Image> {
    images
        .iter()
        .find(|i| i.role == ImageRole::Cover)
        .or_else(|| images.iter().find(|i| i.role != ImageRole::Logo))
}
