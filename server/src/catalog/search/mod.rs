//! Merchant search over an in-memory index per node, so a search without `limit` over a large
//! catalog answers in milliseconds instead of scanning folded text in SQL.
//!
//! Freshness: the index remembers the catalog generation it was built from. A search after a
//! catalog write on this node waits for a rebuild (one at a time; concurrent searches share
//! it), so a node always reflects its own writes. Writes on other nodes are picked up when the
//! index is older than its lifetime: the search is answered from the current index while a
//! rebuild runs in the background.

mod index;
mod query;
mod render;
#[cfg(test)]
mod tests;

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

pub use index::SearchIndex;
pub use query::{after, Hit, Near, Position, Query};
pub use render::json_array;

use super::Catalog;
use crate::{error::Result, store::Store};

/// Rows per store read while loading the index.
const LOAD_BATCH: u32 = 1000;

pub struct SearchIndexCell {
    ttl: Duration,
    current: RwLock<Option<Arc<SearchIndex>>>,
    rebuild: tokio::sync::Mutex<()>,
    refreshing: AtomicBool,
}

impl SearchIndexCell {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            current: RwLock::new(None),
            rebuild: tokio::sync::Mutex::new(()),
            refreshing: AtomicBool::new(false),
        }
    }

    fn current(&self) -> Option<Arc<SearchIndex>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn current_at(&self, generation: u64) -> Option<Arc<SearchIndex>> {
        self.current().filter(|i| i.generation >= generation)
    }

    pub async fn get(
        &self,
        catalog: &Arc<Catalog>,
        store: &Arc<dyn Store>,
    ) -> Result<Arc<SearchIndex>> {
        if let Some(index) = self.current_at(catalog.generation()) {
            if index.built_at.elapsed() >= self.ttl && !self.refreshing.swap(true, Ordering::AcqRel)
            {
                let (catalog, store) = (catalog.clone(), store.clone());
                tokio::spawn(async move {
                    let cell = &catalog.search;
                    let _one_at_a_time = cell.rebuild.lock().await;
                    if let Err(err) = cell.build(&catalog, &store).await {
                        tracing::warn!(error = ?err, "refreshing the search index failed");
                    }
                    cell.refreshing.store(false, Ordering::Release);
                });
            }
            return Ok(index);
        }
        let _one_at_a_time = self.rebuild.lock().await;
        // A search that waited here may find the index another one just built.
        if let Some(index) = self.current_at(catalog.generation()) {
            return Ok(index);
        }
        self.build(catalog, store).await
    }

    async fn build(&self, catalog: &Catalog, store: &Arc<dyn Store>) -> Result<Arc<SearchIndex>> {
        let generation = catalog.generation();
        let index = Arc::new(load(store.as_ref(), generation).await?);
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        if current.as_ref().is_none_or(|c| c.generation <= generation) {
            *current = Some(index.clone());
        }
        Ok(index)
    }
}

/// Reads every merchant and product and indexes them off the async workers.
async fn load(store: &dyn Store, generation: u64) -> Result<SearchIndex> {
    let mut merchants = Vec::new();
    let mut after = None;
    loop {
        let batch = store.list_merchants(None, after, LOAD_BATCH).await?;
        after = batch.last().map(|m| m.merchant_id);
        let done = batch.len() < LOAD_BATCH as usize;
        merchants.extend(batch);
        if done {
            break;
        }
    }
    let mut products = Vec::new();
    let mut after = None;
    loop {
        let batch = store
            .list_products(Default::default(), after, LOAD_BATCH)
            .await?;
        after = batch.last().map(|p| p.product_id);
        let done = batch.len() < LOAD_BATCH as usize;
        products.extend(batch);
        if done {
            break;
        }
    }
    let index =
        tokio::task::spawn_blocking(move || SearchIndex::build(generation, merchants, &products))
            .await
            .map_err(anyhow::Error::from)?;
    Ok(index)
}
