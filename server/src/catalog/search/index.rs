//! The in-memory merchant index: every merchant with its campaigns, and an inverted index from
//! folded words to where they occur (a merchant's names, city and category, and the titles of
//! its products). Built whole from the store; see `query.rs` for how it is searched.

use std::{
    collections::{HashMap, HashSet},
    time::Instant,
};

use uuid::Uuid;

use crate::{
    store::{Merchant, Product},
    text::{fold, words},
};

/// Where a word occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The merchant's name, in any language.
    Name,
    City,
    Category,
    /// The title of one of the merchant's products, in any language.
    ProductTitle,
}

/// One occurrence of a word. `product` indexes `SearchIndex::product_campaigns` for product
/// titles (a title counts only in the campaigns its product is in), and is unused otherwise.
#[derive(Debug, Clone, Copy)]
pub struct Posting {
    pub merchant: u32,
    pub field: Field,
    pub product: u32,
}

/// A merchant as the index holds it.
#[derive(Debug)]
pub struct Entry {
    pub merchant: Merchant,
    /// Campaigns with a product of this merchant, sorted.
    pub campaigns: Box<[Uuid]>,
    /// The folded category, for the exact category filter.
    pub category: String,
    /// The merchant's JSON per language, made when first answered.
    pub rendered: super::render::Rendered,
}

impl Entry {
    pub fn in_campaign(&self, campaign_id: &Uuid) -> bool {
        self.campaigns.binary_search(campaign_id).is_ok()
    }
}

#[derive(Debug)]
pub struct SearchIndex {
    /// The catalog generation the index was built from.
    pub generation: u64,
    pub built_at: Instant,
    /// In id order.
    pub merchants: Vec<Entry>,
    /// Distinct folded words, sorted, so words with a given prefix are one contiguous run.
    pub terms: Vec<Box<str>>,
    /// Occurrences of `terms[i]`.
    pub postings: Vec<Box<[Posting]>>,
    /// Campaigns of each indexed product, sorted.
    pub product_campaigns: Vec<Box<[Uuid]>>,
}

const NO_PRODUCT: u32 = u32::MAX;

impl SearchIndex {
    /// Indexes `merchants` and `products` (every merchant and product of the catalog).
    pub fn build(generation: u64, mut merchants: Vec<Merchant>, products: &[Product]) -> Self {
        merchants.sort_by_key(|m| m.merchant_id);
        let position: HashMap<Uuid, u32> = merchants
            .iter()
            .enumerate()
            .map(|(i, m)| (m.merchant_id, i as u32))
            .collect();
        let mut campaigns: Vec<Vec<Uuid>> = vec![Vec::new(); merchants.len()];
        let mut occurrences: HashMap<String, Vec<Posting>> = HashMap::new();
        let mut add = |word: String, posting: Posting, seen: &mut HashSet<(String, Field)>| {
            if seen.insert((word.clone(), posting.field)) {
                occurrences.entry(word).or_default().push(posting);
            }
        };

        for (i, m) in merchants.iter_mut().enumerate() {
            let mut seen = HashSet::new();
            let names = std::iter::once(m.name.as_str())
                .chain(m.translations.iter().map(|t| t.name.as_str()));
            let fields = names.map(|text| (text, Field::Name)).chain([
                (m.address.city.as_str(), Field::City),
                (m.category.as_str(), Field::Category),
            ]);
            for (text, field) in fields {
                for word in words(text) {
                    let posting = Posting {
                        merchant: i as u32,
                        field,
                        product: NO_PRODUCT,
                    };
                    add(word, posting, &mut seen);
                }
            }
            // The stored search text is the operator API's; the index has its own.
            m.search_text = String::new();
        }

        let mut product_campaigns = Vec::with_capacity(products.len());
        for product in products {
            let Some(&merchant) = position.get(&product.merchant_id) else {
                continue;
            };
            let mut ids = product.campaign_ids.clone();
            ids.sort();
            campaigns[merchant as usize].extend_from_slice(&ids);
            let index = product_campaigns.len() as u32;
            product_campaigns.push(ids.into_boxed_slice());
            let mut seen = HashSet::new();
            let titles = std::iter::once(product.title.as_str())
                .chain(product.translations.iter().map(|t| t.title.as_str()));
            for title in titles {
                for word in words(title) {
                    let posting = Posting {
                        merchant,
                        field: Field::ProductTitle,
                        product: index,
                    };
                    add(word, posting, &mut seen);
                }
            }
        }

        let mut terms: Vec<(String, Vec<Posting>)> = occurrences.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (terms, postings) = terms
            .into_iter()
            .map(|(t, p)| (t.into_boxed_str(), p.into_boxed_slice()))
            .unzip();
        let merchants = merchants
            .into_iter()
            .zip(campaigns)
            .map(|(merchant, mut campaigns)| {
                campaigns.sort();
                campaigns.dedup();
                Entry {
                    category: fold(&merchant.category),
                    merchant,
                    campaigns: campaigns.into_boxed_slice(),
                    rendered: Default::default(),
                }
            })
            .collect();
        SearchIndex {
            generation,
            built_at: Instant::now(),
            merchants,
            terms,
            postings,
            product_campaigns,
        }
    }
}
