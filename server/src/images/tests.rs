use app::wire::{ImageRole, Locale, LocalizedText};
use chrono::Utc;
use uuid::Uuid;

use super::*;

fn stored(files: &[(&str, &str, u32, u32)]) -> StoredImage {
    StoredImage {
        image_id: Uuid::from_u128(7),
        role: ImageRole::Gallery,
        alt: LocalizedText {
            nl_nl: Some("De ingang".to_owned()),
            en_gb: Some("The entrance".to_owned()),
            ..LocalizedText::default()
        },
        position: 0,
        width: 1600,
        height: 900,
        files: files
            .iter()
            .map(|(name, content_type, width, height)| ImageFileRef {
                name: (*name).to_owned(),
                content_type: (*content_type).to_owned(),
                width: *width,
                height: *height,
            })
            .collect(),
        created_at: Utc::now(),
    }
}

#[test]
fn a_read_points_at_the_webp_nearest_640_and_lists_every_webp_in_its_srcset() {
    let image = stored(&[
        ("320.webp", "image/webp", 320, 180),
        ("640.webp", "image/webp", 640, 360),
        ("1280.webp", "image/webp", 1280, 720),
        ("1280.jpg", "image/jpeg", 1280, 720),
    ]);
    let base = "https://tickets.example";
    let read = &to_wire(std::slice::from_ref(&image), Locale::EnGb, base)[0];
    let id = "00000000-0000-0000-0000-000000000007";
    assert_eq!(read.url, format!("{base}/images/{id}/640.webp"));
    assert_eq!((read.width, read.height), (640, 360));
    assert_eq!(
        read.srcset,
        format!(
            "{base}/images/{id}/320.webp 320w, {base}/images/{id}/640.webp 640w, {base}/images/{id}/1280.webp 1280w"
        )
    );
    assert_eq!(read.alt, "The entrance");
    assert_eq!(read.role, ImageRole::Gallery);
    assert_eq!(
        jpeg_url(&image, base).as_deref(),
        Some(format!("{base}/images/{id}/1280.jpg").as_str())
    );
    // German is missing: Dutch stands in, as for every translated text.
    assert_eq!(to_wire(&[image], Locale::DeDe, base)[0].alt, "De ingang");
}

#[test]
fn a_small_picture_reads_at_its_own_width() {
    let image = stored(&[
        ("200.webp", "image/webp", 200, 100),
        ("200.jpg", "image/jpeg", 200, 100),
    ]);
    let read = &to_wire(&[image], Locale::NlNl, "")[0];
    assert!(read.url.ends_with("/200.webp"));
    assert_eq!((read.width, read.height), (200, 100));
    assert!(read.srcset.ends_with("/200.webp 200w"));
}

#[test]
fn a_cover_is_the_first_cover_else_the_first_picture_that_is_no_logo() {
    let mut logo = to_wire(&[stored(&[])], Locale::NlNl, "").remove(0);
    logo.role = ImageRole::Logo;
    let mut gallery = logo.clone();
    gallery.role = ImageRole::Gallery;
    let mut cover = logo.clone();
    cover.role = ImageRole::Cover;
    assert_eq!(app::wire::cover(&[logo.clone()]), None);
    assert_eq!(
        app::wire::cover(&[logo.clone(), gallery.clone()]),
        Some(&gallery)
    );
    assert_eq!(
        app::wire::cover(&[logo, gallery, cover.clone()]),
        Some(&cover)
    );
}
