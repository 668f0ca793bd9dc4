//! `GET /v2/merchants` and `GET /v2/merchants/{merchant_id}`: the campaign's merchants, cursor
//! paging (docs/api.md, "Collections: cursors"), and localized detail.

use std::collections::HashSet;

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::create_merchant,
    helpers::TestApp,
    partner_fixtures::{spawn_partner, Partner},
};

const AMS: &str = "Europe/Amsterdam";

/// `n` merchants in the partner's campaign, and one outside it; returns the ids in the campaign.
async fn merchants(app: &TestApp, p: &Partner, n: usize) -> HashSet<String> {
    let mut ids = HashSet::new();
    for i in 0..n {
        let (merchant, _) = p
            .merchant_with_product(app, &format!("Merchant {i}"), AMS)
            .await;
        ids.insert(merchant);
    }
    let outside = create_merchant(app, "Elsewhere", AMS).await;
    let other = app.create_campaign("Other").await;
    p.product(app, &outside, "Other ticket", |b| {
        b["campaign_ids"] = json!([other])
    })
    .await;
    ids
}

/// Every page from the start at `limit`, checking the end is signalled only by an absent
/// next_token.
async fn traverse(app: &TestApp, p: &Partner, limit: u32) -> Vec<Value> {
    let mut items = Vec::new();
    for body in p.pages(app, &format!("/v2/merchants?limit={limit}")).await {
        let page = body["data"].as_array().unwrap();
        assert!(page.len() <= limit as usize);
        assert_eq!(body["meta"]["item_count"], page.len());
        assert_eq!(body["meta"]["pagination"]["limit"], limit);
        items.extend(page.iter().cloned());
    }
    items
}

#[tokio::test]
async fn one_by_one_and_all_at_once_list_the_same_merchants_in_key_order() {
    let (app, p) = spawn_partner().await;
    let expected = merchants(&app, &p, 5).await;

    let one = traverse(&app, &p, 1).await;
    let hundred = traverse(&app, &p, 100).await;
    let ids = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (one, hundred) = (ids(&one), ids(&hundred));
    assert_eq!(one.len(), 5, "no duplicates, nothing from another campaign");
    assert_eq!(one.iter().cloned().collect::<HashSet<_>>(), expected);
    assert_eq!(one, hundred);
    let mut sorted = one.clone();
    sorted.sort();
    assert_eq!(one, sorted, "key order");

    // A page that happens to be exactly full still ends only by the absent token.
    let exact = traverse(&app, &p, 5).await;
    assert_eq!(exact.len(), 5);
    let default = p.get_ok(&app, "/v2/merchants").await;
    assert_eq!(default["meta"]["pagination"]["limit"], 20);
    assert!(default["meta"]["pagination"].get("next_token").is_none());
}

#[tokio::test]
async fn tampered_foreign_and_mismatched_cursors_are_refused() {
    let (app, p) = spawn_partner().await;
    merchants(&app, &p, 3).await;
    let first = p.get_ok(&app, "/v2/merchants?limit=1").await;
    let token = first["meta"]["pagination"]["next_token"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 0x01;
    let tampered = URL_SAFE_NO_PAD.encode(bytes);
    for bad in [tampered.as_str(), "garbage", "AAAA"] {
        p.get(&app, &format!("/v2/merchants?limit=1&next_token={bad}"))
            .await
            .assert_problem(400, "next-token-invalid");
    }
    p.get(&app, &format!("/v2/merchants?limit=2&next_token={token}"))
        .await
        .assert_problem(400, "next-token-mismatch");
    p.get(&app, &format!("/v2/merchants?next_token={token}"))
        .await
        .assert_problem(400, "next-token-mismatch");

    // The campaign is part of the query: another campaign's session may not continue it.
    let other = app.create_campaign("Other").await;
    let client = app.create_client("other-shop", &[&other]).await;
    let token_other = app.public_token(&client, &other).await;
    let response = app
        .send(
            app.request(
                Method::GET,
                &format!("/v2/merchants?limit=1&next_token={token}"),
            )
            .bearer_auth(&token_other),
        )
        .await;
    response.assert_problem(400, "next-token-mismatch");

    // A cursor of another endpoint is foreign here.
    let search = p
        .get_ok(&app, "/v2/merchants/search?q=merchant&limit=1")
        .await;
    let search_token = search["meta"]["pagination"]["next_token"].as_str().unwrap();
    p.get(
        &app,
        &format!("/v2/merchants?limit=1&next_token={search_token}"),
    )
    .await
    .assert_problem(400, "next-token-invalid");

    for limit in ["0", "101", "many"] {
        p.get(&app, &format!("/v2/merchants?limit={limit}"))
            .await
            .assert_problem(400, "request-validation-failed");
    }
    let unknown = p.get(&app, "/v2/merchants?city=Amsterdam").await;
    unknown.assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn merchant_detail_is_localized_and_limited_to_the_campaign() {
    let (app, p) = spawn_partner().await;
    let (merchant, _) = p.merchant_with_product(&app, "Artis", AMS).await;
    let path = format!("/v2/merchants/{merchant}");

    let dutch = p.get(&app, &path).await;
    let body = dutch.assert_status(200);
    let m = &body["data"];
    assert_eq!(m["id"], merchant);
    assert_eq!(m["name"], "Artis", "no nl-NL translation: the base text");
    assert_eq!(m["category"], "Dierentuin");
    assert_eq!(
        m["address"],
        json!({ "street": "Plantage Kerklaan 38-40", "postal_code": "1018 CZ",
                "city": "Amsterdam", "country": "NL" })
    );
    assert_eq!(
        m["location"],
        json!({ "latitude": 52.366, "longitude": 4.9166 })
    );
    assert_eq!(m["timezone"], AMS);
    assert_eq!(m["currency"], "EUR");
    assert_eq!(m["image_url"], "https://img.example/artis.jpg");
    assert_eq!(m["website"], "https://www.artis.example");
    assert_eq!(dutch.header("content-language"), Some("nl-NL"));

    let english = p.get_in(&app, &path, "en-US").await.assert_status(200);
    assert_eq!(english["data"]["name"], "Royal Zoo");
    assert_eq!(english["data"]["description"], "The zoo");
    let french = p.get_in(&app, &path, "fr").await.assert_status(200);
    assert_eq!(french["data"]["name"], "Zoo Émerveillé");

    let outside = create_merchant(&app, "Nowhere", AMS).await;
    p.get(&app, &format!("/v2/merchants/{outside}"))
        .await
        .assert_problem(404, "merchant-not-found");
    p.get(&app, &format!("/v2/merchants/{}", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "merchant-not-found");
    p.get(&app, "/v2/merchants/not-a-uuid")
        .await
        .assert_invalid_first("merchant_id");
}
