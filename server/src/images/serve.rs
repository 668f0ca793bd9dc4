//! `GET /images/{image_id}/{name}`: a picture's file. Files never change (a new upload is a
//! new picture with a new id), so they are cached for a year by browsers and shared caches
//! alike, and a revalidation with the `ETag` is answered 304.

use axum::{
    extract::State,
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    error::{Error, ProblemType, Result},
    http::{conditional::none_match, extract::ApiPath, openapi::Problem404},
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(image_file))
}

/// A year: the longest `max-age` caches honour.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

#[derive(Debug, Deserialize)]
struct FilePath {
    image_id: Uuid,
    name: String,
}

/// A file of a picture: a WebP at one of its widths (`640.webp`), or its JPEG (`1280.jpg`),
/// as a read's `url` and `srcset` name them. Public: a partner's page shows it.
#[utoipa::path(get, path = "/images/{image_id}/{name}", tag = "catalog",
    params(
        ("image_id" = Uuid, Path, description = "The picture"),
        ("name" = String, Path, description = "The file: a width and `.webp`, or the JPEG's width and `.jpg`", example = "640.webp"),
    ),
    responses(
        (status = 200, description = "The file; cached for a year (`Cache-Control: immutable`) with a strong `ETag`",
         content((Vec<u8> = "image/webp"), (Vec<u8> = "image/jpeg"))),
        (status = 304, description = "`If-None-Match` names the file's `ETag`"),
        Problem404))]
async fn image_file(
    State(state): State<AppState>,
    ApiPath(path): ApiPath<FilePath>,
    headers: HeaderMap,
) -> Result<Response> {
    let not_found = || {
        Error::new(
            ProblemType::ImageNotFound,
            format!(
                "There is no file {} of picture {}.",
                path.name, path.image_id
            ),
        )
    };
    // Only the names the server writes reach the store.
    let well_formed = path.name.len() <= 12
        && path
            .name
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b.is_ascii_lowercase());
    if !well_formed {
        return Err(not_found());
    }
    let file = state
        .store
        .image_file(path.image_id, &path.name)
        .await?
        .ok_or_else(not_found)?;
    let etag = HeaderValue::from_str(&file.etag).map_err(anyhow::Error::from)?;
    let mut response = if none_match(&headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let content_type =
            HeaderValue::from_str(&file.content_type).map_err(anyhow::Error::from)?;
        let mut response = file.bytes.into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type);
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, etag);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Partners' pages on their own origins show these pictures.
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("cross-origin"),
    );
    Ok(response)
}
