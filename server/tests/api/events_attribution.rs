//! A checkout's events reach only the partner that created it, and its payment can be seen and
//! settled only with the key of its payment URL: tried as a second partner of the same
//! campaign would, with its own backend bearer and the `payment_id` it may have learnt.

use server::store::{ClientSecrets, PartnerClientInput};
use uuid::Uuid;

use crate::{
    checkout_fixtures::{
        events, express_one_as_guest, express_one_in_session, pay, spawn_shop, Shop,
    },
    helpers::{TestApp, TestClient},
    partner_fixtures::Partner,
};

/// A second partner client allowed on the shop's campaign, with its own return origins.
async fn second_partner(app: &TestApp, shop: &Shop, return_origin: &str) -> Shop {
    let client_id = format!("second-{}", &shop.partner.campaign[..8]);
    let secret = format!("{client_id}-secret");
    let input = PartnerClientInput {
        name: client_id.clone(),
        client_id: None,
        campaign_ids: vec![shop.partner.campaign.parse().unwrap()],
        frame_origins: vec![return_origin.to_owned()],
        return_origins: vec![return_origin.to_owned()],
        webhook_url: None,
        hold_limits: None,
        theme: None,
        settlement: Default::default(),
    };
    let secrets = ClientSecrets {
        secret_hash: server::secrets::hash_secret(&secret),
        webhook_secret: server::secrets::new_webhook_secret(),
    };
    app.state
        .store
        .upsert_partner_client(&client_id, &input, &secrets)
        .await
        .unwrap();
    let client = TestClient { client_id, secret };
    let token = app.public_token(&client, &shop.partner.campaign).await;
    Shop {
        partner: Partner {
            campaign: shop.partner.campaign.clone(),
            client,
            token,
        },
        merchant: shop.merchant.clone(),
        product: shop.product.clone(),
        group: shop.group.clone(),
    }
}

/// A guest's express checkout returning to `http://localhost:5173`: its checkout id and
/// payment URL.
async fn guest_checkout(app: &TestApp, shop: &Shop) -> (String, String) {
    let placed = express_one_as_guest(app, shop).await.assert_status(200);
    (
        placed["data"]["checkout_id"].as_str().unwrap().to_owned(),
        placed["data"]["payment_url"].as_str().unwrap().to_owned(),
    )
}

async fn events_of(app: &TestApp, shop: &Shop, checkout_id: &str) -> usize {
    let subject = format!("checkouts/{checkout_id}");
    events(app, shop)
        .await
        .into_iter()
        .filter(|(_, s)| *s == subject)
        .count()
}

async fn checkout_status(app: &TestApp, checkout_id: &str) -> String {
    let id: Uuid = checkout_id.parse().unwrap();
    app.state
        .store
        .checkout(id)
        .await
        .unwrap()
        .unwrap()
        .status
        .to_string()
}

#[tokio::test]
async fn another_partner_does_not_hear_of_a_guests_order() {
    let (app, shop) = spawn_shop(None).await; // its client registered http://localhost:*
    let other = second_partner(&app, &shop, "https://other.example").await;

    let (checkout_id, payment_url) = guest_checkout(&app, &shop).await;

    // The guest returns to the first partner's origin: the checkout is that partner's.
    assert_eq!(events_of(&app, &shop, &checkout_id).await, 2);
    assert_eq!(
        events_of(&app, &other, &checkout_id).await,
        0,
        "the other partner's feed does not show it"
    );
    pay(&app, &payment_url, "pay").await;
    assert_eq!(checkout_status(&app, &checkout_id).await, "PAID");
    assert_eq!(events_of(&app, &other, &checkout_id).await, 0);
}

#[tokio::test]
async fn a_payment_id_alone_neither_shows_nor_settles_the_payment() {
    let (app, shop) = spawn_shop(None).await;
    let (checkout_id, payment_url) = guest_checkout(&app, &shop).await;

    // What another partner may learn (events and return URLs carry the payment id) opens
    // nothing: no key, a wrong one, an empty one.
    let url = url::Url::parse(&payment_url).unwrap();
    let payment_id = url.path().strip_prefix("/pay/").unwrap().to_owned();
    let key_len = url
        .query_pairs()
        .find(|(k, _)| k == "key")
        .map_or(32, |(_, key)| key.len());
    let wrong = "0".repeat(key_len);
    for path in [
        format!("/pay/{payment_id}"),
        format!("/pay/{payment_id}?key={wrong}"),
        format!("/pay/{payment_id}?key="),
    ] {
        let posted = app.post_form(&path, &[("action", "pay")]).await;
        assert_eq!(
            checkout_status(&app, &checkout_id).await,
            "CONFIRMED",
            "{path}: not paid"
        );
        posted.assert_problem(404, "not-found");
        app.assert_not_found(&path).await;
    }

    // With its key, the customer pays.
    let back = pay(&app, &payment_url, "pay").await;
    assert!(back.contains(&format!("payment_id={payment_id}")), "{back}");
    assert_eq!(checkout_status(&app, &checkout_id).await, "PAID");
}

#[tokio::test]
async fn a_guest_checkout_whose_return_origin_several_partners_registered_is_told_to_nobody() {
    let (app, shop) = spawn_shop(None).await;
    let other = second_partner(&app, &shop, "http://localhost:*").await;

    let (checkout_id, _) = guest_checkout(&app, &shop).await;

    for partner in [&shop, &other] {
        assert_eq!(events_of(&app, partner, &checkout_id).await, 0);
    }
    // A session's checkout stays its partner's, whatever origins others registered.
    let placed = express_one_in_session(&app, &other)
        .await
        .assert_status(200);
    let own = placed["data"]["checkout_id"].as_str().unwrap();
    assert_eq!(events_of(&app, &other, own).await, 2);
    assert_eq!(events_of(&app, &shop, own).await, 0);
}
