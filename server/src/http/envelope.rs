//! Success responses in the `{ data, meta }` envelope.

use app::wire::{Envelope, Meta, Pagination};
use axum::{
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;

use super::correlation;

/// A `200` (or another status) with `data` and the correlation id.
pub struct Data<T> {
    status: StatusCode,
    data: T,
}

impl<T> Data<T> {
    pub fn ok(data: T) -> Self {
        Self {
            status: StatusCode::OK,
            data,
        }
    }

    pub fn created(data: T) -> Self {
        Self {
            status: StatusCode::CREATED,
            data,
        }
    }
}

impl<T: Serialize> IntoResponse for Data<T> {
    fn into_response(self) -> Response {
        let meta = meta();
        (
            self.status,
            Json(Envelope {
                data: self.data,
                meta,
            }),
        )
            .into_response()
    }
}

/// One page of a cursor-paged collection.
pub struct Page<T> {
    pub items: Vec<T>,
    pub limit: u32,
    pub next_token: Option<String>,
}

impl<T: Serialize> IntoResponse for Page<T> {
    fn into_response(self) -> Response {
        let meta = Meta {
            item_count: Some(self.items.len() as u64),
            pagination: Some(Pagination {
                limit: self.limit,
                next_token: self.next_token,
            }),
            ..meta()
        };
        Json(Envelope {
            data: self.items,
            meta,
        })
        .into_response()
    }
}

/// A `200` of the envelope written around `data`, JSON already serialised (a cached rendering),
/// so that only `meta` is serialised per request.
pub fn around(data: &[u8], meta: &Meta) -> Response {
    let mut bytes = Vec::with_capacity(data.len() + 128);
    bytes.extend_from_slice(br#"{"data":"#);
    bytes.extend_from_slice(data);
    bytes.extend_from_slice(br#","meta":"#);
    serde_json::to_writer(&mut bytes, meta).expect("meta serialises into memory");
    bytes.push(b'}');
    ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

/// `meta` of a single response.
pub fn meta() -> Meta {
    Meta {
        correlation_id: correlation::current(),
        ..Meta::default()
    }
}
