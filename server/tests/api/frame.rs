//! The hosted frame's server-rendered shell.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_frame_is_server_rendered_with_the_script_that_hydrates_it() {
    let app = spawn_app().await;

    let response = app.get("/frame").await;

    assert_eq!(response.status.as_u16(), 200, "body: {}", response.text);
    assert!(response
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("text/html")));
    let html = &response.text;
    assert!(html.contains(r#"<html lang="nl-NL""#), "{html}");
    assert!(html.contains("Naar de inhoud"), "{html}");
    // The bundle names cargo-leptos writes (no wasm-bindgen `_bg` suffix), from any build.
    assert!(html.contains(r#"href="/pkg/boxoffice.js""#), "{html}");
    assert!(html.contains(r#"href="/pkg/boxoffice.wasm""#), "{html}");
    assert!(html.contains("mod.hydrate()"), "{html}");
    assert!(html.contains(r#"href="/pkg/boxoffice.css""#), "{html}");
}

#[tokio::test]
async fn a_missing_bundle_file_is_a_not_found_problem() {
    let app = spawn_app().await;

    let response = app.get("/pkg/no-such-file.js").await;

    response.assert_problem(404, "not-found");
}

mod session {
    use serde_json::{json, Value};

    use super::{directive, frame_ancestors};

    use crate::helpers::{spawn_app, spawn_app_with, TestApp, TestClient};

    async fn webframe_code(app: &TestApp, client: &TestClient, campaign: &str) -> String {
        let backend = app.backend_token(client).await;
        app.session_code(&backend, json!({ "integration": "webframe", "user": { "reference": "f-1" }, "campaign_id": campaign }))
            .await
    }

    /// Calls the frame's server function as the WASM app does.
    async fn exchange(app: &TestApp, code: &str) -> Value {
        let response = app.post_form("/frame/api/session", &[("code", code)]).await;
        assert_eq!(response.status.as_u16(), 200, "{}", response.text);
        response.json()
    }

    #[tokio::test]
    async fn the_frame_exchanges_a_webframe_code_once() {
        let app = spawn_app().await;
        let (campaign, client) = app.campaign_with_client("shop").await;
        let code = webframe_code(&app, &client, &campaign).await;

        let ready = exchange(&app, &code).await;
        let session = &ready["Ready"];
        assert_eq!(session["client_id"], "shop");
        assert_eq!(session["campaign_id"], campaign.as_str());
        assert_eq!(session["frame_origins"], json!(["http://localhost:*"]));
        let bearer = session["access_token"].as_str().unwrap();
        let me = app.me(bearer).await.assert_status(200);
        assert_eq!(me["data"]["mode"], "webframe");

        assert_eq!(exchange(&app, &code).await, json!("Invalid"), "single use");
    }

    #[tokio::test]
    async fn a_malformed_call_is_a_validation_problem_not_a_server_error() {
        let app = spawn_app().await;
        let empty = app.post_form("/frame/api/session", &[("other", "x")]).await;
        empty.assert_problem(400, "request-validation-failed");
        assert_eq!(exchange(&app, "unknown-code").await, json!("Invalid"));
    }

    #[tokio::test]
    async fn the_frame_refuses_headless_codes_and_reports_expired_ones() {
        let app = spawn_app_with(|c| c.session_code_ttl_secs = 1).await;
        let (campaign, client) = app.campaign_with_client("shop").await;
        let backend = app.backend_token(&client).await;
        let headless = app.headless_code(&backend, "h", None).await;
        assert_eq!(exchange(&app, &headless).await, json!("Invalid"));
        app.exchange_code(&client, &headless)
            .await
            .assert_status(200);

        let code = webframe_code(&app, &client, &campaign).await;
        tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
        let expired = exchange(&app, &code).await;
        assert_eq!(
            expired["Expired"]["frame_origins"],
            json!(["http://localhost:*"])
        );
    }

    #[tokio::test]
    async fn the_frame_may_be_framed_only_by_its_partner() {
        let app = spawn_app().await;
        let (campaign, client) = app.campaign_with_client("shop").await;
        let code = webframe_code(&app, &client, &campaign).await;

        let page = app.get(&format!("/frame?session_code={code}")).await;
        assert_eq!(frame_ancestors(&page), "http://localhost:*");
        assert_eq!(page.header("cache-control"), Some("no-store"));
        assert_eq!(page.header("referrer-policy"), Some("no-referrer"));

        let after_exchange = app.get("/frame/orders?client_id=shop").await;
        assert_eq!(frame_ancestors(&after_exchange), "http://localhost:*");

        let anonymous = app.get("/frame").await;
        assert_eq!(frame_ancestors(&anonymous), "'none'");
    }

    #[tokio::test]
    async fn pages_outside_the_frame_are_never_framed_whatever_their_query() {
        let app = spawn_app().await;
        let (campaign, client) = app.campaign_with_client("shop").await;
        let pay_key = app.state.sandbox_pay.as_ref().unwrap();
        let payment_page = pay_key.page_path(uuid::Uuid::new_v4());
        for page in [
            payment_page.as_str(),
            "/prod/merchant/onboarding?code=abc",
            "/sandbox/kyc/sbx_acct_x?key=0",
            "/demo/shop?merchant_id=0",
            "/openapi.json?x=1",
            "/no-such-page?x=1",
        ] {
            let code = webframe_code(&app, &client, &campaign).await;
            for widening in ["client_id=shop".to_owned(), format!("session_code={code}")] {
                let path = format!("{page}&{widening}");
                let response = app.get(&path).await;
                assert_eq!(frame_ancestors(&response), "'none'", "{path}");
            }
        }
    }

    #[tokio::test]
    async fn frame_pages_allow_only_their_own_scripts_and_this_responses_inline_one() {
        let app = spawn_app().await;
        let (campaign, client) = app.campaign_with_client("shop").await;
        let code = webframe_code(&app, &client, &campaign).await;
        let payment_page = app
            .state
            .sandbox_pay
            .as_ref()
            .unwrap()
            .page_path(uuid::Uuid::new_v4());
        let mut nonces = std::collections::HashSet::new();
        for path in [
            format!("/frame?session_code={code}"),
            "/frame".to_owned(),
            "/frame".to_owned(),
            payment_page,
            "/prod/merchant/onboarding?code=abc".to_owned(),
        ] {
            let page = app.get(&path).await;
            assert_eq!(page.status.as_u16(), 200, "{path}: {}", page.text);
            let policy = page.header("content-security-policy").unwrap();
            let nonce = directive(policy, "script-src")
                .strip_prefix("'self' 'wasm-unsafe-eval' 'nonce-")
                .and_then(|rest| rest.strip_suffix('\''))
                .unwrap_or_else(|| panic!("{path}: {policy}"))
                .to_owned();
            assert!(nonce.len() >= 22, "{nonce}");
            assert_eq!(directive(policy, "object-src"), "'none'", "{policy}");
            assert_eq!(directive(policy, "base-uri"), "'none'", "{policy}");
            assert!(!policy.contains("style-src"), "inline styles stay allowed");
            // Every inline script carries this response's nonce (scripts from /pkg are 'self').
            // An empty one (leptos_i18n's placeholder) never runs, so it needs none.
            let scripts: Vec<(&str, &str)> = page
                .text
                .split("<script")
                .skip(1)
                .map(|s| s.split_once('>').unwrap())
                .map(|(tag, rest)| (tag, &rest[..rest.find("</script>").unwrap()]))
                .filter(|(_, body)| !body.is_empty())
                .collect();
            assert!(scripts.len() >= 2, "{path}: hydration and resources");
            for (tag, _) in scripts {
                assert!(
                    tag.contains(&format!("nonce=\"{nonce}\"")),
                    "{path}: <script{tag}> without the nonce {nonce}"
                );
            }
            assert!(nonces.insert(nonce), "{path}: a nonce is used once");
        }
    }
}

/// The value of `name` in a `Content-Security-Policy`.
fn directive<'a>(policy: &'a str, name: &str) -> &'a str {
    policy
        .split(';')
        .map(str::trim)
        .find_map(|d| d.strip_prefix(name).map(str::trim))
        .unwrap_or_else(|| panic!("no {name} in {policy}"))
}

/// The sources of a response's `frame-ancestors`.
fn frame_ancestors(response: &crate::helpers::TestResponse) -> &str {
    let policy = response
        .header("content-security-policy")
        .expect("a content security policy");
    directive(policy, "frame-ancestors")
}

#[tokio::test]
async fn the_magic_link_page_is_server_rendered_for_the_merchant() {
    let app = spawn_app().await;
    let response = app.get("/prod/merchant/onboarding?code=abc").await;
    assert_eq!(response.status.as_u16(), 200, "{}", response.text);
    assert!(response.text.contains(r#"<html lang="nl-NL""#));
    assert!(response.text.contains("mod.hydrate()"));
    let english = app
        .send(
            app.request(reqwest::Method::GET, "/prod/merchant/onboarding?code=abc")
                .header("accept-language", "en"),
        )
        .await;
    assert_eq!(english.status.as_u16(), 200);
    assert!(english.text.contains("Set up your merchant account"));
}

#[tokio::test]
async fn the_server_render_speaks_the_language_the_request_asks_for() {
    let app = spawn_app().await;
    for (asked, served, text) in [
        ("de-AT, en;q=0.8", "de-DE", "Zum Inhalt springen"),
        ("en-US", "en-GB", "Skip to content"),
        ("fr", "fr-FR", "Aller au contenu"),
        ("xx, *;q=0.1", "nl-NL", "Naar de inhoud"),
    ] {
        let page = app
            .send(
                app.request(reqwest::Method::GET, "/frame")
                    .header("accept-language", asked),
            )
            .await;
        assert!(
            page.text.contains(&format!(r#"<html lang="{served}""#)),
            "{asked}: {}",
            page.text
        );
        assert!(page.text.contains(text), "{asked}: {}", page.text);
        assert!(
            page.header("set-cookie").is_none(),
            "the frame sets no cookie"
        );
    }
}

mod server_functions {
    use crate::helpers::spawn_app;

    #[tokio::test]
    async fn a_ticket_code_becomes_an_svg_qr_code_and_nothing_else_does() {
        let app = spawn_app().await;
        let qr = app
            .post_form("/frame/api/qr", &[("code", "BX7K-3M9Q-2P")])
            .await;
        assert_eq!(qr.status.as_u16(), 200, "{}", qr.text);
        let svg: String = serde_json::from_str(&qr.text).unwrap();
        assert!(svg.contains("<svg") && svg.contains("</svg>"), "{svg}");
        let refused = app
            .post_form("/frame/api/qr", &[("code", "<script>alert(1)</script>")])
            .await;
        refused.assert_problem(400, "request-validation-failed");
    }

    #[tokio::test]
    async fn the_frame_learns_a_partners_origins_for_the_identity_handoff() {
        let app = spawn_app().await;
        let campaign = app.create_campaign("Retail").await;
        app.create_client("retail-shop", &[&campaign]).await;
        let known = app
            .post_form("/frame/api/client", &[("client_id", "retail-shop")])
            .await;
        assert_eq!(known.status.as_u16(), 200, "{}", known.text);
        let origins: Option<Vec<String>> = serde_json::from_str(&known.text).unwrap();
        assert_eq!(origins, Some(vec!["http://localhost:*".to_owned()]));
        let unknown = app
            .post_form("/frame/api/client", &[("client_id", "nobody")])
            .await;
        assert_eq!(
            serde_json::from_str::<Option<Vec<String>>>(&unknown.text).unwrap(),
            None
        );
    }
}

mod theme {
    use serde_json::json;

    use super::directive;
    use crate::helpers::spawn_app;

    #[tokio::test]
    async fn the_partners_look_is_in_the_server_rendered_page_under_the_pages_nonce() {
        let app = spawn_app().await;
        app.admin_create_client(&json!({
            "name": "Night shop", "client_id": "night-shop", "frame_origins": ["http://localhost:*"],
            "theme": { "color_scheme": "dark", "background": "#101418", "text": "#f0f0f0",
                       "accent": "#ffb454", "accent_text": "#1a1000", "corner_radius": 4,
                       "font_stack": "Inter, sans-serif" }
        }))
        .await;

        let response = app.get("/frame?client_id=night-shop").await;

        assert_eq!(response.status.as_u16(), 200, "{}", response.text);
        let policy = response.header("content-security-policy").unwrap();
        let nonce = directive(policy, "script-src")
            .split(' ')
            .find_map(|s| s.strip_prefix("'nonce-")?.strip_suffix('\''))
            .expect("a nonce");
        let html = &response.text;
        let style = format!(
            r#"<style id="boxoffice-theme" nonce="{nonce}">html:root{{color-scheme:dark;--radius:4px;--font:Inter, sans-serif}}"#
        );
        assert!(html.contains(&style), "{html}");
        // The designed dark palette first, then the partner's colours over it.
        let (_, theme) = html.split_once(&style).unwrap();
        let designed = theme
            .find("--surface:#16191d;")
            .expect("the designed dark palette");
        let partners = theme
            .find(
                "html:root{--surface:#101418;--ink:#f0f0f0;--accent:#ffb454;--accent-ink:#1a1000;",
            )
            .expect("the partner's colours");
        assert!(designed < partners, "{theme}");
        let (head, _) = html.split_once("</head>").unwrap();
        assert!(
            head.find("/pkg/boxoffice.css").unwrap() < head.find("boxoffice-theme").unwrap(),
            "after the stylesheet: {head}"
        );
    }

    #[tokio::test]
    async fn without_a_theme_or_a_partner_the_frame_has_its_own_look() {
        let app = spawn_app().await;
        app.admin_create_client(&json!({ "name": "Plain", "client_id": "plain-shop" }))
            .await;
        for path in [
            "/frame?client_id=plain-shop",
            "/frame",
            "/frame?client_id=nobody",
        ] {
            let response = app.get(path).await;
            assert_eq!(response.status.as_u16(), 200, "{path}");
            assert!(!response.text.contains("boxoffice-theme"), "{path}");
        }
    }
}
