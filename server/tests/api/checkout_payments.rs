//! The payment is opened at the provider before the order's transaction begins, so a real
//! provider's network round trip never holds SQLite's one writer or a Postgres row
//! (docs/api-checkout.md, "Payments are opened before the transaction").

use std::{
    str::FromStr,
    sync::{Arc, Mutex},
    time::Duration,
};

use secrecy::ExposeSecret;
use server::providers::{
    sandbox::SandboxPayments, OpenedAtProvider, PaymentProvider, PaymentRequest,
};
use sqlx::{sqlite::SqliteConnectOptions, ConnectOptions, Connection};

use crate::{
    checkout_fixtures::{
        basket, customer, express_one_as_guest, shop, CreatePayment, SandboxExcept,
    },
    helpers::spawn_app_with_state,
};

/// Payment creation by the sandbox that first looks at the database for a write transaction
/// of the server's that is open, and records what it saw.
struct WatchingPayments {
    database_url: String,
    /// One entry per payment created: whether a write transaction was open meanwhile.
    seen: Arc<Mutex<Vec<bool>>>,
}

impl WatchingPayments {
    async fn write_transaction_open(&self) -> bool {
        if self.database_url.starts_with("postgres") {
            let mut conn = sqlx::PgConnection::connect(&self.database_url)
                .await
                .unwrap();
            // Another worker (the sweeper, the webhooks) may be in a short transaction of its
            // own: only one that stays open over the whole look counts.
            for _ in 0..5 {
                let open: i64 = sqlx::query_scalar(
                    "SELECT count(*) FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid()
                       AND state LIKE 'idle in transaction%'",
                )
                .fetch_one(&mut conn)
                .await
                .unwrap();
                if open == 0 {
                    return false;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            true
        } else {
            // SQLite's write lock is taken at `BEGIN IMMEDIATE`: another connection cannot take
            // it while the server's writer holds it.
            let mut conn = SqliteConnectOptions::from_str(&self.database_url)
                .unwrap()
                .busy_timeout(Duration::from_secs(2))
                .connect()
                .await
                .unwrap();
            let taken = sqlx::query("BEGIN IMMEDIATE").execute(&mut conn).await;
            if taken.is_ok() {
                sqlx::query("ROLLBACK").execute(&mut conn).await.unwrap();
            }
            taken.is_err()
        }
    }
}

#[async_trait::async_trait]
impl CreatePayment for WatchingPayments {
    async fn create_payment(
        &self,
        sandbox: &SandboxPayments,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>> {
        let open = self.write_transaction_open().await;
        self.seen.lock().unwrap().push(open);
        sandbox.create_payment(request).await
    }
}

#[tokio::test]
async fn no_write_transaction_is_open_while_the_payment_is_created() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let watched = seen.clone();
    let app = spawn_app_with_state(
        |_| {},
        move |state| {
            let database_url = state.config.database_url.as_ref().unwrap();
            let watching = WatchingPayments {
                database_url: database_url.expose_secret().to_owned(),
                seen: watched,
            };
            state.commerce.payments = Arc::new(SandboxExcept::new(state, watching));
        },
    )
    .await;
    let shop = shop(&app, Some(10)).await;

    // The express checkout.
    express_one_as_guest(&app, &shop).await.assert_status(200);

    // A reservation, then its confirmation.
    let reserved = shop
        .partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_status(201);
    let checkout_id = reserved["data"]["checkout_id"].as_str().unwrap();
    shop.partner
        .post(
            &app,
            &format!("/v2/checkouts/{checkout_id}/confirm"),
            &customer(),
        )
        .await
        .assert_status(200);

    assert_eq!(
        *seen.lock().unwrap(),
        [false, false],
        "one payment per order, each created with no write transaction open"
    );
}
