//! The embedded SQLite store: WAL, `synchronous=FULL`, foreign keys on, and every write
//! transaction begun `IMMEDIATE` so a read-then-write never fails to upgrade its lock.
//! Checkouts commit in groups instead, with `synchronous=NORMAL` and a flush of their own
//! that runs beside the writer and is waited for all the same (`group_commit.rs`,
//! `wal_flush.rs`).
//!
//! SQLite lets one connection write at a time. Writes therefore go through a pool of one
//! connection (`writer`), where they queue in order, while reads use a pool of read-only
//! connections that WAL never blocks. With writers sharing one pool, a writer that found the
//! lock taken would sleep in SQLite's busy handler (1 ms, then 2, 5, … up to 100 ms per try):
//! under load that made p99 latency hundreds of milliseconds (docs/benchmarks.md).

use std::{str::FromStr, time::Duration};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

mod backend;
mod dialect;
mod group_commit;
mod idempotency;
mod wal_flush;

use backend::Sqlite as ThisBackend;
use dialect::SqliteDialect as ThisDialect;

type Db = sqlx::Sqlite;
/// A connection, pooled or inside a transaction (helpers of the shared SQL take either).
type Conn = <Db as sqlx::Database>::Connection;
type Batch = <ThisBackend as super::backend::Backend>::Batch;
/// The store the shared SQL (`store/sql/`) is compiled for here.
use SqliteStore as SqlStore;

/// The store over one SQLite database file.
#[derive(Clone)]
pub struct SqliteStore {
    /// Read-only connections.
    pool: sqlx::Pool<Db>,
    /// The one connection that writes.
    writer: sqlx::Pool<Db>,
    /// Checkouts' transactions on the writer, committed in groups.
    group: group_commit::GroupCommit,
}

/// How many pages the WAL grows by before a commit checkpoints it (SQLite's default: 1,000).
const WAL_PAGES_PER_CHECKPOINT: &str = "4000";

/// Readers when none are configured. SQLite reads run inside this process, so more readers
/// add no database processes competing for the cores, as Postgres backends do.
pub const DEFAULT_READERS: u32 = 16;

impl SqliteStore {
    /// `max_connections` readers and one writer. Another process writing the same file (a
    /// second server, a tool) is still waited for, up to the busy timeout.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        let options = SqliteConnectOptions::from_str(url)?
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // A group commit's members nest savepoints, whose undo (the sub-journal) outgrew
            // its in-memory buffer and went to a temp file per group: a create, writes and an
            // unlink on the one writer's path (docs/benchmarks.md, "Group commit").
            .pragma("temp_store", "memory")
            // A checkpoint runs on the writer after a commit, and flushes the WAL and the
            // database file while every checkout waits: four times SQLite's default WAL
            // (about 16 MB) between them makes them rarer and copies each hot page once where
            // it was four times. Ten times gained no more and paused longer (p99).
            .pragma("wal_autocheckpoint", WAL_PAGES_PER_CHECKPOINT);
        // No ping before each use: the connection is in this process and cannot have gone
        // away; the ping was a round trip to its worker thread on every query.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone().create_if_missing(true))
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&writer).await?;
        let flush = wal_flush::WalFlush::start(options.get_filename().to_path_buf())?;
        let pool = SqlitePoolOptions::new()
            .max_connections(max_connections)
            .test_before_acquire(false)
            .connect_with(options.read_only(true))
            .await?;
        Ok(Self {
            pool,
            group: group_commit::GroupCommit::new(writer.clone(), flush),
            writer,
        })
    }

    /// Returns once every commit that a read made before the call could see is on disk,
    /// before what it read is shown to a partner: a group commit is visible from its `COMMIT`,
    /// a moment before its flush (`group_commit.rs`), and a power cut in that moment loses it.
    /// Every other commit is on disk when it returns.
    async fn wait_for_disk(&self, _conn: &mut Conn) -> sqlx::Result<()> {
        self.group.wait_for_disk().await
    }

    /// A checkout's unit of work: a member of the writer's group commit.
    async fn begin_work(&self) -> sqlx::Result<group_commit::Member> {
        self.group.join().await
    }

    pub fn pool(&self) -> &sqlx::Pool<Db> {
        &self.pool
    }
}

/// The shared SQL, compiled for this backend (and once more for the other, on purpose).
#[path = "../sql/mod.rs"]
#[allow(clippy::duplicate_mod)]
mod sql;

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer's settings that the group commit's throughput rests on
    /// (docs/benchmarks.md, "Group commit").
    #[tokio::test]
    async fn the_writer_keeps_savepoint_undo_in_memory_and_checkpoints_rarely() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("store.db").display());
        let store = SqliteStore::connect(&url, 1).await.unwrap();
        let mut writer = store.writer.acquire().await.unwrap();
        let temp_store: i64 = sqlx::query_scalar("PRAGMA temp_store")
            .fetch_one(&mut *writer)
            .await
            .unwrap();
        assert_eq!(temp_store, 2, "MEMORY");
        let checkpoint: String = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&mut *writer)
            .await
            .map(|pages: i64| pages.to_string())
            .unwrap();
        assert_eq!(checkpoint, WAL_PAGES_PER_CHECKPOINT);
    }
}
