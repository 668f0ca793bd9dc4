//! The Boxoffice webframe and the wire types it shares with the server.
//!
//! `wire` holds every type that crosses HTTP between the partner-facing API and its clients
//! (the WASM frame among them); the server serialises them and the frame reads them, so the
//! two agree on every field by construction.
//! The Leptos components live in `frame`; business logic does not: the frame calls the same
//! `/v2` API as a headless partner. `i18n` is generated from `locales/*.json` by `build.rs`.

pub mod format;
pub mod frame;
pub mod wire;

include!(concat!(env!("OUT_DIR"), "/i18n/mod.rs"));

pub use frame::{shell, App};
