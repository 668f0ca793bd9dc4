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

    pub fn with_status(status: StatusCode, data: T) -> Self {
        Self { status, data }
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
        let meta = page_meta(self.items.len(), self.limit, self.next_token);
        Json(Envelope {
            data: self.items,
            meta,
        })
        .into_response()
    }
}

/// A page whose items are already JSON (a cached rendering of them, shared without a copy).
pub struct RenderedPage {
    pub items_json: bytes::Bytes,
    pub item_count: usize,
    pub limit: u32,
    pub next_token: Option<String>,
}

impl RenderedPage {
    /// A page of items written by the node's copies (`cache::item_copies`).
    pub fn of_items(
        items: crate::cache::item_copies::ItemsJson,
        limit: u32,
        next_token: Option<String>,
    ) -> Self {
        Self {
            items_json: bytes::Bytes::from(items.json),
            item_count: items.count,
            limit,
            next_token,
        }
    }

    /// The page's envelope, as its response's body.
    pub fn into_json(self) -> Vec<u8> {
        let meta = page_meta(self.item_count, self.limit, self.next_token);
        enveloped(&self.items_json, &meta)
    }
}

impl IntoResponse for RenderedPage {
    fn into_response(self) -> Response {
        json_response(self.into_json())
    }
}

fn page_meta(item_count: usize, limit: u32, next_token: Option<String>) -> Meta {
    Meta {
        item_count: Some(item_count as u64),
        pagination: Some(Pagination { limit, next_token }),
        ..meta()
    }
}

/// A `200` of the envelope written around `data`, JSON already serialised (a cached rendering),
/// so that only `meta` is serialised per request.
pub fn around(data: &[u8], meta: &Meta) -> Response {
    json_response(enveloped(data, meta))
}

fn enveloped(data: &[u8], meta: &Meta) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(data.len() + 128);
    bytes.extend_from_slice(br#"{"data":"#);
    bytes.extend_from_slice(data);
    bytes.extend_from_slice(br#","meta":"#);
    serde_json::to_writer(&mut bytes, meta).expect("meta serialises into memory");
    bytes.push(b'}');
    bytes
}

fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `meta` of a single response.
pub fn meta() -> Meta {
    Meta {
        correlation_id: correlation::current(),
        ..Meta::default()
    }
}
