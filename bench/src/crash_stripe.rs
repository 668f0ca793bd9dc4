//! Part of `crash` (issue 40): the Stripe provider under SIGKILL. The server pays through a
//! fake Stripe (localstripe, `end2end/stripe/fake_stripe.py`) whose webhooks reach it, the
//! express load runs as in `crash`, a payer pays the open PaymentIntents at the fake as
//! customers would, and the server is killed and restarted mid-load, so webhooks land on a
//! dead server (lost: localstripe sends each once) and reconciliation runs across restarts.
//! After a clean stretch, every PaymentIntent paid at Stripe must be a PAID order exactly once
//! (one payment, one `orders.OrderPaid`, one ticket mail), and no payment PAID without one.

use std::{
    collections::{HashMap, HashSet},
    net::SocketAddr,
    path::Path,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex, RwLock,
    },
    time::Duration,
};

use anyhow::Context;
use chrono::NaiveDate;
use hyper::Method;
use rand::Rng;
use serde_json::Value;
use sqlx::Connection;
use tokio::io::AsyncBufReadExt;
use uuid::Uuid;

use crate::{
    crash_load::{buyer, on_database, Seen},
    load::{self, Call},
    process::{self, ServerProcess},
    seed::Shop,
    Args,
};

const SECRET_KEY: &str = "sk_test_crash";
const WEBHOOK_SECRET: &str = "whsec_crash";
/// Clients sending checkouts at once.
pub const CLIENTS: usize = 6;
/// Kills (besides the last one before the clean stretch).
pub const KILLS: usize = 4;

/// The fake Stripe, stopped when dropped.
struct FakeStripe {
    api: Api,
    url: String,
    _process: tokio::process::Child,
}

/// The fake Stripe's API, as the server and a customer's browser call it.
#[derive(Clone, Copy)]
struct Api {
    addr: SocketAddr,
}

async fn start_fake() -> anyhow::Result<FakeStripe> {
    let python = std::env::var("BOXOFFICE_LOCALSTRIPE_PYTHON").unwrap_or_else(|_| {
        format!(
            "{}/.cache/boxoffice-tools/localstripe-venv/bin/python",
            std::env::var("HOME").unwrap_or_default()
        )
    });
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../end2end/stripe/fake_stripe.py"
    );
    let mut process = tokio::process::Command::new(&python)
        .arg(script)
        .args(["--port", "0", "--quiet"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| {
            format!("starting the fake Stripe with {python} (.ci/install-tools stripe)")
        })?;
    let stdout = process.stdout.take().context("its stdout")?;
    let line = tokio::time::timeout(
        Duration::from_secs(30),
        tokio::io::BufReader::new(stdout).lines().next_line(),
    )
    .await??
    .context("the fake Stripe's address")?;
    let url = line
        .strip_prefix("listening on ")
        .context("`listening on URL`")?
        .to_owned();
    let addr = url.trim_start_matches("http://").parse()?;
    Ok(FakeStripe {
        api: Api { addr },
        url,
        _process: process,
    })
}

impl Api {
    async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> anyhow::Result<Value> {
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let call = Call {
            method: Method::POST,
            path: path.to_owned(),
            headers: vec![
                ("authorization".into(), format!("Bearer {SECRET_KEY}")),
                (
                    "content-type".into(),
                    "application/x-www-form-urlencoded".into(),
                ),
            ],
            body: body.into(),
            fresh_key: None,
        };
        let (status, body) = load::once(self.addr, &call).await?;
        anyhow::ensure!(
            status.is_success() || status.as_u16() == 402,
            "{path}: {status}"
        );
        // Some of the fake's own routes (its webhook registration) answer no body.
        if body.is_empty() {
            return Ok(Value::Null);
        }
        Ok(serde_json::from_slice(&body)?)
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        let call = Call::get(path).header("authorization", format!("Bearer {SECRET_KEY}"));
        let (_, body) = load::once(self.addr, &call).await?;
        Ok(serde_json::from_slice(&body)?)
    }

    /// Sends the fake's webhooks to the server at `server`.
    async fn send_webhooks_to(&self, server: SocketAddr) -> anyhow::Result<()> {
        self.post_form(
            "/_config/webhooks/crash",
            &[
                ("url", &format!("http://{server}/webhooks/stripe")),
                ("secret", WEBHOOK_SECRET),
            ],
        )
        .await
        .map(|_| ())
    }

    /// Pays PaymentIntent `intent` by card, as the payment page would; whether it succeeded.
    async fn pay(&self, intent: &str) -> anyhow::Result<bool> {
        let secret = self.get(&format!("/v1/payment_intents/{intent}")).await?["client_secret"]
            .as_str()
            .context("a client secret")?
            .to_owned();
        let paid = self
            .post_form(
                &format!("/js.stripe.com/v3/confirm/{intent}"),
                &[
                    ("client_secret", secret.as_str()),
                    ("card[number]", "4242424242424242"),
                    ("card[exp_month]", "12"),
                    ("card[exp_year]", "2034"),
                    ("card[cvc]", "123"),
                ],
            )
            .await?;
        Ok(paid["status"] == "succeeded")
    }
}

/// The Stripe run on the database at `url` (the `crash` run's, whose shop it buys from), with
/// the server at `binary`; its invariants.
pub async fn run(
    args: &Args,
    url: &str,
    dir: &Path,
    shop: &Shop,
    days: &[NaiveDate],
) -> anyhow::Result<Vec<(&'static str, bool, String)>> {
    let fake = start_fake().await?;
    let js = format!("{}/js.stripe.com/v3/standin.js", fake.url);
    let env = [
        ("DATABASE_URL", url),
        ("BOXOFFICE_WORKER_INTERVAL_MS", "100"),
        ("BOXOFFICE_PAYMENT_PROVIDER", "stripe"),
        ("BOXOFFICE_STRIPE_SECRET_KEY", SECRET_KEY),
        ("BOXOFFICE_STRIPE_PUBLISHABLE_KEY", "pk_test_crash"),
        ("BOXOFFICE_STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("BOXOFFICE_STRIPE_API_BASE", fake.url.as_str()),
        ("BOXOFFICE_STRIPE_JS_URL", js.as_str()),
        ("BOXOFFICE_STRIPE_PAYMENT_METHODS", "card"),
        ("BOXOFFICE_STRIPE_RECONCILE_AFTER", "1"),
    ];
    let start = || async {
        let server = process::start(&args.server, dir, &env).await?;
        fake.api.send_webhooks_to(server.addr).await?;
        Ok::<ServerProcess, anyhow::Error>(server)
    };
    eprintln!("crash: the Stripe provider");
    let server: Arc<RwLock<Option<ServerProcess>>> = Arc::new(RwLock::new(Some(start().await?)));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (server, seen, stop, sent) =
                (server.clone(), seen.clone(), stop.clone(), sent.clone());
            let (shop, days) = (shop.clone(), days.to_vec());
            tokio::spawn(async move { buyer(server, shop, days, seen, stop, sent).await })
        })
        .collect();
    let paid: Arc<Mutex<HashSet<String>>> = Arc::default();
    let payer = {
        let (paid, stop, url, api) = (paid.clone(), stop.clone(), url.to_owned(), fake.api);
        tokio::spawn(async move { pay_open_intents(api, &url, &paid, &stop).await })
    };

    for kill in 0..KILLS {
        let pause = rand::thread_rng().gen_range(500..1_500);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        drop(server.write().unwrap().take()); // SIGKILL and wait
        eprintln!("  crash with Stripe: kill {} of {KILLS}", kill + 1);
        let restarted = start().await?;
        *server.write().unwrap() = Some(restarted);
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await??;
    }
    payer.await??;
    // One more kill, then a clean stretch: the reconciliation settles what the lost webhooks
    // did not.
    drop(server.write().unwrap().take());
    let last = start().await?;
    let paid = std::mem::take(&mut *paid.lock().unwrap());
    for _ in 0..100 {
        if settled(url, &paid).await? {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(last);
    invariants(url, &paid).await
}

/// Pays each open PaymentIntent the database holds, once, until `stop`.
async fn pay_open_intents(
    fake: Api,
    url: &str,
    paid: &Mutex<HashSet<String>>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let mut tried = HashSet::new();
    while !stop.load(Ordering::Relaxed) {
        let open: Vec<String> = on_database!(url, |conn| sqlx::query_scalar(
            "SELECT provider_ref FROM payment
             WHERE provider = 'stripe' AND status = 'OPEN' AND provider_ref IS NOT NULL"
        )
        .fetch_all(&mut conn)
        .await?);
        for intent in open {
            if tried.insert(intent.clone()) && fake.pay(&intent).await? {
                paid.lock().unwrap().insert(intent);
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// The Stripe payments as stored: PaymentIntent → (payment status, order id, order status).
async fn payments(url: &str) -> anyhow::Result<HashMap<String, Vec<(String, Uuid, String)>>> {
    let rows: Vec<(String, String, Uuid, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT p.provider_ref, p.status, o.customer_order_id, o.status
         FROM payment p JOIN customer_order o ON o.customer_order_id = p.customer_order_id
         WHERE p.provider = 'stripe' AND p.provider_ref IS NOT NULL"
    )
    .fetch_all(&mut conn)
    .await?);
    let mut out: HashMap<String, Vec<(String, Uuid, String)>> = HashMap::new();
    for (intent, status, order, order_status) in rows {
        out.entry(intent)
            .or_default()
            .push((status, order, order_status));
    }
    Ok(out)
}

async fn settled(url: &str, paid: &HashSet<String>) -> anyhow::Result<bool> {
    let stored = payments(url).await?;
    Ok(paid.iter().all(|intent| {
        stored
            .get(intent)
            .is_some_and(|rows| rows.iter().all(|(status, _, _)| status == "PAID"))
    }))
}

async fn invariants(
    url: &str,
    paid: &HashSet<String>,
) -> anyhow::Result<Vec<(&'static str, bool, String)>> {
    let stored = payments(url).await?;
    let paid_events: Vec<String> = on_database!(url, |conn| sqlx::query_scalar(
        "SELECT subject FROM event WHERE event_type = 'orders.OrderPaid'"
    )
    .fetch_all(&mut conn)
    .await?);
    let ticket_mails: Vec<Uuid> = on_database!(url, |conn| sqlx::query_scalar(&format!(
        "SELECT customer_order_id FROM mail WHERE kind = '{}'",
        app::wire::MailKind::Tickets.as_str()
    ))
    .fetch_all(&mut conn)
    .await?);
    let count = |subject: &str| paid_events.iter().filter(|s| *s == subject).count();
    let mails = |order: Uuid| ticket_mails.iter().filter(|o| **o == order).count();
    let mut wrong = 0;
    for intent in paid {
        let once = match stored.get(intent).map(Vec::as_slice) {
            Some([(status, order, order_status)]) => {
                status == "PAID"
                    && matches!(order_status.as_str(), "PAID" | "FULFILLED")
                    && count(&format!("orders/{order}")) == 1
                    && mails(*order) == 1
            }
            _ => false,
        };
        wrong += usize::from(!once);
    }
    let stripe_paid: Vec<&String> = stored
        .iter()
        .filter(|(_, rows)| rows.iter().any(|(status, _, _)| status == "PAID"))
        .map(|(intent, _)| intent)
        .collect();
    let unpaid = stripe_paid.iter().filter(|i| !paid.contains(**i)).count();
    Ok(vec![
        (
            "every PaymentIntent paid at Stripe is a PAID order exactly once (one OrderPaid, one ticket mail)",
            wrong == 0 && !paid.is_empty(),
            format!("{} paid at Stripe, {wrong} not exactly once", paid.len()),
        ),
        (
            "no Stripe payment is PAID without its PaymentIntent paid",
            unpaid == 0,
            format!("{} PAID, {unpaid} without a payment at Stripe", stripe_paid.len()),
        ),
    ])
}
