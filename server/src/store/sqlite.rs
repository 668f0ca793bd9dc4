//! The embedded SQLite store: WAL, `synchronous=FULL`, foreign keys on, and every write
//! transaction begun `IMMEDIATE` so a read-then-write never fails to upgrade its lock.
//!
//! SQLite lets one connection write at a time. Writes therefore go through a pool of one
//! connection (`writer`), where they queue in order, while reads use a pool of read-only
//! connections that WAL never blocks. With writers sharing one pool, a writer that found the
//! lock taken would sleep in SQLite's busy handler (1 ms, then 2, 5, … up to 100 ms per try):
//! under load that made p99 latency hundreds of milliseconds (docs/benchmarks.md).

use std::{str::FromStr, time::Duration};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

pub type Db = sqlx::Sqlite;
/// A connection, pooled or inside a transaction (helpers of the included SQL take either).
type Conn = <Db as sqlx::Database>::Connection;

mod dialect {
    use super::Db;
    use crate::store::{is_check_violation, Places, StoreError, StoreResult};

    /// Begins a transaction that takes SQLite's write lock at once.
    pub async fn begin_write(
        pool: &sqlx::Pool<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        pool.begin_with("BEGIN IMMEDIATE").await
    }

    /// `begin_write` on a connection the caller already holds. sqlx makes a transaction that
    /// owns its pooled connection only in `Pool::begin`, with this (public, undocumented)
    /// constructor; Cargo.lock pins the version it was checked against.
    pub async fn begin_write_on(
        conn: sqlx::pool::PoolConnection<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        sqlx::Transaction::begin(conn, Some("BEGIN IMMEDIATE".into())).await
    }

    /// Claims a new key and begins the transaction at once where a dialect can; SQLite's
    /// statements are calls into this process, with no round trip to save, so every claim
    /// takes the full path (`claim_on`).
    pub async fn claim_new_and_begin(
        _pool: &sqlx::Pool<Db>,
        _r: &crate::store::IdempotentRequest,
        _now: chrono::DateTime<chrono::Utc>,
    ) -> sqlx::Result<Option<sqlx::Transaction<'static, Db>>> {
        Ok(None)
    }

    /// The source of an idempotency key's claim row (`claim_on`). SQLite has no commit that
    /// skips its flush for one transaction, so nothing is turned off here; `WHERE true` is
    /// the clause its parser needs before an upsert's `ON CONFLICT`.
    pub const CLAIM_SOURCE: &str = "WHERE true";

    /// A new random version 4 UUID, in SQL, as the 16 bytes sqlx stores a UUID as: random hex
    /// with the version and variant digits in their places.
    pub const NEW_UUID: &str = "unhex(hex(randomblob(6)) || '4' || substr(hex(randomblob(2)), 2)
        || substr('89ab', abs(random() % 4) + 1, 1) || substr(hex(randomblob(2)), 2)
        || hex(randomblob(6)))";

    /// Writes sent to SQLite as one multi-statement query with one argument list (see
    /// `store::batch`): one hand-off to the writer's worker thread for all of them.
    pub type Batch = crate::store::batch::Batch<sqlx::sqlite::SqliteArguments<'static>>;

    /// Nothing to wait for: a commit returns when it is on disk (`synchronous=FULL`).
    pub async fn wait_for_disk(_conn: &mut super::Conn) -> sqlx::Result<()> {
        Ok(())
    }

    /// Sends what `batch` holds, in order, and empties it.
    pub async fn flush(batch: &mut Batch, conn: &mut super::Conn) -> sqlx::Result<()> {
        if let Some((statements, args)) = batch.take()? {
            let sql = statements.join(";\n");
            sqlx::query_with(&sql, args).execute(conn).await?;
        }
        Ok(())
    }

    /// Sends `batch`, takes `takes` in order with conditional updates, and commits. The one
    /// writer holds SQLite's lock from `BEGIN IMMEDIATE` to the commit whatever is sent when,
    /// so the takes are ordinary statements; the rows of unlimited days are made in the batch.
    pub async fn take_and_commit(
        mut tx: sqlx::Transaction<'static, Db>,
        mut batch: Batch,
        takes: &[Places],
    ) -> StoreResult<()> {
        for places in takes {
            if let Places::Day { group, day, .. } = *places {
                batch
                    .statement(
                        "INSERT INTO availability_day (availability_group_id, day, capacity, reserved)
                         VALUES ($1, $2, NULL, 0) ON CONFLICT DO NOTHING",
                    )
                    .bind(group)
                    .bind(day);
            }
        }
        flush(&mut batch, &mut tx).await?;
        for &places in takes {
            let taken = match places {
                Places::Day {
                    group,
                    day,
                    quantity,
                } => {
                    sqlx::query(
                        "UPDATE availability_day SET reserved = reserved + $3
                         WHERE availability_group_id = $1 AND day = $2
                           AND (capacity IS NULL OR reserved + $3 <= capacity)",
                    )
                    .bind(group)
                    .bind(day)
                    .bind(i64::from(quantity))
                    .execute(&mut *tx)
                    .await
                }
                Places::Timeslot {
                    timeslot_id,
                    quantity,
                } => {
                    sqlx::query(
                        "UPDATE timeslot SET reserved = reserved + $2
                         WHERE timeslot_id = $1 AND (capacity IS NULL OR reserved + $2 <= capacity)",
                    )
                    .bind(timeslot_id)
                    .bind(i64::from(quantity))
                    .execute(&mut *tx)
                    .await
                }
            };
            match taken {
                Ok(done) if done.rows_affected() == 1 => {}
                Ok(_) => return Err(StoreError::Short(places)),
                // The tables' CHECKs are the backstop of the conditions above.
                Err(e) if is_check_violation(&e) => return Err(StoreError::Short(places)),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(tx.commit().await?)
    }
}

/// The store over one SQLite database file.
#[derive(Clone)]
pub struct SqlStore {
    /// Read-only connections.
    pool: sqlx::Pool<Db>,
    /// The one connection that writes.
    writer: sqlx::Pool<Db>,
}

/// Readers when none are configured. SQLite reads run inside this process, so more readers
/// add no database processes competing for the cores, as Postgres backends do.
pub const DEFAULT_READERS: u32 = 16;

impl SqlStore {
    /// `max_connections` readers and one writer. Another process writing the same file (a
    /// second server, a tool) is still waited for, up to the busy timeout.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        let options = SqliteConnectOptions::from_str(url)?
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // No ping before each use: the connection is in this process and cannot have gone
        // away; the ping was a round trip to its worker thread on every query.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone().create_if_missing(true))
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&writer).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(max_connections)
            .test_before_acquire(false)
            .connect_with(options.read_only(true))
            .await?;
        Ok(Self { pool, writer })
    }

    pub fn pool(&self) -> &sqlx::Pool<Db> {
        &self.pool
    }
}

const BACKEND: &str = "sqlite";

include!("sql/store.rs");
include!("sql/campaigns.rs");
include!("sql/checkout_tx.rs");
include!("sql/checkouts.rs");
include!("sql/orders.rs");
include!("sql/clients.rs");
include!("sql/customers.rs");
include!("sql/events.rs");
include!("sql/idempotency.rs");
include!("sql/issuers.rs");
include!("sql/keys.rs");
include!("sql/mail.rs");
include!("sql/memberships.rs");
include!("sql/merchant_accounts.rs");
include!("sql/references.rs");
include!("sql/sessions.rs");
include!("sql/vouchers.rs");
include!("sql/wallets.rs");
include!("sql/merchants.rs");
include!("sql/availability.rs");
include!("sql/products.rs");
include!("sql/calendar.rs");
include!("sql/timeslots.rs");
