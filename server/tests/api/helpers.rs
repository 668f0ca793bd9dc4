//! `spawn_app`: the real server on a random port over a fresh database, and request helpers.
//!
//! Helpers are shared by every test module and some wait for the modules that will use them.
#![allow(dead_code)]

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
    config.demo = false;
    config.log = "warn".into();
    config.db_max_connections = Some(8);
    // The tests' webhook receivers and identity providers are local servers on port 0.
    config.allow_private_outbound = true;
    // Checkout tests run many guest express checkouts from one address.
    config.guest_express_per_hour = 1_000_000;
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
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
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
        config.demo = false;
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

    /// A request to the operator API with the admin token.
    pub fn admin(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.request(method, path).bearer_auth(ADMIN_TOKEN)
    }

    pub async fn admin_get(&self, path: &str) -> TestResponse {
        self.send(self.admin(Method::GET, path)).await
    }

    /// GETs an operator API path, asserts 200 and returns the body.
    pub async fn admin_get_ok(&self, path: &str) -> Value {
        self.admin_get(path).await.assert_status(200)
    }

    /// The `data` of the operator list at `path`.
    pub async fn admin_list(&self, path: &str) -> Vec<Value> {
        self.admin_get_ok(path).await["data"]
            .as_array()
            .unwrap_or_else(|| panic!("no data array at {path}"))
            .clone()
    }

    /// The `item_count` of the operator list page at `path`.
    pub async fn admin_item_count(&self, path: &str) -> Value {
        self.admin_get_ok(path).await["meta"]["item_count"].clone()
    }

    pub async fn admin_post(&self, path: &str, body: &Value) -> TestResponse {
        self.send(self.admin(Method::POST, path).json(body)).await
    }

    pub async fn admin_put(&self, path: &str, body: &Value) -> TestResponse {
        self.send(self.admin(Method::PUT, path).json(body)).await
    }

    /// Sends `body` with `method` to the operator route `path` and asserts the 400 validation
    /// problem naming exactly `fields`; returns the problem.
    pub async fn assert_admin_invalid(
        &self,
        method: Method,
        path: &str,
        body: &Value,
        fields: &[&str],
    ) -> Value {
        self.send(self.admin(method, path).json(body))
            .await
            .assert_invalid(fields)
    }

    /// POSTs `body` to an operator path, asserts 201 and returns the body.
    pub async fn admin_post_created(&self, path: &str, body: &Value) -> Value {
        self.admin_post(path, body).await.assert_status(201)
    }

    /// PUTs `body` to an operator path, asserts 200 and returns the body.
    pub async fn admin_put_ok(&self, path: &str, body: &Value) -> Value {
        self.admin_put(path, body).await.assert_status(200)
    }

    pub async fn admin_delete(&self, path: &str) -> TestResponse {
        self.send(self.admin(Method::DELETE, path)).await
    }

    /// The stored partner client `client_id`, with its secrets' hashes.
    pub async fn stored_client(&self, client_id: &str) -> server::store::PartnerClientSecrets {
        self.state
            .store
            .partner_client_by_client_id(client_id)
            .await
            .unwrap()
            .expect("client stored")
    }

    /// The store's id of partner client `client_id`.
    pub async fn partner_client_id(&self, client_id: &str) -> uuid::Uuid {
        self.stored_client(client_id).await.client.partner_client_id
    }

    /// Deletes the operator record at `path`, then asserts it is gone: reading, replacing it
    /// with `body` and deleting it again are all 404.
    pub async fn admin_delete_for_good(&self, path: &str, body: &Value) {
        assert_eq!(self.admin_delete(path).await.status, 204);
        self.assert_admin_unknown(path, body).await;
        self.admin_delete(path)
            .await
            .assert_problem(404, "not-found");
    }

    /// Creates a partner client through the operator API and returns its `data`.
    pub async fn admin_create_client(&self, body: &Value) -> Value {
        self.admin_post("/admin/v1/clients", body)
            .await
            .assert_status(201)["data"]
            .clone()
    }

    /// A customer known to a fresh partner client as `reference`, made through the store
    /// (customers have no operator API; sessions create them).
    pub async fn create_customer(&self, reference: &str) -> uuid::Uuid {
        let client = self
            .admin_create_client(&serde_json::json!({ "name": format!("client of {reference}") }))
            .await;
        let partner_client_id = client["partner_client_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        upsert_partner_customer(self.state.store.as_ref(), partner_client_id, reference).await
    }

    /// Creates a campaign through the operator API and returns its id.
    pub async fn create_campaign(&self, name: &str) -> String {
        let response = self
            .admin_post(
                "/admin/v1/campaigns",
                &serde_json::json!({ "name": name, "loyalty_points_per_unit": "1" }),
            )
            .await;
        response.assert_status(201)["data"]["campaign_id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The `next_token` of the operator list page at `path`.
    pub async fn admin_next_token(&self, path: &str) -> String {
        next_token(&self.admin_get_ok(path).await)
    }

    /// Asserts that the operator list `path` (which has a query) continued with `token` is
    /// refused with 400 `problem`.
    pub async fn assert_admin_token_refused(&self, path: &str, token: &str, problem: &str) {
        self.admin_get(&format!("{path}&next_token={token}"))
            .await
            .assert_problem(400, problem);
    }

    /// Sends `body` with `method` to the operator route `path` and asserts a 409 `conflict`.
    pub async fn assert_admin_conflict(&self, method: Method, path: &str, body: &Value) {
        self.send(self.admin(method, path).json(body))
            .await
            .assert_problem(409, "conflict");
    }

    /// Asserts that reading the operator record at `path` and replacing it with `body` are
    /// both 404 `not-found`.
    pub async fn assert_admin_unknown(&self, path: &str, body: &Value) {
        self.admin_get(path).await.assert_problem(404, "not-found");
        self.admin_put(path, body)
            .await
            .assert_problem(404, "not-found");
    }

    /// Follows `next_token` from `path` (which has no query or ends in `?…`) to the end,
    /// returning every item.
    pub async fn admin_collect(&self, path: &str, limit: u32) -> Vec<Value> {
        let mut items = Vec::new();
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut next: Option<String> = None;
        loop {
            let mut url = format!("{path}{sep}limit={limit}");
            if let Some(token) = &next {
                url.push_str(&format!("&next_token={token}"));
            }
            let body = self.admin_get_ok(&url).await;
            items.extend(body["data"].as_array().unwrap().iter().cloned());
            match body["meta"]["pagination"]["next_token"].as_str() {
                Some(token) => next = Some(token.to_owned()),
                None => return items,
            }
        }
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

/// A throwaway Postgres database for one test.
struct PostgresDb {
    admin_url: String,
    name: String,
    url: String,
}

impl PostgresDb {
    async fn create(admin_url: &str) -> Self {
        use sqlx::Connection;
        let template = migrated_template(admin_url).await;
        // The creation time in the name lets a later run sweep databases a crash left behind.
        let name = format!(
            "boxoffice_test_{}_{}",
            chrono::Utc::now().timestamp(),
            uuid::Uuid::new_v4().simple()
        );
        let mut conn = sqlx::PgConnection::connect(admin_url)
            .await
            .expect("connect to TEST_DATABASE_URL");
        sqlx::query(&format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        Self {
            admin_url: admin_url.to_owned(),
            url: database_url(admin_url, &name),
            name,
        }
    }
}

/// Drops test databases over an hour old: left by runs that were killed, never in use by a
/// run still going.
async fn sweep_stale_databases(conn: &mut sqlx::PgConnection) {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'boxoffice_test_%'")
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    let hour_ago = chrono::Utc::now().timestamp() - 3600;
    for name in names {
        let created = name.split('_').nth(2).and_then(|t| t.parse::<i64>().ok());
        if created.is_none_or(|t| t < hour_ago) {
            let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut *conn)
                .await;
        }
    }
}

fn database_url(admin_url: &str, name: &str) -> String {
    let mut url = url::Url::parse(admin_url).expect("TEST_DATABASE_URL is a URL");
    url.set_path(name);
    url.to_string()
}

/// A database with every migration applied, made once per set of migrations: copying it is
/// much faster than migrating a fresh database for each test. Its name carries a hash of the
/// migrations, so a changed migration makes a new template.
async fn migrated_template(admin_url: &str) -> String {
    static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            use sha2::{Digest, Sha256};
            use sqlx::Connection;
            let mut hasher = Sha256::new();
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for file in files {
                hasher.update(std::fs::read(file).unwrap());
            }
            let digest = hasher.finalize();
            let name = format!(
                "boxoffice_tmpl_{}",
                digest
                    .iter()
                    .take(6)
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            );
            let mut conn = sqlx::PgConnection::connect(admin_url)
                .await
                .expect("connect to TEST_DATABASE_URL");
            sweep_stale_databases(&mut conn).await;
            let exists: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
                    .bind(&name)
                    .fetch_optional(&mut conn)
                    .await
                    .unwrap();
            if exists.is_none() {
                // Built under a temporary name and renamed, so a half-made template is never used.
                let building = format!("{name}_{}", uuid::Uuid::new_v4().simple());
                sqlx::query(&format!("CREATE DATABASE {building}"))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                let pool = sqlx::PgPool::connect(&database_url(admin_url, &building))
                    .await
                    .unwrap();
                sqlx::migrate!("migrations/postgres")
                    .run(&pool)
                    .await
                    .expect("migrate the template");
                pool.close().await;
                let renamed = sqlx::query(&format!("ALTER DATABASE {building} RENAME TO {name}"))
                    .execute(&mut conn)
                    .await;
                if renamed.is_err() {
                    // Another run made it meanwhile.
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {building}"))
                        .execute(&mut conn)
                        .await;
                }
            }
            name
        })
        .await
        .clone()
}

impl Drop for PostgresDb {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Dropping takes most of a second; it runs on its own thread (with its own runtime,
        // as Drop cannot await) so the test does not wait. FORCE closes the server's pool.
        // Should the process end first, the next run sweeps the database.
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection;
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut conn)
                        .await;
                }
            });
        });
    }
}

/// A partner client made directly in the store, with a known secret.
pub struct TestClient {
    pub client_id: String,
    pub secret: String,
}

impl TestApp {
    /// Creates a partner client allowed on `campaign_ids`.
    pub async fn create_client(&self, client_id: &str, campaign_ids: &[&str]) -> TestClient {
        let secret = format!("{client_id}-secret-{}", uuid::Uuid::new_v4().simple());
        let input = server::store::PartnerClientInput {
            name: client_id.to_owned(),
            client_id: None,
            campaign_ids: campaign_ids.iter().map(|c| c.parse().unwrap()).collect(),
            frame_origins: vec!["http://localhost:*".to_owned()],
            return_origins: vec!["http://localhost:*".to_owned()],
            webhook_url: None,
        };
        let secrets = server::store::ClientSecrets {
            secret_hash: server::secrets::hash_secret(&secret),
            webhook_secret: server::secrets::new_webhook_secret(),
        };
        self.state
            .store
            .upsert_partner_client(client_id, &input, &secrets)
            .await
            .expect("client created");
        TestClient {
            client_id: client_id.to_owned(),
            secret,
        }
    }

    /// A backend bearer for `client` by client credentials.
    pub async fn backend_token(&self, client: &TestClient) -> String {
        let response = self
            .send(self.request(Method::POST, "/oauth/token").form(&[
                ("grant_type", "client_credentials"),
                ("client_id", client.client_id.as_str()),
                ("client_secret", client.secret.as_str()),
            ]))
            .await;
        response.assert_status(200)["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// A campaign and a partner client `client_id` allowed on it.
    pub async fn campaign_with_client(&self, client_id: &str) -> (String, TestClient) {
        let campaign = self.create_campaign("c").await;
        let client = self.create_client(client_id, &[&campaign]).await;
        (campaign, client)
    }

    /// `POST /v1/session` with a backend bearer.
    pub async fn start_session(&self, backend_token: &str, body: &Value) -> TestResponse {
        self.send(
            self.request(Method::POST, "/v1/session")
                .bearer_auth(backend_token)
                .json(body),
        )
        .await
    }

    /// Starts a session and returns its code.
    pub async fn session_code(&self, backend_token: &str, body: Value) -> String {
        let response = self.start_session(backend_token, &body).await;
        response.assert_status(201)["data"]["session_code"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The code of a new headless session of user `reference`, in `campaign` when given.
    pub async fn headless_code(
        &self,
        backend_token: &str,
        reference: &str,
        campaign: Option<&str>,
    ) -> String {
        let mut body =
            serde_json::json!({ "integration": "headless", "user": { "reference": reference } });
        if let Some(campaign) = campaign {
            body["campaign_id"] = campaign.into();
        }
        self.session_code(backend_token, body).await
    }

    /// Starts a headless session of user `u` without a campaign, with `bearer`.
    pub async fn start_headless_session(&self, bearer: &str) -> TestResponse {
        let body = serde_json::json!({ "integration": "headless", "user": { "reference": "u" } });
        self.start_session(bearer, &body).await
    }

    /// `GET /v2/me` with `bearer`.
    pub async fn me(&self, bearer: &str) -> TestResponse {
        self.send(self.request(Method::GET, "/v2/me").bearer_auth(bearer))
            .await
    }

    /// Exchanges a headless session code for a public bearer.
    pub async fn exchange_code(&self, client: &TestClient, code: &str) -> TestResponse {
        self.send(
            self.request(Method::POST, "/v1/session/token")
                .json(&serde_json::json!({
                    "session_code": code,
                    "client_id": client.client_id,
                    "client_secret": client.secret,
                })),
        )
        .await
    }

    /// Asserts that `client` cannot exchange `code`: it is `session-code-invalid`.
    pub async fn assert_code_invalid(&self, client: &TestClient, code: &str) {
        self.exchange_code(client, code)
            .await
            .assert_problem(400, "session-code-invalid");
    }

    /// A public bearer for a fresh headless session of `client` in `campaign_id`.
    pub async fn public_token(&self, client: &TestClient, campaign_id: &str) -> String {
        let backend = self.backend_token(client).await;
        let code = self
            .headless_code(&backend, "user-1", Some(campaign_id))
            .await;
        self.exchange_code(client, &code).await.assert_status(200)["data"]["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// Stores a partner client `name` allowed on `campaign` (no origins), with a webhook to `hook`
/// when given.
pub async fn store_partner_client(
    store: &dyn server::store::Store,
    name: &str,
    campaign: uuid::Uuid,
    hook: Option<&str>,
) {
    let input = server::store::PartnerClientInput {
        name: name.to_owned(),
        client_id: None,
        campaign_ids: vec![campaign],
        frame_origins: Vec::new(),
        return_origins: Vec::new(),
        webhook_url: hook.map(str::to_owned),
    };
    let secrets = server::store::ClientSecrets {
        secret_hash: server::secrets::hash_secret("secret"),
        webhook_secret: server::secrets::new_webhook_secret(),
    };
    store
        .upsert_partner_client(name, &input, &secrets)
        .await
        .unwrap();
}

/// The customer `reference` of partner client `partner_client_id`, upserted without details.
pub async fn upsert_partner_customer(
    store: &dyn server::store::Store,
    partner_client_id: uuid::Uuid,
    reference: &str,
) -> uuid::Uuid {
    let key = server::store::CustomerKey::Partner {
        partner_client_id,
        reference,
    };
    store
        .upsert_customer(key, &Default::default())
        .await
        .expect("customer upserted")
}
