//! What only tests read from the database, queried directly on either backend (the server's
//! store traits hold only what the service itself needs).

use chrono::NaiveDate;
use uuid::Uuid;

use crate::{catalog_fixtures::database_url, helpers::TestApp};

/// Runs `$query` (a `sqlx` query builder, before its fetch) on the test database of `$app`.
macro_rules! on_database {
    ($app:expr, |$conn:ident| $body:expr) => {{
        let url = database_url($app);
        if $app.backend() == "postgres" {
            let mut $conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
                .await
                .expect("connect to the test database");
            $body
        } else {
            let mut $conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
                .await
                .expect("connect to the test database");
            $body
        }
    }};
}

/// Places taken on a group's day (0 when the day has no row yet).
pub async fn reserved_on_day(app: &TestApp, group: Uuid, day: NaiveDate) -> i64 {
    let sql = "SELECT reserved FROM availability_day WHERE availability_group_id = $1 AND day = $2";
    let reserved: Option<i32> = on_database!(app, |conn| sqlx::query_scalar(sql)
        .bind(group)
        .bind(day)
        .fetch_optional(&mut conn)
        .await
        .expect("read the day"));
    reserved.map_or(0, i64::from)
}

/// Checkouts that hold places (reserved or confirmed), whatever their hold's end.
pub async fn open_checkouts(app: &TestApp) -> i64 {
    let sql = "SELECT COUNT(*) FROM checkout WHERE status IN ('RESERVED', 'CONFIRMED')";
    on_database!(app, |conn| sqlx::query_scalar(sql)
        .fetch_one(&mut conn)
        .await
        .expect("count the checkouts"))
}

/// Whether order `order_id` is stored (committed: this is a connection of its own).
pub async fn order_stored(app: &TestApp, order_id: Uuid) -> bool {
    let sql = "SELECT COUNT(*) FROM customer_order WHERE customer_order_id = $1";
    let found: i64 = on_database!(app, |conn| sqlx::query_scalar(sql)
        .bind(order_id)
        .fetch_one(&mut conn)
        .await
        .expect("read the order"));
    found == 1
}

/// The `last_error` of a webhook delivery that was attempted, if any was.
pub async fn attempted_delivery_error(app: &TestApp) -> Option<Option<String>> {
    let sql = "SELECT last_error FROM webhook_delivery WHERE attempts > 0";
    on_database!(app, |conn| sqlx::query_scalar(sql)
        .fetch_optional(&mut conn)
        .await
        .expect("read the deliveries"))
}

/// A mail in the outbox, as the tests look at it.
#[derive(Debug, sqlx::FromRow)]
pub struct Mail {
    pub body_text: String,
    pub status: String,
    pub sent: bool,
}

/// The newest `limit` mails to `recipient`, newest first.
pub async fn mails_to(app: &TestApp, recipient: &str, limit: i64) -> Vec<Mail> {
    let sql = "SELECT body_text, status, sent_at IS NOT NULL AS sent FROM mail
               WHERE recipient = $1 ORDER BY created_at DESC, mail_id DESC LIMIT $2";
    on_database!(app, |conn| sqlx::query_as(sql)
        .bind(recipient)
        .bind(limit)
        .fetch_all(&mut conn)
        .await
        .expect("read the outbox"))
}

/// Waits until the polling feed can show every event written so far. On Postgres the feed
/// holds an event back while a transaction older than its own is in flight anywhere on the
/// database server (`Backend::FEED_SETTLED`), and tests run beside each other on one server;
/// on SQLite every committed event is shown at once.
pub async fn wait_until_events_settle(app: &TestApp) {
    if app.backend() != "postgres" {
        return;
    }
    let sql = "SELECT COUNT(*) FROM event
               WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot())::text::bigint";
    let url = database_url(app);
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .expect("connect to the test database");
    for _ in 0..400 {
        let unsettled: i64 = sqlx::query_scalar(sql)
            .fetch_one(&mut conn)
            .await
            .expect("read the outbox");
        if unsettled == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("events stayed held back for 10 s: a transaction on the test server stays open");
}

/// Makes every pending mail due now, as if its back-off had passed.
pub async fn make_mails_due(app: &TestApp) {
    let sql = "UPDATE mail SET next_attempt_at = $1 WHERE status = 'PENDING'";
    on_database!(app, |conn| sqlx::query(sql)
        .bind(chrono::Utc::now() - chrono::Duration::seconds(1))
        .execute(&mut conn)
        .await
        .map(|_| ())
        .expect("update the mails"));
}

/// Runs `script`, statements without parameters, on the test database (for putting a table
/// back as an older migration left it).
pub async fn run_script(app: &TestApp, script: &str) {
    on_database!(app, |conn| sqlx::raw_sql(script)
        .execute(&mut conn)
        .await
        .map(|_| ())
        .expect("run the script"));
}

/// Runs one statement without parameters; the database's refusal as its message.
pub async fn try_execute(app: &TestApp, sql: &str) -> Result<u64, String> {
    on_database!(app, |conn| sqlx::query(sql)
        .execute(&mut conn)
        .await
        .map(|r| r.rows_affected())
        .map_err(|e| e.to_string()))
}

/// Makes every open payment lapse now, as if its window had passed.
pub async fn lapse_payments(app: &TestApp) {
    let sql = "UPDATE payment SET expires_at = $1 WHERE status = 'OPEN'";
    on_database!(app, |conn| sqlx::query(sql)
        .bind(chrono::Utc::now() - chrono::Duration::seconds(1))
        .execute(&mut conn)
        .await
        .map(|_| ())
        .expect("update the payments"));
}

/// The refunds of `order_id` as (reason, status, amount), oldest first.
pub async fn refunds_of(app: &TestApp, order_id: Uuid) -> Vec<(String, String, String)> {
    let sql = "SELECT reason, status, CAST(amount AS TEXT) FROM refund WHERE customer_order_id = $1 ORDER BY created_at";
    on_database!(app, |conn| sqlx::query_as(sql)
        .bind(order_id)
        .fetch_all(&mut conn)
        .await
        .expect("read the refunds"))
}

/// Dates the gate's entry `redemption_id` as recorded `minutes` ago.
pub async fn age_redemption(app: &TestApp, redemption_id: Uuid, minutes: i64) {
    let sql = "UPDATE redemption SET recorded_at = $1 WHERE redemption_id = $2";
    on_database!(app, |conn| sqlx::query(sql)
        .bind(chrono::Utc::now() - chrono::Duration::minutes(minutes))
        .bind(redemption_id)
        .execute(&mut conn)
        .await
        .map(|_| ())
        .expect("age the entry"));
}
