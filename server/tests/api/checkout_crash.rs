//! A server killed with SIGKILL in the middle of a load of express checkouts, then restarted:
//! every acknowledged order is there, every committed checkout has its events, and no failed
//! or interrupted request holds capacity.

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use futures::future::join_all;
use secrecy::ExposeSecret;

use crate::checkout_fixtures::{express_body, reserved_on_visit_day, spawn_shop};

/// The server binary over the test's database, on a free port.
fn start(database_url: &str, data_dir: &std::path::Path) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_server"))
        .env("DATABASE_URL", database_url)
        .env("BOXOFFICE_DATA_DIR", data_dir)
        .env("BOXOFFICE_LISTEN", format!("127.0.0.1:{port}"))
        .env("BOXOFFICE_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
        .env("BOXOFFICE_DEMO", "0")
        .env("BOXOFFICE_LOG", "warn")
        // 120 guest checkouts from one address: past what one address may hold.
        .env("BOXOFFICE_HOLD_ADDRESS_FACTOR", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server binary starts");
    (child, format!("http://127.0.0.1:{port}"))
}

async fn wait_ready(http: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(r) = http.get(format!("{base}/readyz")).send().await {
            if r.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not become ready");
}

#[tokio::test]
async fn a_server_killed_mid_load_keeps_what_it_acknowledged_and_holds_nothing_else() {
    let (app, shop) = spawn_shop(Some(1000)).await;
    let url = app
        .state
        .config
        .database_url
        .as_ref()
        .unwrap()
        .expose_secret()
        .to_owned();
    let data_dir = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let (mut child, base) = start(&url, data_dir.path());
    wait_ready(&http, &base).await;

    let body = express_body(&shop.product, 1);
    let acks = std::sync::atomic::AtomicUsize::new(0);
    let load = join_all((0..120).map(|i| {
        let (http, base, body, campaign) = (&http, &base, &body, &shop.partner.campaign);
        let acks = &acks;
        async move {
            // Spread over time so the kill lands in the middle of the load.
            tokio::time::sleep(Duration::from_millis(i * 10)).await;
            let response = http
                .post(format!("{base}/v2/checkouts/express"))
                .header("x-campaign-id", campaign)
                .header("idempotency-key", uuid::Uuid::new_v4().to_string())
                .json(body)
                .send()
                .await
                .ok()?;
            if !response.status().is_success() {
                return None;
            }
            let json: serde_json::Value = response.json().await.ok()?;
            acks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Some(json["data"]["order_id"].as_str()?.to_owned())
        }
    }));
    let kill = async {
        // Killed once some orders are acknowledged, while the rest are in flight.
        let deadline = Instant::now() + Duration::from_secs(20);
        while acks.load(std::sync::atomic::Ordering::SeqCst) < 5 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
    };
    let (acknowledged, ()) = tokio::join!(load, kill);
    let acknowledged: Vec<String> = acknowledged.into_iter().flatten().collect();
    assert!(
        (5..120).contains(&acknowledged.len()),
        "the kill landed mid-load: {} acknowledged",
        acknowledged.len()
    );
    eprintln!("{} of 120 acknowledged before the kill", acknowledged.len());

    // Restarted over the same database, it serves on.
    let (mut child, base) = start(&url, data_dir.path());
    wait_ready(&http, &base).await;
    for order_id in &acknowledged {
        let order = app
            .state
            .store
            .order(order_id.parse().unwrap())
            .await
            .unwrap();
        assert!(order.is_some(), "acknowledged order {order_id} is stored");
    }
    // Capacity held equals what committed checkouts hold: none is held by a request that did
    // not commit, and each committed checkout has both of its events.
    let committed: Vec<(uuid::Uuid,)> = match app.backend() {
        "postgres" => {
            let pool = sqlx::PgPool::connect(&url).await.unwrap();
            sqlx::query_as("SELECT checkout_id FROM checkout")
                .fetch_all(&pool)
                .await
                .unwrap()
        }
        _ => {
            let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
            sqlx::query_as("SELECT checkout_id FROM checkout")
                .fetch_all(&pool)
                .await
                .unwrap()
        }
    };
    assert!(committed.len() >= acknowledged.len());
    assert_eq!(
        reserved_on_visit_day(&app, &shop).await,
        committed.len() as i64,
        "one place per committed checkout, none for the rest"
    );
    let events = crate::checkout_fixtures::events(&app, &shop).await;
    for (checkout_id,) in &committed {
        let subject = format!("checkouts/{checkout_id}");
        let mine = events.iter().filter(|(_, s)| *s == subject).count();
        assert_eq!(
            mine, 2,
            "{subject} has CheckoutStarted and FulfillmentRegistered"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
