//! Per-node copies of the definitions nearly every partner call reads: campaigns, products,
//! merchants and the return-URL origins partners registered. A checkout reads all four before
//! it looks at capacity; served from here, it goes to the database only for what must be
//! current (the day's places, the key, the writes).
//!
//! Freshness: definitions change only through the admin API, which calls
//! [`super::Catalog::changed`] after each write, so this node never serves a definition older
//! than its own last write. Another node's write is seen once the entry's lifetime
//! (`BOXOFFICE_CATALOG_CACHE_TTL`, 5 s by default) has passed. Capacity and prices per day are
//! not definitions: they are always read from the store. Only what exists is kept, so an
//! unknown id costs a query each time and cannot fill the cache. Whether a partner client may
//! use a campaign is not kept: taking a campaign away ends the client's sessions at once, on
//! every node.

use std::{
    future::Future,
    hash::Hash,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Duration,
};

use uuid::Uuid;

use crate::cache::TtlCache;
use crate::store::{Campaign, ClientOrigins, Merchant, Product, Store, StoreResult};

pub struct Definitions {
    generation: AtomicU64,
    campaigns: TtlCache<Uuid, Campaign>,
    products: TtlCache<Uuid, Product>,
    merchants: TtlCache<Uuid, Merchant>,
    /// (campaign, partner client or none for guests) → origins per client.
    return_origins: TtlCache<(Uuid, Option<Uuid>), Arc<[ClientOrigins]>>,
}

impl Definitions {
    /// Copies live `ttl`; zero turns them off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            generation: AtomicU64::new(0),
            campaigns: TtlCache::new(ttl),
            products: TtlCache::new(ttl),
            merchants: TtlCache::new(ttl),
            return_origins: TtlCache::new(ttl),
        }
    }

    /// The current generation: it moves at every change of a definition made through this
    /// node. Read it before reading the store (see `cached`).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Records that a definition changed (after the write committed).
    pub(super) fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub async fn campaign(&self, store: &dyn Store, id: Uuid) -> StoreResult<Option<Campaign>> {
        self.cached(&self.campaigns, id, || store.campaign(id))
            .await
    }

    pub async fn product(&self, store: &dyn Store, id: Uuid) -> StoreResult<Option<Product>> {
        self.cached(&self.products, id, || store.product(id)).await
    }

    pub async fn merchant(&self, store: &dyn Store, id: Uuid) -> StoreResult<Option<Merchant>> {
        self.cached(&self.merchants, id, || store.merchant(id))
            .await
    }

    pub async fn return_origins(
        &self,
        store: &dyn Store,
        campaign_id: Uuid,
        partner_client_id: Option<Uuid>,
    ) -> StoreResult<Arc<[ClientOrigins]>> {
        let load = || async {
            let origins = store.return_origins(campaign_id, partner_client_id).await?;
            Ok(Some(Arc::from(origins)))
        };
        let key = (campaign_id, partner_client_id);
        let origins = self.cached(&self.return_origins, key, load).await?;
        Ok(origins.unwrap_or_else(|| Arc::from([])))
    }

    /// The copy of `key`, or what `load` reads (kept when there is something).
    async fn cached<K, V, F>(
        &self,
        cache: &TtlCache<K, V>,
        key: K,
        load: impl FnOnce() -> F,
    ) -> StoreResult<Option<V>>
    where
        K: Eq + Hash + Send + Sync + 'static,
        V: Clone + Send + Sync + 'static,
        F: Future<Output = StoreResult<Option<V>>>,
    {
        // Read before the store, so a write landing during the read leaves the copy stale.
        let generation = self.generation();
        if let Some(value) = cache.get(&key, generation) {
            return Ok(Some(value));
        }
        let loaded = load().await?;
        if let Some(value) = &loaded {
            cache.put(key, value.clone(), generation);
        }
        Ok(loaded)
    }
}
