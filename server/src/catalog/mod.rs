//! The catalog partners read: merchants, products with stock-aware prices, calendars and
//! timeslots, and the per-node caches that keep those reads fast.
//!
//! Freshness: every catalog write calls [`Catalog::changed`] and every capacity change
//! [`Catalog::capacity_changed`]; both bump this node's generation counter, and cached product
//! lists and the search index remember the generation they were built at and are not served
//! once it moved. The definitions a checkout reads ([`definitions`]) have a counter of their
//! own that only catalog writes move, so selling a ticket does not throw them away. Other nodes do not see
//! that counter, so each cached thing also has a short lifetime (`BOXOFFICE_CATALOG_CACHE_TTL`,
//! `BOXOFFICE_SEARCH_INDEX_TTL`) that bounds how stale another node's copy can be. The frame's
//! per-screen reads (merchants, calendars, timeslots) go through the same copies ([`reads`]).

pub mod availability;
pub mod calendar;
pub mod definitions;
pub mod geo;
pub mod merchants;
pub mod product_cache;
pub mod products;
pub mod questions;
mod reads;
pub mod search;
pub mod timeslots;

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Duration,
};

use crate::{config::Config, error::Result, store::Store};

/// A state the catalog's extractors (`http::campaign`) read the node's catalog copies and the
/// store behind them from, borrowed rather than cloned on every request.
pub trait CatalogReads: Send + Sync {
    fn reads(&self) -> (&Catalog, &dyn Store);
}

/// The catalog's per-node state: the generation counter and what is cached against it.
pub struct Catalog {
    generation: AtomicU64,
    pub product_lists: product_cache::ProductListCache,
    search: search::SearchIndexCell,
    pub definitions: definitions::Definitions,
    reads: reads::Reads,
    /// The public origin, for the URLs of pictures in what the catalog renders.
    pub base: Arc<str>,
}

impl Catalog {
    pub fn new(config: &Config) -> Self {
        Self {
            generation: AtomicU64::new(0),
            product_lists: product_cache::ProductListCache::new(Duration::from_secs(
                config.catalog_cache_ttl_secs,
            )),
            search: search::SearchIndexCell::new(Duration::from_secs(config.search_index_ttl_secs)),
            definitions: definitions::Definitions::new(Duration::from_secs(
                config.catalog_cache_ttl_secs,
            )),
            reads: reads::Reads::new(Duration::from_secs(config.catalog_cache_ttl_secs)),
            base: config.base_url().into(),
        }
    }

    /// The current generation. Read it before reading the store, so that a write landing
    /// during the read leaves what was built marked stale.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Records that catalog data changed (call after the write committed), so that nothing
    /// cached before it is served again from this node.
    pub fn changed(&self) {
        self.definitions.changed();
        self.capacity_changed();
    }

    /// Records that places were taken or given back (call after the write committed): lists
    /// and search show what is left, the definitions stay.
    pub fn capacity_changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The search index, rebuilt first when this node's catalog changed since it was built.
    pub async fn search_index(
        self: &Arc<Self>,
        store: &Arc<dyn Store>,
    ) -> Result<Arc<search::SearchIndex>> {
        self.search.get(self, store).await
    }
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}
