//! What an anonymous caller cannot grow or hold: metrics labels, frame bodies, rate limits
//! behind a balancer, and guest express checkouts.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn invented_methods_and_paths_do_not_become_metric_labels() {
    let app = spawn_app().await;
    let marker = format!("INVENTED{}", uuid::Uuid::new_v4().simple()).to_uppercase();
    for i in 0..20 {
        let method =
            Method::from_bytes(format!("{marker}{i}{}", "X".repeat(500)).as_bytes()).unwrap();
        app.send(app.request(method.clone(), "/healthz")).await;
        app.send(app.request(method, &format!("/no/such/{marker}/{i}")))
            .await;
    }
    let metrics = app.get("/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(
        !metrics.text.contains(&marker),
        "a client-chosen method or path became a label"
    );
    assert!(
        metrics.text.contains(r#"method="other""#),
        "{}",
        metrics.text
    );
    assert!(metrics.text.contains(r#"route="unmatched""#));
    assert!(metrics.text.contains(r#"route="/healthz""#));
}

#[tokio::test]
async fn a_server_function_body_over_the_limit_is_refused_with_413() {
    let app = spawn_app_with(|c| c.body_limit_bytes = 4 * 1024).await;
    let code = "A".repeat(16 * 1024);
    app.post_form("/frame/api/qr", &[("code", code.as_str())])
        .await
        .assert_problem(413, "payload-too-large");
    // Within the limit the server function still answers.
    let small = app
        .post_form("/frame/api/qr", &[("code", "BX7K-3M9Q-2P")])
        .await;
    assert_eq!(small.status, 200, "{}", small.text);
}

/// `POST /v1/session/token` with a code nobody issued, from `forwarded_for`.
async fn exchange_from(app: &crate::helpers::TestApp, forwarded_for: &str) -> u16 {
    app.send(
        app.request(Method::POST, "/v1/session/token")
            .header("x-forwarded-for", forwarded_for)
            .json(&json!({ "session_code": "nope", "client_id": "a", "client_secret": "b" })),
    )
    .await
    .status
    .as_u16()
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_address_has_its_own_limit() {
    let app = spawn_app_with(|c| {
        c.auth_rate_per_minute = 3;
        c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    })
    .await;
    for _ in 0..3 {
        assert_ne!(exchange_from(&app, "198.51.100.1").await, 429);
    }
    assert_eq!(exchange_from(&app, "198.51.100.1").await, 429);
    // Another partner behind the same balancer is not held up by the first.
    assert_ne!(exchange_from(&app, "198.51.100.2").await, 429);
    // What the client prepends itself does not change the address the proxy appended.
    assert_eq!(exchange_from(&app, "203.0.113.50, 198.51.100.1").await, 429);
}

#[tokio::test]
async fn an_ipv6_client_is_counted_by_its_64_whatever_address_it_takes_in_it() {
    let app = spawn_app_with(|c| {
        c.auth_rate_per_minute = 3;
        c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    })
    .await;
    for host in 1..=3 {
        assert_ne!(
            exchange_from(&app, &format!("2001:db8:7:7::{host}")).await,
            429
        );
    }
    // A fresh address in the same /64 is the same client.
    assert_eq!(exchange_from(&app, "2001:db8:7:7:ffff::9").await, 429);
    // The next /64 is another client.
    assert_ne!(exchange_from(&app, "2001:db8:7:8::1").await, 429);

    let per_address = spawn_app_with(|c| {
        c.auth_rate_per_minute = 3;
        c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
        c.rate_limit_ipv6_prefix = 128;
    })
    .await;
    for host in 1..=4 {
        assert_ne!(
            exchange_from(&per_address, &format!("2001:db8:7:7::{host}")).await,
            429,
            "with a /128 setting each address counts alone"
        );
    }
}

#[tokio::test]
async fn without_trusted_proxies_a_forwarded_address_is_ignored() {
    let app = spawn_app_with(|c| c.auth_rate_per_minute = 3).await;
    for i in 0..3 {
        assert_ne!(exchange_from(&app, &format!("198.51.100.{i}")).await, 429);
    }
    assert_eq!(exchange_from(&app, "198.51.100.99").await, 429);
}

#[tokio::test]
async fn token_endpoints_count_per_client_id_and_address() {
    let app = spawn_app_with(|c| c.auth_rate_per_minute = 3).await;
    let token = |client_id: &'static str| {
        let app = &app;
        async move {
            app.post_form(
                "/oauth/token",
                &[
                    ("grant_type", "client_credentials"),
                    ("client_id", client_id),
                    ("client_secret", "wrong"),
                ],
            )
            .await
        }
    };
    for _ in 0..3 {
        token("partner-a")
            .await
            .assert_problem(401, "client-authentication-failed");
    }
    let limited = token("partner-a").await;
    limited.assert_problem(429, "rate-limited");
    assert!(limited.header("retry-after").is_some());
    // Another client from the same address has its own bucket.
    token("partner-b")
        .await
        .assert_problem(401, "client-authentication-failed");
    // The same client in Basic authentication is the same bucket.
    let basic = app
        .send(
            app.request(Method::POST, "/oauth/token")
                .basic_auth("partner-a", Some("wrong"))
                .form(&[("grant_type", "client_credentials")]),
        )
        .await;
    basic.assert_problem(429, "rate-limited");
}
