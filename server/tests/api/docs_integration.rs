//! docs/integration.md kept true: its `sh` blocks, run in order by bash against a server with
//! the demo data (as a partner following the page would), answer what the page shows.

use server::demo::seed_if_empty;

use crate::docs_steps::{
    assert_prints_in_order, docs_python, free_port, problems_in, run, script_of, tools_present,
};
use crate::helpers::{spawn_app_with, ADMIN_TOKEN};

const PAGE: &str = "docs/integration.md";
const DOC: &str = include_str!("../../../docs/integration.md");

/// What the page's steps must print, in this order: each is a step's answer as the page shows
/// it (ids, tokens, times and the receiver's port differ from run to run; these parts do not).
const EXPECTED: [&str; 32] = [
    // 1. The webhook registered before any sale, and its receiver listening.
    r#""client_id":"demo-partner","webhook_url":"http://127.0.0.1:"#,
    r#""webhook_secret":"whsec_"#,
    "listening on http://127.0.0.1:",
    // 2.–4. Bearer, session, exchange.
    r#""token_type":"Bearer","expires_in":900"#,
    r#""pkce_required":false"#,
    r#""token_type":"Bearer","expires_in":1800"#,
    r#""mode":"headless""#,
    // 5.–7. Catalog.
    r#""pagination":{"limit":2,"next_token":"#,
    r#""pagination":{"limit":2}}"#,
    // (The products come in id order, made afresh with the data: the book anywhere among them.)
    r#""sku":"MUS-GUIDE","no_date":true,"requires_timeslot":false,"physical_product":true"#,
    r#""start_time":"#,
    // 8.–9. Express checkout, its replay, payment.
    r#""order_display_id":"BX-"#,
    "HTTP/1.1 208 Already Reported\nidempotent-replayed: true",
    r#""order_status": "PENDING_PAYMENT""#,
    "303 http://localhost:8080/tickets/done?basket=7&payment_id=",
    r#"{"status":"PAID","order_status":"FULFILLED","payment":"PAID"}"#,
    // 10. Orders.
    r#""status":"FULFILLED""#,
    // 11. Two steps with a physical product.
    r#""status": "RESERVED""#,
    r#""requires_shipping_address": true"#,
    r#""external_reference": "basket-8""#,
    r#""sku": "MUS-GUIDE""#,
    r#""code": "WELKOM10""#,
    r#""order_display_id":"BX-"#,
    // 12. Every event verified by the receiver, then the feed.
    "checkouts.CheckoutFulfillmentRegistered checkouts/",
    " CONFIRMED\ncheckouts.CheckoutFulfillmentRegistered checkouts/",
    " CONFIRMED\ncheckouts.CheckoutStarted checkouts/",
    " RESERVED\ncheckouts.CheckoutStarted checkouts/",
    " RESERVED\norders.OrderPaid orders/",
    " PAID\n",
    // (Not which events each page lists: on PostgreSQL the feed holds an event back while an
    // older transaction on the database server is in flight, other tests' among them.)
    r#""feed":{"resume_token":"#,
    // 13. A revoked bearer.
    r#"{"type":"urn:boxoffice:error:session-code-invalid","status":400}"#,
    "HTTP/1.1 401 Unauthorized\nwww-authenticate: Bearer error=\"invalid_token\"",
];

#[tokio::test]
async fn the_curl_steps_of_docs_integration_md_run_against_the_demo_data() {
    if !tools_present(PAGE, &["curl", "jq"]) {
        return;
    }
    let python = docs_python();
    if !python.exists() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI runs {PAGE}'s webhook receiver: .ci/docs-tools installs its library"
        );
        eprintln!(
            "{PAGE}'s steps not run: no {} (.ci/docs-tools)",
            python.display()
        );
        return;
    }
    let app = spawn_app_with(|c| c.demo = true).await;
    seed_if_empty(&app.state).await.unwrap();

    let script = script_of(
        DOC,
        &[
            (
                "BASE=http://127.0.0.1:3000",
                format!("BASE={}", app.base_url),
            ),
            ("ADMIN=operator-secret", format!("ADMIN={ADMIN_TOKEN}")),
            (
                "RECEIVER_PORT=8090",
                format!("RECEIVER_PORT={}", free_port()),
            ),
        ],
    );
    assert!(
        !script.contains("/tmp/"),
        "the steps make their temporary files with mktemp, not at fixed names"
    );
    // `python3` is the one with the Standard Webhooks library, as after the page's pip install.
    let printed = run(script, python.parent().map(ToOwned::to_owned)).await;

    assert_prints_in_order(PAGE, &printed, &EXPECTED);
    // The only problems are the two the page shows on purpose (step 13).
    assert_eq!(
        problems_in(&printed),
        [
            "urn:boxoffice:error:session-code-invalid",
            "urn:boxoffice:error:token-invalid"
        ],
        "{printed}"
    );
    assert!(
        !printed.contains("refused"),
        "every delivery verified:\n{printed}"
    );
}
