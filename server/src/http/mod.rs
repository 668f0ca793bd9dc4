//! HTTP conventions shared by every route: envelopes, problems, extractors, cursors,
//! correlation ids, languages, metrics and the OpenAPI document. The router that puts the
//! routes together is `crate::router`.

pub mod campaign;
pub mod conditional;
pub mod correlation;
pub mod cursor;
pub mod envelope;
pub mod extract;
pub mod fallback;
pub mod field_rules;
pub mod framing;
pub mod item_copies;
pub mod locale;
pub mod openapi;
pub mod openapi_links;
pub mod ops;
pub mod rate_limit;
