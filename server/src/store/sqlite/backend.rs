//! SQLite's side of [`Backend`]: one writer, `BEGIN IMMEDIATE`, conditional updates, and
//! checkouts committed in groups.

use super::group_commit::Member;
use crate::store::{backend::Backend, batch, is_check_violation, Places, StoreError, StoreResult};

type Db = sqlx::Sqlite;
type Conn = <Db as sqlx::Database>::Connection;

/// The embedded SQLite backend.
pub(crate) struct Sqlite;

impl Backend for Sqlite {
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

    /// Nothing to wait for: a commit returns when it is on disk (`synchronous=FULL`).
    async fn wait_for_disk(_conn: &mut Conn) -> sqlx::Result<()> {
        Ok(())
    }

    /// Each take is one conditional update (`reserved + n <= capacity`) that changes no row
    /// when the places are not there. The member holds the writer, which holds SQLite's lock
    /// from `BEGIN IMMEDIATE` to the group's commit, so nobody can take places between a
    /// check and its update, whatever is sent when; the rows of unlimited days are made in the
    /// batch. The tables' `CHECK (reserved <= capacity)` is the backstop of the conditions. A
    /// short take rolls the member back at once, so the next member finds the group clean.
    async fn take_places_and_commit(
        mut work: Member,
        mut batch: Self::Batch,
        takes: &[Places],
    ) -> StoreResult<()> {
        for places in takes {
            if let Places::Day { group, day, .. } = *places {
                batch
                    .statement(
                        "INSERT INTO availability_day (availability_group_id, day, capacity, reserved)
                         VALUES ($1, $2, NULL, 0) ON CONFLICT DO NOTHING",
                    )
                    .bind(group)
                    .bind(day);
            }
        }
        Self::flush(&mut batch, &mut work).await?;
        for &places in takes {
            let taken = match places {
                Places::Day {
                    group,
                    day,
                    quantity,
                } => {
                    sqlx::query(
                        "UPDATE availability_day SET reserved = reserved + $3
                         WHERE availability_group_id = $1 AND day = $2
                           AND (capacity IS NULL OR reserved + $3 <= capacity)",
                    )
                    .bind(group)
                    .bind(day)
                    .bind(i64::from(quantity))
                    .execute(&mut *work)
                    .await
                }
                Places::Timeslot {
                    timeslot_id,
                    quantity,
                } => {
                    sqlx::query(
                        "UPDATE timeslot SET reserved = reserved + $2
                         WHERE timeslot_id = $1 AND (capacity IS NULL OR reserved + $2 <= capacity)",
                    )
                    .bind(timeslot_id)
                    .bind(i64::from(quantity))
                    .execute(&mut *work)
                    .await
                }
            };
            match taken {
                Ok(done) if done.rows_affected() == 1 => {}
                Ok(_) => return short(work, places).await,
                Err(e) if is_check_violation(&e) => return short(work, places).await,
                Err(e) => return Err(e.into()),
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
