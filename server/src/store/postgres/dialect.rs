//! PostgreSQL's spelling of the SQL fragments that differ ([`Dialect`]).

use crate::store::dialect::Dialect;

/// The PostgreSQL dialect.
pub(crate) struct PostgresDialect;

impl Dialect for PostgresDialect {
    const NAME: &'static str = "postgres";

    /// A new random (version 4) UUID, in SQL.
    const NEW_UUID: &'static str = "gen_random_uuid()";

    /// Transactions commit in another order than they take sequence numbers (and than they
    /// began), so the feed hands out only events written by a transaction older than every
    /// one still in flight: `tx_id` is the writer's transaction id (migration 0004), and any
    /// transaction that commits later has an id at least the snapshot's `xmin`. The snapshot
    /// is the statement's own, the one its rows are read in.
    const FEED_SETTLED: &'static str =
        "e.tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint";

    const SKIP_LOCKED: &'static str = "FOR UPDATE SKIP LOCKED";
    const XACT_LOCK: Option<&'static str> = Some("SELECT pg_advisory_xact_lock($1)");

    /// The source of an idempotency key's claim row (`claim_on`): the claim's own commit
    /// does not wait for its WAL to reach the disk. A claim only has to be seen by the
    /// concurrent requests with its key; the transaction that completes it is flushed before
    /// its answer (`take_places_and_commit`), which takes the claim's WAL along, so a crash can lose
    /// only a claim whose request never finished, which is what a retry wants. Those flushes
    /// had been half of every checkout's (docs/benchmarks.md).
    const CLAIM_SOURCE: &'static str =
        "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS unflushed WHERE true";
}
