//! A per-node map whose entries are served only while the generation they were built at is
//! current and their lifetime has not passed: the one shape every catalog cache shares.
//!
//! The generation catches this node's own writes at once; the lifetime bounds how long a
//! write made on another node can go unseen.
//!
//! An entry past its lifetime (at the same generation) is rebuilt by the first reader who finds
//! it so; the readers behind it are served the old value meanwhile, for at most another
//! lifetime. Otherwise every reader arriving while the entry is rebuilt would rebuild it too:
//! under load that stalled the product list for 0.2 s every 5 s (docs/benchmarks.md, "Open
//! loop").

use std::{
    collections::HashMap,
    hash::Hash,
    sync::{
        atomic::{AtomicBool, Ordering},
        RwLock,
    },
    time::{Duration, Instant},
};

/// Entries kept at most; past it the stale ones go, and if none are stale, all go. Entries are
/// small and rebuilt on demand, so a crude bound is enough to stop unbounded growth.
const MAX_ENTRIES: usize = 20_000;

struct Entry<V> {
    generation: u64,
    built_at: Instant,
    value: V,
    /// A reader found the entry past its lifetime and is rebuilding it.
    refreshing: AtomicBool,
}

pub struct TtlCache<K, V> {
    ttl: Duration,
    entries: RwLock<HashMap<K, Entry<V>>>,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    /// A cache whose entries live `ttl`; zero turns caching off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: RwLock::default(),
        }
    }

    fn fresh(&self, entry: &Entry<V>, generation: u64) -> bool {
        entry.generation == generation && entry.built_at.elapsed() < self.ttl
    }

    /// The value for `key`, if it was built at `generation` and is within its lifetime, or past
    /// it while another reader rebuilds it (see the module's head). `None` tells the caller to
    /// build the value and `put` it.
    pub fn get(&self, key: &K, generation: u64) -> Option<V> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let entry = entries.get(key).filter(|e| e.generation == generation)?;
        let age = entry.built_at.elapsed();
        let served =
            age < self.ttl || (age < self.ttl * 2 && entry.refreshing.swap(true, Ordering::AcqRel));
        served.then(|| entry.value.clone())
    }

    /// Keeps `value`, built from what the store held at `generation` (read the generation
    /// before reading the store, so a write landing during the read leaves it stale).
    pub fn put(&self, key: K, value: V, generation: u64) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, e| self.fresh(e, generation));
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(
            key,
            Entry {
                generation,
                built_at: Instant::now(),
                value,
                refreshing: AtomicBool::new(false),
            },
        );
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

    /// Makes `key`'s entry as old as `age`.
    fn age(cache: &TtlCache<i32, &str>, key: i32, age: Duration) {
        let mut entries = cache.entries.write().unwrap();
        entries.get_mut(&key).unwrap().built_at = Instant::now().checked_sub(age).unwrap();
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
    fn a_full_cache_drops_its_stale_entries_first() {
        let cache = TtlCache::new(Duration::from_secs(60));
        for k in 0..MAX_ENTRIES {
            cache.put(k, k, 1);
        }
        cache.put(MAX_ENTRIES, MAX_ENTRIES, 2);
        assert_eq!(cache.get(&MAX_ENTRIES, 2), Some(MAX_ENTRIES));
        assert_eq!(
            cache.entries.read().unwrap().len(),
            1,
            "generation 1 was stale"
        );
    }
}
