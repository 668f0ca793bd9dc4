//! How each database runs the store's transactions: the SQL in `sql/` is written once and
//! compiled into each backend (`sqlite/`, `postgres/`); what it cannot *say* the same way on
//! both is the backend's [`super::dialect::Dialect`], and how a write transaction begins,
//! batches, waits for the disk and commits is its [`Backend`]. Everything else a backend
//! differs in is its migrations' column types and [`super::DbDecimal`].

use super::{Places, StoreResult};

/// How a database begins, batches and commits the store's writes, with the one rule the whole
/// service rests on: **no oversell**, kept by [`Backend::take_places_and_commit`].
///
/// Implemented by `sqlite::Sqlite` and `postgres::Postgres`; the SQL shared by both names the
/// one it is compiled into `ThisBackend`.
pub(crate) trait Backend {
    /// The sqlx database.
    type Db: sqlx::Database;
    /// Writes whose results nobody reads, kept until the next statement that needs a result
    /// (`store::batch`).
    type Batch: Default + Send;
    /// Whether one statement can change rows and write others that depend on it
    /// (PostgreSQL's data-modifying `WITH`), so a unit of work of one conditional change needs
    /// no transaction of its own (`GateStore::let_in_at_once`).
    const WRITES_IN_ONE_STATEMENT: bool;

    /// Begins a write transaction that cannot fail later to upgrade a read lock.
    async fn begin_write(
        pool: &sqlx::Pool<Self::Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Self::Db>>;

    /// What a checkout's unit of work runs its statements on: a transaction of its own
    /// (Postgres), or a savepoint in the writer's group commit (SQLite, `sqlite/group_commit.rs`).
    /// The store begins it (`begin_work`); [`Backend::take_places_and_commit`] ends it, and
    /// dropping it undoes what it wrote.
    type Work: std::ops::DerefMut<Target = <Self::Db as sqlx::Database>::Connection> + Send;

    /// Sends what `batch` holds, in order, and empties it.
    async fn flush(
        batch: &mut Self::Batch,
        conn: &mut <Self::Db as sqlx::Database>::Connection,
    ) -> sqlx::Result<()>;

    /// Sends `batch`, takes `takes` and commits: the no-oversell rule.
    ///
    /// The contract, the same on both backends:
    /// - every take adds its quantity to the `reserved` count of its day
    ///   (`availability_day`, made on first use with no capacity, that is unlimited) or of its
    ///   timeslot, and fits only while `reserved` stays within `capacity`;
    /// - when every take fits, the unit of work commits and is on disk before this returns;
    /// - when one does not, nothing of the unit of work is kept (no take, no write of the
    ///   batch or before it; on SQLite its group's other members are kept) and the error is [`super::StoreError::Short`] naming the first
    ///   take that did not fit;
    /// - two units of work taking the same places cannot both see room that only one of them
    ///   has: the check and the update are one step under the database's lock.
    ///
    /// How: SQLite runs one conditional update per take (`reserved + n <= capacity`) under the
    /// write lock its group takes at `BEGIN IMMEDIATE`, one member at a time; Postgres sends the takes and the
    /// commit as one message of plain updates that the tables' `CHECK (reserved <= capacity)`
    /// refuses, queued per day or slot by an advisory lock. Each implementation says why.
    async fn take_places_and_commit(
        work: Self::Work,
        batch: Self::Batch,
        takes: &[Places],
    ) -> StoreResult<()>;
}
