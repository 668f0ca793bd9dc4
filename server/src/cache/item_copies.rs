//! Per-node copies of items as a page writes them (their JSON), each kept with the version of
//! the row it was written from: a page reads only which items it holds and their versions,
//! writes each item whose copy is of that version from the copy, and reads the others in one
//! go. The customer's own lists use it (`checkout::customer_copies`).
//!
//! The versions come from the database with every page, so a copy is never served for a row
//! that changed since, on whichever node; what else an item's JSON depends on is the caller's
//! to bound with the generation and the lifetime (`TtlCache`).

use std::{future::Future, hash::Hash, sync::Arc, time::Duration};

use super::TtlCache;
use crate::error::Result;

pub struct ItemCopies<K, V> {
    copies: TtlCache<K, Copy<V>>,
}

#[derive(Clone)]
struct Copy<V> {
    version: V,
    json: Arc<[u8]>,
}

/// An item read afresh: its key, the version it was read at and its JSON.
pub struct Written<K, V> {
    pub key: K,
    pub version: V,
    pub json: Vec<u8>,
}

/// Items written as a page's `data`: a JSON array, and how many it holds.
pub struct ItemsJson {
    pub json: Vec<u8>,
    pub count: usize,
}

impl<K, V> ItemCopies<K, V>
where
    K: Eq + Hash + Clone + Send + Sync + 'static,
    V: Clone + PartialEq + Send + Sync + 'static,
{
    /// Copies that live `ttl`; zero turns them off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            copies: TtlCache::new(ttl),
        }
    }

    /// The items `wanted` names, in its order, as a JSON array: from the copies where they hold
    /// the version wanted, the others from `read` (given their keys) and kept. An item `read`
    /// does not return (no longer there) is left out. `generation` is read before the store,
    /// as for every `TtlCache`.
    pub async fn write<F, Fut>(
        &self,
        wanted: &[(K, V)],
        generation: u64,
        read: F,
    ) -> Result<ItemsJson>
    where
        F: FnOnce(Vec<K>) -> Fut,
        Fut: Future<Output = Result<Vec<Written<K, V>>>>,
    {
        let mut found: Vec<Option<Arc<[u8]>>> = wanted
            .iter()
            .map(|(key, version)| {
                let copy = self.copies.get(key, generation)?;
                (copy.version == *version).then_some(copy.json)
            })
            .collect();
        let missing: Vec<K> = wanted
            .iter()
            .zip(&found)
            .filter(|(_, json)| json.is_none())
            .map(|((key, _), _)| key.clone())
            .collect();
        if !missing.is_empty() {
            for item in read(missing).await? {
                let json: Arc<[u8]> = item.json.into();
                for ((key, _), slot) in wanted.iter().zip(found.iter_mut()) {
                    if *key == item.key && slot.is_none() {
                        *slot = Some(json.clone());
                    }
                }
                let copy = Copy {
                    version: item.version,
                    json,
                };
                self.copies.put(item.key, copy, generation);
            }
        }
        let size = found.iter().flatten().map(|j| j.len() + 1).sum::<usize>();
        let mut out = ItemsJson {
            json: Vec::with_capacity(size + 2),
            count: 0,
        };
        out.json.push(b'[');
        for json in found.iter().flatten() {
            if out.count > 0 {
                out.json.push(b',');
            }
            out.json.extend_from_slice(json);
            out.count += 1;
        }
        out.json.push(b']');
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    fn written(key: u32, version: u32, json: &str) -> Written<u32, u32> {
        Written {
            key,
            version,
            json: json.as_bytes().to_vec(),
        }
    }

    /// `copies.write` of `wanted`, where the store holds `rows` (key, version, JSON); returns
    /// the page and which keys were read from the store.
    async fn page(
        copies: &ItemCopies<u32, u32>,
        wanted: &[(u32, u32)],
        rows: &[(u32, u32, &str)],
    ) -> (String, usize, Vec<u32>) {
        let asked = Mutex::new(Vec::new());
        let out = copies
            .write(wanted, 0, |keys| {
                asked.lock().unwrap().extend(keys.iter().copied());
                let rows: Vec<_> = rows
                    .iter()
                    .filter(|(k, _, _)| keys.contains(k))
                    .map(|(k, v, j)| written(*k, *v, j))
                    .collect();
                async move { Ok(rows) }
            })
            .await
            .unwrap();
        let asked = asked.into_inner().unwrap();
        (String::from_utf8(out.json).unwrap(), out.count, asked)
    }

    #[tokio::test]
    async fn a_copy_is_served_only_at_the_version_the_page_read() {
        let copies = ItemCopies::new(Duration::from_secs(60));
        let (json, count, asked) = page(
            &copies,
            &[(1, 1), (2, 1)],
            &[(1, 1, "\"a\""), (2, 1, "\"b\"")],
        )
        .await;
        assert_eq!((json.as_str(), count), (r#"["a","b"]"#, 2));
        assert_eq!(asked, [1, 2], "nothing was copied yet");

        let (json, _, asked) = page(&copies, &[(2, 1), (1, 1)], &[]).await;
        assert_eq!(
            json, r#"["b","a"]"#,
            "both from their copies, in the page's order"
        );
        assert!(asked.is_empty());

        // Item 2 changed (on any node): its new version is read, item 1 still copied.
        let (json, _, asked) = page(&copies, &[(2, 2), (1, 1)], &[(2, 2, "\"B\"")]).await;
        assert_eq!(json, r#"["B","a"]"#);
        assert_eq!(asked, [2]);
    }

    #[tokio::test]
    async fn an_item_gone_from_the_store_is_left_out_and_copies_can_be_off() {
        let off = ItemCopies::new(Duration::ZERO);
        let (json, count, _) = page(&off, &[(1, 1), (2, 1)], &[(2, 1, "2")]).await;
        assert_eq!((json.as_str(), count), ("[2]", 1));
        let (_, _, asked) = page(&off, &[(2, 1)], &[(2, 1, "2")]).await;
        assert_eq!(asked, [2], "nothing is kept with a zero lifetime");

        let (json, count, _) = page(&off, &[], &[]).await;
        assert_eq!((json.as_str(), count), ("[]", 0));
    }
}
