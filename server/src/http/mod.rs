//! HTTP conventions shared by every route: envelopes, problems, extractors, cursors,
//! correlation ids, languages, metrics, reading what an early answer left of a body, and the
//! OpenAPI document. The router that puts the routes together is `crate::router`.

pub mod campaign;
pub mod conditional;
pub mod correlation;
pub mod cursor;
pub mod drain;
pub mod envelope;
pub mod extract;
pub mod fallback;
pub mod field_rules;
pub mod framing;
pub mod keyed_page;
pub mod locale;
pub mod openapi;
pub mod openapi_links;
pub mod ops;
pub mod rate_limit;
