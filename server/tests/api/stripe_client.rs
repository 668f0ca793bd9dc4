//! Boxoffice's client of Stripe's API: a network error or a 5xx is retried with the same
//! Idempotency-Key (so Stripe does the call once), a 4xx never is.

use std::sync::{Arc, Mutex};

use axum::{extract::State, http::HeaderMap, response::IntoResponse, Json, Router};
use serde_json::json;

use crate::{
    checkout_fixtures::{express_one_as_guest, reserved_on_visit_day, shop},
    helpers::spawn_app_with,
    stripe_fixtures::use_stripe,
};

/// A Stripe that answers each PaymentIntent creation with the next status of `script` (then
/// 200), and records each call's Idempotency-Key.
async fn scripted_stripe(script: Vec<u16>) -> (String, Arc<Mutex<Vec<String>>>) {
    let keys: Arc<Mutex<Vec<String>>> = Arc::default();
    let state = (Arc::new(Mutex::new(script)), keys.clone());
    type Shared = (Arc<Mutex<Vec<u16>>>, Arc<Mutex<Vec<String>>>);
    async fn create(State((script, keys)): State<Shared>, headers: HeaderMap) -> impl IntoResponse {
        let key = headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        keys.lock().unwrap().push(key);
        let status = {
            let mut script = script.lock().unwrap();
            if script.is_empty() {
                200
            } else {
                script.remove(0)
            }
        };
        let body = if status == 200 {
            json!({"id": "pi_scripted", "object": "payment_intent", "status": "requires_payment_method",
                   "client_secret": "pi_scripted_secret_x", "amount": 1300, "currency": "eur"})
        } else {
            json!({"error": {"type": "api_error", "message": "scripted"}})
        };
        (
            axum::http::StatusCode::from_u16(status).unwrap(),
            Json(body),
        )
    }
    let app = Router::new()
        .route("/v1/payment_intents", axum::routing::post(create))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, keys)
}

#[tokio::test]
async fn a_5xx_is_retried_with_the_same_key_and_a_4xx_is_final() {
    let (url, keys) = scripted_stripe(vec![500, 503]).await;
    let app = spawn_app_with(|c| use_stripe(c, &url, 3600)).await;
    let retried = shop(&app, None).await;
    express_one_as_guest(&app, &retried)
        .await
        .assert_status(200);
    let seen = keys.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "two 5xx, then the answer: {seen:?}");
    assert!(seen[0].starts_with("boxoffice-payment-"));
    assert!(
        seen.iter().all(|k| *k == seen[0]),
        "one key for every attempt: {seen:?}"
    );

    let (url, keys) = scripted_stripe(vec![402]).await;
    let app = spawn_app_with(|c| use_stripe(c, &url, 3600)).await;
    let refused = shop(&app, None).await;
    express_one_as_guest(&app, &refused)
        .await
        .assert_problem(502, "checkout-order-failed");
    assert_eq!(keys.lock().unwrap().len(), 1, "a refusal is not retried");
    assert_eq!(reserved_on_visit_day(&app, &refused).await, 0);
}
