//! Matching, scoring and ordering of the search index.

use app::wire::Locale;
use chrono::Utc;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{after, Near, Query, SearchIndex};
use crate::store::{Address, Location, Merchant, MerchantTranslation, Product, ProductTranslation};

fn id(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

const CAMPAIGN: Uuid = Uuid::from_u128(1000);
const OTHER: Uuid = Uuid::from_u128(2000);

fn merchant(n: u128, name: &str, city: &str, category: &str, at: (f64, f64)) -> Merchant {
    Merchant {
        merchant_id: id(n),
        name: name.into(),
        description: String::new(),
        category: category.into(),
        address: Address {
            street: "Straat 1".into(),
            postal_code: "1000 AA".into(),
            city: city.into(),
            country: "NL".into(),
        },
        location: Location {
            latitude: at.0,
            longitude: at.1,
        },
        timezone: "Europe/Amsterdam".into(),
        currency: "EUR".into(),
        image_url: None,
        images: Default::default(),
        website: None,
        translations: Vec::new(),
        settlement: Default::default(),
        search_text: String::new(),
        created_at: Utc::now(),
        updated_at: Utc::now(),
    }
}

fn product(n: u128, merchant: u128, title: &str, campaigns: &[Uuid]) -> Product {
    Product {
        product_id: id(n),
        merchant_id: id(merchant),
        availability_group_id: id(n),
        title: title.into(),
        product_type: "TICKET".into(),
        physical_product: false,
        sku: format!("SKU-{n}"),
        age_group: None,
        unit_price: Decimal::ONE,
        list_price: Decimal::ONE,
        booking_costs: Decimal::ZERO,
        visit_guarantee_cost: Decimal::ZERO,
        no_date: false,
        requires_timeslot: false,
        conditions: String::new(),
        ticket_validity_type: None,
        ticket_validity_date: None,
        provider: "inventory".into(),
        campaign_ids: campaigns.to_vec(),
        translations: Vec::new(),
        after_sale: None,
        commission: None,
        questions: None,
        images: Default::default(),
        created_at: Utc::now(),
        updated_at: Utc::now(),
    }
}

const AMSTERDAM: (f64, f64) = (52.37, 4.89);
const UTRECHT: (f64, f64) = (52.09, 5.12);
const ROTTERDAM: (f64, f64) = (51.92, 4.48);

fn index() -> SearchIndex {
    let mut zoo = merchant(1, "Artis Zoo", "Amsterdam", "Dierentuin", AMSTERDAM);
    zoo.translations.push(MerchantTranslation {
        locale: Locale::FrFr,
        name: "Zoo Émerveillé".into(),
        description: String::new(),
    });
    let merchants = vec![
        zoo,
        merchant(2, "Café Zoëtrope", "Utrecht", "Horeca", UTRECHT),
        merchant(
            3,
            "Diergaarde Blijdorp",
            "Rotterdam",
            "Dierentuin",
            ROTTERDAM,
        ),
        merchant(4, "Zoo Outside", "Amsterdam", "Dierentuin", AMSTERDAM),
        merchant(5, "Rijksmuseum", "Amsterdam", "Museum", AMSTERDAM),
    ];
    let mut ticket = product(11, 5, "Nachtwacht tour", &[CAMPAIGN]);
    ticket.translations.push(ProductTranslation {
        locale: Locale::EnGb,
        title: "Night Watch tour".into(),
        conditions: String::new(),
    });
    let products = vec![
        product(10, 1, "Volwassene", &[CAMPAIGN]),
        product(12, 2, "Koffie", &[CAMPAIGN]),
        product(13, 3, "Volwassene", &[CAMPAIGN]),
        product(14, 4, "Zoo ticket", &[OTHER]),
        ticket,
        product(15, 5, "Secret zoo tour", &[OTHER]),
    ];
    SearchIndex::build(7, merchants, &products)
}

fn query<'a>(words: &'a [String], broad: bool) -> Query<'a> {
    Query {
        campaign_id: CAMPAIGN,
        words,
        broad,
        category: None,
        near: None,
    }
}

fn words(q: &str) -> Vec<String> {
    crate::text::words(q)
}

fn ids(index: &SearchIndex, query: &Query<'_>) -> Vec<(u128, u32)> {
    index
        .search(query)
        .iter()
        .map(|h| (h.merchant.merchant_id.as_u128(), h.score))
        .collect()
}

#[test]
fn names_match_in_any_language_without_case_or_diacritics() {
    let index = index();
    let w = words("EMERVEILLE");
    assert_eq!(
        ids(&index, &query(&w, false)),
        [(1, 12)],
        "exact word of the French name"
    );
    let w = words("zoe");
    assert_eq!(
        ids(&index, &query(&w, false)),
        [(2, 8)],
        "prefix of Zoëtrope"
    );
}

#[test]
fn exact_beats_prefix_beats_infix_and_ties_go_by_id() {
    let index = index();
    // "zoo": exact in Artis Zoo (4 × 3); Zoo Outside is not in the campaign.
    let w = words("zoo");
    assert_eq!(ids(&index, &query(&w, false)), [(1, 12)]);
    // "gaard": inside Diergaarde only.
    let w = words("gaard");
    assert_eq!(ids(&index, &query(&w, false)), [(3, 4)]);
    // Two-letter words match whole words and prefixes, never inside a word.
    let w = words("rd");
    assert!(ids(&index, &query(&w, false)).is_empty());
    // A name prefix (4 × 2) outranks a category prefix (2 × 2).
    let w = words("di");
    assert_eq!(ids(&index, &query(&w, true)), [(3, 8), (1, 4)]);
    // Equal scores: id order.
    let w = words("dierentuin");
    assert_eq!(ids(&index, &query(&w, true)), [(1, 6), (3, 6)]);
}

#[test]
fn every_query_word_must_match_and_scores_add_up() {
    let index = index();
    let w = words("artis zoo");
    assert_eq!(ids(&index, &query(&w, false)), [(1, 24)]);
    let w = words("artis rijks");
    assert!(ids(&index, &query(&w, false)).is_empty());
}

#[test]
fn only_broadsearch_matches_city_category_and_product_titles_of_the_campaign() {
    let index = index();
    let w = words("amsterdam");
    assert!(
        ids(&index, &query(&w, false)).is_empty(),
        "search: names only"
    );
    assert_eq!(ids(&index, &query(&w, true)), [(1, 6), (5, 6)]);
    let w = words("night watch");
    assert_eq!(
        ids(&index, &query(&w, true)),
        [(5, 6)],
        "translated product title"
    );
    let w = words("secret");
    assert!(
        ids(&index, &query(&w, true)).is_empty(),
        "a product of another campaign does not count"
    );
    let w = words("dierentuin");
    assert_eq!(ids(&index, &query(&w, true)), [(1, 6), (3, 6)]);
}

#[test]
fn geo_search_orders_by_distance_and_applies_the_radius() {
    let index = index();
    let near = |radius_km| Query {
        near: Some(Near {
            latitude: UTRECHT.0,
            longitude: UTRECHT.1,
            radius_km,
        }),
        ..query(&[], false)
    };
    let hits = index.search(&near(None));
    let order: Vec<u128> = hits
        .iter()
        .map(|h| h.merchant.merchant_id.as_u128())
        .collect();
    assert_eq!(
        order,
        [2, 1, 5, 3],
        "Utrecht, the two in Amsterdam by id, Rotterdam"
    );
    assert_eq!(hits[0].distance_km, Some(0.0));
    assert_eq!(hits[1].distance_km, hits[2].distance_km);
    assert!(hits[2].distance_km.unwrap() < hits[3].distance_km.unwrap());
    let within = index.search(&near(Some(45.0)));
    let order: Vec<u128> = within
        .iter()
        .map(|h| h.merchant.merchant_id.as_u128())
        .collect();
    assert_eq!(
        order,
        [2, 1, 5],
        "Amsterdam is ~36 km from Utrecht, Rotterdam ~49 km"
    );
}

#[test]
fn the_category_filter_compares_folded_whole_values() {
    let index = index();
    let q = Query {
        category: Some("dierentuin"),
        ..query(&[], false)
    };
    let order: Vec<u128> = index
        .search(&q)
        .iter()
        .map(|h| h.merchant.merchant_id.as_u128())
        .collect();
    assert_eq!(order, [1, 3]);
}

#[test]
fn after_continues_behind_a_position() {
    let index = index();
    let w = words("di");
    let hits = index.search(&query(&w, true));
    let rest = after(&hits, Some(&hits[0].position()));
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].merchant.merchant_id, id(1));
    assert!(after(&hits, Some(&hits[1].position())).is_empty());
    assert_eq!(after(&hits, None).len(), 2);
}

#[test]
fn the_cached_json_is_what_serialising_each_match_gives() {
    use app::wire::{Locale, MerchantMatch};

    use crate::catalog::{geo::round_km, merchants::to_wire, search::json_array};

    let index = index();
    let w = words("zoo");
    let geo = Query {
        near: Some(Near {
            latitude: UTRECHT.0,
            longitude: UTRECHT.1,
            radius_km: None,
        }),
        ..query(&[], false)
    };
    for query in [query(&w, true), geo] {
        let hits = index.search(&query);
        assert!(!hits.is_empty());
        for locale in [Locale::NlNl, Locale::EnGb, Locale::NlNl] {
            let expected: Vec<MerchantMatch> = hits
                .iter()
                .map(|h| MerchantMatch {
                    merchant: to_wire(h.merchant, locale, ""),
                    distance_km: h.distance_km.map(round_km),
                })
                .collect();
            let cached: serde_json::Value =
                serde_json::from_slice(&json_array(&hits, locale, "")).unwrap();
            assert_eq!(cached, serde_json::to_value(&expected).unwrap());
        }
    }
    assert_eq!(json_array(&[], Locale::NlNl, ""), b"[]");
}
