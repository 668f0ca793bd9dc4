//! Calls to the operator API that assert their answer, as the admin tests make them.

use reqwest::Method;
use serde_json::Value;

use super::{next_token, upsert_partner_customer, TestApp, TestResponse, ADMIN_TOKEN};

impl TestApp {
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
