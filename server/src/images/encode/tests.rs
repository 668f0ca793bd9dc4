use image::{GenericImageView, ImageEncoder, RgbaImage};

use super::*;

/// A `width` × `height` picture with a diagonal gradient and, when `alpha`, a transparent half.
fn picture(width: u32, height: u32, alpha: bool) -> DynamicImage {
    DynamicImage::ImageRgba8(RgbaImage::from_fn(width, height, |x, y| {
        let a = if alpha && x < width / 2 { 0 } else { 255 };
        image::Rgba([(x * 255 / width) as u8, (y * 255 / height) as u8, 90, a])
    }))
}

fn png(image: &DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .unwrap();
    out
}

fn jpeg(image: &DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .encode_image(&image.to_rgb8())
        .unwrap();
    out
}

/// `jpeg` with an EXIF segment saying "rotate 90° clockwise to show" (orientation 6) and
/// carrying `secret` (as a phone's GPS position would be carried).
fn with_exif(jpeg: &[u8], secret: &[u8]) -> Vec<u8> {
    let mut tiff = b"II*\0\x08\0\0\0".to_vec();
    tiff.extend([1, 0]); // one entry
    tiff.extend([0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]); // Orientation, SHORT, 1, 6
    tiff.extend([0, 0, 0, 0]); // no next IFD
    tiff.extend(secret);
    let mut segment = b"Exif\0\0".to_vec();
    segment.extend(tiff);
    let length = u16::try_from(segment.len() + 2).unwrap().to_be_bytes();
    let mut out = jpeg[..2].to_vec(); // SOI
    out.extend([0xFF, 0xE1]);
    out.extend(length);
    out.extend(segment);
    out.extend(&jpeg[2..]);
    out
}

/// A PNG whose header claims `width` × `height` (with a valid checksum) over a 1×1 picture's
/// data: what a decompression bomb or an empty picture looks like to a reader.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = png(&picture(1, 1, false));
    // Signature (8), length (4), "IHDR" (4), then width and height; the CRC follows the
    // 13 data bytes and covers the type and the data.
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

#[test]
fn widths_never_enlarge_and_end_at_the_picture_or_the_largest() {
    assert_eq!(webp_widths(4000), [320, 640, 1280]);
    assert_eq!(webp_widths(1280), [320, 640, 1280]);
    assert_eq!(webp_widths(1000), [320, 640, 1000]);
    assert_eq!(webp_widths(640), [320, 640]);
    assert_eq!(webp_widths(200), [200]);
    assert_eq!(scaled_height(640, 1600, 900), 360);
    assert_eq!(scaled_height(320, 1000, 3), 1, "never zero pixels high");
    assert_eq!(scaled_height(333, 1000, 1000), 333);
}

#[test]
fn a_png_becomes_webp_at_each_width_and_one_jpeg_with_transparency_on_white() {
    let prepared = prepare(&png(&picture(1600, 900, true))).unwrap();
    assert_eq!((prepared.width, prepared.height), (1600, 900));
    let shapes: Vec<_> = prepared
        .renditions
        .iter()
        .map(|r| (r.file_name(), r.width, r.height))
        .collect();
    assert_eq!(
        shapes,
        [
            ("320.webp".to_owned(), 320, 180),
            ("640.webp".to_owned(), 640, 360),
            ("1280.webp".to_owned(), 1280, 720),
            ("1280.jpg".to_owned(), 1280, 720),
        ]
    );
    for rendition in &prepared.renditions {
        let format = match rendition.format {
            Format::Webp => ImageFormat::WebP,
            Format::Jpeg => ImageFormat::Jpeg,
        };
        let decoded = image::load_from_memory_with_format(&rendition.bytes, format).unwrap();
        assert_eq!(decoded.dimensions(), (rendition.width, rendition.height));
    }
    let jpeg = image::load_from_memory(&prepared.renditions[3].bytes).unwrap();
    let [r, g, b] = jpeg.to_rgb8().get_pixel(10, 360).0;
    assert!(
        r > 240 && g > 240 && b > 240,
        "transparent is white: {r} {g} {b}"
    );
}

#[test]
fn a_phone_photo_is_turned_upright_and_loses_its_exif() {
    let secret = b"GPS 52.3731 4.8922";
    let upload = with_exif(&jpeg(&picture(800, 600, false)), secret);
    assert!(upload.windows(secret.len()).any(|w| w == secret));
    let prepared = prepare(&upload).unwrap();
    assert_eq!(
        (prepared.width, prepared.height),
        (600, 800),
        "rotated upright"
    );
    for rendition in &prepared.renditions {
        assert!(!rendition.bytes.windows(secret.len()).any(|w| w == secret));
        assert!(!rendition.bytes.windows(4).any(|w| w == b"Exif"));
    }
}

#[test]
fn a_webp_upload_is_read() {
    let mut webp = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
        .encode(
            picture(300, 200, false).to_rgba8().as_raw(),
            300,
            200,
            image::ExtendedColorType::Rgba8,
        )
        .unwrap();
    let prepared = prepare(&webp).unwrap();
    assert_eq!(
        prepared.renditions.len(),
        2,
        "one WebP at 300 wide, one JPEG"
    );
    assert_eq!(prepared.renditions[0].file_name(), "300.webp");
}

#[test]
fn what_is_not_a_picture_we_read_is_refused_before_decoding() {
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    assert_eq!(prepare(svg).unwrap_err(), Refusal::Unsupported);
    assert_eq!(
        prepare(b"GIF89a\x01\0\x01\0").unwrap_err(),
        Refusal::Unsupported
    );
    assert_eq!(prepare(b"").unwrap_err(), Refusal::Unsupported);

    let whole = png(&picture(64, 64, false));
    let truncated = &whole[..whole.len() / 2];
    assert!(matches!(prepare(truncated), Err(Refusal::Unreadable(_))));
    assert!(matches!(
        prepare(&png_claiming(0, 0)),
        Err(Refusal::Unreadable(_))
    ));
    assert!(matches!(
        prepare(&png_claiming(60_000, 60_000)),
        Err(Refusal::TooLarge { .. })
    ));
    assert!(matches!(
        prepare(&png_claiming(MAX_SIDE + 1, 10)),
        Err(Refusal::TooLarge { .. })
    ));
    assert!(matches!(
        prepare(&png_claiming(7_000, 7_000)),
        Err(Refusal::TooLarge { .. })
    ));
}
