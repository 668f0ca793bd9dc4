//! Operator API for campaigns, and cursor pagination as every collection uses it.

use reqwest::Method;
use std::collections::HashSet;

use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_campaign_is_created_read_updated_and_listed() {
    let app = spawn_app().await;
    let created = app
        .admin_post_created(
            "/admin/v1/campaigns",
            &json!({ "name": "Summer", "loyalty_points_per_unit": "2.5" }),
        )
        .await;
    let id = created["data"]["campaign_id"].as_str().unwrap();
    assert_eq!(created["data"]["loyalty_points_per_unit"], "2.5");

    let read = app.admin_get_ok(&format!("/admin/v1/campaigns/{id}")).await;
    assert_eq!(read["data"]["name"], "Summer");

    let updated = app
        .admin_put_ok(
            &format!("/admin/v1/campaigns/{id}"),
            &json!({ "name": "Winter" }),
        )
        .await;
    assert_eq!(updated["data"]["name"], "Winter");
    assert_eq!(updated["data"]["loyalty_points_per_unit"], "0");

    let listed = app.admin_get_ok("/admin/v1/campaigns").await;
    assert_eq!(listed["data"][0]["campaign_id"], id);
    assert_eq!(listed["meta"]["item_count"], 1);
    assert_eq!(listed["meta"]["pagination"]["limit"], 20);
    assert!(listed["meta"]["pagination"].get("next_token").is_none());
}

#[tokio::test]
async fn invalid_campaign_input_lists_every_bad_field() {
    let app = spawn_app().await;
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/campaigns",
        &json!({ "name": " ", "loyalty_points_per_unit": "-1" }),
        &["name", "loyalty_points_per_unit"],
    )
    .await;
}

#[tokio::test]
async fn unknown_campaign_is_not_found() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4();
    app.assert_admin_unknown(
        &format!("/admin/v1/campaigns/{id}"),
        &json!({ "name": "x" }),
    )
    .await;
}

#[tokio::test]
async fn traversal_with_limit_1_equals_limit_100_as_a_set_without_duplicates() {
    let app = spawn_app().await;
    let mut created = HashSet::new();
    for i in 0..7 {
        created.insert(app.create_campaign(&format!("c{i}")).await);
    }
    let one_by_one = app.admin_collect("/admin/v1/campaigns", 1).await;
    let ids: Vec<String> = one_by_one
        .iter()
        .map(|c| c["campaign_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 7, "no duplicates");
    let by_hundred = app.admin_collect("/admin/v1/campaigns", 100).await;
    let set: HashSet<String> = by_hundred
        .iter()
        .map(|c| c["campaign_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.iter().cloned().collect::<HashSet<_>>(), set);
    assert_eq!(set, created);
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "key order");
}

#[tokio::test]
async fn a_tampered_cursor_is_invalid_and_a_changed_limit_is_a_mismatch() {
    let app = spawn_app().await;
    for i in 0..3 {
        app.create_campaign(&format!("c{i}")).await;
    }
    let token = app.admin_next_token("/admin/v1/campaigns?limit=1").await;

    app.assert_admin_token_refused("/admin/v1/campaigns?limit=2", &token, "next-token-mismatch")
        .await;

    let mut tampered = token.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    for bad in [tampered.as_str(), "garbage"] {
        app.assert_admin_token_refused("/admin/v1/campaigns?limit=1", bad, "next-token-invalid")
            .await;
    }

    app.admin_get_ok(&format!("/admin/v1/campaigns?limit=1&next_token={token}"))
        .await;
}
