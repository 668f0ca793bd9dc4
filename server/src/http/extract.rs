//! Request extractors whose failures are problem documents naming the offending field,
//! instead of axum's plain-text rejections.

use app::wire::FieldError;
use axum::{
    body::Bytes,
    extract::{FromRequest, FromRequestParts, Request},
    http::{header, request::Parts},
};
use serde::de::DeserializeOwned;

use crate::error::{Error, ProblemType};

/// A JSON body, deserialised with the path of the first bad field in the error.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
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

/// 400 naming the first form or query field whose name or value holds U+0000.
pub fn reject_nul_in_pairs(encoded: &[u8]) -> Result<(), Error> {
    match form_urlencoded::parse(encoded)
        .find(|(name, value)| name.contains('\0') || value.contains('\0'))
    {
        Some((name, _)) => Err(Error::invalid_field(&name, NUL.0, NUL.1)),
        None => Ok(()),
    }
}

/// Deserialises JSON, reporting the path of the first field that does not fit.
///
/// A whole number written with a fraction (`24.0`) is an integer to JSON Schema, so a client
/// that validates against the document may send one where an integer goes; serde takes
/// integers only as written without a fraction. A body serde refuses for a floating-point
/// number is therefore read again with every whole number as an integer, which leaves the
/// usual path as it is; a number with a real fraction (`24.5`) stays refused, in words.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    if let Some(field) = nul_in_json(bytes) {
        return Err(Error::invalid_field(&field, NUL.0, NUL.1));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let refused = match serde_path_to_error::deserialize(&mut de) {
        Ok(value) => return Ok(value),
        Err(refused) => refused,
    };
    if !refused.inner().to_string().starts_with(FLOAT_REFUSED) {
        return Err(json_problem(refused));
    }
    let mut value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|_| json_problem(refused))?;
    whole_numbers_as_integers(&mut value);
    serde_path_to_error::deserialize(value).map_err(json_problem)
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

/// The problem of a body serde refused: the path of the field and what was wrong with it.
fn json_problem(err: serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = err.path().to_string();
    let inner = err.into_inner();
    let message = strip_position(&inner.to_string());
    let (field, code) = match inner.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            ("body".to_owned(), "malformed_json")
        }
        _ => match (missing_field(&message), path.as_str()) {
            (Some(name), ".") => (name, "required"),
            (Some(name), _) => (format!("{path}.{name}"), "required"),
            (None, ".") => ("body".to_owned(), "invalid"),
            (None, _) => (path, "invalid"),
        },
    };
    let message = not_whole(&field, &message).unwrap_or(message);
    Error::validation(vec![FieldError::new(field, code, message)])
}

/// serde's "invalid type: floating point `2.5`, expected u32" as a client reads it.
fn not_whole(field: &str, message: &str) -> Option<String> {
    let (number, expected) = message
        .strip_prefix(FLOAT_REFUSED)?
        .split_once("`, expected ")?;
    let integer = matches!(
        expected,
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize"
    );
    integer.then(|| format!("{field} must be a whole number, not {number}"))
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

/// Query parameters, with a problem naming the parameter that does not fit.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Error> {
        let query = parts.uri.query().unwrap_or_default();
        reject_nul_in_pairs(query.as_bytes())?;
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(ApiQuery)
            .map_err(|err| {
                let path = err.path().to_string();
                let field = if path == "." {
                    "query".to_owned()
                } else {
                    path
                };
                Error::invalid_field(&field, "invalid", err.into_inner().to_string())
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
        // Parameter names from the route template, for errors that report only a position.
        let names: Vec<String> = parts
            .extensions
            .get::<MatchedPath>()
            .map(|p| {
                p.as_str()
                    .split('/')
                    .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}').map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let describe = |expected: &str| {
            if expected.contains("Uuid") {
                "a UUID".to_owned()
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
                ErrorKind::DeserializeError { key, value, .. } => {
                    let message = format!("`{key}` has an invalid value `{value}`");
                    (key, message)
                }
                other => ("path".to_owned(), other.to_string()),
            },
            other => ("path".to_owned(), other.body_text()),
        };
        Err(Error::invalid_field(&field, "invalid", message))
    }
}
