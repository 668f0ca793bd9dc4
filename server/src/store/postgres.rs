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

    /// Writes kept until the next statement that needs a result (see `store::batch`), sent as
    /// one statement: each becomes a data-modifying `WITH` part over one argument list, so the
    /// batch is one round trip. Its parts run as one statement (constraints are checked at its
    /// end), so no two may touch the same row.
    #[derive(Default)]
    pub struct Batch {
        parts: Vec<String>,
        args: sqlx::postgres::PgArguments,
        binds: usize,
        error: Option<sqlx::error::BoxDynError>,
    }

    impl Batch {
        /// Adds a statement written with its own `$1, $2, …`; bind one value per number next,
        /// in order.
        pub fn statement(&mut self, sql: &str) -> &mut Self {
            let sql = crate::store::batch::renumber(sql, self.binds);
            self.parts.push(format!("w{} AS ({sql})", self.parts.len()));
            self
        }

        pub fn bind<T>(&mut self, value: T) -> &mut Self
        where
            T: 'static + Send + sqlx::Encode<'static, Db> + sqlx::Type<Db>,
        {
            if let Err(e) = sqlx::Arguments::add(&mut self.args, value) {
                self.error.get_or_insert(e);
            }
            self.binds += 1;
            self
        }

        /// Sends what was added and empties the batch.
        pub async fn flush(&mut self, conn: &mut super::Conn) -> sqlx::Result<()> {
            if self.parts.is_empty() {
                return Ok(());
            }
            let batch = std::mem::take(self);
            if let Some(e) = batch.error {
                return Err(sqlx::Error::Encode(e));
            }
            let sql = format!("WITH {} SELECT 1", batch.parts.join(",\n"));
            sqlx::query_with(&sql, batch.args).execute(conn).await?;
            Ok(())
        }
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
