//! A partner's side: clients made in the store, session codes, bearers and customers.

use reqwest::Method;
use serde_json::Value;

use super::{TestApp, TestResponse};

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
            hold_limits: None,
            theme: None,
            settlement: Default::default(),
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
        hold_limits: None,
        theme: None,
        settlement: Default::default(),
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
