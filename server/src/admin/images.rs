//! The pictures of merchants and products (docs/operator-catalog.md, "Pictures"): uploaded as
//! `multipart/form-data`, deleted by id. What happens to an upload is `crate::images`'.

use app::wire::{ImageRole, LocalizedText};
use axum::{
    extract::{
        multipart::{MultipartError, MultipartRejection},
        DefaultBodyLimit, Multipart,
    },
    http::StatusCode,
};
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::ApiPath,
        openapi::{Problem400, Problem404, Problem409, Problem422},
    },
    images::{self, encode::MAX_BYTES, Upload},
    state::AppState,
    store::{ImageOwner, StoredImage},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(add_merchant_image))
        .routes(routes!(remove_merchant_image))
        .routes(routes!(add_product_image))
        .routes(routes!(remove_product_image))
        // The file and the form's other fields and boundaries.
        .layer(DefaultBodyLimit::max(MAX_BYTES + 64 * 1024))
}

/// The form of an upload (`multipart/form-data`); a part of another name is refused.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read part by part from the multipart stream; this type documents it
struct ImageForm {
    /// The picture: PNG, JPEG or WebP, at most 10 MiB, 8,000 pixels a side and 40 megapixels.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    role: ImageRole,
    /// What the picture shows, per language: a JSON object such as
    /// `{"nl-NL": "De ingang", "en-GB": "The entrance"}`; at least one language.
    alt: LocalizedText,
    /// Where it goes among the owner's pictures (ascending; 0 to 1000). Absent (or empty, or
    /// `null`): after the last.
    #[schema(minimum = 0, maximum = 1000)]
    position: Option<u32>,
}

/// A picture as the operator reads it: as kept (every language's alt text, its files), with
/// the URLs partners read.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct ImageRead {
    #[serde(flatten)]
    image: StoredImage,
    /// The WebP closest to 640 pixels wide.
    url: String,
    /// Every WebP and its width, for `<img srcset>`.
    srcset: String,
    /// The JPEG (OCTO's `Media`).
    jpeg_url: Option<String>,
}

impl ImageRead {
    fn of(image: StoredImage, state: &AppState) -> Self {
        let base = state.config.base_url();
        let read = images::to_wire(std::slice::from_ref(&image), app::wire::Locale::NlNl, &base)
            .pop()
            .expect("one picture in, one out");
        let jpeg_url = images::jpeg_url(&image, &base);
        Self {
            image,
            url: read.url,
            srcset: read.srcset,
            jpeg_url,
        }
    }
}

/// Adds a picture of a merchant: re-encoded as WebP at 320, 640 and 1280 pixels wide (never
/// wider than the upload) and one JPEG, without the upload's metadata.
#[utoipa::path(post, path = "/admin/v1/merchants/{merchant_id}/images",
    params(("merchant_id" = Uuid, Path)),
    request_body(content = inline(ImageForm), content_type = "multipart/form-data"),
    responses((status = 201, body = inline(app::wire::Envelope<ImageRead>)),
              Problem400, Problem404, Problem409,
              (status = 413, description = "The file is larger than 10 MiB", body = app::wire::Problem, content_type = "application/problem+json"),
              (status = 415, description = "Not a multipart form, or the file is not PNG, JPEG or WebP", body = app::wire::Problem, content_type = "application/problem+json"),
              Problem422))]
async fn add_merchant_image(
    Admin(state): Admin,
    ApiPath(merchant_id): ApiPath<Uuid>,
    form: std::result::Result<Multipart, MultipartRejection>,
) -> Result<Data<ImageRead>> {
    let upload = read_form(form).await?;
    let image = images::add(&state, ImageOwner::Merchant(merchant_id), upload).await?;
    Ok(Data::created(ImageRead::of(image, &state)))
}

/// Deletes a picture of a merchant with its files.
#[utoipa::path(delete, path = "/admin/v1/merchants/{merchant_id}/images/{image_id}",
    params(("merchant_id" = Uuid, Path), ("image_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"), Problem404))]
async fn remove_merchant_image(
    Admin(state): Admin,
    ApiPath((merchant_id, image_id)): ApiPath<(Uuid, Uuid)>,
) -> Result<StatusCode> {
    images::remove(&state, ImageOwner::Merchant(merchant_id), image_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Adds a picture of a product, as a merchant's.
#[utoipa::path(post, path = "/admin/v1/products/{product_id}/images",
    params(("product_id" = Uuid, Path)),
    request_body(content = inline(ImageForm), content_type = "multipart/form-data"),
    responses((status = 201, body = inline(app::wire::Envelope<ImageRead>)),
              Problem400, Problem404, Problem409,
              (status = 413, description = "The file is larger than 10 MiB", body = app::wire::Problem, content_type = "application/problem+json"),
              (status = 415, description = "Not a multipart form, or the file is not PNG, JPEG or WebP", body = app::wire::Problem, content_type = "application/problem+json"),
              Problem422))]
async fn add_product_image(
    Admin(state): Admin,
    ApiPath(product_id): ApiPath<Uuid>,
    form: std::result::Result<Multipart, MultipartRejection>,
) -> Result<Data<ImageRead>> {
    let upload = read_form(form).await?;
    let image = images::add(&state, ImageOwner::Product(product_id), upload).await?;
    Ok(Data::created(ImageRead::of(image, &state)))
}

/// Deletes a picture of a product with its files.
#[utoipa::path(delete, path = "/admin/v1/products/{product_id}/images/{image_id}",
    params(("product_id" = Uuid, Path), ("image_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"), Problem404))]
async fn remove_product_image(
    Admin(state): Admin,
    ApiPath((product_id, image_id)): ApiPath<(Uuid, Uuid)>,
) -> Result<StatusCode> {
    images::remove(&state, ImageOwner::Product(product_id), image_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The upload a form holds, every field checked; a problem names each field at fault.
async fn read_form(form: std::result::Result<Multipart, MultipartRejection>) -> Result<Upload> {
    let mut form = form.map_err(|_| {
        Error::new(
            ProblemType::UnsupportedMediaType,
            "Send the picture as multipart/form-data with the fields file, role and alt.",
        )
    })?;
    let mut checks = Checks::default();
    let (mut file, mut role, mut alt, mut position) = (None, None, None, None);
    while let Some(field) = form.next_field().await.map_err(unreadable)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "file" {
            let bytes = field.bytes().await.map_err(unreadable)?;
            if bytes.len() > MAX_BYTES {
                return Err(too_large());
            }
            checks.check(file.is_none(), "file", "duplicate", "file is sent twice");
            file = Some(bytes.to_vec());
            continue;
        }
        let text = field.text().await.map_err(unreadable)?;
        let slot = match name.as_str() {
            "role" => &mut role,
            "alt" => &mut alt,
            "position" => &mut position,
            _ => {
                checks.fail(
                    &name,
                    "unknown",
                    format!("{name} is not a field of an upload (file, role, alt, position)"),
                );
                continue;
            }
        };
        checks.check(
            slot.is_none(),
            &name,
            "duplicate",
            format!("{name} is sent twice"),
        );
        checks.check(
            !text.contains('\0'),
            &name,
            "nul",
            "text must not contain the character U+0000",
        );
        *slot = Some(text);
    }
    let upload = fields(&mut checks, file, role, alt, position);
    checks.finish()?;
    Ok(upload.expect("every field checked"))
}

/// The upload of the form's fields, or `None` with the faults in `checks`.
fn fields(
    checks: &mut Checks,
    file: Option<Vec<u8>>,
    role: Option<String>,
    alt: Option<String>,
    position: Option<String>,
) -> Option<Upload> {
    let required = |checks: &mut Checks, field: &str, given: bool| {
        checks.check(given, field, "required", format!("{field} is required"));
    };
    required(checks, "file", file.is_some());
    required(checks, "role", role.is_some());
    required(checks, "alt", alt.is_some());
    let role = role.and_then(|text| {
        let parsed = serde_json::from_value::<ImageRole>(serde_json::Value::String(text)).ok();
        checks.check(
            parsed.is_some(),
            "role",
            "invalid",
            "role must be cover, gallery or logo",
        );
        parsed
    });
    let alt = alt.and_then(|text| {
        let parsed = serde_json::from_str::<LocalizedText>(&text).ok();
        checks.check(
            parsed.is_some(),
            "alt",
            "invalid",
            "alt must be a JSON object of language (nl-NL, en-GB, de-DE, fr-FR) to text",
        );
        if let Some(alt) = &parsed {
            checks.localized("alt", alt);
        }
        parsed
    });
    // A form writes an absent number as nothing or as JSON's `null` (the schema's nullable).
    let position = match position.as_deref().map(str::trim) {
        None | Some("" | "null") => Some(None),
        Some(text) => {
            let parsed = text.parse::<u32>().ok().filter(|p| *p <= 1000);
            checks.check(
                parsed.is_some(),
                "position",
                "invalid",
                "position must be a whole number from 0 to 1000",
            );
            parsed.map(Some)
        }
    };
    Some(Upload {
        bytes: file?,
        role: role?,
        alt: alt?,
        position: position?,
    })
}

fn too_large() -> Error {
    Error::new(
        ProblemType::PayloadTooLarge,
        format!("The file is larger than {} MiB.", MAX_BYTES / 1024 / 1024),
    )
}

/// A form that breaks off or outgrows the limit.
fn unreadable(error: MultipartError) -> Error {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large()
    } else {
        Error::invalid_field("body", "malformed_multipart", error.body_text())
    }
}
