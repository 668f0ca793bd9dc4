//! Serialised product lists per (merchant, campaign, locale), so a repeated read costs a map
//! lookup instead of four queries and a serialisation. An entry is served only while the
//! catalog generation it was built at is current and its lifetime has not passed.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use app::wire::Locale;
use axum::http::HeaderValue;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Entries kept at most; past it the stale ones go, and if none are stale, all go. Entries are
/// small and rebuilt on demand, so a crude bound is enough to stop unbounded growth.
const MAX_ENTRIES: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProductListKey {
    pub merchant_id: Uuid,
    pub campaign_id: Uuid,
    pub locale: Locale,
}

/// A product list ready to send: the JSON array of `data` and its strong validator.
#[derive(Debug)]
pub struct ProductListBody {
    pub generation: u64,
    pub built_at: Instant,
    /// The serialised `data` array.
    pub data: Vec<u8>,
    pub etag: HeaderValue,
}

impl ProductListBody {
    pub fn new(generation: u64, locale: Locale, data: Vec<u8>) -> Self {
        let etag = HeaderValue::from_str(&etag(locale, &data)).expect("hex is a valid header");
        Self {
            generation,
            built_at: Instant::now(),
            data,
            etag,
        }
    }
}

/// A strong entity tag over the representation's content: the locale it is in and the bytes of
/// `data` (see docs/api-catalog.md for why `meta.correlation_id` is not part of it).
pub fn etag(locale: Locale, data: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(locale.tag().as_bytes());
    hash.update([0]);
    hash.update(data);
    let digest = hash.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

pub struct ProductListCache {
    ttl: Duration,
    entries: RwLock<HashMap<ProductListKey, Arc<ProductListBody>>>,
}

impl ProductListCache {
    /// A cache whose entries live `ttl`; zero turns caching off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: RwLock::default(),
        }
    }

    fn fresh(&self, body: &ProductListBody, generation: u64) -> bool {
        body.generation == generation && body.built_at.elapsed() < self.ttl
    }

    /// The entry for `key`, if it is still fresh at `generation`.
    pub fn get(&self, key: &ProductListKey, generation: u64) -> Option<Arc<ProductListBody>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries
            .get(key)
            .filter(|body| self.fresh(body, generation))
            .cloned()
    }

    pub fn put(&self, key: ProductListKey, body: Arc<ProductListBody>, generation: u64) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, b| self.fresh(b, generation));
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(key, body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ProductListKey {
        ProductListKey {
            merchant_id: Uuid::nil(),
            campaign_id: Uuid::nil(),
            locale: Locale::NlNl,
        }
    }

    #[test]
    fn an_entry_is_served_only_at_its_generation_and_within_its_lifetime() {
        let cache = ProductListCache::new(Duration::from_secs(60));
        cache.put(
            key(),
            Arc::new(ProductListBody::new(3, Locale::NlNl, b"[]".to_vec())),
            3,
        );
        assert!(cache.get(&key(), 3).is_some());
        assert!(cache.get(&key(), 4).is_none(), "the catalog changed since");

        let short = ProductListCache::new(Duration::from_millis(1));
        short.put(
            key(),
            Arc::new(ProductListBody::new(3, Locale::NlNl, b"[]".to_vec())),
            3,
        );
        std::thread::sleep(Duration::from_millis(5));
        assert!(short.get(&key(), 3).is_none(), "past its lifetime");

        let off = ProductListCache::new(Duration::ZERO);
        off.put(
            key(),
            Arc::new(ProductListBody::new(3, Locale::NlNl, b"[]".to_vec())),
            3,
        );
        assert!(
            off.get(&key(), 3).is_none(),
            "a zero lifetime turns caching off"
        );
    }

    #[test]
    fn the_etag_is_quoted_and_depends_on_locale_and_content() {
        let a = etag(Locale::NlNl, b"[1]");
        assert!(
            a.starts_with('"') && a.ends_with('"') && a.len() == 34,
            "{a}"
        );
        assert_eq!(a, etag(Locale::NlNl, b"[1]"));
        assert_ne!(a, etag(Locale::EnGb, b"[1]"));
        assert_ne!(a, etag(Locale::NlNl, b"[2]"));
    }
}
