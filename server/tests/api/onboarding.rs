//! Merchant onboarding: magic link by mail, single-use code, merchant bearer, KYC URL.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    helpers::{spawn_app, spawn_app_with, TestApp, TestResponse},
    smtp_server,
    ticket_fixtures::wait_for_mails,
};

pub async fn provision(app: &TestApp, email: &str) -> Value {
    app.admin_post_created(
        "/prod/merchant-accounts",
        &json!({ "email": email, "legal_name": "Zoo Amersfoort B.V." }),
    )
    .await["data"]
        .clone()
}

/// The magic-link code from the newest mail to `email` in the outbox.
pub async fn code_from_outbox(app: &TestApp, email: &str) -> String {
    let mails = crate::db_reads::mails_to(app, email, 1).await;
    let body = &mails.first().expect("a mail was recorded").body_text;
    code_from_text(body)
}

fn code_from_text(text: &str) -> String {
    let start = text.find("code=").expect("magic link in mail") + 5;
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// Reads the onboarding status of the account `debtor_code` with a merchant `bearer`.
pub async fn onboarding_status(app: &TestApp, debtor_code: &str, bearer: &str) -> TestResponse {
    app.send(
        app.request(
            Method::GET,
            &format!("/prod/merchant-accounts/onboarding?debtorCode={debtor_code}"),
        )
        .bearer_auth(bearer),
    )
    .await
}

pub async fn exchange(app: &TestApp, code: &str) -> TestResponse {
    app.send(
        app.request(Method::POST, "/prod/merchant-accounts/session/token")
            .json(&json!({ "code": code })),
    )
    .await
}

#[tokio::test]
async fn a_merchant_is_onboarded_from_magic_link_to_verified_kyc() {
    let app = spawn_app().await;
    let account = provision(&app, "owner@zoo.example").await;
    assert_eq!(account["status"], "PENDING_KYC");
    assert_eq!(account["magic_link_mail"], "OUTBOX");
    let debtor_code = account["debtor_code"].as_str().unwrap().to_owned();

    let mail = &crate::db_reads::mails_to(&app, "owner@zoo.example", 1)
        .await
        .remove(0);
    assert!(mail
        .body_text
        .contains(&format!("{}/prod/merchant/onboarding?code=", app.base_url)));
    let code = code_from_outbox(&app, "owner@zoo.example").await;

    let token_response = exchange(&app, &code).await;
    let token = token_response.assert_status(200);
    assert_eq!(token_response.header("cache-control"), Some("no-store"));
    assert_eq!(token["token_type"], "Bearer");
    assert_eq!(token["expires_in"], 3600);
    assert_eq!(token["debtor_code"], debtor_code.as_str());
    let bearer = token["access_token"].as_str().unwrap();

    let status = onboarding_status(&app, &debtor_code, bearer)
        .await
        .assert_status(200);
    assert_eq!(status["data"]["status"], "PENDING_KYC");
    let kyc_url = status["data"]["kyc_url"].as_str().unwrap().to_owned();
    assert!(kyc_url.starts_with(&app.base_url));

    let page = app.send(app.client.get(&kyc_url)).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("Zoo Amersfoort B.V."));
    let done = app.send(app.client.post(&kyc_url)).await;
    assert_eq!(done.status, 200);

    let status = onboarding_status(&app, &debtor_code, bearer)
        .await
        .assert_status(200);
    assert_eq!(status["data"]["status"], "VERIFIED");
}

#[tokio::test]
async fn an_onboarding_code_works_once() {
    let app = spawn_app().await;
    provision(&app, "once@zoo.example").await;
    let code = code_from_outbox(&app, "once@zoo.example").await;
    exchange(&app, &code).await.assert_status(200);
    exchange(&app, &code)
        .await
        .assert_problem(400, "onboarding-code-invalid");
    exchange(&app, "unknown-code")
        .await
        .assert_problem(400, "onboarding-code-invalid");
    exchange(&app, "")
        .await
        .assert_problem(400, "onboarding-code-invalid");
}

#[tokio::test]
async fn a_merchant_sees_only_its_own_account() {
    let app = spawn_app().await;
    provision(&app, "a@zoo.example").await;
    let other = provision(&app, "b@zoo.example").await;
    let code = code_from_outbox(&app, "a@zoo.example").await;
    let bearer = exchange(&app, &code).await.assert_status(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let other_code = other["debtor_code"].as_str().unwrap();
    onboarding_status(&app, other_code, &bearer)
        .await
        .assert_problem(403, "forbidden");
    app.send(app.request(
        Method::GET,
        "/prod/merchant-accounts/onboarding?debtorCode=x",
    ))
    .await
    .assert_problem(401, "token-invalid");
    app.send(
        app.request(Method::GET, "/prod/merchant-accounts/onboarding")
            .bearer_auth(&bearer),
    )
    .await
    .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn other_stages_do_not_exist_and_provisioning_needs_the_operator() {
    let app = spawn_app().await;
    app.admin_post(
        "/test/merchant-accounts",
        &json!({ "email": "x@y.nl", "legal_name": "X" }),
    )
    .await
    .assert_problem(404, "not-found");
    app.send(
        app.request(Method::POST, "/staging/merchant-accounts/session/token")
            .json(&json!({ "code": "x" })),
    )
    .await
    .assert_problem(404, "not-found");
    app.send(
        app.request(Method::POST, "/prod/merchant-accounts")
            .json(&json!({ "email": "x@y.nl", "legal_name": "X" })),
    )
    .await
    .assert_problem(401, "token-invalid");
    let problem = app
        .admin_post(
            "/prod/merchant-accounts",
            &json!({ "email": "not-an-email", "legal_name": "" }),
        )
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_magic_link_is_delivered_by_smtp_when_configured() {
    let (smtp_url, mut received) = smtp_server::start().await;
    let app = spawn_app_with(|c| c.smtp_url = Some(smtp_url.into())).await;
    let account = provision(&app, "smtp@zoo.example").await;
    assert_eq!(account["magic_link_mail"], "SENT");
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), received.recv())
        .await
        .expect("mail delivered in time")
        .expect("a message");
    assert!(message.contains("To: smtp@zoo.example"), "{message}");
    // The body is quoted-printable: undo soft line breaks and the escaped `=`.
    let code = code_from_text(&message.replace("=\n", "").replace("=3D", "="));
    exchange(&app, &code).await.assert_status(200);
    let recorded = &crate::db_reads::mails_to(&app, "smtp@zoo.example", 1)
        .await
        .remove(0);
    assert_eq!(recorded.status, "SENT");
    assert!(recorded.sent, "a sent mail has its sent_at");
    assert!(
        !recorded.body_text.contains(&code) && !recorded.body_text.contains("code="),
        "a sent magic link is not kept: {}",
        recorded.body_text
    );
}

#[tokio::test]
async fn the_token_exchange_is_rate_limited() {
    let app = spawn_app_with(|c| c.auth_rate_per_minute = 3).await;
    for _ in 0..3 {
        exchange(&app, "nope")
            .await
            .assert_problem(400, "onboarding-code-invalid");
    }
    let limited = exchange(&app, "nope").await;
    limited.assert_problem(429, "rate-limited");
    assert!(
        limited
            .header("retry-after")
            .unwrap()
            .parse::<u64>()
            .unwrap()
            >= 1
    );
}

#[tokio::test]
async fn an_smtp_failure_keeps_the_account_and_the_outbox_sends_the_link_once_smtp_is_back() {
    let address = smtp_server::free_address().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(format!("smtp://{address}").into());
        c.worker_interval_ms = 50;
    })
    .await;
    let account = provision(&app, "down@zoo.example").await;
    assert_eq!(account["magic_link_mail"], "FAILED");
    let listed = wait_for_mails(&app, "?kind=MAGIC_LINK&status=PENDING", 1).await;
    assert_eq!(listed[0]["attempts"], 1, "{listed:?}");
    assert_eq!(
        listed[0]["merchant_account_id"],
        account["merchant_account_id"]
    );
    // Until it is sent, the outbox keeps the link, and it works.
    let code = code_from_outbox(&app, "down@zoo.example").await;

    let (_, mut received) = smtp_server::start_on(address).await;
    crate::db_reads::make_mails_due(&app).await;
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), received.recv())
        .await
        .expect("mail delivered in time")
        .expect("a message");
    assert!(message.contains("To: down@zoo.example"), "{message}");
    let sent = code_from_text(&message.replace("=\n", "").replace("=3D", "="));
    assert_eq!(sent, code);
    wait_for_mails(&app, "?kind=MAGIC_LINK&status=SENT", 1).await;
    exchange(&app, &code).await.assert_status(200);
}

/// The provider account id of the account `provision` answered.
async fn provider_account_id(app: &TestApp, account: &Value) -> String {
    let id = account["merchant_account_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    app.state
        .store
        .merchant_account(id)
        .await
        .unwrap()
        .expect("stored")
        .provider_account_id
}

#[tokio::test]
async fn the_kyc_page_opens_only_with_its_accounts_key_and_is_never_framed() {
    let app = spawn_app().await;
    let account = provision(&app, "owner@zoo.example").await;
    let other = provision(&app, "other@zoo.example").await;
    let (id, other_id) = (
        provider_account_id(&app, &account).await,
        provider_account_id(&app, &other).await,
    );
    let key = |id: &str| app.state.sandbox_kyc.as_ref().unwrap().for_account(id);

    let page = app
        .get(&format!("/sandbox/kyc/{id}?key={}", key(&id)))
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("Zoo Amersfoort B.V."));
    assert_eq!(
        page.header("content-security-policy"),
        Some("frame-ancestors 'none'")
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(
        page.text
            .contains(&format!("action=\"/sandbox/kyc/{id}?key={}\"", key(&id))),
        "the form posts back with the key: {}",
        page.text
    );

    for refused in [
        format!("/sandbox/kyc/{id}"),
        format!("/sandbox/kyc/{id}?key="),
        format!("/sandbox/kyc/{id}?key={}", "0".repeat(32)),
        format!("/sandbox/kyc/{id}?key={}", key(&other_id)),
        format!(
            "/sandbox/kyc/sbx_acct_unknown?key={}",
            key("sbx_acct_unknown")
        ),
    ] {
        let shown = app.get(&refused).await;
        shown.assert_problem(404, "not-found");
        assert_eq!(
            shown.header("content-security-policy"),
            Some("frame-ancestors 'none'")
        );
        app.send(app.request(Method::POST, &refused))
            .await
            .assert_problem(404, "not-found");
    }
    let stored = |app: &TestApp, id: String| {
        let store = app.state.store.clone();
        async move {
            store
                .merchant_account_by_provider_id(&id)
                .await
                .unwrap()
                .unwrap()
                .status
                .to_string()
        }
    };
    assert_eq!(
        stored(&app, id.clone()).await,
        "PENDING_KYC",
        "nothing verified without the key"
    );

    let off = spawn_app_with(|c| c.sandbox_payments = false).await;
    let account = provision(&off, "owner@zoo.example").await;
    let id = provider_account_id(&off, &account).await;
    assert!(off.state.sandbox_kyc.is_none());
    off.assert_not_found(&format!("/sandbox/kyc/{id}?key={}", "0".repeat(32)))
        .await;
    off.send(off.request(
        Method::POST,
        &format!("/sandbox/kyc/{id}?key={}", "0".repeat(32)),
    ))
    .await
    .assert_problem(404, "not-found");
}
