//! Postgres's side of [`Backend`]: ordinary transactions, batches as one statement, and takes
//! that the tables' CHECKs refuse, queued per day or slot.

use chrono::Datelike;
use futures::StreamExt;

use crate::store::{backend::Backend, batch, is_check_violation, Places, StoreError, StoreResult};

type Db = sqlx::Postgres;
type Conn = <Db as sqlx::Database>::Connection;

/// The PostgreSQL backend.
pub(crate) struct Postgres;

impl Backend for Postgres {
    const WRITES_IN_ONE_STATEMENT: bool = true;

    type Db = Db;

    /// Writes kept until the next statement that needs a result (see `store::batch`).
    type Batch = batch::Batch<sqlx::postgres::PgArguments>;

    /// Begins a read-committed transaction; conditional updates keep it race-free.
    async fn begin_write(pool: &sqlx::Pool<Db>) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        pool.begin().await
    }

    /// A transaction of its own: Postgres shares the flush of commits that arrive together
    /// by itself (docs/benchmarks.md, "Group commit").
    type Work = sqlx::Transaction<'static, Db>;

    /// Sends what `batch` holds as one statement: each write becomes a data-modifying `WITH`
    /// part over one argument list, so the batch is one round trip. The parts run in no set
    /// order and constraints are checked at the statement's end, so no two may touch the same
    /// row.
    async fn flush(batch: &mut Self::Batch, conn: &mut Conn) -> sqlx::Result<()> {
        if let Some((statements, args)) = batch.take()? {
            let parts: Vec<String> = statements
                .iter()
                .enumerate()
                .map(|(i, sql)| format!("w{i} AS ({sql})"))
                .collect();
            let sql = format!("WITH {} SELECT 1", parts.join(",\n"));
            sqlx::query_with(&sql, args).execute(conn).await?;
        }
        Ok(())
    }

    /// Sends `batch`, then takes `takes` and commits in one message, so a day's capacity row
    /// is locked only while the database runs the update and the commit that follows it in
    /// that message. With its own `COMMIT`, the lock was also held over a round trip to
    /// this process, and under load every buyer of the day queued behind it
    /// (docs/benchmarks.md).
    ///
    /// One message is the simple query protocol, which binds no arguments: the statements
    /// carry their values as text (`take_statements`). A message cannot commit on a condition,
    /// so a take is an unconditional update and a short one fails the table's CHECK
    /// (`reserved <= capacity`); the error ends the message before the commit and the
    /// transaction rolls back. Which take was short is told by how many statements completed.
    ///
    /// Before its updates the message queues for each take's places with an advisory lock
    /// (`queue_key`). Postgres grants such a lock to its waiters in the order they came; a
    /// row lock it does not: when a holder commits, the waiters and the newcomers race for
    /// the row, and under load some buyers lost that race over and over (a p99 of seven
    /// times the median in a bare test of the pattern, under twice with the queue;
    /// docs/benchmarks.md). The lock ends with the transaction.
    ///
    /// The day's queue is given up by a commit that does not wait for the disk: a flush
    /// inside the hand-over had been most of every buyer's wait (docs/benchmarks.md). The
    /// message then waits for the disk in a transaction of its own (`DURABLE`), whose flush
    /// takes every commit before it in the WAL along, this one included; so nothing returns
    /// here, and no answer goes out, before the checkout is on disk. A failure after the
    /// first commit is an error like any other: the key's record is complete by then, so a
    /// retry with the key replays the checkout or, if the database lost it, makes it.
    ///
    /// `COMMIT AND CHAIN` leaves an empty transaction open, which `tx` rolls back when it is
    /// dropped: that rollback is queued and goes out with the test sqlx makes of a connection
    /// given back to its pool, so it costs no round trip (with a plain `COMMIT`, sqlx would
    /// send a `COMMIT` of its own to a connection no longer in a transaction).
    async fn take_places_and_commit(
        mut tx: sqlx::Transaction<'static, Db>,
        mut batch: Self::Batch,
        takes: &[Places],
    ) -> StoreResult<()> {
        Self::flush(&mut batch, &mut tx).await?;
        if takes.is_empty() {
            return Ok(tx.commit().await?);
        }
        let (sql, owners) = take_statements(takes);
        let mut results = sqlx::raw_sql(&sql).fetch_many(&mut *tx);
        let mut completed = 0;
        while let Some(result) = results.next().await {
            match result {
                Ok(sqlx::Either::Left(_)) => completed += 1,
                Ok(sqlx::Either::Right(_)) => {}
                Err(e) if is_check_violation(&e) => {
                    let owner = owners.get(completed).copied().flatten();
                    return Err(owner.map_or(e.into(), |i| StoreError::Short(takes[i])));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

/// Makes the transaction's commit one that does not wait for its WAL to reach the disk.
const UNFLUSHED_COMMIT: &str = "SELECT set_config('synchronous_commit', 'off', true);\n";

impl super::PostgresStore {
    /// Waits until every commit that a read made before the call could see is on disk,
    /// before what it read is shown to a partner: a checkout's commit is visible for the
    /// moment between it and its flush (`take_places_and_commit`), and a crash of the database in
    /// that moment loses it.
    pub(super) async fn wait_for_disk(&self, conn: &mut Conn) -> sqlx::Result<()> {
        let sql = format!("BEGIN;\n{DURABLE};\nCOMMIT");
        sqlx::Executor::execute(&mut *conn, sql.as_str()).await?;
        Ok(())
    }
}

/// Makes its transaction's commit wait until everything committed before it is on disk.
/// A commit waits for the disk only when its transaction wrote to the WAL, and this
/// writes the smallest record there is that counts: a transactional logical-decoding
/// message, which any role may write and which changes no table. (An earlier
/// transaction's `synchronous_commit` off ended with it.)
const DURABLE: &str = "SELECT pg_logical_emit_message(true, 'boxoffice', 'durable')";

/// The queue a take of `places` waits in (`take_places_and_commit`): a number made of the day's
/// group and date or of the timeslot, the same on every node. Two places that happen to
/// share one only queue together.
fn queue_key(places: &Places) -> i64 {
    let (id, salt) = match *places {
        Places::Day { group, day, .. } => (group.as_u128(), i64::from(day.num_days_from_ce())),
        Places::Timeslot { timeslot_id, .. } => (timeslot_id.as_u128(), -1),
    };
    let folded = (id >> 64) as u64 ^ id as u64;
    (folded ^ (salt as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) as i64
}

/// The statements of `take_places_and_commit`, ending with the commits, and for each statement
/// before the first the index of the take it belongs to, if any. The first makes that
/// commit one that does not wait for the disk; then come the queues, in the
/// order of their keys so that two checkouts wanting the same places cannot each hold
/// what the other waits for. Every value written into the text is a UUID, a date or a
/// number formatted here, never text from a request. Each update finds its row: a day's
/// is made just before it, and a slot is never deleted (the checkout's lines, written
/// earlier in the transaction, reference it).
fn take_statements(takes: &[Places]) -> (String, Vec<Option<usize>>) {
    let mut sql = String::from(UNFLUSHED_COMMIT);
    let mut owners = vec![None];
    let mut queues: Vec<i64> = takes.iter().map(queue_key).collect();
    queues.sort_unstable();
    queues.dedup();
    for key in queues {
        sql.push_str(&format!("SELECT pg_advisory_xact_lock({key});\n"));
        owners.push(None);
    }
    for (i, places) in takes.iter().enumerate() {
        match *places {
            Places::Day {
                group,
                day,
                quantity,
            } => {
                sql.push_str(&format!(
                    "INSERT INTO availability_day (availability_group_id, day, capacity, reserved) \
                     VALUES ('{group}', '{day}', NULL, 0) ON CONFLICT DO NOTHING;\n\
                     UPDATE availability_day SET reserved = reserved + {quantity} \
                     WHERE availability_group_id = '{group}' AND day = '{day}';\n"
                ));
                owners.extend([Some(i), Some(i)]);
            }
            Places::Timeslot {
                timeslot_id,
                quantity,
            } => {
                sql.push_str(&format!(
                    "UPDATE timeslot SET reserved = reserved + {quantity} \
                     WHERE timeslot_id = '{timeslot_id}';\n"
                ));
                owners.push(Some(i));
            }
        }
    }
    sql.push_str(&format!("COMMIT AND CHAIN;\n{DURABLE};\nCOMMIT AND CHAIN"));
    (sql, owners)
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use uuid::Uuid;

    use super::{queue_key, take_statements};
    use crate::store::Places;

    #[test]
    fn takes_become_statements_queued_in_key_order_each_owned_by_its_take_then_the_commits() {
        let group = Uuid::from_u128(1);
        let slot = Uuid::from_u128(2);
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let takes = [
            Places::Day {
                group,
                day,
                quantity: 3,
            },
            Places::Timeslot {
                timeslot_id: slot,
                quantity: 2,
            },
        ];
        let (sql, owners) = take_statements(&takes);
        let statements: Vec<&str> = sql.split(";\n").collect();
        assert_eq!(
            statements.len(),
            owners.len() + 3,
            "one owner per statement before the first commit"
        );
        assert_eq!(owners, [None, None, None, Some(0), Some(0), Some(1)]);

        assert_eq!(
            statements[0],
            "SELECT set_config('synchronous_commit', 'off', true)"
        );
        let mut keys = [queue_key(&takes[0]), queue_key(&takes[1])];
        keys.sort_unstable();
        assert_eq!(
            statements[1],
            format!("SELECT pg_advisory_xact_lock({})", keys[0])
        );
        assert_eq!(
            statements[2],
            format!("SELECT pg_advisory_xact_lock({})", keys[1])
        );
        assert!(statements[3].starts_with("INSERT INTO availability_day"));
        assert!(statements[4].contains("reserved = reserved + 3"));
        assert!(statements[4].contains(&format!("availability_group_id = '{group}'")));
        assert!(statements[4].contains("day = '2026-12-01'"));
        assert!(statements[5].contains(&format!("timeslot_id = '{slot}'")));
        assert!(statements[5].contains("reserved = reserved + 2"));
        // The day's queue is given up without waiting for the disk; the answer waits for it
        // in a transaction that writes to the WAL, whose commit therefore flushes.
        assert_eq!(statements[6], "COMMIT AND CHAIN");
        assert!(statements[7].starts_with("SELECT pg_logical_emit_message(true,"));
        assert_eq!(statements[8], "COMMIT AND CHAIN");
    }

    #[test]
    fn places_queue_together_only_for_the_same_day_or_slot_whatever_the_quantity() {
        let group = Uuid::from_u128(7 << 64 | 9);
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let on = |day, quantity| Places::Day {
            group,
            day,
            quantity,
        };
        assert_eq!(queue_key(&on(day, 1)), queue_key(&on(day, 4)));
        assert_ne!(
            queue_key(&on(day, 1)),
            queue_key(&on(day.succ_opt().unwrap(), 1))
        );
        let slot = |timeslot_id| Places::Timeslot {
            timeslot_id,
            quantity: 1,
        };
        assert_ne!(queue_key(&slot(group)), queue_key(&on(day, 1)));
        assert_ne!(
            queue_key(&slot(group)),
            queue_key(&slot(Uuid::from_u128(10)))
        );
        // A day of another group is another queue.
        let other = Places::Day {
            group: Uuid::from_u128(8 << 64 | 9),
            day,
            quantity: 1,
        };
        assert_ne!(queue_key(&other), queue_key(&on(day, 1)));
    }
}
