//! What an anonymous caller cannot grow or hold: metrics labels and frame bodies.

use reqwest::Method;

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
