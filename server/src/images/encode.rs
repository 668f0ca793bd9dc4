//! An uploaded picture made safe and small: only PNG, JPEG and WebP are read, within size and
//! pixel caps checked from the header before any pixel is decoded; the camera's orientation is
//! applied; and the pixels alone are encoded again, as lossy WebP at a few widths and one JPEG
//! (for OCTO, which has no WebP type). Nothing of the upload but its pixels survives: EXIF
//! (a phone's GPS position), ICC profiles and comments are gone, and so is any script an SVG
//! or a polyglot file could carry.

use std::io::Cursor;

use image::{
    codecs::jpeg::JpegEncoder, imageops::FilterType, DynamicImage, ImageDecoder, ImageError,
    ImageFormat, ImageReader, Limits, RgbImage,
};

/// The largest upload, in bytes (the route's body limit is a little above it, for the form).
pub const MAX_BYTES: usize = 10 * 1024 * 1024;
/// The longest side, in pixels.
pub const MAX_SIDE: u32 = 8_000;
/// The most pixels (width × height): a 40-megapixel camera's picture.
pub const MAX_PIXELS: u64 = 40_000_000;
/// The widths of the WebP renditions; a narrower picture gets the ones below its own width and
/// one at its own width, never an enlargement.
pub const WEBP_WIDTHS: [u32; 3] = [320, 640, 1280];
/// The width of the JPEG rendition (at most: a narrower picture keeps its width).
pub const JPEG_WIDTH: u32 = 1280;
/// libwebp's quality (0–100): around 80 is where photos stop gaining visibly.
const WEBP_QUALITY: f32 = 80.0;
const JPEG_QUALITY: u8 = 85;
/// What decoding may allocate: a picture at the pixel cap, in RGBA with 16 bits a channel.
const MAX_ALLOC: u64 = MAX_PIXELS * 8;

/// Why an upload is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not PNG, JPEG or WebP (an SVG, a GIF, a PDF, random bytes).
    Unsupported,
    /// Declared as one of them, but it does not decode (truncated, corrupt, no pixels).
    Unreadable(String),
    /// More pixels, or a longer side, than the caps (a decompression bomb among them).
    TooLarge { width: u32, height: u32 },
}

/// The file formats of the renditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Webp,
    Jpeg,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Webp => "image/webp",
            Format::Jpeg => "image/jpeg",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Webp => "webp",
            Format::Jpeg => "jpg",
        }
    }
}

/// One encoded file of a picture.
#[derive(Debug, Clone)]
pub struct Rendition {
    pub format: Format,
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

impl Rendition {
    /// The file's name under the picture's URL: `640.webp`, `1280.jpg`.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.width, self.format.extension())
    }
}

/// A picture ready to keep: its size upright, and its renditions (WebP narrowest first, then
/// the JPEG).
#[derive(Debug, Clone)]
pub struct Prepared {
    pub width: u32,
    pub height: u32,
    pub renditions: Vec<Rendition>,
}

/// Reads `bytes` as a picture and encodes its renditions. CPU-bound (a large photo takes a
/// good part of a second): call it off the async runtime.
pub fn prepare(bytes: &[u8]) -> Result<Prepared, Refusal> {
    let image = decode(bytes)?;
    let (width, height) = (image.width(), image.height());
    let widths = webp_widths(width);
    // Each smaller width is scaled from the next larger one: fewer source pixels to read.
    let mut source = image;
    let mut renditions = Vec::with_capacity(widths.len() + 1);
    for target in widths.into_iter().rev() {
        source = scaled(&source, target, width, height);
        if renditions.is_empty() {
            // The largest WebP's width is the JPEG's (JPEG_WIDTH, or the picture's own).
            renditions.push(Rendition {
                format: Format::Jpeg,
                width: source.width(),
                height: source.height(),
                bytes: encode_jpeg(&source)?,
            });
        }
        renditions.push(Rendition {
            format: Format::Webp,
            width: source.width(),
            height: source.height(),
            bytes: encode_webp(&source)?,
        });
    }
    // WebP narrowest first, then the JPEG.
    renditions.reverse();
    Ok(Prepared {
        width,
        height,
        renditions,
    })
}

const _: () = assert!(JPEG_WIDTH == WEBP_WIDTHS[WEBP_WIDTHS.len() - 1]);

/// The WebP widths of a picture `width` wide: those of [`WEBP_WIDTHS`] below it, then its own
/// width if that is below the largest.
pub fn webp_widths(width: u32) -> Vec<u32> {
    let largest = WEBP_WIDTHS[WEBP_WIDTHS.len() - 1];
    let mut widths: Vec<u32> = WEBP_WIDTHS.into_iter().filter(|w| *w < width).collect();
    let top = width.min(largest);
    if widths.last() != Some(&top) {
        widths.push(top);
    }
    widths
}

/// The height of a picture `width` × `height` scaled to `target` wide, at least one pixel.
pub fn scaled_height(target: u32, width: u32, height: u32) -> u32 {
    let exact = u64::from(height) * u64::from(target);
    let rounded = (exact + u64::from(width) / 2) / u64::from(width);
    u32::try_from(rounded).unwrap_or(u32::MAX).max(1)
}

/// The picture decoded and turned upright, after the format, the pixel caps and the
/// decoder's allocation cap are checked.
fn decode(bytes: &[u8]) -> Result<DynamicImage, Refusal> {
    let format = image::guess_format(bytes).map_err(|_| Refusal::Unsupported)?;
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP
    ) {
        return Err(Refusal::Unsupported);
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(refusal)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(Refusal::Unreadable("the picture has no pixels".to_owned()));
    }
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Refusal::TooLarge { width, height });
    }
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(refusal)?;
    image.apply_orientation(orientation);
    Ok(image)
}

/// The decoder's error as a refusal: a cap it met is "too large", anything else "unreadable"
/// with the decoder's words (they name what is wrong with the file, never the server).
fn refusal(error: ImageError) -> Refusal {
    match error {
        ImageError::Limits(_) => Refusal::TooLarge {
            width: 0,
            height: 0,
        },
        ImageError::Unsupported(_) => Refusal::Unsupported,
        other => Refusal::Unreadable(other.to_string()),
    }
}

/// `image` at `target` wide (unchanged when it already is), keeping the aspect of the
/// original `width` × `height`.
fn scaled(image: &DynamicImage, target: u32, width: u32, height: u32) -> DynamicImage {
    if image.width() == target {
        return image.clone();
    }
    image.resize_exact(
        target,
        scaled_height(target, width, height),
        FilterType::CatmullRom,
    )
}

fn encode_webp(image: &DynamicImage) -> Result<Vec<u8>, Refusal> {
    let failed = |e: webp::WebPEncodingError| Refusal::Unreadable(format!("{e:?}"));
    let memory = if image.color().has_alpha() {
        let rgba = image.to_rgba8();
        webp::Encoder::from_rgba(&rgba, image.width(), image.height())
            .encode_simple(false, WEBP_QUALITY)
            .map_err(failed)?
    } else {
        let rgb = image.to_rgb8();
        webp::Encoder::from_rgb(&rgb, image.width(), image.height())
            .encode_simple(false, WEBP_QUALITY)
            .map_err(failed)?
    };
    Ok(memory.to_vec())
}

/// JPEG has no transparency: a transparent pixel is shown on white, as a page would show it.
fn encode_jpeg(image: &DynamicImage) -> Result<Vec<u8>, Refusal> {
    let rgb = if image.color().has_alpha() {
        on_white(image)
    } else {
        image.to_rgb8()
    };
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
        .encode_image(&rgb)
        .map_err(|e| Refusal::Unreadable(e.to_string()))?;
    Ok(out)
}

fn on_white(image: &DynamicImage) -> RgbImage {
    let rgba = image.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let blend = |c: u8| {
            let (c, a) = (u16::from(c), u16::from(a));
            ((c * a + 255 * (255 - a) + 127) / 255) as u8
        };
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

#[cfg(test)]
mod tests;
