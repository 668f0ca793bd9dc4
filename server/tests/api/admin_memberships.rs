//! Operator API for memberships, and the customers they belong to (made through the store:
//! customers have no operator API).

use chrono::{Days, Utc};
use reqwest::Method;
use serde_json::{json, Value};
use server::store::{CustomerDetails, CustomerKey, StoreError};

use crate::helpers::{error_code, spawn_app, spawn_app_with_customer, upsert_partner_customer};

fn membership(customer: &uuid::Uuid, campaign: &str, discount: &str) -> Value {
    json!({ "customer_id": customer, "campaign_id": campaign, "name": "Gold",
            "discount_percentage": discount })
}

#[tokio::test]
async fn memberships_are_created_and_listed_by_customer() {
    let (app, campaign, alice) = spawn_app_with_customer().await;
    let bob = app.create_customer("bob").await;
    let created = app
        .admin_post_created(
            "/admin/v1/memberships",
            &json!({ "customer_id": alice, "campaign_id": campaign, "name": " Gold ",
                     "discount_percentage": "12.5", "valid_until": "2030-12-31" }),
        )
        .await["data"]
        .clone();
    assert_eq!(created["name"], "Gold");
    assert_eq!(created["discount_percentage"], "12.50");
    assert_eq!(created["valid_until"], "2030-12-31");
    for _ in 0..2 {
        app.admin_post_created("/admin/v1/memberships", &membership(&alice, &campaign, "5"))
            .await;
    }
    app.admin_post_created("/admin/v1/memberships", &membership(&bob, &campaign, "5"))
        .await;

    let of_alice = app
        .admin_collect(&format!("/admin/v1/memberships?customer_id={alice}"), 1)
        .await;
    assert_eq!(of_alice.len(), 3);
    assert!(of_alice.iter().all(|m| m["customer_id"] == json!(alice)));
    assert!(of_alice.contains(&created));
    assert_eq!(
        app.admin_collect("/admin/v1/memberships", 100).await.len(),
        4
    );

    let token = app
        .admin_next_token(&format!(
            "/admin/v1/memberships?customer_id={alice}&limit=1"
        ))
        .await;
    let of_bob = format!("/admin/v1/memberships?customer_id={bob}&limit=1");
    app.assert_admin_token_refused(&of_bob, &token, "next-token-mismatch")
        .await;
}

#[tokio::test]
async fn invalid_membership_input_names_every_bad_field() {
    let (app, campaign, alice) = spawn_app_with_customer().await;
    for (discount, code) in [
        ("0", "out_of_range"),
        ("-5", "out_of_range"),
        ("100.01", "out_of_range"),
        ("12.345", "precision"),
    ] {
        let mut body = membership(&alice, &campaign, discount);
        body["name"] = json!(" ");
        let problem = app
            .assert_admin_invalid(
                Method::POST,
                "/admin/v1/memberships",
                &body,
                &["discount_percentage", "name"],
            )
            .await;
        assert_eq!(
            error_code(&problem, "discount_percentage"),
            code,
            "{discount}"
        );
    }
    app.admin_post_created(
        "/admin/v1/memberships",
        &membership(&alice, &campaign, "100"),
    )
    .await;

    let mut body = membership(&alice, &campaign, "5");
    body["valid_until"] = json!("31-12-2030");
    app.assert_admin_invalid(
        Method::POST,
        "/admin/v1/memberships",
        &body,
        &["valid_until"],
    )
    .await;
}

#[tokio::test]
async fn an_unknown_customer_or_campaign_is_named() {
    let (app, campaign, alice) = spawn_app_with_customer().await;
    let no_campaign = uuid::Uuid::new_v4().to_string();
    for (body, unknown) in [
        (
            membership(&uuid::Uuid::new_v4(), &campaign, "5"),
            "customer_id",
        ),
        (membership(&alice, &no_campaign, "5"), "campaign_id"),
    ] {
        app.assert_admin_invalid(Method::POST, "/admin/v1/memberships", &body, &[unknown])
            .await;
    }
}

#[tokio::test]
async fn active_memberships_exclude_lapsed_ones_and_come_deepest_discount_first() {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let other_campaign = app.create_campaign("two").await;
    let alice = app.create_customer("alice").await;
    let today = Utc::now().date_naive();
    let yesterday = today.checked_sub_days(Days::new(1)).unwrap();
    for (discount, valid_until) in [
        ("9.5", json!(today)),
        ("10", Value::Null),
        ("50", json!(yesterday)),
    ] {
        let mut body = membership(&alice, &campaign, discount);
        body["valid_until"] = valid_until;
        app.admin_post_created("/admin/v1/memberships", &body).await;
    }
    app.admin_post_created(
        "/admin/v1/memberships",
        &membership(&alice, &other_campaign, "80"),
    )
    .await;

    let (store, campaign) = (&app.state.store, campaign.parse().unwrap());
    let active = store
        .active_memberships(alice, campaign, today)
        .await
        .unwrap();
    let discounts: Vec<String> = active
        .iter()
        .map(|m| m.discount_percentage.to_string())
        .collect();
    // SQLite keeps decimals as text, where "9.5" sorts above "10": name the backend on failure.
    assert_eq!(discounts, ["10", "9.5"], "on {}", app.state.store.backend());
    let tomorrow = today.checked_add_days(Days::new(1)).unwrap();
    let later = store
        .active_memberships(alice, campaign, tomorrow)
        .await
        .unwrap();
    assert_eq!(later.len(), 1);
}

#[tokio::test]
async fn a_customer_is_upserted_by_the_partner_reference() {
    let app = spawn_app().await;
    let client = app.admin_create_client(&json!({ "name": "Shop" })).await;
    let other = app.admin_create_client(&json!({ "name": "Other" })).await;
    let pc: uuid::Uuid = client["partner_client_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let other_pc: uuid::Uuid = other["partner_client_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let store = &app.state.store;

    let key = |partner_client_id| CustomerKey::Partner {
        partner_client_id,
        reference: "user-1",
    };

    let first = store
        .upsert_customer(
            key(pc),
            &CustomerDetails {
                email: Some("a@shop.example".into()),
                first_name: Some("Ann".into()),
                last_name: None,
                locale: Some("nl-NL".into()),
            },
        )
        .await
        .unwrap();
    let read = store.customer(first).await.unwrap().expect("customer");
    assert_eq!(read.partner_client_id, Some(pc));
    assert_eq!(read.reference.as_deref(), Some("user-1"));

    let again = store
        .upsert_customer(
            key(pc),
            &CustomerDetails {
                email: Some("new@shop.example".into()),
                last_name: Some("Smith".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(again, first);
    let read = store.customer(first).await.unwrap().expect("customer");
    assert_eq!(read.email.as_deref(), Some("new@shop.example"));
    assert_eq!(read.first_name.as_deref(), Some("Ann"), "absent keeps");
    assert_eq!(read.last_name.as_deref(), Some("Smith"));
    assert_eq!(read.locale.as_deref(), Some("nl-NL"));

    let elsewhere = upsert_partner_customer(store.as_ref(), other_pc, "user-1").await;
    assert_ne!(elsewhere, first);

    let unknown = store
        .upsert_customer(key(uuid::Uuid::new_v4()), &Default::default())
        .await;
    assert!(
        matches!(unknown, Err(StoreError::MissingReference(ref f)) if f == "partner_client_id"),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn membership_routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    app.assert_documented(&[("/admin/v1/memberships", &["get", "post"])])
        .await;
}
