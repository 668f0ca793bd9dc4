//! The invariants of `/openapi.json` the judges (`.ci/judges`: schemathesis, the validators,
//! the generated clients) rely on, checked on every test run so the document cannot rot:
//! unique operation ids, security on every operation, the statuses the shared layers answer
//! (401 with `WWW-Authenticate`, 415, 400 for a malformed id, 404 for an unknown stage), UUID
//! path ids, path parameters that match their template, bounded `limit`s and `servers`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::helpers::spawn_app;

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Every operation as `(path, method, operation)`.
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                found.push((path.clone(), method.to_owned(), operation.clone()));
            }
        }
    }
    found
}

fn template_names(path: &str) -> BTreeSet<String> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}').map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn the_document_states_what_every_operation_answers_and_needs() {
    let app = spawn_app().await;
    let doc = app.get("/openapi.json").await.assert_status(200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(
        doc["servers"][0]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http")),
        "servers: {}",
        doc["servers"]
    );
    let schemes: BTreeSet<&str> = doc["components"]["securitySchemes"]
        .as_object()
        .expect("security schemes")
        .keys()
        .map(String::as_str)
        .collect();
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    let all = operations(&doc);
    assert!(all.len() > 80, "only {} operations", all.len());
    for (path, method, operation) in &all {
        let at = format!("{method} {path}");
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{at}: no operationId"));
        if let Some(other) = ids.insert(id.to_owned(), at.clone()) {
            panic!("operationId {id} of {at} is also {other}'s");
        }

        let security = operation["security"]
            .as_array()
            .unwrap_or_else(|| panic!("{at}: no security (an open operation says [])"));
        let mut takes_bearer = false;
        for requirement in security {
            for name in requirement.as_object().expect("requirement").keys() {
                assert!(
                    schemes.contains(name.as_str()),
                    "{at}: unknown scheme {name}"
                );
                takes_bearer = true;
            }
        }
        let responses = &operation["responses"];
        if takes_bearer {
            assert!(
                responses["401"]["headers"]["WWW-Authenticate"].is_object(),
                "{at} takes a bearer: it must list 401 with WWW-Authenticate"
            );
        }
        if operation.get("requestBody").is_some() {
            assert!(
                responses["415"].is_object(),
                "{at} has a body: it must list 415"
            );
        }

        let parameters = operation["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let in_path: BTreeSet<String> = parameters
            .iter()
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(in_path, template_names(path), "{at}: path parameters");
        for parameter in &parameters {
            let name = parameter["name"].as_str().unwrap();
            // Our ids are UUIDs; a provider's account id is the provider's string.
            if parameter["in"] == "path" && name.ends_with("_id") && name != "provider_account_id" {
                assert_eq!(parameter["schema"]["format"], "uuid", "{at}: {name}");
                assert!(
                    responses["400"].is_object(),
                    "{at}: 400 for a malformed {name}"
                );
            }
            if parameter["in"] == "query" && name == "limit" {
                assert_eq!(parameter["schema"]["minimum"], 1, "{at}: limit");
                assert_eq!(parameter["schema"]["maximum"], 100, "{at}: limit");
            }
        }
        if path.contains("{stage}") {
            assert!(
                responses["404"].is_object(),
                "{at}: 404 for an unknown stage"
            );
        }
        for (status, response) in responses.as_object().unwrap() {
            if let Some(problem) = response["content"].get("application/problem+json") {
                assert_eq!(
                    problem["schema"]["$ref"], "#/components/schemas/Problem",
                    "{at}: {status}"
                );
            }
        }
    }
}
