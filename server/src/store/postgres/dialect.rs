//! PostgreSQL's spelling of the SQL fragments that differ ([`Dialect`]).

use crate::store::dialect::Dialect;

/// The PostgreSQL dialect.
pub(crate) struct PostgresDialect;

impl Dialect for PostgresDialect {
    const NAME: &'static str = "postgres";

    /// Transactions commit in another order than they take sequence numbers (and than they
    /// began), so the feed hands out only events written by a transaction older than every
    /// one still in flight: `tx_id` is the writer's transaction id (migration 0004), and any
    /// transaction that commits later has an id at least the snapshot's `xmin`. The snapshot
    /// is the statement's own, the one its rows are read in.
    const FEED_SETTLED: &'static str =
        "e.tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint";

    const SKIP_LOCKED: &'static str = "FOR UPDATE SKIP LOCKED";
    const XACT_LOCK: Option<&'static str> = Some("SELECT pg_advisory_xact_lock($1)");
    const ON_CLOSE: Option<&'static str> = None;
}
