//! The PostgreSQL store: the production and scale-out backend (stateless nodes over one
//! database). Write transactions are ordinary `BEGIN`s; races are settled by conditional
//! updates and constraints, not by locks held in a node.

use sqlx::postgres::PgPoolOptions;

mod backend;
mod dialect;
mod idempotency;

use backend::Postgres as ThisBackend;
use dialect::PostgresDialect as ThisDialect;

type Db = sqlx::Postgres;
/// A connection, pooled or inside a transaction (helpers of the shared SQL take either).
type Conn = <Db as sqlx::Database>::Connection;
type Batch = <ThisBackend as super::backend::Backend>::Batch;
/// The store the shared SQL (`store/sql/`) is compiled for here.
use PostgresStore as SqlStore;

/// The pool's size when none is configured: twice the cores, at least 4. Every connection in
/// use is a backend process wanting a core; beyond about two per core they only queue inside
/// the database, for CPU and for the rows they share, while a request waiting for a pooled
/// connection waits in line. With 16 connections on 2 cores the express checkout's p99 was
/// about a quarter higher than with 4, at the same throughput (docs/benchmarks.md). The cores
/// are this node's, a guess at the database's; set `BOXOFFICE_DB_MAX_CONNECTIONS` when they
/// differ, or when several nodes share one database.
pub fn default_pool_size() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    u32::try_from(cores * 2).unwrap_or(u32::MAX).max(4)
}

/// The store over one PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    pool: sqlx::Pool<Db>,
    /// The same pool: Postgres takes concurrent writers (the SQL shared with SQLite names
    /// its writes by this field).
    writer: sqlx::Pool<Db>,
}

impl PostgresStore {
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

    /// A checkout's unit of work: a transaction of its own.
    async fn begin_work(&self) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        self.writer.begin().await
    }
}

/// The shared SQL, compiled for this backend (and once more for the other, on purpose).
#[path = "../sql/mod.rs"]
#[allow(clippy::duplicate_mod)]
mod sql;
