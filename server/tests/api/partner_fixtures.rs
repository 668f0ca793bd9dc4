//! The partner's side of catalog tests: a campaign with a partner client and a public bearer,
//! calls to the /v2 catalog, and dates relative to a merchant's "today".

use chrono::{Days, NaiveDate, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    catalog_fixtures::{create_merchant, create_product, product_body},
    helpers::{TestApp, TestClient, TestResponse},
};

/// A campaign, a partner client allowed on it, and a public bearer of a session in it.
pub struct Partner {
    pub campaign: String,
    pub client: TestClient,
    pub token: String,
}

pub async fn partner(app: &TestApp) -> Partner {
    let campaign = app.create_campaign("Summer").await;
    let client = app
        .create_client(&format!("shop-{}", &campaign[..8]), &[&campaign])
        .await;
    let token = app.public_token(&client, &campaign).await;
    Partner {
        campaign,
        client,
        token,
    }
}

/// A fresh app and a `partner` in it.
pub async fn spawn_partner() -> (TestApp, Partner) {
    let app = crate::helpers::spawn_app().await;
    let partner = partner(&app).await;
    (app, partner)
}

/// A fresh app, a `partner`, and a merchant `name` in `timezone` to sell through it.
pub async fn spawn_partner_with_merchant(name: &str, timezone: &str) -> (TestApp, Partner, String) {
    let (app, partner) = spawn_partner().await;
    let merchant = create_merchant(&app, name, timezone).await;
    (app, partner, merchant)
}

/// A public bearer of a session started without a campaign.
pub async fn token_without_campaign(app: &TestApp, client: &TestClient) -> String {
    let backend = app.backend_token(client).await;
    let code = app.headless_code(&backend, "user-2", None).await;
    app.exchange_code(client, &code).await.assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

impl Partner {
    /// GET with the bearer (the session's campaign applies).
    pub async fn get(&self, app: &TestApp, path: &str) -> TestResponse {
        app.send(app.request(Method::GET, path).bearer_auth(&self.token))
            .await
    }

    /// The public product list of `merchant` in this campaign, sent with extra `headers`.
    pub async fn products_with(
        &self,
        app: &TestApp,
        merchant: &str,
        headers: &[(&str, &str)],
    ) -> TestResponse {
        let mut request = app
            .request(Method::GET, &format!("/v2/merchants/{merchant}/products"))
            .header("x-campaign-id", &self.campaign);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        app.send(request).await
    }

    /// GET with the bearer, asserted 200; the body.
    pub async fn get_ok(&self, app: &TestApp, path: &str) -> Value {
        self.get(app, path).await.assert_status(200)
    }

    /// Asserts that GET `path` with the bearer answers 200 with no `data`.
    pub async fn assert_finds_nothing(&self, app: &TestApp, path: &str) {
        let body = self.get_ok(app, path).await;
        assert_eq!(body["data"], json!([]), "{path}");
    }

    /// Every page of `path` (which has a query) with the bearer, from the first to the one
    /// without a `next_token`; their bodies, in order.
    pub async fn pages(&self, app: &TestApp, path: &str) -> Vec<Value> {
        let mut pages = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let mut page_path = path.to_owned();
            if let Some(token) = &next {
                page_path.push_str(&format!("&next_token={token}"));
            }
            let body = self.get_ok(app, &page_path).await;
            next = body["meta"]["pagination"]["next_token"]
                .as_str()
                .map(str::to_owned);
            pages.push(body);
            if next.is_none() {
                return pages;
            }
        }
    }

    /// GET with the bearer and an Accept-Language.
    pub async fn get_in(&self, app: &TestApp, path: &str, language: &str) -> TestResponse {
        app.send(
            app.request(Method::GET, path)
                .bearer_auth(&self.token)
                .header("accept-language", language),
        )
        .await
    }

    pub async fn post(&self, app: &TestApp, path: &str, body: &Value) -> TestResponse {
        app.send(
            app.request(Method::POST, path)
                .bearer_auth(&self.token)
                .json(body),
        )
        .await
    }

    pub async fn delete(&self, app: &TestApp, path: &str) -> TestResponse {
        app.send(app.request(Method::DELETE, path).bearer_auth(&self.token))
            .await
    }

    /// The public product list of `merchant` in this campaign.
    pub async fn products(&self, app: &TestApp, merchant: &str) -> TestResponse {
        self.products_with(app, merchant, &[]).await
    }

    pub async fn calendar(&self, app: &TestApp, product: &str, query: &str) -> Vec<Value> {
        self.get_ok(app, &format!("/v2/products/{product}/calendar{query}"))
            .await["data"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub async fn timeslots(&self, app: &TestApp, body: Value) -> Vec<Value> {
        self.post(app, "/v2/fulfillment/timeslots", &body)
            .await
            .assert_status(200)["data"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// A product of `merchant` in this campaign, made from `body` (changed by `edit`).
    pub async fn product(
        &self,
        app: &TestApp,
        merchant: &str,
        title: &str,
        edit: impl FnOnce(&mut Value),
    ) -> Value {
        let mut body = product_body(merchant, title);
        body["campaign_ids"] = json!([self.campaign]);
        edit(&mut body);
        create_product(app, &body).await
    }

    /// A product `title` of `merchant` in this campaign whose calendar is written for `days`
    /// at `prices` with `capacity`; returns its id and its availability group's id.
    pub async fn product_on_calendar(
        &self,
        app: &TestApp,
        (merchant, title): (&str, &str),
        days: (NaiveDate, NaiveDate),
        prices: (&str, &str),
        capacity: Option<i32>,
    ) -> (String, String) {
        let product = self.product(app, merchant, title, |_| {}).await;
        let (id, group) = product_and_group(&product);
        write_calendar(app, &id, days, prices, capacity).await;
        (id, group)
    }

    /// A product "Slot" of `merchant` in this campaign that needs a timeslot; returns its id and
    /// its availability group's id.
    pub async fn timeslotted_product(&self, app: &TestApp, merchant: &str) -> (String, String) {
        let product = self
            .product(app, merchant, "Slot", |b| {
                b["requires_timeslot"] = json!(true)
            })
            .await;
        product_and_group(&product)
    }

    /// A merchant in `timezone` with one product in this campaign; returns (merchant, product).
    pub async fn merchant_with_product(
        &self,
        app: &TestApp,
        name: &str,
        timezone: &str,
    ) -> (String, Value) {
        let merchant = create_merchant(app, name, timezone).await;
        let product = self
            .product(app, &merchant, &format!("{name} ticket"), |_| {})
            .await;
        (merchant, product)
    }
}

/// Today in `timezone`.
pub fn today_in(timezone: &str) -> NaiveDate {
    let zone: chrono_tz::Tz = timezone.parse().unwrap();
    Utc::now().with_timezone(&zone).date_naive()
}

/// `date` moved by `days` (negative: back).
pub fn shift(date: NaiveDate, days: i64) -> NaiveDate {
    if days >= 0 {
        date + Days::new(days as u64)
    } else {
        date - Days::new(days.unsigned_abs())
    }
}

/// Writes the calendar of `product` through the operator API.
pub async fn write_calendar(
    app: &TestApp,
    product: &str,
    (from, until): (NaiveDate, NaiveDate),
    (price, list_price): (&str, &str),
    capacity: Option<i32>,
) {
    app.admin_put_ok(
        &format!("/admin/v1/products/{product}/calendar"),
        &json!({ "from": from, "until": until, "price": price, "list_price": list_price,
                 "capacity": capacity }),
    )
    .await;
}

pub fn id_of(value: &Value, field: &str) -> String {
    value[field].as_str().unwrap().to_owned()
}

/// A product's id and its availability group's id.
pub fn product_and_group(product: &Value) -> (String, String) {
    (
        id_of(product, "product_id"),
        id_of(product, "availability_group_id"),
    )
}
