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

    /// Begins a write transaction that cannot fail later to upgrade a read lock.
    async fn begin_write(
        pool: &sqlx::Pool<Self::Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Self::Db>>;

    /// [`Backend::begin_write`] on a connection the caller already holds. sqlx makes a
    /// transaction that owns its pooled connection only in `Pool::begin`, and with
    /// `Transaction::begin` (public, undocumented); Cargo.lock pins the version it was checked
    /// against.
    async fn begin_write_on(
        conn: sqlx::pool::PoolConnection<Self::Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Self::Db>>;

    /// Sends what `batch` holds, in order, and empties it.
    async fn flush(
        batch: &mut Self::Batch,
        conn: &mut <Self::Db as sqlx::Database>::Connection,
    ) -> sqlx::Result<()>;

    /// Returns once every commit a read on `conn` could see is on disk, so nothing is shown to
    /// a partner that a crash of the database could still lose.
    async fn wait_for_disk(conn: &mut <Self::Db as sqlx::Database>::Connection)
        -> sqlx::Result<()>;

    /// Sends `batch`, takes `takes` and commits: the no-oversell rule.
    ///
    /// The contract, the same on both backends:
    /// - every take adds its quantity to the `reserved` count of its day
    ///   (`availability_day`, made on first use with no capacity, that is unlimited) or of its
    ///   timeslot, and fits only while `reserved` stays within `capacity`;
    /// - when every take fits, the transaction commits and is on disk before this returns;
    /// - when one does not, nothing of the transaction is kept (no take, no write of the
    ///   batch or before it) and the error is [`super::StoreError::Short`] naming the first
    ///   take that did not fit;
    /// - two transactions taking the same places cannot both see room that only one of them
    ///   has: the check and the update are one step under the database's lock.
    ///
    /// How: SQLite runs one conditional update per take (`reserved + n <= capacity`) under the
    /// write lock its transactions take at `BEGIN IMMEDIATE`; Postgres sends the takes and the
    /// commit as one message of plain updates that the tables' `CHECK (reserved <= capacity)`
    /// refuses, queued per day or slot by an advisory lock. Each implementation says why.
    async fn take_places_and_commit(
        tx: sqlx::Transaction<'static, Self::Db>,
        batch: Self::Batch,
        takes: &[Places],
    ) -> StoreResult<()>;
}
