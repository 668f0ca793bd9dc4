//! Searching the index: which merchants match, their relevance score, and their order.
//!
//! Scoring (also in docs/api-catalog.md). The query is folded and split into words like the
//! indexed text. A query word matches an indexed word exactly (quality 3), as its prefix
//! (quality 2), or, for query words of three or more characters, inside it (quality 1). Where
//! it matches weighs: a name (any language) 4; for broadsearch also city 2, category 2 and a
//! title of a product in the campaign 1. A merchant matches when every query word matches
//! somewhere; its score is the sum over query words of the best weight × quality. Order: score
//! descending, or distance ascending when the search is geo-filtered; ties by merchant id.

use std::cmp::Ordering;

use uuid::Uuid;

use super::index::{Field, SearchIndex};
use crate::{catalog::geo, store::Merchant};

const EXACT: u32 = 3;
const PREFIX: u32 = 2;
const INFIX: u32 = 1;
/// Shorter query words match only whole words and prefixes: "a" inside every word is noise.
const MIN_INFIX_CHARS: usize = 3;

fn weight(field: Field, broad: bool) -> Option<u32> {
    match (field, broad) {
        (Field::Name, _) => Some(4),
        (Field::City | Field::Category, true) => Some(2),
        (Field::ProductTitle, true) => Some(1),
        _ => None,
    }
}

/// A point to measure from, and optionally how far a match may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Near {
    pub latitude: f64,
    pub longitude: f64,
    pub radius_km: Option<f64>,
}

/// What to search for.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    pub campaign_id: Uuid,
    /// Folded query words, distinct; empty matches every merchant.
    pub words: &'a [String],
    /// Broadsearch: also city, category and product titles.
    pub broad: bool,
    /// A folded category the merchant's must equal.
    pub category: Option<&'a str>,
    pub near: Option<Near>,
}

/// One matching merchant.
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a> {
    pub merchant: &'a Merchant,
    pub score: u32,
    pub distance_km: Option<f64>,
    /// The merchant's cached JSON (see `render.rs`).
    pub rendered: &'a super::render::Rendered,
}

/// A position in the result order: lower comes first, then the lower id.
pub type Position = (f64, Uuid);

impl Hit<'_> {
    pub fn position(&self) -> Position {
        let rank = match self.distance_km {
            Some(d) => d,
            None => -f64::from(self.score),
        };
        (rank, self.merchant.merchant_id)
    }
}

fn compare(a: &Position, b: &Position) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

impl SearchIndex {
    /// Indexes of terms matching `word`, with the quality of the match.
    fn matching_terms(&self, word: &str) -> Vec<(usize, u32)> {
        let start = self.terms.partition_point(|t| &**t < word);
        let mut found: Vec<(usize, u32)> = self.terms[start..]
            .iter()
            .take_while(|t| t.starts_with(word))
            .enumerate()
            .map(|(i, t)| (start + i, if &**t == word { EXACT } else { PREFIX }))
            .collect();
        if word.chars().count() >= MIN_INFIX_CHARS {
            found.extend(
                self.terms
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| !t.starts_with(word) && t.contains(word))
                    .map(|(i, _)| (i, INFIX)),
            );
        }
        found
    }

    /// Merchants (by position) matching every word, with their scores. Dense per-merchant
    /// arrays keep a broad word (thousands of postings) linear instead of sorting postings.
    fn text_matches(&self, query: &Query<'_>) -> Vec<(u32, u32)> {
        let n = self.merchants.len();
        let mut total = vec![0u32; n];
        let mut matched_words = vec![0u8; n];
        let mut first: Vec<u32> = Vec::new();
        for (i, word) in query.words.iter().enumerate() {
            let mut best = vec![0u8; n];
            let mut touched = Vec::new();
            for (term, quality) in self.matching_terms(word) {
                for posting in self.postings[term].iter() {
                    let Some(weight) = weight(posting.field, query.broad) else {
                        continue;
                    };
                    if posting.field == Field::ProductTitle
                        && self.product_campaigns[posting.product as usize]
                            .binary_search(&query.campaign_id)
                            .is_err()
                    {
                        continue;
                    }
                    let m = posting.merchant as usize;
                    let score = (weight * quality) as u8;
                    if best[m] == 0 {
                        touched.push(posting.merchant);
                    }
                    best[m] = best[m].max(score);
                }
            }
            for &m in &touched {
                total[m as usize] += u32::from(best[m as usize]);
                matched_words[m as usize] += 1;
            }
            if i == 0 {
                first = touched;
            }
        }
        let all = query.words.len() as u8;
        first
            .into_iter()
            .filter(|&m| matched_words[m as usize] == all)
            .map(|m| (m, total[m as usize]))
            .collect()
    }

    /// Every merchant matching `query`, in result order.
    pub fn search(&self, query: &Query<'_>) -> Vec<Hit<'_>> {
        let candidates: Box<dyn Iterator<Item = (u32, u32)>> = if query.words.is_empty() {
            Box::new((0..self.merchants.len() as u32).map(|m| (m, 0)))
        } else {
            Box::new(self.text_matches(query).into_iter())
        };
        let mut hits: Vec<Hit<'_>> = candidates
            .filter_map(|(m, score)| {
                let entry = &self.merchants[m as usize];
                if !entry.in_campaign(&query.campaign_id)
                    || query.category.is_some_and(|c| c != entry.category)
                {
                    return None;
                }
                let distance_km = match query.near {
                    None => None,
                    Some(near) => {
                        let location = entry.merchant.location;
                        if near.radius_km.is_some_and(|r| {
                            geo::surely_farther(near.latitude, location.latitude, r)
                        }) {
                            return None;
                        }
                        let d = geo::distance_km(
                            near.latitude,
                            near.longitude,
                            location.latitude,
                            location.longitude,
                        );
                        if near.radius_km.is_some_and(|r| d > r) {
                            return None;
                        }
                        Some(d)
                    }
                };
                Some(Hit {
                    merchant: &entry.merchant,
                    rendered: &entry.rendered,
                    score,
                    distance_km,
                })
            })
            .collect();
        hits.sort_unstable_by(|a, b| compare(&a.position(), &b.position()));
        hits
    }
}

/// The hits after `after` (all when `None`), for keyset paging over a result order.
pub fn after<'a, 'h>(hits: &'a [Hit<'h>], after: Option<&Position>) -> &'a [Hit<'h>] {
    match after {
        None => hits,
        Some(position) => {
            let start =
                hits.partition_point(|h| compare(&h.position(), position) != Ordering::Greater);
            &hits[start..]
        }
    }
}
