//! Pictures of merchants and products: uploaded as a form, encoded again, served with caching
//! headers, read in the reader's language; bad files refused with nothing kept; uploads at
//! once all land.

use image::{DynamicImage, GenericImageView, ImageEncoder, RgbImage};
use reqwest::{header, Method};
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{create_product, product_body},
    helpers::{TestApp, TestResponse},
    partner_fixtures::{spawn_partner_with_merchant, Partner},
};

const BOUNDARY: &str = "boxoffice-test-boundary";

/// One part of a form: its name, an optional file name and content type, its bytes.
pub struct Part<'a> {
    name: &'a str,
    file: Option<(&'a str, &'a str)>,
    bytes: Vec<u8>,
}

fn text(name: &str, value: &str) -> Part<'static> {
    Part {
        name: Box::leak(name.to_owned().into_boxed_str()),
        file: None,
        bytes: value.as_bytes().to_vec(),
    }
}

fn file(bytes: Vec<u8>, content_type: &'static str) -> Part<'static> {
    Part {
        name: "file",
        file: Some(("upload", content_type)),
        bytes,
    }
}

/// `parts` as a multipart/form-data body.
fn form(parts: &[Part<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for part in parts {
        body.extend(format!("--{BOUNDARY}\r\n").bytes());
        match part.file {
            Some((filename, content_type)) => body.extend(
                format!(
                    "Content-Disposition: form-data; name=\"{}\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n",
                    part.name
                )
                .bytes(),
            ),
            None => body.extend(
                format!("Content-Disposition: form-data; name=\"{}\"\r\n\r\n", part.name).bytes(),
            ),
        }
        body.extend(&part.bytes);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{BOUNDARY}--\r\n").bytes());
    body
}

/// A `width` × `height` gradient as PNG.
fn png(width: u32, height: u32) -> Vec<u8> {
    let image = RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 255 / width) as u8, (y * 255 / height) as u8, 120])
    });
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(
            image.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
    out
}

/// A PNG whose header claims `width` × `height` over a 1×1 picture's data.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = png(1, 1);
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

/// A JPEG carrying an EXIF segment with `secret` in it.
fn jpeg_with_exif(secret: &[u8]) -> Vec<u8> {
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode_image(&DynamicImage::ImageRgb8(RgbImage::new(400, 300)))
        .unwrap();
    let mut segment = b"Exif\0\0II*\0\x08\0\0\0\0\0\0\0\0\0".to_vec();
    segment.extend(secret);
    let mut out = jpeg[..2].to_vec();
    out.extend([0xFF, 0xE1]);
    out.extend(u16::try_from(segment.len() + 2).unwrap().to_be_bytes());
    out.extend(segment);
    out.extend(&jpeg[2..]);
    out
}

fn alt() -> Part<'static> {
    text(
        "alt",
        r#"{"nl-NL": "De olifanten bij het water", "en-GB": "The elephants by the water"}"#,
    )
}

async fn upload(app: &TestApp, path: &str, parts: &[Part<'_>]) -> TestResponse {
    app.send(
        app.admin(Method::POST, path)
            .header(
                header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .body(form(parts)),
    )
    .await
}

/// Uploads a 1600 × 900 cover with alt texts in Dutch and English, plus `extra` fields.
pub async fn add_picture(app: &TestApp, path: &str, extra: Vec<Part<'static>>) -> Value {
    let mut parts = vec![
        file(png(1600, 900), "image/png"),
        text("role", "cover"),
        alt(),
    ];
    parts.extend(extra);
    upload(app, path, &parts).await.assert_status(201)["data"].clone()
}

/// GET `url` (absolute, under the app's origin) with `headers`: status, headers, bytes.
async fn fetch(
    app: &TestApp,
    url: &str,
    headers: &[(&str, &str)],
) -> (u16, header::HeaderMap, Vec<u8>) {
    let path = url
        .strip_prefix(app.url("").trim_end_matches('/'))
        .unwrap_or_else(|| panic!("{url} is not under the app's origin"));
    let mut request = app.request(Method::GET, path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

async fn merchant_read(app: &TestApp, partner: &Partner, merchant: &str, language: &str) -> Value {
    app.send(
        app.request(Method::GET, &format!("/v2/merchants/{merchant}"))
            .bearer_auth(&partner.token)
            .header("accept-language", language),
    )
    .await
    .assert_status(200)["data"]
        .clone()
}

/// A merchant with a ticket in the partner's campaign (a merchant is in a campaign through
/// its products).
async fn shop() -> (TestApp, Partner, String, String) {
    let (app, partner, merchant) = spawn_partner_with_merchant("Artis", "Europe/Amsterdam").await;
    let mut body = product_body(&merchant, "Entry");
    body["campaign_ids"] = json!([partner.campaign]);
    body["no_date"] = json!(true);
    let product = create_product(&app, &body).await["product_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (app, partner, merchant, product)
}

#[tokio::test]
async fn a_picture_is_encoded_served_for_a_year_and_read_in_the_readers_language() {
    let (app, partner, merchant, product) = shop().await;
    let added = add_picture(
        &app,
        &format!("/admin/v1/merchants/{merchant}/images"),
        vec![],
    )
    .await;
    let names: Vec<&str> = added["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["320.webp", "640.webp", "1280.webp", "1280.jpg"]);
    assert_eq!(
        (added["width"].clone(), added["height"].clone()),
        (json!(1600), json!(900))
    );
    assert_eq!(added["alt"]["en-GB"], "The elephants by the water");
    assert_eq!(added["position"], 0);

    // The partner's read: the alt text in the reader's language, the 640 rendition, srcset.
    let english = merchant_read(&app, &partner, &merchant, "en-GB").await;
    let image = &english["images"][0];
    assert_eq!(image["alt"], "The elephants by the water");
    assert_eq!(image["role"], "cover");
    assert_eq!(
        (image["width"].clone(), image["height"].clone()),
        (json!(640), json!(360))
    );
    let url = image["url"].as_str().unwrap();
    assert!(url.ends_with("/640.webp"), "{url}");
    let srcset: Vec<&str> = image["srcset"].as_str().unwrap().split(", ").collect();
    assert_eq!(srcset.len(), 3);
    assert!(srcset[2].ends_with("/1280.webp 1280w"), "{srcset:?}");
    let dutch = merchant_read(&app, &partner, &merchant, "nl-NL").await;
    assert_eq!(dutch["images"][0]["alt"], "De olifanten bij het water");
    // German has no text: Dutch stands in.
    let german = merchant_read(&app, &partner, &merchant, "de-DE").await;
    assert_eq!(german["images"][0]["alt"], "De olifanten bij het water");

    // The file: WebP of the read's size, immutable for a year, revalidated by its ETag.
    let (status, headers, bytes) = fetch(&app, url, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(headers[header::CONTENT_TYPE], "image/webp");
    assert_eq!(
        headers[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(headers["cross-origin-resource-policy"], "cross-origin");
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::WebP).unwrap();
    assert_eq!(decoded.dimensions(), (640, 360));
    let etag = headers[header::ETAG].to_str().unwrap().to_owned();
    let (status, again, bytes) = fetch(&app, url, &[("if-none-match", &etag)]).await;
    assert_eq!(status, 304);
    assert!(bytes.is_empty());
    assert_eq!(again[header::ETAG].to_str().unwrap(), etag);
    let jpeg = url.replace("/640.webp", "/1280.jpg");
    let (status, headers, _) = fetch(&app, &jpeg, &[]).await;
    assert_eq!(
        (status, &headers[header::CONTENT_TYPE]),
        (200, &"image/jpeg".parse::<header::HeaderValue>().unwrap())
    );
    let (status, _, _) = fetch(&app, &url.replace("/640.webp", "/999.webp"), &[]).await;
    assert_eq!(status, 404);

    // A phone's EXIF (its GPS position) is not in any file served.
    let secret = b"GPS 52.3731N 4.8922E";
    let phone = upload(
        &app,
        &format!("/admin/v1/products/{product}/images"),
        &[
            file(jpeg_with_exif(secret), "image/jpeg"),
            text("role", "gallery"),
            alt(),
        ],
    )
    .await
    .assert_status(201)["data"]
        .clone();
    for name in ["320.webp", "400.webp", "400.jpg"] {
        let url = format!(
            "{}/images/{}/{name}",
            app.url("").trim_end_matches('/'),
            phone["image_id"].as_str().unwrap()
        );
        let (status, _, bytes) = fetch(&app, &url, &[]).await;
        assert_eq!(status, 200, "{name}");
        assert!(!bytes.windows(secret.len()).any(|w| w == secret), "{name}");
        assert!(!bytes.windows(4).any(|w| w == b"Exif"), "{name}");
    }
    // The product list has it, in the reader's language.
    let products = partner
        .products_with(&app, &merchant, &[("accept-language", "en-GB")])
        .await
        .assert_status(200);
    let images = &products["data"][0]["images"];
    assert_eq!(images.as_array().unwrap().len(), 1);
    assert_eq!(images[0]["role"], "gallery");
    assert!(images[0]["url"].as_str().unwrap().ends_with("/400.webp"));

    // The operator's read has every language.
    let admin = app
        .admin_get_ok(&format!("/admin/v1/merchants/{merchant}"))
        .await;
    assert_eq!(
        admin["data"]["images"][0]["alt"]["nl-NL"],
        "De olifanten bij het water"
    );
    assert_eq!(
        admin["data"]["images"][0]["alt"]["en-GB"],
        "The elephants by the water"
    );
}

#[tokio::test]
async fn pictures_are_read_by_position_and_a_deleted_one_is_gone_with_its_files() {
    let (app, partner, merchant, _) = shop().await;
    let path = format!("/admin/v1/merchants/{merchant}/images");
    let first = add_picture(&app, &path, vec![]).await;
    let fifth = add_picture(&app, &path, vec![text("position", "5")]).await;
    let second = add_picture(&app, &path, vec![text("position", "2")]).await;
    // A form's empty number: as absent.
    let last = add_picture(&app, &path, vec![text("position", "null")]).await;
    assert_eq!(last["position"], 6, "appended after the highest position");
    let ids = |read: &Value| -> Vec<Value> {
        read["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["url"].clone())
            .collect()
    };
    let read = merchant_read(&app, &partner, &merchant, "en-GB").await;
    let expected: Vec<Value> = [&first, &second, &fifth, &last]
        .iter()
        .map(|i| i["url"].clone())
        .collect();
    assert_eq!(ids(&read), expected);

    let gone = fifth["image_id"].as_str().unwrap();
    let answer = app.admin_delete(&format!("{path}/{gone}")).await;
    assert_eq!(answer.status, 204, "{}", answer.text);
    let read = merchant_read(&app, &partner, &merchant, "en-GB").await;
    assert_eq!(ids(&read).len(), 3);
    assert!(!ids(&read).contains(&fifth["url"]));
    let (status, _, _) = fetch(&app, fifth["url"].as_str().unwrap(), &[]).await;
    assert_eq!(status, 404);
    app.admin_delete(&format!("{path}/{gone}"))
        .await
        .assert_problem(404, "image-not-found");
    // Another owner's path does not reach it.
    let kept = first["image_id"].as_str().unwrap();
    let other = uuid::Uuid::new_v4();
    app.admin_delete(&format!("/admin/v1/merchants/{other}/images/{kept}"))
        .await
        .assert_problem(404, "merchant-not-found");
}

#[tokio::test]
async fn bad_files_and_fields_are_refused_and_nothing_is_kept() {
    let (app, _partner, merchant, _) = shop().await;
    let path = format!("/admin/v1/merchants/{merchant}/images");
    let whole = png(64, 64);
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>"#;
    for (bytes, status, problem) in [
        (whole[..whole.len() / 2].to_vec(), 422, "image-unreadable"),
        (png_claiming(0, 0), 422, "image-unreadable"),
        (png_claiming(60_000, 60_000), 422, "image-too-large"),
        (svg.to_vec(), 415, "image-unsupported"),
        (
            b"GIF89a\x01\0\x01\0\0\0\0;".to_vec(),
            415,
            "image-unsupported",
        ),
    ] {
        upload(
            &app,
            &path,
            &[file(bytes, "image/png"), text("role", "cover"), alt()],
        )
        .await
        .assert_problem(status, problem);
    }
    // Larger than 10 MiB.
    upload(
        &app,
        &path,
        &[
            file(vec![0x89; 10 * 1024 * 1024 + 1], "image/png"),
            text("role", "cover"),
            alt(),
        ],
    )
    .await
    .assert_problem(413, "payload-too-large");

    // The fields, each named.
    let answer = upload(
        &app,
        &path,
        &[
            text("role", "poster"),
            text("alt", "{}"),
            text("position", "-1"),
        ],
    )
    .await;
    answer.assert_invalid(&["file", "role", "alt", "position"]);
    let answer = upload(
        &app,
        &path,
        &[
            file(png(8, 8), "image/png"),
            text("role", "cover"),
            text("alt", "not json"),
        ],
    )
    .await;
    answer.assert_invalid(&["alt"]);
    let answer = upload(
        &app,
        &path,
        &[
            file(png(8, 8), "image/png"),
            text("role", "cover"),
            text("role", "logo"),
            alt(),
            text("caption", "x"),
        ],
    )
    .await;
    answer.assert_invalid(&["role", "caption"]);
    let answer = upload(
        &app,
        &path,
        &[
            file(png(8, 8), "image/png"),
            text("role", "cover"),
            text("alt", r#"{"en-GB": "a\u0000b"}"#),
        ],
    )
    .await;
    answer.assert_invalid(&["alt.en-GB"]);

    // Not a form at all; an unknown owner.
    app.admin_post(&path, &json!({ "role": "cover" }))
        .await
        .assert_problem(415, "unsupported-media-type");
    let nobody = uuid::Uuid::new_v4();
    upload(
        &app,
        &format!("/admin/v1/products/{nobody}/images"),
        &[file(png(8, 8), "image/png"), text("role", "cover"), alt()],
    )
    .await
    .assert_problem(404, "product-not-found");

    let admin = app
        .admin_get_ok(&format!("/admin/v1/merchants/{merchant}"))
        .await;
    assert_eq!(admin["data"]["images"], json!([]));
    assert_eq!(
        execute_sql!(&app, "DELETE FROM image_file"),
        0,
        "no file of a refused upload was kept"
    );
}

#[tokio::test]
async fn uploads_at_once_all_land_in_distinct_places_and_one_delete_wins() {
    let (app, partner, merchant, _) = shop().await;
    let path = format!("/admin/v1/merchants/{merchant}/images");
    let small = png(200, 120);
    let uploads = (0..8).map(|_| {
        let (app, path, small) = (&app, &path, small.clone());
        async move {
            upload(
                app,
                path,
                &[file(small, "image/png"), text("role", "gallery"), alt()],
            )
            .await
            .assert_status(201)["data"]
                .clone()
        }
    });
    let added = futures::future::join_all(uploads).await;
    let mut positions: Vec<u64> = added
        .iter()
        .map(|a| a["position"].as_u64().unwrap())
        .collect();
    positions.sort_unstable();
    assert_eq!(
        positions,
        (0..8).collect::<Vec<_>>(),
        "each appended after the one before"
    );
    let read = merchant_read(&app, &partner, &merchant, "en-GB").await;
    assert_eq!(read["images"].as_array().unwrap().len(), 8);

    let gone = added[3]["image_id"].as_str().unwrap();
    let one = format!("{path}/{gone}");
    let deletes = (0..4).map(|_| app.admin_delete(&one));
    let mut statuses: Vec<u16> = futures::future::join_all(deletes)
        .await
        .iter()
        .map(|r| r.status.as_u16())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [204, 404, 404, 404]);
    let read = merchant_read(&app, &partner, &merchant, "en-GB").await;
    assert_eq!(read["images"].as_array().unwrap().len(), 7);
}
