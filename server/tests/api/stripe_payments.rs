//! Stripe as the payment provider, against localstripe (`stripe_fixtures`): paying by card on
//! the payment page (success, decline and retry, 3-D Secure), the webhook settling the order,
//! the customer's return, the page's script policy, a PaymentIntent Stripe refuses, and
//! expiry ending the PaymentIntent at Stripe.

use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{express_one_as_guest, read_checkout, reserved_on_visit_day, shop, Shop},
    helpers::{spawn_app_with, TestApp},
    stripe_fixtures::{
        client_secret_on, eventually, page_path, spawn_stripe_app, use_stripe, FakeStripe,
        CARD_3DS, CARD_DECLINED, CARD_OK, PUBLISHABLE_KEY,
    },
};

/// An express purchase of one ticket: the placed order's data and its payment page's text.
pub async fn buy(app: &TestApp, shop: &Shop) -> (Value, String) {
    let placed = express_one_as_guest(app, shop).await.assert_status(200)["data"].clone();
    let page = app
        .get(page_path(app, placed["payment_url"].as_str().unwrap()))
        .await;
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    (placed, page.text)
}

/// Waits until the checkout of `placed` is `status`.
pub async fn checkout_becomes(app: &TestApp, shop: &Shop, placed: &Value, status: &str) {
    let checkout_id = placed["checkout_id"].as_str().unwrap();
    eventually(&format!("checkout {checkout_id} {status}"), || async {
        (read_checkout(app, shop, checkout_id).await["status"] == status).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_card_paid_on_the_payment_page_pays_the_order_through_the_webhook() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    assert!(page.contains(PUBLISHABLE_KEY), "{page}");
    let secret = client_secret_on(&page);

    // The PaymentIntent: the checkout's total in cents, the order's references.
    let checkout = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    let total: rust_decimal::Decimal = checkout["totals"]["total"]["value"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let intent_id = secret.split("_secret_").next().unwrap().to_owned();
    let intent = stripe
        .get(&format!("/v1/payment_intents/{intent_id}"))
        .await;
    assert_eq!(
        intent["amount"],
        json!(i64::try_from(
            (total * rust_decimal::Decimal::ONE_HUNDRED)
                .trunc()
                .mantissa()
        )
        .unwrap())
    );
    assert_eq!(intent["currency"], "eur");
    assert_eq!(intent["metadata"]["order_id"], placed["order_id"]);
    assert_eq!(
        intent["metadata"]["order_display_id"],
        placed["order_display_id"]
    );
    assert_eq!(intent["metadata"]["checkout_id"], placed["checkout_id"]);

    let (status, paid) = stripe.pay(&secret, CARD_OK).await;
    assert_eq!(
        (status, paid["status"].as_str()),
        (200, Some("succeeded")),
        "{paid}"
    );
    checkout_becomes(&app, &shop, &placed, "PAID").await;

    // The ticket mail is in the outbox, as after a sandbox payment.
    let order_id = placed["order_id"].as_str().unwrap();
    let mails = app
        .admin_list(&format!("/admin/v1/mails?order_id={order_id}"))
        .await;
    assert!(mails.iter().any(|m| m["kind"] == "TICKETS"), "{mails:?}");

    // Back from Stripe, the page sends the customer on to the partner's return URL.
    let path = page_path(&app, placed["payment_url"].as_str().unwrap());
    let back = app
        .get(&format!(
            "{path}&payment_intent={intent_id}&redirect_status=succeeded"
        ))
        .await;
    assert_eq!(back.status.as_u16(), 303, "{}", back.text);
    let location = back.header("location").unwrap();
    assert!(location.contains("payment_id="), "{location}");
    // Read again, the page says the payment is complete and offers no form.
    let again = app.get(path).await;
    assert!(!again.text.contains("data-client-secret"), "{}", again.text);
}

#[tokio::test]
async fn the_payment_pages_script_policy_allows_this_origin_and_stripes_only() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let placed = express_one_as_guest(&app, &shop).await.assert_status(200)["data"].clone();
    let page = app
        .get(page_path(&app, placed["payment_url"].as_str().unwrap()))
        .await;
    let policy = page.header("content-security-policy").unwrap().to_owned();
    let directive = |name: &str| {
        policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {policy}"))
            .to_owned()
    };
    // The configured Stripe.js and API URLs' origin stands in for js.stripe.com and
    // api.stripe.com.
    assert_eq!(
        directive("script-src"),
        format!("script-src 'self' {}", stripe.url)
    );
    assert_eq!(
        directive("frame-src"),
        format!("frame-src {} https://hooks.stripe.com", stripe.url)
    );
    assert_eq!(
        directive("connect-src"),
        format!("connect-src {}", stripe.url)
    );
    assert_eq!(directive("frame-ancestors"), "frame-ancestors 'none'");
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    // The page's own script is this origin's.
    assert!(page.text.contains(r#"src="/payments/stripe-page.js""#));
    let script = app.get("/payments/stripe-page.js").await;
    assert_eq!(script.status.as_u16(), 200);
    assert!(script.text.contains("confirmPayment"));

    // Without its key, or with another payment's, the page is the same 404 as the sandbox's.
    let url = placed["payment_url"].as_str().unwrap();
    let bare = page_path(&app, url).split('?').next().unwrap().to_owned();
    app.assert_not_found(&bare).await;
    app.assert_not_found(&format!("{bare}?key={}", "0".repeat(32)))
        .await;
    // And the sandbox's buttons settle no Stripe payment, key or not.
    app.post_form(page_path(&app, url), &[("action", "pay")])
        .await
        .assert_problem(404, "not-found");
}

#[tokio::test]
async fn a_declined_card_is_shown_and_the_customer_pays_on_the_same_payment_intent() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let secret = client_secret_on(&page);

    let (status, declined) = stripe.pay(&secret, CARD_DECLINED).await;
    assert_eq!(status, 402, "{declined}");
    assert_eq!(declined["error"]["code"], "card_declined");
    // The failed attempt neither pays nor ends the order; the page shows it above the form.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let checkout = read_checkout(&app, &shop, placed["checkout_id"].as_str().unwrap()).await;
    assert_eq!(checkout["status"], "CONFIRMED");
    let path = page_path(&app, placed["payment_url"].as_str().unwrap());
    let after = app.get(path).await;
    assert!(
        after.text.contains("Your last attempt did not go through")
            || after.text.contains("Uw vorige poging is niet gelukt"),
        "{}",
        after.text
    );
    assert_eq!(
        client_secret_on(&after.text),
        secret,
        "the same PaymentIntent"
    );

    let (status, paid) = stripe.pay(&secret, CARD_OK).await;
    assert_eq!(
        (status, paid["status"].as_str()),
        (200, Some("succeeded")),
        "{paid}"
    );
    checkout_becomes(&app, &shop, &placed, "PAID").await;
}

#[tokio::test]
async fn a_card_asking_for_3_d_secure_pays_once_authenticated() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let secret = client_secret_on(&page);
    let (status, pending) = stripe.pay(&secret, CARD_3DS).await;
    assert_eq!(
        (status, pending["status"].as_str()),
        (200, Some("requires_action")),
        "{pending}"
    );
    let authenticated = stripe.authenticate(&secret, true).await;
    assert_eq!(authenticated["status"], "succeeded", "{authenticated}");
    checkout_becomes(&app, &shop, &placed, "PAID").await;
}

#[tokio::test]
async fn a_payment_intent_canceled_at_stripe_cancels_the_order_and_frees_its_places() {
    let stripe = FakeStripe::start().await;
    // No webhook: the customer's return to the page applies what Stripe says.
    let app = spawn_app_with(|c| use_stripe(c, &stripe.url, 3600)).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 1);
    let intent = client_secret_on(&page)
        .split("_secret_")
        .next()
        .unwrap()
        .to_owned();
    let (status, canceled) = stripe
        .post(&format!("/v1/payment_intents/{intent}/cancel"), &[])
        .await;
    assert_eq!(
        (status, canceled["status"].as_str()),
        (200, Some("canceled"))
    );
    let path = page_path(&app, placed["payment_url"].as_str().unwrap());
    let back = app.get(&format!("{path}&redirect_status=failed")).await;
    assert_eq!(back.status.as_u16(), 303, "{}", back.text);
    checkout_becomes(&app, &shop, &placed, "CANCELLED").await;
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
}

#[tokio::test]
async fn when_stripe_refuses_the_payment_intent_the_checkout_fails_and_keeps_nothing() {
    let stripe = FakeStripe::start().await;
    // Stripe answers 401 to a key it does not know: a refusal, which no retry changes.
    let app = spawn_app_with(|c| {
        use_stripe(c, &stripe.url, 3600);
        c.stripe.stripe_secret_key = Some("pk_not_a_secret_key".into());
    })
    .await;
    let shop = shop(&app, None).await;
    express_one_as_guest(&app, &shop)
        .await
        .assert_problem(502, "checkout-order-failed");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    assert_eq!(crate::db_reads::open_checkouts(&app).await, 0);
}

#[tokio::test]
async fn a_lapsed_payment_is_canceled_at_stripe_before_its_places_are_freed() {
    let stripe = FakeStripe::start().await;
    let app = spawn_stripe_app(&stripe).await;
    let shop = shop(&app, None).await;
    let (placed, page) = buy(&app, &shop).await;
    let intent = client_secret_on(&page)
        .split("_secret_")
        .next()
        .unwrap()
        .to_owned();
    crate::db_reads::lapse_payments(&app).await;
    checkout_becomes(&app, &shop, &placed, "CANCELLED").await;
    assert_eq!(reserved_on_visit_day(&app, &shop).await, 0);
    let at_stripe = stripe.get(&format!("/v1/payment_intents/{intent}")).await;
    assert_eq!(at_stripe["status"], "canceled", "{at_stripe}");
}
