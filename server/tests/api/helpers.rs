//! `spawn_app`: the real server on a random port over a fresh database, and request helpers.

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

    #[track_caller]
    pub fn assert_status(&self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self.json()
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Starts the server with the test defaults, changed by `customize`.
pub async fn spawn_app_with(customize: impl FnOnce(&mut Config)) -> TestApp {
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
    config.db_max_connections = 8;
    let postgres = match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(PostgresDb::create(&url).await),
        _ => None,
    };
    config.database_url = Some(match &postgres {
        Some(db) => db.url.clone().into(),
        None => format!("sqlite://{}", data_dir.path().join("test.db").display()).into(),
    });
    customize(&mut config);

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().unwrap();
    config.public_url = format!("http://{addr}").parse().unwrap();
    config.listen = addr;
    let state = server::build_state(config).await.expect("server state");
    tokio::spawn(server::serve(
        listener,
        state.clone(),
        std::future::pending(),
    ));
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

impl TestApp {
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

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path))
    }

    pub async fn get(&self, path: &str) -> TestResponse {
        self.send(self.request(Method::GET, path)).await
    }

    /// A request to the operator API with the admin token.
    pub fn admin(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.request(method, path).bearer_auth(ADMIN_TOKEN)
    }

    pub async fn admin_get(&self, path: &str) -> TestResponse {
        self.send(self.admin(Method::GET, path)).await
    }

    pub async fn admin_post(&self, path: &str, body: &Value) -> TestResponse {
        self.send(self.admin(Method::POST, path).json(body)).await
    }

    pub async fn admin_put(&self, path: &str, body: &Value) -> TestResponse {
        self.send(self.admin(Method::PUT, path).json(body)).await
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
            let body = self.admin_get(&url).await.assert_status(200);
            items.extend(body["data"].as_array().unwrap().iter().cloned());
            match body["meta"]["pagination"]["next_token"].as_str() {
                Some(token) => next = Some(token.to_owned()),
                None => return items,
            }
        }
    }
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
        let name = format!("boxoffice_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(admin_url)
            .await
            .expect("connect to TEST_DATABASE_URL");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let mut url = url::Url::parse(admin_url).expect("TEST_DATABASE_URL is a URL");
        url.set_path(&name);
        Self {
            admin_url: admin_url.to_owned(),
            url: url.to_string(),
            name,
        }
    }
}

impl Drop for PostgresDb {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime, which cannot be blocked on; a small thread with
        // its own runtime removes the database (FORCE closes the server's pool connections).
        let _ = std::thread::spawn(move || {
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
        })
        .join();
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
        self.state
            .store
            .upsert_client(&server::store::ClientSeed {
                client_id: client_id.to_owned(),
                name: client_id.to_owned(),
                secret_hash: server::auth::codes::code_hash(&secret),
                campaign_ids: campaign_ids.iter().map(|c| c.parse().unwrap()).collect(),
                frame_origins: vec!["http://localhost:*".to_owned()],
                return_origins: vec!["http://localhost:*".to_owned()],
                webhook_url: None,
                webhook_secret: None,
            })
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

    /// Starts a session and returns its code.
    pub async fn session_code(&self, backend_token: &str, body: Value) -> String {
        let response = self
            .send(
                self.request(Method::POST, "/v1/session")
                    .bearer_auth(backend_token)
                    .json(&body),
            )
            .await;
        response.assert_status(201)["data"]["session_code"]
            .as_str()
            .unwrap()
            .to_owned()
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

    /// A public bearer for a fresh headless session of `client` in `campaign_id`.
    pub async fn public_token(&self, client: &TestClient, campaign_id: &str) -> String {
        let backend = self.backend_token(client).await;
        let code = self
            .session_code(&backend, serde_json::json!({ "integration": "headless", "user": { "reference": "user-1" }, "campaign_id": campaign_id }))
            .await;
        self.exchange_code(client, &code).await.assert_status(200)["data"]["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}
