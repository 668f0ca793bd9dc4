//! A per-node map whose entries are served only while the generation they were built at is
//! current and their lifetime has not passed: the one shape every cache of the node shares.
//!
//! The generation catches this node's own writes at once; the lifetime bounds how long a
//! write made on another node can go unseen.
//!
//! The map itself is moka's: bounded in size (least-used entries go first) and forgetting an
//! entry two lifetimes after it was built. What moka has no notion of is our own: the
//! generation, and serving a stale entry while one reader rebuilds it. An entry past its
//! lifetime (at the same generation) is rebuilt by the first reader who finds it so; the
//! readers behind it are served the old value meanwhile, for at most another lifetime.
//! Otherwise every reader arriving while the entry is rebuilt would rebuild it too: under load
//! that stalled the product list for 0.2 s every 5 s (docs/benchmarks.md, "Open loop").

use std::{
    hash::Hash,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

/// Entries kept at most. Entries are small and rebuilt on demand.
const MAX_ENTRIES: u64 = 20_000;

struct Entry<V> {
    generation: u64,
    built_at: Instant,
    value: V,
    /// A reader found the entry past its lifetime and is rebuilding it.
    refreshing: AtomicBool,
}

pub struct TtlCache<K, V> {
    ttl: Duration,
    entries: moka::sync::Cache<K, Arc<Entry<V>>>,
}

impl<K, V> TtlCache<K, V>
where
    K: Eq + Hash + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// A cache whose entries live `ttl`; zero turns caching off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: moka::sync::Cache::builder()
                .max_capacity(if ttl.is_zero() { 0 } else { MAX_ENTRIES })
                .time_to_live((ttl * 2).max(Duration::from_millis(1)))
                .build(),
        }
    }

    /// The value for `key`, if it was built at `generation` and is within its lifetime, or past
    /// it while another reader rebuilds it (see the module's head). `None` tells the caller to
    /// build the value and `put` it.
    pub fn get(&self, key: &K, generation: u64) -> Option<V> {
        let entry = self
            .entries
            .get(key)
            .filter(|e| e.generation == generation)?;
        let age = entry.built_at.elapsed();
        let served =
            age < self.ttl || (age < self.ttl * 2 && entry.refreshing.swap(true, Ordering::AcqRel));
        served.then(|| entry.value.clone())
    }

    /// Keeps `value`, built from what the store held at `generation` (read the generation
    /// before reading the store, so a write landing during the read leaves it stale).
    pub fn put(&self, key: K, value: V, generation: u64) {
        self.put_built_at(key, value, generation, Instant::now());
    }

    fn put_built_at(&self, key: K, value: V, generation: u64, built_at: Instant) {
        if self.ttl.is_zero() {
            return;
        }
        let entry = Entry {
            generation,
            built_at,
            value,
            refreshing: AtomicBool::new(false),
        };
        self.entries.insert(key, Arc::new(entry));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_served_only_at_its_generation_and_within_its_lifetime() {
        let cache = TtlCache::new(Duration::from_secs(60));
        cache.put(1, "a", 3);
        assert_eq!(cache.get(&1, 3), Some("a"));
        assert_eq!(cache.get(&1, 4), None, "the data changed since");
        assert_eq!(cache.get(&2, 3), None, "never kept");

        let short = TtlCache::new(Duration::from_millis(1));
        short.put(1, "a", 3);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(short.get(&1, 3), None, "past its lifetime");

        let off = TtlCache::new(Duration::ZERO);
        off.put(1, "a", 3);
        assert_eq!(off.get(&1, 3), None, "a zero lifetime turns caching off");
    }

    /// Makes `key`'s entry as old as `age`, its value and generation kept.
    fn age(cache: &TtlCache<i32, &'static str>, key: i32, age: Duration) {
        let entry = cache.entries.get(&key).unwrap();
        let built_at = Instant::now().checked_sub(age).unwrap();
        cache.put_built_at(key, entry.value, entry.generation, built_at);
    }

    #[test]
    fn past_its_lifetime_one_reader_rebuilds_while_the_others_get_the_old_value() {
        let cache = TtlCache::new(Duration::from_secs(10));
        cache.put(1, "old", 3);
        age(&cache, 1, Duration::from_secs(15));
        assert_eq!(cache.get(&1, 3), None, "the first reader rebuilds");
        assert_eq!(
            cache.get(&1, 3),
            Some("old"),
            "meanwhile the others get the old value"
        );
        assert_eq!(cache.get(&1, 3), Some("old"));
        assert_eq!(cache.get(&1, 4), None, "never across a generation");
        cache.put(1, "new", 3);
        assert_eq!(cache.get(&1, 3), Some("new"));

        // A rebuild that never came back: past two lifetimes nobody gets the old value.
        age(&cache, 1, Duration::from_secs(25));
        assert_eq!(cache.get(&1, 3), None);
        assert_eq!(cache.get(&1, 3), None);
    }

    #[test]
    fn a_full_cache_stays_within_its_bound() {
        let cache = TtlCache::new(Duration::from_secs(60));
        for k in 0..2 * MAX_ENTRIES {
            cache.put(k, k, 1);
        }
        cache.entries.run_pending_tasks();
        assert!(cache.entries.entry_count() <= MAX_ENTRIES);
    }
}
