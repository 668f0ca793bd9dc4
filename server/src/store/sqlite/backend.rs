//! SQLite's side of [`Backend`]: one writer, `BEGIN IMMEDIATE`, conditional updates, and
//! checkouts committed in groups.

use super::group_commit::Member;
use crate::store::{backend::Backend, batch, Places, StoreError, StoreResult};

type Db = sqlx::Sqlite;
type Conn = <Db as sqlx::Database>::Connection;

/// The embedded SQLite backend.
pub(crate) struct Sqlite;

impl Backend for Sqlite {
    const WRITES_IN_ONE_STATEMENT: bool = false;

    type Db = Db;
    /// Writes sent to SQLite as one multi-statement query with one argument list: one
    /// hand-off to the writer's worker thread for all of them.
    type Batch = batch::Batch<sqlx::sqlite::SqliteArguments<'static>>;

    /// Takes SQLite's write lock at once, so a read-then-write never fails to upgrade.
    async fn begin_write(pool: &sqlx::Pool<Db>) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        pool.begin_with("BEGIN IMMEDIATE").await
    }

    /// A savepoint in the writer's group commit (`group_commit.rs`).
    type Work = Member;

    async fn flush(batch: &mut Self::Batch, conn: &mut Conn) -> sqlx::Result<()> {
        if let Some((statements, args)) = batch.take()? {
            let sql = statements.join(";\n");
            sqlx::query_with(&sql, args).execute(conn).await?;
        }
        Ok(())
    }

    /// Each take is one conditional update (`reserved + n <= capacity`) that changes no row
    /// when the places are not there, and says which take it was (`RETURNING`) when it does.
    /// The takes go last in the batch, so a checkout's writes and its places are one message
    /// to the writer's thread. The member holds the writer, which holds SQLite's lock from
    /// `BEGIN IMMEDIATE` to the group's commit, so nobody can take places between a check and
    /// its update, whatever is sent when; the rows of unlimited days are made in the batch.
    /// The tables' `CHECK (reserved <= capacity)` is the backstop of the conditions, which
    /// nothing can reach while the member holds the writer (were it reached, the checkout
    /// would fail as an error, keeping nothing). A short take rolls the member back at once,
    /// the takes after it in the batch with it, so the next member finds the group clean.
    async fn take_places_and_commit(
        mut work: Member,
        mut batch: Self::Batch,
        takes: &[Places],
    ) -> StoreResult<()> {
        for (i, places) in takes.iter().enumerate() {
            let index = i64::try_from(i).expect("a handful of takes");
            match *places {
                Places::Day {
                    group,
                    day,
                    quantity,
                } => {
                    batch
                        .statement(
                            "INSERT INTO availability_day (availability_group_id, day, capacity, reserved)
                             VALUES ($1, $2, NULL, 0) ON CONFLICT DO NOTHING",
                        )
                        .bind(group)
                        .bind(day);
                    batch
                        .statement(
                            "UPDATE availability_day SET reserved = reserved + $3
                             WHERE availability_group_id = $1 AND day = $2
                               AND (capacity IS NULL OR reserved + $3 <= capacity)
                             RETURNING $4",
                        )
                        .bind(group)
                        .bind(day)
                        .bind(i64::from(quantity))
                        .bind(index);
                }
                Places::Timeslot {
                    timeslot_id,
                    quantity,
                } => {
                    batch
                        .statement(
                            "UPDATE timeslot SET reserved = reserved + $2
                             WHERE timeslot_id = $1 AND (capacity IS NULL OR reserved + $2 <= capacity)
                             RETURNING $3",
                        )
                        .bind(timeslot_id)
                        .bind(i64::from(quantity))
                        .bind(index);
                }
            }
        }
        if let Some((statements, args)) = batch.take()? {
            // Only the takes return rows: the batch's other statements are writes whose
            // results nobody reads. An error drops the member, which rolls it back.
            let taken: Vec<i64> = sqlx::query_scalar_with(&statements.join(";\n"), args)
                .fetch_all(&mut *work)
                .await?;
            let short_take = (0..takes.len()).find(|i| {
                let index = i64::try_from(*i).expect("a handful of takes");
                !taken.contains(&index)
            });
            if let Some(i) = short_take {
                return short(work, takes[i]).await;
            }
        }
        Ok(work.commit().await?)
    }
}

/// A short take's answer, after its member is rolled back.
async fn short(work: Member, places: Places) -> StoreResult<()> {
    work.roll_back().await?;
    Err(StoreError::Short(places))
}
