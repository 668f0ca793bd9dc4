//! The PostgreSQL store: the production and scale-out backend (stateless nodes over one
//! database). Write transactions are ordinary `BEGIN`s; races are settled by conditional
//! updates and constraints, not by locks held in a node.

use sqlx::postgres::PgPoolOptions;

pub type Db = sqlx::Postgres;
/// A connection, pooled or inside a transaction (helpers of the included SQL take either).
type Conn = <Db as sqlx::Database>::Connection;

mod dialect {
    use super::Db;

    /// Begins a read-committed transaction; conditional updates keep it race-free.
    pub async fn begin_write(
        pool: &sqlx::Pool<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        pool.begin().await
    }

    /// `begin_write` on a connection the caller already holds. sqlx makes a transaction that
    /// owns its pooled connection only in `Pool::begin`, with this (public, undocumented)
    /// constructor; Cargo.lock pins the version it was checked against.
    pub async fn begin_write_on(
        conn: sqlx::pool::PoolConnection<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        sqlx::Transaction::begin(conn, None).await
    }

    /// Writes kept until the next statement that needs a result (see `store::batch`).
    pub type Batch = crate::store::batch::Batch<sqlx::postgres::PgArguments>;

    /// Sends what `batch` holds as one statement: each write becomes a data-modifying `WITH`
    /// part over one argument list, so the batch is one round trip. The parts run in no set
    /// order and constraints are checked at the statement's end, so no two may touch the same
    /// row.
    pub async fn flush(batch: &mut Batch, conn: &mut super::Conn) -> sqlx::Result<()> {
        if let Some((statements, args)) = batch.take()? {
            let parts: Vec<String> = statements
                .iter()
                .enumerate()
                .map(|(i, sql)| format!("w{i} AS ({sql})"))
                .collect();
            let sql = format!("WITH {} SELECT 1", parts.join(",\n"));
            sqlx::query_with(&sql, args).execute(conn).await?;
        }
        Ok(())
    }
}

/// The store over one PostgreSQL database.
#[derive(Clone)]
pub struct SqlStore {
    pool: sqlx::Pool<Db>,
    /// The same pool: Postgres takes concurrent writers (the SQL shared with SQLite names
    /// its writes by this field).
    writer: sqlx::Pool<Db>,
}

impl SqlStore {
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        // No ping before each use: with the one sqlx makes when a connection is given back, it
        // tripled the round trips of a single read. A connection the server dropped (a
        // restart) fails the statement that finds it, and the test on its return closes it.
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            .test_before_acquire(false)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(Self {
            writer: pool.clone(),
            pool,
        })
    }

    pub fn pool(&self) -> &sqlx::Pool<Db> {
        &self.pool
    }
}

const BACKEND: &str = "postgres";

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
