//! Reading OAuth token requests the way RFC 6749 clients send them: form-encoded (the
//! standard), or JSON, with client credentials in the body or in HTTP Basic.

use axum::{
    body::Bytes,
    extract::{FromRequest, Request},
    http::{header, HeaderMap, HeaderValue},
    response::{IntoResponse, Response},
    Json,
};
use base64::{engine::general_purpose::STANDARD, Engine};
use serde::{de::DeserializeOwned, Serialize};

use crate::{
    error::{Error, ProblemType},
    http::extract::{parse_json, reject_nul_in_pairs},
};

/// A token request body: form or JSON.
pub struct TokenForm<T>(pub T);

impl<T: DeserializeOwned + utoipa::ToSchema, S: Send + Sync> FromRequest<S> for TokenForm<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<mime::Mime>().ok());
        let is_form = content_type.as_ref().is_some_and(|m| {
            m.type_() == mime::APPLICATION && m.subtype() == mime::WWW_FORM_URLENCODED
        });
        let is_json = content_type
            .as_ref()
            .is_some_and(|m| m.type_() == mime::APPLICATION && m.subtype() == mime::JSON);
        if !is_form && !is_json {
            return Err(Error::new(
                ProblemType::UnsupportedMediaType,
                "Send the token request as application/x-www-form-urlencoded or application/json.",
            )
            .with_oauth("invalid_request"));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|_| {
            Error::new(
                ProblemType::PayloadTooLarge,
                "The request body could not be read.",
            )
        })?;
        let parsed = if is_form {
            reject_nul_in_pairs(&bytes).map_err(|e| e.with_oauth("invalid_request"))?;
            let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(&bytes));
            serde_path_to_error::deserialize(de).map_err(|err| {
                let field = err.path().to_string();
                Error::invalid_field(
                    if field == "." { "body" } else { &field },
                    "invalid",
                    err.into_inner().to_string(),
                )
            })
        } else {
            parse_json(&bytes)
        };
        parsed
            .map(TokenForm)
            .map_err(|e| e.with_oauth("invalid_request"))
    }
}

/// Client credentials from `Authorization: Basic` (RFC 6749 §2.3.1: each part form-encoded).
pub fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, Error> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = || {
        Error::new(
            ProblemType::ClientAuthenticationFailed,
            "The Basic credentials are malformed.",
        )
        .with_oauth("invalid_client")
    };
    let value = value.to_str().map_err(|_| malformed())?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(malformed());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Ok(None);
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let unescape = |s: &str| {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    Ok(Some((
        unescape(id).ok_or_else(malformed)?,
        unescape(secret).ok_or_else(malformed)?,
    )))
}

/// Picks the client credentials from exactly one place: Basic or the body.
pub fn client_credentials(
    headers: &HeaderMap,
    body_id: Option<String>,
    body_secret: Option<String>,
) -> Result<(String, String), Error> {
    match (basic_credentials(headers)?, body_id, body_secret) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(Error::invalid_field(
            "client_id",
            "ambiguous",
            "send client credentials either in Basic authentication or in the body, not both",
        )
        .with_oauth("invalid_request")),
        (Some(pair), None, None) => Ok(pair),
        (None, Some(id), Some(secret)) => Ok((id, secret)),
        _ => Err(Error::new(
            ProblemType::ClientAuthenticationFailed,
            "Send client_id and client_secret.",
        )
        .with_oauth("invalid_client")),
    }
}

/// A token response: never cached by browsers or proxies (RFC 6749 §5.1).
pub fn no_store<T: IntoResponse>(response: T) -> Response {
    let mut response = response.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// A bare (not enveloped) JSON token response, as RFC 6749 clients expect.
pub fn bare_token<T: Serialize>(token: T) -> Response {
    no_store(Json(token))
}
