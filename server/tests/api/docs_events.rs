//! docs/events.md kept true: every event type is delivered to a partner's webhook, signed so
//! that the Standard Webhooks libraries verify it with the snippets the page shows (Rust here;
//! Python and JavaScript when `.ci/docs-tools` installed them), and each type's JSON example on
//! the page has the shape of a real delivery.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::Command,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{body::Bytes, http::HeaderMap, routing::post, Router};
use serde_json::{json, Value};
use server::events::EventType;

use crate::checkout_fixtures::{express_one_in_session, pay, reserve_id, shop};

#[path = "docs_snippets/verify_webhook.rs"]
mod verify_webhook;

const DOC: &str = include_str!("../../../docs/events.md");
const SNIPPETS: [(&str, &str); 3] = [
    ("rust", include_str!("docs_snippets/verify_webhook.rs")),
    ("python", include_str!("docs_snippets/verify_webhook.py")),
    ("js", include_str!("docs_snippets/verify_webhook.js")),
];

type Received = Arc<Mutex<Vec<(HeaderMap, Bytes)>>>;

/// A webhook receiver on port 0: its URL and what it received.
async fn receiver() -> (String, Received) {
    let received: Received = Arc::default();
    let sink = received.clone();
    let app = Router::new().route(
        "/hooks",
        post(move |headers: HeaderMap, body: Bytes| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push((headers, body));
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

#[tokio::test]
async fn every_event_type_is_delivered_signed_and_verifies_with_the_docs_snippets() {
    for (language, snippet) in SNIPPETS {
        assert!(
            DOC.contains(&format!("```{language}\n{snippet}```")),
            "docs/events.md must show server/tests/api/docs_snippets/verify_webhook.* \
             ({language}) exactly as the test runs it"
        );
    }

    let (hook_url, received) = receiver().await;
    let (app, refunds) =
        crate::after_sale_fixtures::spawn_with_refunds(|c| c.worker_interval_ms = 100).await;
    let shop = shop(&app, None).await;
    crate::after_sale_fixtures::set_policy(
        &app,
        &shop.product,
        crate::after_sale_fixtures::generous(),
    )
    .await
    .assert_status(200);
    let client = app.stored_client(&shop.partner.client.client_id).await;
    let id = client.client.partner_client_id;
    let current = serde_json::to_value(&client.client).unwrap();
    let update = json!({
        "name": current["name"], "campaign_ids": current["campaign_ids"],
        "frame_origins": current["frame_origins"], "return_origins": current["return_origins"],
        "webhook_url": hook_url,
    });
    app.admin_put_ok(&format!("/admin/v1/clients/{id}"), &update)
        .await;
    let secret = client.webhook_secret.unwrap();

    // Started + FulfillmentRegistered, then OrderPaid; the same, then OrderCancelled (and,
    // paid late, PaymentRefunded); a reservation released: CheckoutStarted + CheckoutExpired.
    let mut declined = String::new();
    for action in ["pay", "decline"] {
        let bought = express_one_in_session(&app, &shop).await.assert_status(200);
        declined = bought["data"]["payment_url"].as_str().unwrap().to_owned();
        pay(&app, &declined, action).await;
    }
    // The declined payment reported paid after all (a provider's late success): refunded,
    // PaymentRefunded.
    let payment_id: uuid::Uuid = declined
        .split("/pay/")
        .nth(1)
        .and_then(|rest| rest.split('?').next())
        .unwrap()
        .parse()
        .unwrap();
    let payment = app.state.store.payment(payment_id).await.unwrap().unwrap();
    server::payments::apply(
        &app.state.commerce,
        &payment,
        &server::providers::ProviderPaymentState::Succeeded,
    )
    .await
    .unwrap();
    let reserved = reserve_id(&app, &shop, 1).await;
    let released = shop
        .partner
        .delete(&app, &format!("/v2/checkouts/{reserved}"))
        .await;
    assert_eq!(released.status.as_u16(), 204, "{}", released.text);
    // After the sale: a ticket moved (OrderRebooked), one cancelled with a refund the provider
    // makes (TicketsCancelled, RefundSucceeded), one whose refund it refuses (RefundFailed).
    let paid = crate::ticket_fixtures::paid_order(&app, &shop, "en-GB", 3).await;
    let order_path = format!("/v2/me/fulfillment/orders/{}", paid.order_id);
    let order = shop.partner.get_ok(&app, &order_path).await["data"].clone();
    let tickets = crate::after_sale_fixtures::tickets_in(&order, "VALID");
    let next_day = crate::partner_fixtures::shift(crate::checkout_fixtures::visit_day(), 1);
    let change = |what: &'static str, body: serde_json::Value| {
        let (app, shop, id) = (&app, &shop, paid.order_id.clone());
        async move {
            crate::after_sale_fixtures::customer_change(
                app,
                shop,
                &id,
                what,
                &body,
                &crate::checkout_fixtures::key(),
            )
            .await
            .assert_status(200)
        }
    };
    change(
        "rebooking",
        json!({ "date": next_day.to_string(), "ticket_ids": [tickets[0]] }),
    )
    .await;
    change("cancellation", json!({ "ticket_ids": [tickets[1]] })).await;
    refunds.set(crate::after_sale_fixtures::RefundScript::Fail);
    change("cancellation", json!({ "ticket_ids": [tickets[2]] })).await;
    // At the gate: a ticket let in, the entry undone, let in again, and a second entry
    // uploaded from an offline gate (TicketRedeemed, RedemptionUndone, RedemptionConflict).
    let gate = crate::gate_fixtures::gate(&app, &shop).await;
    let today = crate::gate_fixtures::paid_for(&app, &shop, 0, 1).await;
    let code = crate::gate_fixtures::code(&today, 0);
    let entry = crate::gate_fixtures::scan(&app, &gate, &code)
        .await
        .assert_status(201);
    let id = entry["data"]["redemption_id"].as_str().unwrap();
    assert_eq!(
        crate::gate_fixtures::undo(&app, &gate, id).await.status,
        204
    );
    crate::gate_fixtures::scan(&app, &gate, &code)
        .await
        .assert_status(201);
    let earlier = (chrono::Utc::now() - chrono::Duration::minutes(1)).to_rfc3339();
    let offline =
        json!([{ "code": code, "nonce": crate::gate_fixtures::nonce(), "scanned_at": earlier }]);
    crate::gate_fixtures::upload(&app, &gate, offline)
        .await
        .assert_status(200);

    let types_seen = || -> BTreeSet<String> {
        received
            .lock()
            .unwrap()
            .iter()
            .map(|(_, body)| event_of(body)["type"].as_str().unwrap().to_owned())
            .collect()
    };
    let all: BTreeSet<String> = EventType::ALL
        .iter()
        .map(|t| t.as_str().to_owned())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(20);
    while types_seen() != all && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(types_seen(), all, "every event type was delivered");
    let deliveries = received.lock().unwrap().clone();

    for (headers, body) in &deliveries {
        let event = verify_webhook::verified_event(&secret, headers, body)
            .expect("the Standard Webhooks library verifies the delivery");
        assert_eq!(event, event_of(body));
        assert_eq!(
            headers["webhook-id"].to_str().unwrap(),
            event["id"].as_str().unwrap(),
            "webhook-id is the event id"
        );
        assert_eq!(headers["content-type"], "application/cloudevents+json");
        let mut tampered = body.to_vec();
        tampered.push(b' ');
        assert!(verify_webhook::verified_event(&secret, headers, &tampered).is_err());
        assert!(verify_webhook::verified_event(&other_secret(), headers, body).is_err());
    }

    check_documented_examples(&deliveries);
    run_other_languages(&secret, &deliveries);
}

fn event_of(body: &[u8]) -> Value {
    serde_json::from_slice(body).unwrap()
}

fn other_secret() -> String {
    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned()
}

/// Every `### `type`` section of docs/events.md names an event type, every event type has
/// one, and its first JSON block has the keys of a real delivery of that type (values aside).
fn check_documented_examples(deliveries: &[(HeaderMap, Bytes)]) {
    let sections: Vec<(&str, &str)> = DOC
        .split("\n### `")
        .skip(1)
        .filter_map(|section| section.split_once('`'))
        .collect();
    let known: Vec<&str> = EventType::ALL.iter().map(|t| t.as_str()).collect();
    for (name, _) in &sections {
        assert!(
            known.contains(name),
            "docs/events.md documents `{name}`, which is no event type"
        );
    }
    for kind in EventType::ALL {
        let (_, section) = sections
            .iter()
            .find(|(name, _)| *name == kind.as_str())
            .unwrap_or_else(|| panic!("docs/events.md has no section `{}`", kind.as_str()));
        let example = section
            .split_once("```json\n")
            .and_then(|(_, rest)| rest.split_once("```"))
            .map(|(json, _)| json)
            .unwrap_or_else(|| panic!("the section `{}` has no JSON example", kind.as_str()));
        let example: Value = serde_json::from_str(example)
            .unwrap_or_else(|e| panic!("the example of `{}`: {e}", kind.as_str()));
        let real = deliveries
            .iter()
            .map(|(_, body)| event_of(body))
            .find(|event| event["type"] == kind.as_str())
            .unwrap();
        let mut differences = Vec::new();
        same_shape(&example, &real, kind.as_str(), &mut differences);
        assert!(
            differences.is_empty(),
            "docs/events.md's example of `{}` differs from a real delivery: {differences:?}\n\
             real: {real:#}",
            kind.as_str()
        );
    }
}

/// Objects must have the same keys (recursively); an array's first items are compared; a
/// `null` on either side matches anything (an optional value the example shows or omits).
fn same_shape(doc: &Value, real: &Value, path: &str, differences: &mut Vec<String>) {
    match (doc, real) {
        (Value::Object(d), Value::Object(r)) => {
            let (dk, rk): (BTreeSet<_>, BTreeSet<_>) = (d.keys().collect(), r.keys().collect());
            if dk != rk {
                differences.push(format!("{path}: keys {dk:?} vs {rk:?}"));
            }
            for key in dk.intersection(&rk) {
                same_shape(&d[*key], &r[*key], &format!("{path}.{key}"), differences);
            }
        }
        (Value::Array(d), Value::Array(r)) => {
            if let (Some(d), Some(r)) = (d.first(), r.first()) {
                same_shape(d, r, &format!("{path}[0]"), differences);
            }
        }
        (Value::Null, _) | (_, Value::Null) => {}
        (d, r) if std::mem::discriminant(d) != std::mem::discriminant(r) => {
            differences.push(format!("{path}: {d} vs {r}"));
        }
        _ => {}
    }
}

/// The Python and JavaScript snippets, run by their Standard Webhooks libraries against the
/// captured deliveries: each must return the event, and refuse a tampered body. The libraries
/// come from `.ci/docs-tools` (the test command runs it); without them the test says so, and
/// in CI (`CI=true`) fails.
fn run_other_languages(secret: &str, deliveries: &[(HeaderMap, Bytes)]) {
    let tools = crate::docs_steps::tools_dir();
    let python = crate::docs_steps::docs_python();
    let node_modules = std::env::var_os("BOXOFFICE_DOCS_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools.join("docs-node/node_modules"));
    let snippets = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/docs_snippets");

    let file = tempfile::NamedTempFile::new().unwrap();
    let cases: Vec<Value> = deliveries
        .iter()
        .map(|(headers, body)| {
            let header = |n: &str| headers[n].to_str().unwrap().to_owned();
            json!({
                "headers": {
                    "webhook-id": header("webhook-id"),
                    "webhook-timestamp": header("webhook-timestamp"),
                    "webhook-signature": header("webhook-signature"),
                },
                "body": String::from_utf8(body.to_vec()).unwrap(),
            })
        })
        .collect();
    std::fs::write(file.path(), serde_json::to_vec(&cases).unwrap()).unwrap();
    let expected: Vec<String> = cases
        .iter()
        .map(|c| event_of(c["body"].as_str().unwrap().as_bytes())["id"].to_string())
        .map(|id| id.trim_matches('"').to_owned())
        .collect();

    let runs = [
        (
            "python",
            python.exists(),
            Command::new(&python)
                .arg("-c")
                .arg(PYTHON_HARNESS)
                .arg(file.path())
                .current_dir(&snippets)
                .env("BOXOFFICE_WEBHOOK_SECRET", secret)
                .output(),
        ),
        (
            "node",
            node_modules.join("standardwebhooks").exists(),
            Command::new("node")
                .arg("-e")
                .arg(JS_HARNESS)
                .arg(file.path())
                .current_dir(&snippets)
                .env("NODE_PATH", &node_modules)
                .env("BOXOFFICE_WEBHOOK_SECRET", secret)
                .output(),
        ),
    ];
    for (language, installed, output) in runs {
        if !installed {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI runs the docs' {language} snippet: .ci/docs-tools installs its library"
            );
            eprintln!("docs/events.md's {language} snippet not run: run .ci/docs-tools first");
            continue;
        }
        let output = output.unwrap_or_else(|e| panic!("running {language}: {e}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the {language} snippet failed: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ids: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            ids, expected,
            "the {language} snippet verified every delivery"
        );
    }
}

/// Runs docs/events.md's Python snippet over the deliveries in argv[1]: prints each verified
/// event's id, and fails if a tampered body passes.
const PYTHON_HARNESS: &str = r#"
import json, sys
from verify_webhook import verified_event, WebhookVerificationError
for case in json.load(open(sys.argv[1])):
    body = case["body"].encode()
    print(verified_event(body, case["headers"])["id"])
    try:
        verified_event(body + b" ", case["headers"])
    except WebhookVerificationError:
        continue
    sys.exit("a tampered body was accepted")
"#;

/// The same for the JavaScript snippet.
const JS_HARNESS: &str = r#"
const fs = require("fs");
const { verifiedEvent } = require(process.cwd() + "/verify_webhook.js");
for (const c of JSON.parse(fs.readFileSync(process.argv[1], "utf8"))) {
  console.log(verifiedEvent(Buffer.from(c.body), c.headers).id);
  let refused = false;
  try { verifiedEvent(c.body + " ", c.headers); } catch (e) { refused = true; }
  if (!refused) { console.error("a tampered body was accepted"); process.exit(1); }
}
"#;
