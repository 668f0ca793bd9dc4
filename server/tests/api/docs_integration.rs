//! docs/integration.md kept true: its `sh` blocks, run in order by bash against a server with
//! the demo data (as a partner following the page would), answer what the page shows.

use std::process::Command;

use server::demo::seed_if_empty;

use crate::helpers::{spawn_app_with, ADMIN_TOKEN};

const DOC: &str = include_str!("../../../docs/integration.md");

/// What the page's steps must print, in this order: each is a step's answer as the page shows
/// it (ids, tokens and times differ from run to run; these parts do not).
const EXPECTED: [&str; 16] = [
    r#""token_type":"Bearer","expires_in":900"#,
    r#""pkce_required":false"#,
    r#""token_type":"Bearer","expires_in":1800"#,
    r#""mode":"headless""#,
    r#""pagination":{"limit":2,"next_token":"#,
    r#""pagination":{"limit":2}}"#,
    r#""sku":"MUS-ADULT""#,
    r#""start_time":"#,
    r#""order_display_id":"BX-"#,
    "HTTP/1.1 208 Already Reported\nidempotent-replayed: true",
    r#""order_status": "PENDING_PAYMENT""#,
    "303 http://localhost:8080/tickets/done?basket=7&payment_id=",
    r#"{"status":"PAID","order_status":"FULFILLED","payment":"PAID"}"#,
    r#""webhook_secret":"whsec_"#,
    r#""feed":{"resume_token":"#,
    "HTTP/1.1 401 Unauthorized\nwww-authenticate: Bearer error=\"invalid_token\"",
];

#[tokio::test]
async fn the_curl_steps_of_docs_integration_md_run_against_the_demo_data() {
    for tool in ["curl", "jq"] {
        if Command::new(tool).arg("--version").output().is_err() {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI runs docs/integration.md's steps: {tool} is needed (.ci/docs-tools)"
            );
            eprintln!("docs/integration.md's steps not run: no {tool}");
            return;
        }
    }
    let app = spawn_app_with(|c| c.demo = true).await;
    seed_if_empty(&app.state).await.unwrap();
    let files = tempfile::tempdir().unwrap();
    let tmp = format!("{}/", files.path().display());

    let mut script = String::from("set -u\n");
    for block in DOC.split("```sh\n").skip(1) {
        let (block, _) = block.split_once("```").unwrap();
        script.push_str(
            &block
                .replace(
                    "BASE=http://127.0.0.1:3000",
                    &format!("BASE={}", app.base_url),
                )
                .replace("ADMIN=operator-secret", &format!("ADMIN={ADMIN_TOKEN}"))
                .replace("/tmp/", &tmp),
        );
    }
    assert!(script.contains(&app.base_url), "the page sets BASE");
    let output = tokio::task::spawn_blocking(move || {
        Command::new("bash").arg("-c").arg(script).output().unwrap()
    })
    .await
    .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.trim().is_empty(),
        "the steps wrote errors: {errors}\nand printed:\n{printed}"
    );

    let mut rest = printed.as_str();
    for expected in EXPECTED {
        let at = rest.find(expected).unwrap_or_else(|| {
            panic!("docs/integration.md's steps did not print {expected:?} where the page shows it; they printed:\n{printed}")
        });
        rest = &rest[at + expected.len()..];
    }
    // The only problems are the two the page shows on purpose (step 11).
    let problems: Vec<&str> = printed
        .match_indices("urn:boxoffice:error:")
        .map(|(at, _)| printed[at..].split('"').next().unwrap())
        .collect();
    assert_eq!(
        problems,
        [
            "urn:boxoffice:error:session-code-invalid",
            "urn:boxoffice:error:token-invalid"
        ],
        "{printed}"
    );
}
