//! Events: written to the outbox in the same transaction as the change they report (so none is
//! lost and none is emitted for a rolled-back change), read by partners from `GET /v2/events`,
//! and pushed to partners' webhooks signed per Standard Webhooks.

pub mod cloudevent;
pub mod signature;
pub mod webhooks;

pub use cloudevent::{CloudEvent, EventType, NewEvent};
