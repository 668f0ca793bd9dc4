//! Request extractors whose failures are problem documents naming the offending field,
//! instead of axum's plain-text rejections.

use app::wire::FieldError;
use axum::{
    body::Bytes,
    extract::{FromRequest, FromRequestParts, Request},
    http::{header, request::Parts},
};
use serde::de::DeserializeOwned;
use utoipa::{IntoParams, ToSchema};

use super::field_rules::{Shape, EXAMPLE_UUID};
use crate::error::{Error, ProblemType};

/// A JSON body, deserialised; a body that does not fit is a problem naming every missing
/// required field and the first bad value with its field's rule (`parse_json`).
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned + ToSchema, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        require_json(req.headers())?;
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                Error::new(
                    ProblemType::PayloadTooLarge,
                    "The request body exceeds the size limit.",
                )
            } else {
                Error::invalid_field("body", "unreadable", "The request body could not be read.")
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// 415 `unsupported-media-type` unless the body is declared JSON.
pub fn require_json(headers: &axum::http::HeaderMap) -> Result<(), Error> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<mime::Mime>().ok())
        .is_some_and(|m| {
            m.type_() == mime::APPLICATION
                && (m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON))
        });
    if is_json {
        Ok(())
    } else {
        Err(Error::new(
            ProblemType::UnsupportedMediaType,
            "Send the body as application/json.",
        ))
    }
}

/// The code and message of a text holding U+0000, which no text field takes: PostgreSQL's
/// text cannot store it, and SQLite would keep what PostgreSQL refuses.
const NUL: (&str, &str) = ("nul", "text must not contain the character U+0000");

/// The first string of a JSON body (a member name or a value) holding U+0000, as a field path
/// (`translations[1].name`). JSON spells it `\u0000`, so a body without that escape is passed
/// without parsing it twice.
fn nul_in_json(bytes: &[u8]) -> Option<String> {
    fn find(value: &serde_json::Value, path: &str) -> Option<String> {
        let here = || {
            if path.is_empty() {
                "body".to_owned()
            } else {
                path.to_owned()
            }
        };
        match value {
            serde_json::Value::String(text) => text.contains('\0').then(here),
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, item)| find(item, &format!("{path}[{i}]"))),
            serde_json::Value::Object(members) => members.iter().find_map(|(name, item)| {
                let inner = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                if name.contains('\0') {
                    Some(inner)
                } else {
                    find(item, &inner)
                }
            }),
            _ => None,
        }
    }
    let escaped = bytes.windows(6).any(|w| w.eq_ignore_ascii_case(b"\\u0000"));
    if !escaped {
        return None;
    }
    find(&serde_json::from_slice(bytes).ok()?, "")
}

/// 400 naming the first string of a JSON body that holds U+0000, for bodies read without
/// `parse_json` (OCTO's).
pub fn reject_nul_in_json(bytes: &[u8]) -> Result<(), Error> {
    match nul_in_json(bytes) {
        Some(field) => Err(Error::invalid_field(&field, NUL.0, NUL.1)),
        None => Ok(()),
    }
}

/// 400 naming the first form or query field whose name or value holds U+0000.
pub fn reject_nul_in_pairs(encoded: &[u8]) -> Result<(), Error> {
    match form_urlencoded::parse(encoded)
        .find(|(name, value)| name.contains('\0') || value.contains('\0'))
    {
        Some((name, _)) => Err(Error::invalid_field(&name, NUL.0, NUL.1)),
        None => Ok(()),
    }
}

/// Deserialises JSON; a body that does not fit is 400 `request-validation-failed` naming the
/// first field serde refused, worded by the field's rule, and then every other required field
/// the body lacks (serde stops at the first error, the contract promises every one at once).
///
/// A whole number written with a fraction (`24.0`) is an integer to JSON Schema, so a client
/// that validates against the document may send one where an integer goes; serde takes
/// integers only as written without a fraction. A body serde refuses for a floating-point
/// number is therefore read again with every whole number as an integer, which leaves the
/// usual path as it is; a number with a real fraction (`24.5`) stays refused, in words.
pub fn parse_json<T: DeserializeOwned + ToSchema>(bytes: &[u8]) -> Result<T, Error> {
    if let Some(field) = nul_in_json(bytes) {
        return Err(Error::invalid_field(&field, NUL.0, NUL.1));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let refused = match serde_path_to_error::deserialize(&mut de) {
        Ok(value) => return Ok(value),
        Err(refused) => refused,
    };
    if refused.inner().to_string().starts_with(FLOAT_REFUSED) {
        if let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) {
            whole_numbers_as_integers(&mut value);
            return serde_path_to_error::deserialize(value)
                .map_err(|again| json_problem::<T>(again, bytes));
        }
    }
    Err(json_problem::<T>(refused, bytes))
}

/// How serde_json begins the message of a number with a fraction where none fits.
const FLOAT_REFUSED: &str = "invalid type: floating point `";

/// Every number in `value` with no fraction, as an integer (when one holds it exactly).
fn whole_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(number) => {
            // [-2^63, 2^64): where i64 or u64 holds a whole f64 exactly.
            let exact = -(2f64.powi(63))..2f64.powi(64);
            let whole = number
                .as_f64()
                .filter(|f| number.is_f64() && f.fract() == 0.0 && exact.contains(f));
            match whole {
                Some(f) if f < 0.0 => *value = Value::from(f as i64),
                Some(f) => *value = Value::from(f as u64),
                None => {}
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(members) => members.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// The problem of a body (`bytes`) serde refused as a `T`.
fn json_problem<T: ToSchema>(
    err: serde_path_to_error::Error<serde_json::Error>,
    bytes: &[u8],
) -> Error {
    let path = err.path().to_string();
    let inner = err.into_inner();
    let message = strip_position(&inner.to_string());
    match inner.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            Error::invalid_field("body", "malformed_json", message)
        }
        _ => {
            let shape = Shape::of_body::<T>();
            // The body is JSON (serde got past the syntax), so this parse succeeds.
            let body = serde_json::from_slice(bytes).unwrap_or_default();
            Error::validation(misfits(&shape, &path, &message, &body))
        }
    }
}

/// The field errors of input `value` that did not deserialise: the error serde stopped at
/// (`message` at `path`), then each other required field `value` lacks.
fn misfits(shape: &Shape, path: &str, message: &str, value: &serde_json::Value) -> Vec<FieldError> {
    let within = |name: &str| match path {
        "." | "" => name.to_owned(),
        _ => format!("{path}.{name}"),
    };
    let required = |field: &str| FieldError::new(field, "required", format!("{field} is required"));
    let first = match missing_field(message) {
        Some(name) => required(&within(&name)),
        None if matches!(path, "." | "") => FieldError::new("body", "invalid", message),
        None => FieldError::new(path, "invalid", worded(shape, path, message)),
    };
    let mut errors = vec![first];
    for field in shape.missing(value) {
        if errors.iter().all(|e| e.field != field) {
            errors.push(required(&field));
        }
    }
    errors
}

/// serde's message about the value at `path` as the field's rule ("lines[0].quantity must be a
/// whole number from 1 to 50 (got string "two")") where the schema has one; else serde's own.
fn worded(shape: &Shape, path: &str, message: &str) -> String {
    let wrong_type = message.strip_prefix("invalid type: ");
    let Some(rule) = shape.rule(path, wrong_type.is_some()) else {
        return message.to_owned();
    };
    let got = wrong_type
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|rest| rest.split(", expected").next());
    match got {
        Some(got) => format!("{path} must be {rule} (got {got})"),
        None => format!("{path} must be {rule}"),
    }
}

/// The field serde names in "missing field `name`", so the problem points at it.
fn missing_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest[..rest.find('`')?].to_owned())
}

/// serde_json appends "at line 1 column 7"; the field path says more to an API client.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// Query parameters, with a problem naming the parameter that does not fit, in the words of
/// its rule, and every required parameter missing.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned + IntoParams, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Error> {
        let query = parts.uri.query().unwrap_or_default();
        reject_nul_in_pairs(query.as_bytes())?;
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(ApiQuery)
            .map_err(|err| {
                let path = err.path().to_string();
                let message = err.into_inner().to_string();
                let pairs = form_urlencoded::parse(query.as_bytes())
                    .map(|(name, value)| (name.into_owned(), value.into_owned().into()))
                    .collect();
                let mut errors = misfits(
                    &Shape::of_query::<T>(),
                    &path,
                    &message,
                    &serde_json::Value::Object(pairs),
                );
                for error in &mut errors {
                    if error.field == "body" {
                        "query".clone_into(&mut error.field);
                    }
                }
                Error::validation(errors)
            })
    }
}

/// Path parameters, with a problem naming the segment that does not fit (e.g. a non-uuid id).
pub struct ApiPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        use axum::extract::{path::ErrorKind, rejection::PathRejection, MatchedPath};
        let rejection = match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => return Ok(ApiPath(value)),
            Err(rejection) => rejection,
        };
        let template = parts
            .extensions
            .get::<MatchedPath>()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default();
        // Parameter names from the route template, for errors that report only a position.
        let names: Vec<String> = template
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}').map(str::to_owned))
            .collect();
        let raw: Vec<(String, String)> =
            axum::extract::RawPathParams::from_request_parts(parts, state)
                .await
                .map(|raw| {
                    raw.iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect()
                })
                .unwrap_or_default();
        let describe = |expected: &str| {
            if expected.contains("Uuid") {
                format!("a UUID, e.g. {EXAMPLE_UUID}")
            } else {
                expected.to_owned()
            }
        };
        let (field, message) = match rejection {
            PathRejection::FailedToDeserializePathParams(e) => match e.into_kind() {
                ErrorKind::ParseErrorAtKey {
                    key, expected_type, ..
                } => {
                    let message = format!("`{key}` must be {}", describe(expected_type));
                    (key, message)
                }
                ErrorKind::ParseErrorAtIndex {
                    index,
                    expected_type,
                    ..
                } => {
                    let key = names
                        .get(index)
                        .cloned()
                        .unwrap_or_else(|| "path".to_owned());
                    let message = format!("`{key}` must be {}", describe(expected_type));
                    (key, message)
                }
                ErrorKind::ParseError { expected_type, .. } => {
                    let key = names.first().cloned().unwrap_or_else(|| "path".to_owned());
                    let message = format!("`{key}` must be {}", describe(expected_type));
                    (key, message)
                }
                ErrorKind::DeserializeError {
                    key,
                    value,
                    message,
                } => {
                    let message = if message.starts_with("UUID parsing failed") {
                        not_a_uuid(&key, &value, &template)
                    } else {
                        format!("`{key}` has an invalid value `{value}`")
                    };
                    (key, message)
                }
                // A UUID's own parser says only "UUID parsing failed", not where: the segment
                // is the first of the route's that is no UUID.
                ErrorKind::Message(message) if message.starts_with("UUID parsing failed") => {
                    match raw
                        .iter()
                        .find(|(_, value)| uuid::Uuid::parse_str(value).is_err())
                    {
                        Some((key, value)) => (key.clone(), not_a_uuid(key, value, &template)),
                        None => ("path".to_owned(), message),
                    }
                }
                other => ("path".to_owned(), other.to_string()),
            },
            other => ("path".to_owned(), other.body_text()),
        };
        Err(Error::invalid_field(&field, "invalid", message))
    }
}

/// The message of path segment `value`, parameter `key` of route `template`, that is no UUID.
fn not_a_uuid(key: &str, value: &str, template: &str) -> String {
    let shown: String = value.chars().take(40).collect();
    format!(
        "The path segment `{shown}` is `{key}` of {template}, which must be a UUID, e.g. {EXAMPLE_UUID}"
    )
}
