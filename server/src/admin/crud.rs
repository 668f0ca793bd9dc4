//! The steps every operator resource's handlers share, so a handler says only what is
//! particular to its resource: its store call, its checks, its filters.

use axum::http::StatusCode;
use uuid::Uuid;

use crate::{
    error::{Error, Result},
    http::envelope::Data,
};

/// Responses carrying a secret must not be kept by any cache.
pub(super) type NoStore<T> = ([(axum::http::header::HeaderName, &'static str); 1], Data<T>);

pub(super) fn no_store<T>(data: Data<T>) -> NoStore<T> {
    ([(axum::http::header::CACHE_CONTROL, "no-store")], data)
}

/// 200 with the record read or written, or 404 `not-found` naming it (`what`: "The campaign").
pub(super) fn found<T>(record: Option<T>, what: &str) -> Result<Data<T>> {
    record.map(Data::ok).ok_or_else(|| Error::not_found(what))
}

/// 204 when the record was deleted, or 404 `not-found` naming it.
pub(super) fn deleted(deleted: bool, what: &str) -> Result<StatusCode> {
    if deleted {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Error::not_found(what))
    }
}

/// A list's optional id filter as the cursor binds it, `name=<id>` (`name=` when absent), so a
/// cursor continues only the query it came from.
pub(super) fn id_filter(name: &str, id: Option<Uuid>) -> String {
    format!("{name}={}", id.map(|id| id.to_string()).unwrap_or_default())
}
