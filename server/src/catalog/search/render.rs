//! Search results written as JSON from each merchant's rendering, made once per language and
//! index. An unlimited search answers thousands of merchants; serialising each anew for every
//! request (through the flattened `MerchantMatch`) cost more than everything else the search
//! does (docs/benchmarks.md).

use std::sync::OnceLock;

use app::wire::Locale;

use super::query::Hit;
use crate::catalog::{geo::round_km, merchants::to_wire};

/// An indexed merchant as `wire::Merchant` JSON, per language, made on first use.
#[derive(Debug, Default)]
pub struct Rendered([OnceLock<Box<str>>; 4]);

fn slot(locale: Locale) -> usize {
    match locale {
        Locale::NlNl => 0,
        Locale::EnGb => 1,
        Locale::DeDe => 2,
        Locale::FrFr => 3,
    }
}

impl Hit<'_> {
    /// Appends the hit as `MerchantMatch` JSON: the merchant's object, with `distance_km` added
    /// last on a geo search (the match flattens the merchant into one object).
    /// Pictures' URLs are under `base`, the same for every call (the public origin).
    pub fn write_json(&self, locale: Locale, base: &str, out: &mut Vec<u8>) {
        let json = self.rendered.0[slot(locale)].get_or_init(|| {
            serde_json::to_string(&to_wire(self.merchant, locale, base))
                .expect("a merchant serialises")
                .into()
        });
        match self.distance_km {
            None => out.extend_from_slice(json.as_bytes()),
            Some(d) => {
                let open = json.strip_suffix('}').expect("a JSON object");
                out.extend_from_slice(open.as_bytes());
                out.extend_from_slice(br#","distance_km":"#);
                serde_json::to_writer(&mut *out, &round_km(d)).expect("a distance serialises");
                out.push(b'}');
            }
        }
    }
}

/// `hits` as a JSON array of `MerchantMatch`.
pub fn json_array(hits: &[Hit<'_>], locale: Locale, base: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(hits.len() * 512 + 2);
    out.push(b'[');
    for (i, hit) in hits.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        hit.write_json(locale, base, &mut out);
    }
    out.push(b']');
    out
}
