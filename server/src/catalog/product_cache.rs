//! Serialised product lists per (merchant, campaign, locale), so a repeated read costs a map
//! lookup instead of four queries and a serialisation. An entry is served only while the
//! catalog generation it was built at is current and its lifetime has not passed.

use std::sync::Arc;

use app::wire::Locale;
use axum::http::HeaderValue;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::cache::TtlCache;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProductListKey {
    pub merchant_id: Uuid,
    pub campaign_id: Uuid,
    pub locale: Locale,
}

/// A product list ready to send: the JSON array of `data` and its strong validator.
#[derive(Debug)]
pub struct ProductListBody {
    /// The serialised `data` array.
    pub data: Vec<u8>,
    pub etag: HeaderValue,
}

impl ProductListBody {
    pub fn new(locale: Locale, data: Vec<u8>) -> Self {
        let etag = HeaderValue::from_str(&etag(locale, &data)).expect("hex is a valid header");
        Self { data, etag }
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
    format!("\"{}\"", hex::encode(&digest[..16]))
}

pub type ProductListCache = TtlCache<ProductListKey, Arc<ProductListBody>>;

#[cfg(test)]
mod tests {
    use super::*;

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
