//! What the two databases spell differently in SQL, and only that: fragments the shared SQL
//! (`sql/`) splices into its statements. How transactions behave is [`super::backend::Backend`].
//!
//! Implemented by `sqlite::dialect::SqliteDialect` and `postgres::dialect::PostgresDialect`;
//! the SQL names the one it is compiled into `ThisDialect`.

/// The SQL fragments that differ between the databases.
pub(crate) trait Dialect {
    /// The backend's name, for logs.
    const NAME: &'static str;
    /// An SQL condition on the outbox row `e` that holds only when every event that can still
    /// commit will sort after `e` in the feed's order (`e.tx_id`, `e.event_seq`), so a poller
    /// that has read up to `e` can never miss one (`sql/events.rs`, `events_for_client`).
    const FEED_SETTLED: &'static str;
    /// The locking clause that ends the select of rows to claim: rows another transaction is
    /// claiming are passed over instead of waited for.
    const SKIP_LOCKED: &'static str;
    /// A statement that locks the `BIGINT` key `$1` until the transaction ends, where a read
    /// before a write needs one to be exact; `None` where write transactions already run one
    /// at a time (SQLite's `BEGIN IMMEDIATE`).
    const XACT_LOCK: Option<&'static str>;
    /// A statement run on the writer when the store closes (a clean stop), so that the
    /// database's files alone hold every commit: SQLite moves its write-ahead log into the
    /// database file and empties it; PostgreSQL needs none.
    const ON_CLOSE: Option<&'static str>;
}
