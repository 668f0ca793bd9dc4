//! Bodies and shortcuts for catalog tests, and direct SQL for state no operator route sets
//! (reservations are made by checkouts).

use secrecy::ExposeSecret;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// A valid merchant body in `timezone`.
pub fn merchant_body(name: &str, timezone: &str) -> Value {
    json!({
        "name": name,
        "description": "Zoo in the city centre",
        "category": "Dierentuin",
        "address": {
            "street": "Plantage Kerklaan 38-40",
            "postal_code": "1018 CZ",
            "city": "Amsterdam",
            "country": "NL"
        },
        "location": { "latitude": 52.366, "longitude": 4.9166 },
        "timezone": timezone,
        "currency": "EUR",
        "image_url": "https://img.example/artis.jpg",
        "website": "https://www.artis.example",
        "translations": [
            { "locale": "fr-FR", "name": "Zoo Émerveillé", "description": "Le zoo" },
            { "locale": "en-GB", "name": "Royal Zoo", "description": "The zoo" }
        ]
    })
}

pub async fn create_merchant(app: &TestApp, name: &str, timezone: &str) -> String {
    app.admin_post_created("/admin/v1/merchants", &merchant_body(name, timezone))
        .await["data"]["merchant_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A fresh app with the merchant "Artis" in Amsterdam; returns its id too.
pub async fn spawn_app_with_merchant() -> (TestApp, String) {
    let app = crate::helpers::spawn_app().await;
    let merchant = create_merchant(&app, "Artis", "Europe/Amsterdam").await;
    (app, merchant)
}

pub async fn create_group(app: &TestApp, merchant_id: &str, name: &str) -> String {
    app.admin_post_created(
        "/admin/v1/availability-groups",
        &json!({ "merchant_id": merchant_id, "name": name }),
    )
    .await["data"]["availability_group_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A valid ticket body of `merchant_id` (without a group: the product gets its own).
pub fn product_body(merchant_id: &str, title: &str) -> Value {
    json!({
        "merchant_id": merchant_id,
        "title": title,
        "product_type": "TICKET",
        "sku": format!("SKU-{title}"),
        "age_group": "adult",
        "unit_price": "12.50",
        "list_price": "15.00",
        "booking_costs": "0.50",
        "visit_guarantee_cost": "2.00",
        "conditions": "Valid on the chosen day",
        "translations": [
            { "locale": "en-GB", "title": format!("{title} EN"), "conditions": "EN conditions" }
        ]
    })
}

/// Creates a product from `body` and returns its data.
pub async fn create_product(app: &TestApp, body: &Value) -> Value {
    app.admin_post_created("/admin/v1/products", body).await["data"].clone()
}

/// Opens timeslots at `times` on every day of `days` (dates, as `NaiveDate`s or strings) in a
/// group, through the operator API; returns the answer.
pub async fn open_slots(
    app: &TestApp,
    group: &str,
    days: (impl serde::Serialize, impl serde::Serialize),
    times: Value,
    capacity: Option<i32>,
) -> Value {
    app.admin_put_ok(
        &format!("/admin/v1/availability-groups/{group}/timeslots"),
        &json!({ "from": days.0, "until": days.1, "times": times, "capacity": capacity }),
    )
    .await
}

/// The operator's view of a group's timeslots on the local dates `from..=until`.
pub async fn admin_timeslots(
    app: &TestApp,
    group: &str,
    from: impl std::fmt::Display,
    until: impl std::fmt::Display,
) -> Vec<Value> {
    app.admin_list(&format!(
        "/admin/v1/availability-groups/{group}/timeslots?from={from}&until={until}"
    ))
    .await
}

/// The `name` field of each item.
pub fn field<'a>(items: &'a [Value], name: &str) -> Vec<&'a Value> {
    items.iter().map(|i| &i[name]).collect()
}

/// Runs one statement on the app's database (its own connection) and returns the rows
/// affected; binds are the same Rust values on either backend.
macro_rules! execute_sql {
    ($app:expr, $sql:expr $(, $bind:expr)* $(,)?) => {{
        let app: &crate::helpers::TestApp = $app;
        let url = crate::catalog_fixtures::database_url(app);
        if app.backend() == "postgres" {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
                .await
                .expect("connect to the test database");
            sqlx::query($sql)$(.bind($bind))*.execute(&mut conn).await.expect("statement").rows_affected()
        } else {
            let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
                .await
                .expect("connect to the test database");
            sqlx::query($sql)$(.bind($bind))*.execute(&mut conn).await.expect("statement").rows_affected()
        }
    }};
}
pub fn database_url(app: &TestApp) -> String {
    app.state
        .config
        .database_url
        .as_ref()
        .expect("tests always set a database URL")
        .expose_secret()
        .to_owned()
}

/// Marks `reserved` places as taken on a group's day (as checkouts will, and like them it
/// tells the catalog that capacity changed).
pub async fn set_day_reserved(app: &TestApp, group_id: &str, day: &str, reserved: i32) {
    let group_id = uuid::Uuid::parse_str(group_id).unwrap();
    let day: chrono::NaiveDate = day.parse().unwrap();
    let affected = execute_sql!(
        app,
        "UPDATE availability_day SET reserved = $1 WHERE availability_group_id = $2 AND day = $3",
        reserved,
        group_id,
        day
    );
    assert_eq!(affected, 1, "one availability day updated");
    app.state.commerce.catalog.changed();
}

/// Marks `reserved` places as taken on a timeslot (telling the catalog, as checkouts will).
pub async fn set_timeslot_reserved(app: &TestApp, timeslot_id: &str, reserved: i32) {
    let timeslot_id = uuid::Uuid::parse_str(timeslot_id).unwrap();
    let affected = execute_sql!(
        app,
        "UPDATE timeslot SET reserved = $1 WHERE timeslot_id = $2",
        reserved,
        timeslot_id
    );
    assert_eq!(affected, 1, "one timeslot updated");
    app.state.commerce.catalog.changed();
}
