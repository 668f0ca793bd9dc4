//! The load of the crash runs (`crash`, `crash_stripe`): buyers sending express checkouts,
//! now and then a retry of the previous one with its key, paying half their orders on the
//! sandbox page, through kills and restarts of the server; and what their answers were.

use std::{
    collections::HashSet,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex, RwLock,
    },
    time::Duration,
};

use anyhow::Context;
use chrono::NaiveDate;
use hyper::StatusCode;
use rand::Rng;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::{
    express::RETURN_URL,
    load::{self, Call},
    process::ServerProcess,
    seed::Shop,
};

/// Runs `$body` with `$conn` connected to the database at `$url`, on either backend.
macro_rules! on_database {
    ($url:expr, |$conn:ident| $body:expr) => {{
        if $url.starts_with("sqlite:") {
            let mut $conn = sqlx::SqliteConnection::connect($url).await?;
            $body
        } else {
            let mut $conn = sqlx::PgConnection::connect($url).await?;
            $body
        }
    }};
}
pub(crate) use on_database;

/// Answers the load collected.
#[derive(Default)]
pub struct Seen {
    /// Order ids answered 200 or 208.
    pub orders: HashSet<Uuid>,
    pub placed: usize,
    pub replayed: usize,
    pub refused: usize,
    pub unanswered: usize,
}

/// One client: express checkouts of 1 to 3 places on one of `days`, each with its own key, and
/// now and then the previous request again with its key (a retry). Requests that find the
/// server down are counted and the client goes on.
pub async fn buyer(
    server: Arc<RwLock<Option<ServerProcess>>>,
    shop: Shop,
    days: Vec<NaiveDate>,
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicUsize>,
) -> anyhow::Result<()> {
    let mut previous: Option<Call> = None;
    while !stop.load(Ordering::Relaxed) {
        let call = match previous.take() {
            Some(retry) if rand::thread_rng().gen_bool(0.2) => retry,
            _ => {
                let (day, quantity) = {
                    let mut rng = rand::thread_rng();
                    (days[rng.gen_range(0..days.len())], rng.gen_range(1..=3))
                };
                checkout(&shop, day, quantity)
            }
        };
        let addr = server.read().unwrap().as_ref().map(|s| s.addr);
        let Some(addr) = addr else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        sent.fetch_add(1, Ordering::Relaxed);
        let answer = tokio::time::timeout(Duration::from_secs(10), load::once(addr, &call)).await;
        // Half the new orders are paid on the sandbox page, so paid orders (and their ticket
        // mails, written with the payment) meet the kills too.
        let pay_path = {
            let mut seen = seen.lock().unwrap();
            let mut pay_path = None;
            match answer {
                Ok(Ok((status, body))) if status == StatusCode::OK || status.as_u16() == 208 => {
                    let order: Value = serde_json::from_slice(&body).context("a placed order")?;
                    let id = order["data"]["order_id"]
                        .as_str()
                        .and_then(|id| id.parse().ok())
                        .context("an order id")?;
                    seen.orders.insert(id);
                    if status == StatusCode::OK {
                        seen.placed += 1;
                        if rand::thread_rng().gen_bool(0.5) {
                            pay_path = order["data"]["payment_url"]
                                .as_str()
                                .and_then(|u| u.find("/pay/").map(|at| u[at..].to_owned()));
                        }
                    } else {
                        seen.replayed += 1;
                    }
                }
                Ok(Ok((status, _))) if status.is_client_error() => seen.refused += 1,
                // The server died under the request, or answered 5xx while going down.
                _ => {
                    seen.unanswered += 1;
                    previous = Some(call);
                    continue;
                }
            }
            pay_path
        };
        if let Some(path) = pay_path {
            let pay = Call {
                method: hyper::Method::POST,
                path,
                headers: vec![(
                    "content-type".to_owned(),
                    "application/x-www-form-urlencoded".to_owned(),
                )],
                body: "action=pay".into(),
                fresh_key: None,
            };
            // Best effort: a payment the kill interrupts stays open for the sweeper.
            let _ = tokio::time::timeout(Duration::from_secs(10), load::once(addr, &pay)).await;
        }
        previous = Some(call);
    }
    Ok(())
}

/// An express checkout of `quantity` evening places on `day`, as a guest, with its own key.
fn checkout(shop: &Shop, day: NaiveDate, quantity: u32) -> Call {
    Call::post_json(
        "/v2/checkouts/express",
        &json!({
            "date": day,
            "flexible_date": false,
            "lines": [{ "product_id": shop.evening, "quantity": quantity }],
            "email": "ada@example.com",
            "first_name": "Ada",
            "last_name": "Lovelace",
            "return_url": RETURN_URL,
        }),
    )
    .header("x-campaign-id", shop.campaign_id.to_string())
    .header("idempotency-key", Uuid::new_v4().to_string())
}
