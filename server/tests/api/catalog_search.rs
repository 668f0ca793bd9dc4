//! `GET /v2/merchants/search` and `/broadsearch`: relevance, diacritics, distance, paging only
//! with `limit`, and the index following catalog writes.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::{
    catalog_fixtures::merchant_body,
    helpers::{next_token, TestApp},
    partner_fixtures::{spawn_partner, Partner},
};

/// A merchant in the partner's campaign named `name` in `city` at (`lat`, `lon`), with a
/// product titled `product`; returns its id.
async fn merchant(
    app: &TestApp,
    p: &Partner,
    name: &str,
    (city, category): (&str, &str),
    (lat, lon): (f64, f64),
    product: &str,
) -> String {
    let mut body = merchant_body(name, "Europe/Amsterdam");
    body["translations"] = json!([]);
    body["address"]["city"] = json!(city);
    body["category"] = json!(category);
    body["location"] = json!({ "latitude": lat, "longitude": lon });
    let id = app.admin_post_created("/admin/v1/merchants", &body).await["data"]["merchant_id"]
        .as_str()
        .unwrap()
        .to_owned();
    p.product(app, &id, product, |b| b["translations"] = json!([]))
        .await;
    id
}

struct Catalog {
    artis: String,
    cafe: String,
    blijdorp: String,
    rijks: String,
}

async fn catalog(app: &TestApp, p: &Partner) -> Catalog {
    Catalog {
        artis: merchant(
            app,
            p,
            "Artis Zoo",
            ("Amsterdam", "Dierentuin"),
            (52.366, 4.917),
            "Volwassene",
        )
        .await,
        cafe: merchant(
            app,
            p,
            "Café Zoë",
            ("Utrecht", "Horeca"),
            (52.091, 5.122),
            "Koffie",
        )
        .await,
        blijdorp: merchant(
            app,
            p,
            "Diergaarde Blijdorp",
            ("Rotterdam", "Dierentuin"),
            (51.927, 4.449),
            "Nachtsafari",
        )
        .await,
        rijks: merchant(
            app,
            p,
            "Rijksmuseum",
            ("Amsterdam", "Museum"),
            (52.360, 4.885),
            "Nachtwacht tour",
        )
        .await,
    }
}

/// A fresh app with a partner and the `catalog` in its campaign.
async fn spawn_catalog() -> (TestApp, Partner, Catalog) {
    let (app, p) = spawn_partner().await;
    let c = catalog(&app, &p).await;
    (app, p, c)
}

/// The ids of the merchants `path` finds, in its order.
async fn found(app: &TestApp, p: &Partner, path: &str) -> Vec<String> {
    ids(&p.get_ok(app, path).await)
}

/// `ids` in id order: how ties come back.
fn by_id(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

fn ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn search_matches_names_without_case_or_diacritics_best_first() {
    let (app, p, c) = spawn_catalog().await;
    for q in ["CAFE%20ZOE", "café%20zoë", "Cafe", "zoë"] {
        let body = p.get_ok(&app, &format!("/v2/merchants/search?q={q}")).await;
        assert!(ids(&body).contains(&c.cafe), "{q}: {body}");
    }
    // "zoo" is a word of Artis Zoo only (Zoë folds to "zoe"); "zo" is a prefix of a word of
    // both names, an equal score, so the tie goes by id.
    assert_eq!(
        found(&app, &p, "/v2/merchants/search?q=zoo").await,
        [c.artis.as_str()]
    );
    assert_eq!(
        found(&app, &p, "/v2/merchants/search?q=zo").await,
        by_id(vec![c.artis.clone(), c.cafe.clone()])
    );
    // A query word of three or more letters also matches inside a word.
    let body = p.get_ok(&app, "/v2/merchants/search?q=museum").await;
    assert_eq!(ids(&body), [c.rijks.as_str()], "inside Rijksmuseum");
    assert!(body["data"][0].get("distance_km").is_none());
    // Search matches names only; city, category and products are broadsearch's.
    p.assert_finds_nothing(&app, "/v2/merchants/search?q=amsterdam")
        .await;
    let _ = c.blijdorp;
}

#[tokio::test]
async fn a_geo_search_orders_by_distance_and_reports_it() {
    let (app, p, c) = spawn_catalog().await;
    // From Utrecht: the café, then Amsterdam (~35 km), then Rotterdam (~50 km).
    let body = p
        .get_ok(&app, "/v2/merchants/search?latitude=52.091&longitude=5.122")
        .await;
    let order = ids(&body);
    assert_eq!(order[0], c.cafe);
    assert_eq!(order[3], c.blijdorp);
    let distances: Vec<f64> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["distance_km"].as_f64().unwrap())
        .collect();
    assert_eq!(distances[0], 0.0);
    assert!(distances.windows(2).all(|w| w[0] <= w[1]), "{distances:?}");
    assert!((distances[1] - 35.0).abs() < 3.0, "{distances:?}");

    let near = "/v2/merchants/search?latitude=52.091&longitude=5.122&radius_km=40&q=zoo";
    assert_eq!(
        found(&app, &p, near).await,
        [c.artis.as_str()],
        "text and radius both apply"
    );
    let category = "/v2/merchants/search?latitude=52.091&longitude=5.122&category=DIERENTUIN";
    assert_eq!(
        found(&app, &p, category).await,
        [c.artis.clone(), c.blijdorp.clone()]
    );
}

#[tokio::test]
async fn broadsearch_also_matches_city_category_and_product_titles() {
    let (app, p, c) = spawn_catalog().await;
    assert_eq!(
        found(&app, &p, "/v2/merchants/broadsearch?q=nacht").await,
        by_id(vec![c.blijdorp.clone(), c.rijks.clone()]),
        "product titles, equal prefix matches by id"
    );
    assert_eq!(
        found(&app, &p, "/v2/merchants/broadsearch?q=amsterdam").await,
        by_id(vec![c.artis.clone(), c.rijks.clone()])
    );
    // A name match outranks a category match: Diergaarde (name prefix) before Artis (category).
    assert_eq!(
        found(&app, &p, "/v2/merchants/broadsearch?q=dier").await,
        [c.blijdorp.clone(), c.artis.clone()]
    );

    // Products of another campaign do not count.
    let other = app.create_campaign("Other").await;
    p.product(&app, &c.cafe, "Geheime rondleiding", |b| {
        b["campaign_ids"] = json!([other])
    })
    .await;
    p.assert_finds_nothing(&app, "/v2/merchants/broadsearch?q=geheime")
        .await;
}

#[tokio::test]
async fn searches_are_paged_only_when_limit_is_sent() {
    let (app, p) = spawn_partner().await;
    catalog(&app, &p).await;
    for endpoint in ["search?latitude=52&longitude=5", "broadsearch?q=a"] {
        let all = p.get_ok(&app, &format!("/v2/merchants/{endpoint}")).await;
        assert!(all["meta"].get("pagination").is_none(), "{endpoint}: {all}");
        assert!(all["meta"].get("item_count").is_none());
        let all = ids(&all);
        assert!(all.len() >= 2, "{endpoint}");

        let mut paged = Vec::new();
        let path = format!("/v2/merchants/{endpoint}&limit=1");
        for body in p.pages(&app, &path).await {
            assert_eq!(body["meta"]["pagination"]["limit"], 1);
            paged.extend(ids(&body));
        }
        assert_eq!(paged, all, "{endpoint}: the same matches in the same order");
        assert_eq!(paged.iter().collect::<HashSet<_>>().len(), paged.len());
    }
    let first = p
        .get_ok(&app, "/v2/merchants/broadsearch?q=a&limit=1")
        .await;
    let token = next_token(&first);
    p.get(
        &app,
        &format!("/v2/merchants/broadsearch?q=am&limit=1&next_token={token}"),
    )
    .await
    .assert_problem(400, "next-token-mismatch");
    p.get(
        &app,
        &format!("/v2/merchants/broadsearch?q=a&next_token={token}"),
    )
    .await
    .assert_invalid_first("next_token");
}

#[tokio::test]
async fn bad_search_input_is_named() {
    let (app, p) = spawn_partner().await;
    for (query, field) in [
        ("search?latitude=52", "longitude"),
        ("search?longitude=5", "latitude"),
        ("search?radius_km=5", "radius_km"),
        ("search?latitude=52&longitude=5&radius_km=0", "radius_km"),
        ("search?latitude=91&longitude=5", "latitude"),
        ("search?latitude=north&longitude=5", "latitude"),
        ("search?q=%21%21%21", "q"),
        ("search?q=a+b+c+d+e+f+g+h+i+j+k", "q"),
        ("search?town=x", "town"),
        ("broadsearch", "q"),
        ("broadsearch?q=+", "q"),
        ("search?q=zoo&limit=0", "limit"),
    ] {
        let problem = p
            .get(&app, &format!("/v2/merchants/{query}"))
            .await
            .assert_problem(400, "request-validation-failed");
        let fields: Vec<&str> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert!(fields.contains(&field), "{query}: {problem}");
    }
}

#[tokio::test]
async fn the_index_follows_catalog_writes_at_once() {
    let (app, p) = spawn_partner().await;
    p.assert_finds_nothing(&app, "/v2/merchants/search?q=tropen")
        .await;
    let id = merchant(
        &app,
        &p,
        "Tropenmuseum",
        ("Amsterdam", "Museum"),
        (52.36, 4.92),
        "Entree",
    )
    .await;
    assert_eq!(
        found(&app, &p, "/v2/merchants/search?q=tropen").await,
        [id.as_str()]
    );

    let mut body = merchant_body("Wereldmuseum", "Europe/Amsterdam");
    body["translations"] = json!([{ "locale": "en-GB", "name": "World Museum" }]);
    app.admin_put_ok(&format!("/admin/v1/merchants/{id}"), &body)
        .await;
    p.assert_finds_nothing(&app, "/v2/merchants/search?q=tropen")
        .await;
    let english = p
        .get_in(&app, "/v2/merchants/search?q=wereld", "en")
        .await
        .assert_status(200);
    assert_eq!(
        english["data"][0]["name"], "World Museum",
        "localized, matched in Dutch"
    );
}
