//! Stripe Connect, which localstripe lacks, against a recording double that answers with
//! Stripe's own example objects (`fixtures/stripe/objects.json`): merchants onboard as Express
//! connected accounts through Account Links, `account.updated` opens their sales, payments are
//! destination charges with the platform's fee, and a refund takes back the transfer and fee.

use std::sync::{Arc, Mutex};

use axum::{
    body::Bytes,
    extract::{Request, State},
    http::{HeaderMap, Method},
    response::{IntoResponse, Response},
    Json, Router,
};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::{
    checkout_fixtures::{express_one_as_guest, reserved_on_visit_day, shop},
    db_reads::refunds_of,
    helpers::{spawn_app_with, TestApp},
    onboarding::{code_from_outbox, exchange, onboarding_status},
    stripe_fixtures::{eventually, use_stripe, WEBHOOK_SECRET},
    stripe_webhooks::{deliver, event, signed},
};

const ACCOUNT: &str = "acct_1PgafTB7WZ01zgkW";

/// One request the double received.
#[derive(Debug, Clone)]
struct Call {
    method: Method,
    path: String,
    idempotency_key: Option<String>,
    stripe_version: Option<String>,
    form: Vec<(String, String)>,
}

impl Call {
    fn param(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Default)]
struct Double {
    calls: Arc<Mutex<Vec<Call>>>,
    /// PaymentIntents made, by id: (amount, status).
    intents: Arc<Mutex<Vec<(String, i64, String)>>>,
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/api/fixtures/stripe/objects.json"
    ))
    .unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["resources"][name].clone()
}

async fn answer(State(double): State<Double>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let header = |headers: &HeaderMap, name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let call = Call {
        method: parts.method.clone(),
        path: parts.uri.path().to_owned(),
        idempotency_key: header(&parts.headers, "idempotency-key"),
        stripe_version: header(&parts.headers, "stripe-version"),
        form: form_urlencoded::parse(&body).into_owned().collect(),
    };
    double.calls.lock().unwrap().push(call.clone());
    let path = call.path.as_str();
    let intent = |id: &str, amount: i64, status: &str| {
        let mut pi = fixture("payment_intent");
        pi["id"] = json!(id);
        pi["amount"] = json!(amount);
        pi["status"] = json!(status);
        pi["client_secret"] = json!(format!("{id}_secret_double"));
        pi
    };
    let object = match (call.method.as_str(), path) {
        ("POST", "/v1/accounts") => {
            let mut account = fixture("account");
            account["charges_enabled"] = json!(false);
            account
        }
        ("GET", p) if p.starts_with("/v1/accounts/") => fixture("account"),
        ("POST", "/v1/account_links") => fixture("account_link"),
        ("POST", "/v1/payment_intents") => {
            let mut intents = double.intents.lock().unwrap();
            let id = format!("pi_double{}", intents.len() + 1);
            let amount = call.param("amount").unwrap().parse().unwrap();
            intents.push((id.clone(), amount, "requires_payment_method".into()));
            intent(&id, amount, "requires_payment_method")
        }
        ("POST", p) if p.ends_with("/cancel") => {
            let id = p
                .trim_start_matches("/v1/payment_intents/")
                .trim_end_matches("/cancel");
            let mut intents = double.intents.lock().unwrap();
            let found = intents.iter_mut().find(|(i, _, _)| i == id).unwrap();
            found.2 = "canceled".into();
            intent(id, found.1, "canceled")
        }
        ("GET", p) if p.starts_with("/v1/payment_intents/") => {
            let id = p.trim_start_matches("/v1/payment_intents/");
            let intents = double.intents.lock().unwrap();
            let found = intents.iter().find(|(i, _, _)| i == id).unwrap();
            intent(id, found.1, &found.2)
        }
        ("POST", "/v1/refunds") => {
            let mut refund = fixture("refund");
            refund["amount"] = json!(call.param("amount").unwrap().parse::<i64>().unwrap());
            refund["payment_intent"] = json!(call.param("payment_intent"));
            // Pending, as a card refund often is at first: its `charge.refunded` settles it.
            refund["status"] = json!("pending");
            refund["metadata"] = json!({"refund_id": call.param("metadata[refund_id]")});
            refund
        }
        _ => {
            return (
                axum::http::StatusCode::NOT_FOUND,
                Json(json!({"error": {"type": "invalid_request_error", "message": "unknown"}})),
            )
                .into_response()
        }
    };
    Json(object).into_response()
}

impl Double {
    async fn start() -> (Self, String) {
        let double = Double::default();
        let app = Router::new().fallback(answer).with_state(double.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (double, url)
    }

    fn calls_to(&self, method: &str, path: &str) -> Vec<Call> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.method.as_str() == method && c.path == path)
            .cloned()
            .collect()
    }
}

async fn merchant_read(app: &TestApp, merchant: &str) -> Value {
    app.admin_get_ok(&format!("/admin/v1/merchants/{merchant}"))
        .await["data"]
        .clone()
}

#[tokio::test]
async fn a_merchant_onboards_at_stripe_and_its_sales_are_destination_charges_with_the_platforms_fee(
) {
    let (double, url) = Double::start().await;
    let app = spawn_app_with(|c| {
        use_stripe(c, &url, 3600);
        c.stripe.stripe_application_fee_percent = "10".parse().unwrap();
    })
    .await;
    let shop = shop(&app, None).await;

    // Without an account, the platform takes the payment itself: a plain charge.
    let plain = express_one_as_guest(&app, &shop).await.assert_status(200);
    let created = double.calls_to("POST", "/v1/payment_intents");
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].param("transfer_data[destination]"), None);
    assert_eq!(created[0].param("application_fee_amount"), None);
    assert!(plain["data"]["payment_url"]
        .as_str()
        .unwrap()
        .starts_with(&app.base_url));

    // The operator provisions the merchant's account: an Express connected account.
    let account = app
        .admin_post_created(
            "/prod/merchant-accounts",
            &json!({"email": "owner@zoo.example", "legal_name": "Zoo B.V.", "merchant_id": shop.merchant}),
        )
        .await["data"]
        .clone();
    assert_eq!(account["provider"], "stripe");
    assert_eq!(account["charges_enabled"], false);
    let made = double.calls_to("POST", "/v1/accounts");
    assert_eq!(made.len(), 1);
    let made = &made[0];
    assert_eq!(made.param("type"), Some("express"));
    assert_eq!(
        made.param("capabilities[card_payments][requested]"),
        Some("true")
    );
    assert_eq!(
        made.param("capabilities[transfers][requested]"),
        Some("true")
    );
    assert_eq!(made.param("email"), Some("owner@zoo.example"));
    assert!(made
        .idempotency_key
        .as_deref()
        .unwrap()
        .starts_with("boxoffice-account-"));
    assert!(made.stripe_version.is_some());
    let read = merchant_read(&app, &shop.merchant).await;
    assert_eq!(read["payment_account"]["provider"], "stripe");
    assert_eq!(read["payment_account"]["charges_enabled"], false);

    // The merchant's KYC URL is an Account Link for onboarding, coming back to its keyed page.
    let code = code_from_outbox(&app, "owner@zoo.example").await;
    let token = exchange(&app, &code).await.assert_status(200);
    let status = onboarding_status(
        &app,
        account["debtor_code"].as_str().unwrap(),
        token["access_token"].as_str().unwrap(),
    )
    .await
    .assert_status(200);
    let link = fixture("account_link")["url"].as_str().unwrap().to_owned();
    assert_eq!(status["data"]["kyc_url"], link.as_str());
    let links = double.calls_to("POST", "/v1/account_links");
    assert_eq!(links[0].param("account"), Some(ACCOUNT));
    assert_eq!(links[0].param("type"), Some("account_onboarding"));
    let refresh = links[0].param("refresh_url").unwrap().to_owned();
    assert!(refresh.starts_with(&format!("{}/stripe/kyc/{ACCOUNT}?key=", app.base_url)));
    assert_eq!(
        links[0].param("return_url"),
        Some(format!("{refresh}&returned=1").as_str())
    );
    // A link that ran out: its refresh URL makes a fresh one; without the key, nothing.
    let again = app.send(app.client.get(&refresh)).await;
    assert_eq!(again.status.as_u16(), 303);
    assert_eq!(again.header("location"), Some(link.as_str()));
    app.assert_not_found(&format!("/stripe/kyc/{ACCOUNT}?key={}", "0".repeat(32)))
        .await;

    // Until Stripe enables charges, the merchant's checkouts are refused and keep nothing.
    let before = reserved_on_visit_day(&app, &shop).await;
    express_one_as_guest(&app, &shop)
        .await
        .assert_problem(409, "checkout-merchant-not-payable");
    assert_eq!(reserved_on_visit_day(&app, &shop).await, before);

    let mut updated = fixture("account");
    updated["charges_enabled"] = json!(true);
    let body = event("evt_account", "account.updated", updated);
    deliver(&app, &body, signed(WEBHOOK_SECRET, &body))
        .await
        .assert_status(200);
    let read = merchant_read(&app, &shop.merchant).await;
    assert_eq!(read["payment_account"]["charges_enabled"], true);
    assert_eq!(read["payment_account"]["status"], "VERIFIED");

    // Now a destination charge: the merchant's account receives it, less the platform's 10 %.
    let placed = express_one_as_guest(&app, &shop).await.assert_status(200)["data"].clone();
    let created = double.calls_to("POST", "/v1/payment_intents");
    let charge = created.last().unwrap();
    assert_eq!(charge.param("transfer_data[destination]"), Some(ACCOUNT));
    let amount: i64 = charge.param("amount").unwrap().parse().unwrap();
    let fee: i64 = charge
        .param("application_fee_amount")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(fee, (amount + 5) / 10, "10 % of {amount} cents, rounded");
    assert_eq!(
        charge.param("metadata[order_id]"),
        placed["order_id"].as_str()
    );
    assert!(charge
        .idempotency_key
        .as_deref()
        .unwrap()
        .starts_with("boxoffice-payment-"));

    // Paid after the order ended: refunded with the transfer and the fee taken back.
    let payment: Uuid = placed["payment_url"]
        .as_str()
        .unwrap()
        .split("/pay/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    server::checkout::lifecycle::settle_payment(
        &app.state.commerce,
        payment,
        server::checkout::lifecycle::PaymentOutcome::Expired,
    )
    .await
    .unwrap();
    let intent = double.intents.lock().unwrap().last().unwrap().0.clone();
    let body = event(
        "evt_paid_late",
        "payment_intent.succeeded",
        json!({"id": intent, "object": "payment_intent", "status": "succeeded"}),
    );
    deliver(&app, &body, signed(WEBHOOK_SECRET, &body))
        .await
        .assert_status(200);
    let order: Uuid = placed["order_id"].as_str().unwrap().parse().unwrap();
    eventually("the refund sent", || async {
        let refunds = refunds_of(&app, order).await;
        (refunds.len() == 1
            && refunds[0].1 == "PENDING"
            && !double.calls_to("POST", "/v1/refunds").is_empty())
        .then_some(())
    })
    .await;
    let refunds = double.calls_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 1);
    let refund = &refunds[0];
    assert_eq!(refund.param("payment_intent"), Some(intent.as_str()));
    assert_eq!(refund.param("amount"), Some(amount.to_string().as_str()));
    assert_eq!(refund.param("reverse_transfer"), Some("true"));
    assert_eq!(refund.param("refund_application_fee"), Some("true"));
    assert!(refund
        .idempotency_key
        .as_deref()
        .unwrap()
        .starts_with("boxoffice-refund-"));

    // Stripe reports the refund done (`charge.refunded`, its refunds listed): recorded, once;
    // a later `refund.updated` saying otherwise does not undo a final state.
    let mut done = fixture("refund");
    done["status"] = json!("succeeded");
    done["metadata"] = json!({"refund_id": refund.param("metadata[refund_id]")});
    let mut charge = fixture("charge");
    charge["refunds"] = json!({"object": "list", "data": [done.clone()]});
    let body = event("evt_refunded", "charge.refunded", charge);
    deliver(&app, &body, signed(WEBHOOK_SECRET, &body))
        .await
        .assert_status(200);
    done["status"] = json!("pending");
    let body = event("evt_refund_late", "refund.updated", done);
    deliver(&app, &body, signed(WEBHOOK_SECRET, &body))
        .await
        .assert_status(200);
    let refunds = refunds_of(&app, order).await;
    assert_eq!(refunds.len(), 1);
    assert_eq!(refunds[0].1, "SUCCEEDED", "{refunds:?}");
}
