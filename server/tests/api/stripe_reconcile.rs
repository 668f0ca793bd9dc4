//! Nothing lost when a webhook is: the reconciliation asks Stripe about payments left open
//! and settles them; a payment that succeeds after its order ended is refunded, and reported.

use uuid::Uuid;

use crate::{
    checkout_fixtures::{count_events, read_checkout, reserved_on_visit_day, shop},
    db_reads::refunds_of,
    helpers::{spawn_app_with, TestApp},
    stripe_fixtures::{
        client_secret_on, eventually, spawn_stripe_app, use_stripe, FakeStripe, CARD_OK,
    },
    stripe_payments::{buy, checkout_becomes},
};

/// The payment id in a payment URL (`/pay/{payment_id}?key=…`).
fn payment_id(url: &str) -> Uuid {
    url.split("/pay/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Ends the payment here without telling Stripe, as when the cancellation at Stripe was lost.
async fn end_here_only(app: &TestApp, payment: Uuid) {
    assert!(server::checkout::lifecycle::settle_payment(
        &app.state.commerce,
        payment,
        server::checkout::lifecycle::PaymentOutcome::Expired,
    )
    .await
    .unwrap());
}

#[tokio::test]
async fn with_the_webhook_lost_the_reconciliation_settles_the_payment() {
    let stripe = FakeStripe::start().await;
    let app = spawn_app_with(|c| use_stripe(c, &stripe.url, 1)).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let (status, _) = stripe.pay(&client_secret_on(&page), CARD_OK).await;
    assert_eq!(status, 200);
    checkout_becomes(&app, &shop, &placed, "PAID").await;
    assert_eq!(count_events(&app, &shop, "orders.OrderPaid").await, 1);
}

async fn assert_refunded_late(
    app: &TestApp,
    stripe: &FakeStripe,
    shop: &crate::checkout_fixtures::Shop,
    placed: &serde_json::Value,
    intent: &str,
) {
    let order: Uuid = placed["order_id"].as_str().unwrap().parse().unwrap();
    let refunds = eventually("the late payment refunded", || async {
        let refunds = refunds_of(app, order).await;
        refunds
            .iter()
            .any(|(_, status, _)| status == "SUCCEEDED")
            .then_some(refunds)
    })
    .await;
    assert_eq!(refunds.len(), 1, "{refunds:?}");
    assert_eq!(refunds[0].0, "LATE_PAYMENT");
    // At Stripe: one refund of the whole PaymentIntent.
    let at_stripe = stripe
        .get(&format!("/v1/refunds?payment_intent={intent}"))
        .await;
    let ours: Vec<_> = at_stripe["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["payment_intent"] == intent)
        .collect();
    assert_eq!(ours.len(), 1, "{at_stripe}");
    let intent_at_stripe = stripe.get(&format!("/v1/payment_intents/{intent}")).await;
    assert_eq!(ours[0]["amount"], intent_at_stripe["amount"]);
    // The order stays ended, its places free; the partner is told of the refund.
    let checkout = read_checkout(app, shop, placed["checkout_id"].as_str().unwrap()).await;
    assert_eq!(checkout["status"], "CANCELLED");
    assert_eq!(reserved_on_visit_day(app, shop).await, 0);
    assert_eq!(count_events(app, shop, "orders.PaymentRefunded").await, 1);
    assert_eq!(count_events(app, shop, "orders.OrderPaid").await, 0);
}

#[tokio::test]
async fn a_payment_succeeding_after_its_order_ended_is_refunded_through_the_webhook() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let secret = client_secret_on(&page);
    end_here_only(&app, payment_id(placed["payment_url"].as_str().unwrap())).await;
    let (status, _) = stripe.pay(&secret, CARD_OK).await;
    assert_eq!(status, 200);
    let intent = secret.split("_secret_").next().unwrap();
    assert_refunded_late(&app, &stripe, &shop, &placed, intent).await;
}

#[tokio::test]
async fn a_payment_succeeding_after_its_order_ended_is_refunded_without_a_webhook() {
    let stripe = FakeStripe::start().await;
    // Asked about after 5 s: time for the test to pay at Stripe and end the payment here
    // first, as when the payment succeeded just as it ran out and the news was lost.
    let app = spawn_app_with(|c| use_stripe(c, &stripe.url, 5)).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let secret = client_secret_on(&page);
    let (status, _) = stripe.pay(&secret, CARD_OK).await;
    assert_eq!(status, 200);
    end_here_only(&app, payment_id(placed["payment_url"].as_str().unwrap())).await;
    let intent = secret.split("_secret_").next().unwrap();
    assert_refunded_late(&app, &stripe, &shop, &placed, intent).await;
}
