//! `POST /webhooks/stripe`: the signature (valid, wrong secret, old timestamp, changed body,
//! two secrets in rotation), events processed once (duplicates), in any order, and events for
//! payments that are none of ours.

use serde_json::{json, Value};
use server::providers::stripe::signature;

use crate::{
    checkout_fixtures::{count_events, read_checkout, shop},
    helpers::{spawn_app_with, TestApp, TestResponse},
    stripe_fixtures::{client_secret_on, use_stripe, FakeStripe},
    stripe_payments::{buy, checkout_becomes},
};

const OLD_SECRET: &str = "whsec_old";
const NEW_SECRET: &str = "whsec_new";

pub fn event(id: &str, event_type: &str, object: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id,
        "object": "event",
        "api_version": "2017-08-15",
        "type": event_type,
        "data": { "object": object }
    }))
    .unwrap()
}

pub async fn deliver(app: &TestApp, body: &[u8], signature: Option<String>) -> TestResponse {
    let mut request = app
        .client
        .post(app.url("/webhooks/stripe"))
        .header("content-type", "application/json")
        .body(body.to_vec());
    if let Some(signature) = signature {
        request = request.header("stripe-signature", signature);
    }
    app.send(request).await
}

pub fn signed(secret: &str, body: &[u8]) -> Option<String> {
    Some(signature::header(
        secret,
        chrono::Utc::now().timestamp(),
        body,
    ))
}

/// An app whose webhook takes either secret of a rotation.
async fn rotating_app(stripe: &FakeStripe) -> TestApp {
    spawn_app_with(|c| {
        use_stripe(c, &stripe.url, 3600);
        c.stripe.stripe_webhook_secret = vec![OLD_SECRET.into(), NEW_SECRET.into()];
    })
    .await
}

#[tokio::test]
async fn only_a_signature_of_the_body_under_a_configured_secret_within_5_minutes_is_taken() {
    let stripe = FakeStripe::start().await;
    let app = rotating_app(&stripe).await;
    let unknown =
        json!({"id": "pi_none_of_ours", "object": "payment_intent", "status": "succeeded"});
    let body = event("evt_1", "payment_intent.succeeded", unknown.clone());

    let refused = [
        None,
        Some("t=1,v1=00".to_owned()),
        signed("whsec_someone_else", &body),
        Some(signature::header(
            NEW_SECRET,
            chrono::Utc::now().timestamp() - 301,
            &body,
        )),
        signed(
            NEW_SECRET,
            &event(
                "evt_1",
                "payment_intent.succeeded",
                json!({"id": "pi_other"}),
            ),
        ),
    ];
    for signature in refused {
        deliver(&app, &body, signature.clone())
            .await
            .assert_problem(400, "webhook-signature-invalid");
    }
    // Nothing of the refused deliveries was stored: the event is new when it comes signed.
    let taken = deliver(&app, &body, signed(OLD_SECRET, &body))
        .await
        .assert_status(200);
    assert_eq!(taken, json!({"received": true}));
    let again = deliver(&app, &body, signed(NEW_SECRET, &body))
        .await
        .assert_status(200);
    assert_eq!(again, json!({"received": true, "duplicate": true}));
    // Stripe's own rotation header: two v1 values, one per secret.
    let body = event("evt_2", "payment_intent.succeeded", unknown);
    let now = chrono::Utc::now().timestamp();
    let both = format!(
        "t={now},v1={},v1={}",
        hex::encode(signature::sign("whsec_retired", now, &body)),
        hex::encode(signature::sign(NEW_SECRET, now, &body))
    );
    deliver(&app, &body, Some(both)).await.assert_status(200);
    // A body that is no event, signed: refused as such.
    deliver(&app, b"[]", signed(NEW_SECRET, b"[]"))
        .await
        .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn duplicate_and_out_of_order_events_pay_an_order_once() {
    let stripe = FakeStripe::start().await;
    // Stripe's own webhooks stay off: the events come from the test, in its order.
    let app = spawn_app_with(|c| use_stripe(c, &stripe.url, 3600)).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let secret = client_secret_on(&page);
    let intent = secret.split("_secret_").next().unwrap().to_owned();
    let object = |status: &str| json!({"id": intent, "object": "payment_intent", "status": status});

    // A failed attempt first: the order stays open for another.
    let failed = event(
        "evt_f",
        "payment_intent.payment_failed",
        object("requires_payment_method"),
    );
    deliver(
        &app,
        &failed,
        signed(crate::stripe_fixtures::WEBHOOK_SECRET, &failed),
    )
    .await
    .assert_status(200);
    let checkout = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    assert_eq!(checkout["status"], "CONFIRMED");

    let succeeded = event("evt_s", "payment_intent.succeeded", object("succeeded"));
    for _ in 0..3 {
        deliver(
            &app,
            &succeeded,
            signed(crate::stripe_fixtures::WEBHOOK_SECRET, &succeeded),
        )
        .await
        .assert_status(200);
    }
    checkout_becomes(&app, &shop, &placed, "PAID").await;
    // Late and out of order: an older failure and a cancellation change nothing now.
    for (id, kind, status) in [
        (
            "evt_f2",
            "payment_intent.payment_failed",
            "requires_payment_method",
        ),
        ("evt_c", "payment_intent.canceled", "canceled"),
    ] {
        let body = event(id, kind, object(status));
        deliver(
            &app,
            &body,
            signed(crate::stripe_fixtures::WEBHOOK_SECRET, &body),
        )
        .await
        .assert_status(200);
    }
    let checkout = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    assert_eq!(checkout["status"], "PAID");
    assert_eq!(count_events(&app, &shop, "orders.OrderPaid").await, 1);
    assert_eq!(count_events(&app, &shop, "orders.OrderCancelled").await, 0);
}

#[tokio::test]
async fn without_stripe_a_signed_event_finds_no_route_and_an_unsigned_one_is_a_bad_request() {
    let app = crate::helpers::spawn_app().await;
    let body = event("evt_1", "payment_intent.succeeded", json!({"id": "pi_1"}));
    deliver(&app, &body, None)
        .await
        .assert_problem(400, "webhook-signature-invalid");
    deliver(&app, &body, signed("whsec_any", &body))
        .await
        .assert_problem(404, "not-found");
}
