//! SQLite's spelling of the SQL fragments that differ ([`Dialect`]).

use crate::store::dialect::Dialect;

/// The SQLite dialect.
pub(crate) struct SqliteDialect;

impl Dialect for SqliteDialect {
    const NAME: &'static str = "sqlite";

    /// One writer: transactions commit in the order they take sequence numbers, and a read
    /// sees a prefix of them, so every event it sees is settled.
    const FEED_SETTLED: &'static str = "true";

    /// One writer: a claim's select and update run under the write lock `BEGIN IMMEDIATE`
    /// takes, so no two claims overlap and there is nothing to skip.
    const SKIP_LOCKED: &'static str = "";
    const XACT_LOCK: Option<&'static str> = None;
    // TRUNCATE: every frame copied into the database file and the WAL cut to zero bytes, so
    // a copy of `boxoffice.db` alone, without its `-wal`, holds the data.
    const ON_CLOSE: Option<&'static str> = Some("PRAGMA wal_checkpoint(TRUNCATE)");
}
