//! `spawn_app`: the real server on a random port over a fresh database, and request helpers.
//! The operator API's calls are in `operator.rs`, a partner's clients and sessions in
//! `partner.rs`, the throwaway Postgres databases in `postgres_db.rs`.
//!
//! Helpers are shared by every test module and some wait for the modules that will use them.
#![allow(dead_code)]

mod operator;
mod partner;
mod postgres_db;

pub use partner::{store_partner_client, upsert_partner_customer, TestClient};
use postgres_db::PostgresDb;

use reqwest::{header::HeaderMap, Method, StatusCode};
use serde_json::Value;
use server::config::Config;

pub const ADMIN_TOKEN: &str = "test-admin-token";

/// A running server and a client for it. Each test gets its own database: a fresh SQLite file,
/// or a fresh Postgres database when `TEST_DATABASE_URL` is set (dropped when the app is).
pub struct TestApp {
    pub base_url: String,
    pub client: reqwest::Client,
    pub state: server::state::AppState,
    _data_dir: tempfile::TempDir,
    _postgres: Option<PostgresDb>,
}

/// A response, read whole.
#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts a problem+json response of `status` and type `urn:boxoffice:error:{name}`.
    #[track_caller]
    pub fn assert_problem(&self, status: u16, name: &str) -> Value {
        assert_eq!(self.status.as_u16(), status, "status; body: {}", self.text);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "content type; body: {}",
            self.text
        );
        let body = self.json();
        assert_eq!(
            body["type"],
            format!("urn:boxoffice:error:{name}"),
            "type; body: {}",
            self.text
        );
        assert_eq!(body["status"], status);
        assert_eq!(
            body["correlation_id"].as_str(),
            self.header("x-correlation-id"),
            "problem correlation id equals the header"
        );
        body
    }

    /// Asserts a 400 `request-validation-failed` naming exactly `fields`; returns the problem.
    #[track_caller]
    pub fn assert_invalid(&self, fields: &[&str]) -> Value {
        let problem = self.assert_problem(400, "request-validation-failed");
        assert_eq!(error_fields(&problem), set_of(fields), "{}", self.text);
        problem
    }

    /// Asserts a 400 `request-validation-failed` whose first error names `field`; returns the
    /// problem.
    #[track_caller]
    pub fn assert_invalid_first(&self, field: &str) -> Value {
        let problem = self.assert_problem(400, "request-validation-failed");
        assert_eq!(problem["errors"][0]["field"], field, "{}", self.text);
        problem
    }

    /// Asserts a 409 `conflict` whose detail names each of `parts`; returns the problem.
    #[track_caller]
    pub fn assert_conflict_naming(&self, parts: &[&str]) -> Value {
        let problem = self.assert_problem(409, "conflict");
        let detail = problem["detail"].as_str().expect("a detail");
        for part in parts {
            assert!(detail.contains(part), "{part} not in {detail}");
        }
        problem
    }

    /// Asserts a problem as `assert_problem` does that also speaks OAuth: its `error` is
    /// `oauth_error`.
    #[track_caller]
    pub fn assert_oauth_problem(&self, status: u16, name: &str, oauth_error: &str) -> Value {
        let problem = self.assert_problem(status, name);
        assert_eq!(problem["error"], oauth_error, "{}", self.text);
        problem
    }

    #[track_caller]
    pub fn assert_status(&self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self.json()
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// A fresh app with a campaign `one` and a customer `alice`.
pub async fn spawn_app_with_customer() -> (TestApp, String, uuid::Uuid) {
    let app = spawn_app().await;
    let campaign = app.create_campaign("one").await;
    let alice = app.create_customer("alice").await;
    (app, campaign, alice)
}

/// A fresh app with the campaigns `one` and `two`.
pub async fn spawn_app_with_two_campaigns() -> (TestApp, String, String) {
    let app = spawn_app().await;
    let one = app.create_campaign("one").await;
    let two = app.create_campaign("two").await;
    (app, one, two)
}

/// Starts the server with the test defaults, changed by `customize`.
pub async fn spawn_app_with(customize: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_with_state(customize, |_| {}).await
}

/// Starts the server with the test defaults changed by `customize`, and its state changed by
/// `customize_state` before it serves (tests put in providers that fail on demand).
pub async fn spawn_app_with_state(
    customize: impl FnOnce(&mut Config),
    customize_state: impl FnOnce(&mut server::state::AppState),
) -> TestApp {
    // Warnings and errors the server logs (an internal error's cause) show with a failed test.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("warn")
        .with_test_writer()
        .try_init();
    let data_dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::defaults();
    config.data_dir = data_dir.path().to_owned();
    config.admin_token = Some(ADMIN_TOKEN.into());
    config.log = "warn".into();
    config.db_max_connections = Some(8);
    // The tests' webhook receivers and identity providers are local servers on port 0.
    config.allow_private_outbound = true;
    // Checkout tests hold many places from one address and one customer; the hold tests
    // set their own bounds.
    config.hold_reservations = 0;
    config.hold_reservations_per_day = 0;
    config.hold_places = 0;
    config.hold_places_per_day = 0;
    let postgres = match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(PostgresDb::create(&url).await),
        _ => None,
    };
    config.database_url = Some(match &postgres {
        Some(db) => db.url.clone().into(),
        None => format!("sqlite://{}", data_dir.path().join("test.db").display()).into(),
    });
    customize(&mut config);

    let (state, addr) = serve(config, true, customize_state).await;
    TestApp {
        base_url: format!("http://{addr}"),
        // A request left unanswered fails its test after a minute, naming its URL, rather
        // than holding the whole run until CI's limit (seen once a run under heavy load).
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .unwrap(),
        state,
        _data_dir: data_dir,
        _postgres: postgres,
    }
}

/// Builds the server's state from `config`, changed by `customize_state`, and serves it on a
/// free port, which becomes the public URL too when `own_url` (a second node keeps the
/// first's, as nodes behind one balancer do).
async fn serve(
    mut config: Config,
    own_url: bool,
    customize_state: impl FnOnce(&mut server::state::AppState),
) -> (server::state::AppState, std::net::SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().unwrap();
    if own_url {
        config.public_url = format!("http://{addr}").parse().unwrap();
    }
    config.listen = addr;
    let mut state = server::build_state(config).await.expect("server state");
    customize_state(&mut state);
    tokio::spawn(server::serve(
        listener,
        state.clone(),
        std::future::pending(),
    ));
    (state, addr)
}

impl TestApp {
    /// Another node over this app's database, as a second server behind the same load
    /// balancer: the same settings (`customize` changes them) and public URL (so the bearers
    /// of one are the bearers of the other), its own port, pools and per-node caches. Only
    /// Postgres is shared by nodes; on SQLite a second node would be a second writer of the
    /// same file, which the embedded default is not meant for.
    pub async fn second_node(&self, customize: impl FnOnce(&mut Config)) -> TestApp {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let mut config = (*self.state.config).clone();
        config.data_dir = data_dir.path().to_owned();
        customize(&mut config);
        let (state, addr) = serve(config, false, |_| {}).await;
        TestApp {
            base_url: format!("http://{addr}"),
            client: self.client.clone(),
            state,
            _data_dir: data_dir,
            _postgres: None,
        }
    }

    /// The URL of this app's own Postgres database, when the run uses Postgres.
    pub fn postgres_url(&self) -> Option<&str> {
        self._postgres.as_ref().map(|db| db.url.as_str())
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        self.state.store.backend()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// Sends a request built by `build` and reads the whole response.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> TestResponse {
        let response = request.send().await.expect("request sent");
        TestResponse {
            status: response.status(),
            headers: response.headers().clone(),
            text: response.text().await.expect("body read"),
        }
    }

    /// Sends `request` with `body` as it is, labelled `content_type`.
    pub async fn send_raw(
        &self,
        request: reqwest::RequestBuilder,
        content_type: &str,
        body: &'static str,
    ) -> TestResponse {
        self.send(request.header("content-type", content_type).body(body))
            .await
    }

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path))
    }

    pub async fn get(&self, path: &str) -> TestResponse {
        self.send(self.request(Method::GET, path)).await
    }

    /// Asserts that GET `path` is a 404 `not-found` problem.
    pub async fn assert_not_found(&self, path: &str) {
        self.get(path).await.assert_problem(404, "not-found");
    }

    /// POSTs an `application/x-www-form-urlencoded` body, as OAuth clients and HTML forms do.
    pub async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> TestResponse {
        self.send(self.request(Method::POST, path).form(form)).await
    }

    /// Reads `/openapi.json`, asserts that it documents every `(path, methods)` given, and
    /// returns it for further checks.
    pub async fn assert_documented(&self, routes: &[(&str, &[&str])]) -> Value {
        let doc = self.get("/openapi.json").await.assert_status(200);
        for (path, methods) in routes {
            for method in *methods {
                assert!(
                    doc["paths"][path].get(method).is_some(),
                    "{method} {path} missing from /openapi.json"
                );
            }
        }
        doc
    }
}

/// The `next_token` of a list page.
#[track_caller]
pub fn next_token(page: &Value) -> String {
    page["meta"]["pagination"]["next_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no next_token: {page}"))
        .to_owned()
}

/// The `field` of every error in a validation problem.
pub fn error_fields(problem: &Value) -> std::collections::BTreeSet<String> {
    problem["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect()
}

/// The field names `error_fields` is compared with.
pub fn set_of(fields: &[&str]) -> std::collections::BTreeSet<String> {
    fields.iter().map(|f| (*f).to_owned()).collect()
}

/// The `code` the validation problem gives `field`.
#[track_caller]
pub fn error_code(problem: &Value, field: &str) -> String {
    problem["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .find(|e| e["field"] == field)
        .unwrap_or_else(|| panic!("no error for {field}: {problem}"))["code"]
        .as_str()
        .unwrap()
        .to_owned()
}
