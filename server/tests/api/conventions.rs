//! The HTTP conventions every route follows: envelope, correlation id, problem+json for every
//! kind of malformed request, locale negotiation, operations endpoints, OpenAPI coverage.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, TestApp, TestResponse, ADMIN_TOKEN};

#[tokio::test]
async fn success_envelope_carries_the_correlation_id_of_the_header() {
    let app = spawn_app().await;
    let response = app.get("/healthz").await;
    let body = response.assert_status(200);
    assert_eq!(body["data"]["status"], "ok");
    let id = response
        .header("x-correlation-id")
        .expect("correlation header");
    assert_eq!(body["meta"]["correlation_id"], id);
}

#[tokio::test]
async fn a_plain_inbound_correlation_id_is_kept_and_an_unsafe_one_replaced() {
    let app = spawn_app().await;
    let kept = app
        .send(
            app.request(Method::GET, "/healthz")
                .header("x-correlation-id", "partner-abc-123"),
        )
        .await;
    assert_eq!(kept.header("x-correlation-id"), Some("partner-abc-123"));
    assert_eq!(kept.json()["meta"]["correlation_id"], "partner-abc-123");

    let replaced = app
        .send(
            app.request(Method::GET, "/healthz")
                .header("x-correlation-id", "bad id <script>"),
        )
        .await;
    let id = replaced.header("x-correlation-id").unwrap();
    assert_ne!(id, "bad id <script>");
    assert!(uuid::Uuid::parse_str(id).is_ok());
}

#[tokio::test]
async fn unknown_route_is_a_not_found_problem() {
    let app = spawn_app().await;
    app.assert_not_found("/v2/nothing-here").await;
}

#[tokio::test]
async fn wrong_method_is_a_method_not_allowed_problem_with_allow() {
    let app = spawn_app().await;
    let response = app.send(app.request(Method::DELETE, "/healthz")).await;
    response.assert_problem(405, "method-not-allowed");
    assert!(response.header("allow").unwrap_or_default().contains("GET"));
}

/// POSTs `body` as it is, labelled `content_type`, to the operator's campaigns.
async fn post_campaign_raw(app: &TestApp, content_type: &str, body: &'static str) -> TestResponse {
    app.send_raw(
        app.admin(Method::POST, "/admin/v1/campaigns"),
        content_type,
        body,
    )
    .await
}

#[tokio::test]
async fn malformed_json_names_the_body() {
    let app = spawn_app().await;
    let response = post_campaign_raw(&app, "application/json", "{\"name\": ").await;
    let problem = response.assert_invalid_first("body");
    assert_eq!(problem["errors"][0]["code"], "malformed_json");
}

#[tokio::test]
async fn a_field_of_the_wrong_type_is_named_by_its_path() {
    let app = spawn_app().await;
    let response = app
        .admin_post("/admin/v1/campaigns", &json!({ "name": 12 }))
        .await;
    response.assert_invalid_first("name");
}

#[tokio::test]
async fn a_missing_field_and_an_unknown_field_are_validation_problems() {
    let app = spawn_app().await;
    app.admin_post("/admin/v1/campaigns", &json!({}))
        .await
        .assert_problem(400, "request-validation-failed");
    app.admin_post(
        "/admin/v1/campaigns",
        &json!({ "name": "x", "colour": "red" }),
    )
    .await
    .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_unsupported_media_type() {
    let app = spawn_app().await;
    let response = post_campaign_raw(&app, "text/plain", "name=x").await;
    response.assert_problem(415, "unsupported-media-type");
}

#[tokio::test]
async fn an_oversized_body_is_payload_too_large() {
    let app = spawn_app_with(|c| c.body_limit_bytes = 1024).await;
    let big = "x".repeat(4096);
    let response = app
        .admin_post("/admin/v1/campaigns", &json!({ "name": big }))
        .await;
    response.assert_problem(413, "payload-too-large");
}

#[tokio::test]
async fn a_path_id_that_is_not_a_uuid_is_named() {
    let app = spawn_app().await;
    let problem = app
        .admin_get("/admin/v1/campaigns/not-a-uuid")
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"][0]["field"], "campaign_id", "{problem}");
}

#[tokio::test]
async fn a_bad_query_parameter_is_named() {
    let app = spawn_app().await;
    app.admin_get("/admin/v1/campaigns?limit=many")
        .await
        .assert_invalid_first("limit");
    for limit in ["0", "101"] {
        app.admin_get(&format!("/admin/v1/campaigns?limit={limit}"))
            .await
            .assert_problem(400, "request-validation-failed");
    }
}

#[tokio::test]
async fn responses_carry_the_negotiated_content_language() {
    let app = spawn_app().await;
    for (header, expected) in [
        (None, "nl-NL"),
        (Some("en-US,en;q=0.9"), "en-GB"),
        (Some("de-AT"), "de-DE"),
        (Some("fr"), "fr-FR"),
        (Some("ja"), "nl-NL"),
    ] {
        let mut request = app.request(Method::GET, "/healthz");
        if let Some(h) = header {
            request = request.header("accept-language", h);
        }
        let response = app.send(request).await;
        assert_eq!(
            response.header("content-language"),
            Some(expected),
            "for {header:?}"
        );
    }
}

#[tokio::test]
async fn readiness_checks_the_database_and_metrics_count_requests() {
    let app = spawn_app().await;
    app.get("/readyz").await.assert_status(200);
    app.get("/healthz").await;
    let metrics = app.get("/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(metrics
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    assert!(
        metrics.text.contains("http_requests_total"),
        "{}",
        metrics.text
    );
    // Durations are a histogram (its buckets add up across nodes), not a summary.
    let text = &app.get("/metrics").await.text;
    assert!(
        text.contains("# TYPE http_request_duration_seconds histogram"),
        "{text}"
    );
    assert!(
        text.contains("http_request_duration_seconds_bucket{")
            && text.contains("le=\"0.005\"")
            && text.contains("le=\"+Inf\""),
        "{text}"
    );
    assert!(!text.contains("quantile="), "{text}");
}

#[tokio::test]
async fn openapi_documents_every_route() {
    let app = spawn_app().await;
    app.assert_documented(&[
        ("/healthz", &["get"]),
        ("/readyz", &["get"]),
        ("/metrics", &["get"]),
        ("/openapi.json", &["get"]),
        ("/admin/v1/campaigns", &["post", "get"]),
        ("/admin/v1/campaigns/{campaign_id}", &["get", "put"]),
    ])
    .await;
}

#[tokio::test]
async fn every_operator_operation_is_documented_as_admin_and_needing_the_operator_token() {
    let app = spawn_app().await;
    let doc = app.get("/openapi.json").await.assert_status(200);
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let operator = path.starts_with("/admin/");
            let secured = operation["security"] == json!([{ "admin_token": [] }]);
            assert_eq!(
                operator,
                operation["tags"] == json!(["admin"]),
                "{method} {path}"
            );
            if operator {
                assert!(secured, "{method} {path} documents no operator token");
                operations += 1;
            }
        }
    }
    assert!(
        operations > 40,
        "only {operations} operator operations documented"
    );
}

#[tokio::test]
async fn operator_api_needs_its_token_and_is_absent_without_one() {
    let app = spawn_app().await;
    app.get("/admin/v1/campaigns")
        .await
        .assert_problem(401, "token-invalid");
    let wrong = app
        .send(
            app.request(Method::GET, "/admin/v1/campaigns")
                .bearer_auth("nope"),
        )
        .await;
    wrong.assert_problem(401, "token-invalid");
    assert!(wrong
        .header("www-authenticate")
        .unwrap()
        .starts_with("Bearer"));

    let off = spawn_app_with(|c| c.admin_token = None).await;
    let response = off
        .send(
            off.request(Method::GET, "/admin/v1/campaigns")
                .bearer_auth(ADMIN_TOKEN),
        )
        .await;
    response.assert_problem(404, "not-found");
}
