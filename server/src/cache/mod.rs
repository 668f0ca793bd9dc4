//! The node's caches, one shape for all (`ttl::TtlCache`): the catalog's copies, the bearer
//! cache (`auth::cache`) and the customer's copies of orders (`item_copies`).

pub mod item_copies;
mod ttl;

pub use ttl::TtlCache;
