//! The PostgreSQL store: the production and scale-out backend (stateless nodes over one
//! database). Write transactions are ordinary `BEGIN`s; races are settled by conditional
//! updates and constraints, not by locks held in a node.

use sqlx::postgres::PgPoolOptions;

pub type Db = sqlx::Postgres;
/// A connection, pooled or inside a transaction (helpers of the included SQL take either).
type Conn = <Db as sqlx::Database>::Connection;

mod dialect {
    use futures::StreamExt;

    use super::Db;
    use crate::store::{is_check_violation, Places, StoreError, StoreResult};

    /// Begins a read-committed transaction; conditional updates keep it race-free.
    pub async fn begin_write(
        pool: &sqlx::Pool<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        pool.begin().await
    }

    /// `begin_write` on a connection the caller already holds. sqlx makes a transaction that
    /// owns its pooled connection only in `Pool::begin`, with this (public, undocumented)
    /// constructor; Cargo.lock pins the version it was checked against.
    pub async fn begin_write_on(
        conn: sqlx::pool::PoolConnection<Db>,
    ) -> sqlx::Result<sqlx::Transaction<'static, Db>> {
        sqlx::Transaction::begin(conn, None).await
    }

    /// The source of an idempotency key's claim row (`claim_on`): the claim's own commit
    /// does not wait for its WAL to reach the disk. A claim only has to be seen by the
    /// concurrent requests with its key; the transaction that completes it commits later,
    /// with a flush that takes the claim's WAL along, so a crash can lose only a claim whose
    /// request never finished, which is what a retry wants. Those flushes had been half of
    /// every checkout's, queued on the WAL lock with the one the day's capacity row is held
    /// through (docs/benchmarks.md).
    pub const CLAIM_SOURCE: &str =
        "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS unflushed WHERE true";

    /// A new random (version 4) UUID, in SQL.
    pub const NEW_UUID: &str = "gen_random_uuid()";

    /// Writes kept until the next statement that needs a result (see `store::batch`).
    pub type Batch = crate::store::batch::Batch<sqlx::postgres::PgArguments>;

    /// Sends what `batch` holds as one statement: each write becomes a data-modifying `WITH`
    /// part over one argument list, so the batch is one round trip. The parts run in no set
    /// order and constraints are checked at the statement's end, so no two may touch the same
    /// row.
    pub async fn flush(batch: &mut Batch, conn: &mut super::Conn) -> sqlx::Result<()> {
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
    /// is locked only while the database runs the rest of that message: the update and the
    /// commit's WAL flush. With its own `COMMIT`, the lock was also held over a round trip to
    /// this process, and under load every buyer of the day queued behind it
    /// (docs/benchmarks.md).
    ///
    /// One message is the simple query protocol, which binds no arguments: the statements
    /// carry their values as text (`take_statements`). A message cannot commit on a condition,
    /// so a take is an unconditional update and a short one fails the table's CHECK
    /// (`reserved <= capacity`); the error ends the message before the commit and the
    /// transaction rolls back. Which take was short is told by how many statements completed.
    ///
    /// `COMMIT AND CHAIN` leaves an empty transaction open, which `tx` rolls back when it is
    /// dropped: that rollback is queued and goes out with the test sqlx makes of a connection
    /// given back to its pool, so it costs no round trip (with a plain `COMMIT`, sqlx would
    /// send a `COMMIT` of its own to a connection no longer in a transaction).
    pub async fn take_and_commit(
        mut tx: sqlx::Transaction<'static, Db>,
        mut batch: Batch,
        takes: &[Places],
    ) -> StoreResult<()> {
        flush(&mut batch, &mut tx).await?;
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
                Err(e) if is_check_violation(&e) && completed < owners.len() => {
                    return Err(StoreError::Short(takes[owners[completed]]));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// The statements of `take_and_commit`, ending with the commit, and for each statement
    /// before it the index of the take it belongs to. Every value written into the text is a
    /// UUID, a date or a number formatted here, never text from a request. Each update finds
    /// its row: a day's is made just before it, and a slot is never deleted (the checkout's
    /// lines, written earlier in the transaction, reference it).
    pub(super) fn take_statements(takes: &[Places]) -> (String, Vec<usize>) {
        let mut sql = String::new();
        let mut owners = Vec::new();
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
                    owners.extend([i, i]);
                }
                Places::Timeslot {
                    timeslot_id,
                    quantity,
                } => {
                    sql.push_str(&format!(
                        "UPDATE timeslot SET reserved = reserved + {quantity} \
                         WHERE timeslot_id = '{timeslot_id}';\n"
                    ));
                    owners.push(i);
                }
            }
        }
        sql.push_str("COMMIT AND CHAIN");
        (sql, owners)
    }
}

/// The store over one PostgreSQL database.
#[derive(Clone)]
pub struct SqlStore {
    pool: sqlx::Pool<Db>,
    /// The same pool: Postgres takes concurrent writers (the SQL shared with SQLite names
    /// its writes by this field).
    writer: sqlx::Pool<Db>,
}

impl SqlStore {
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        // No ping before each use: with the one sqlx makes when a connection is given back, it
        // tripled the round trips of a single read. A connection the server dropped (a
        // restart) fails the statement that finds it, and the test on its return closes it.
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            .test_before_acquire(false)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(Self {
            writer: pool.clone(),
            pool,
        })
    }

    pub fn pool(&self) -> &sqlx::Pool<Db> {
        &self.pool
    }
}

const BACKEND: &str = "postgres";

include!("sql/store.rs");
include!("sql/campaigns.rs");
include!("sql/checkout_tx.rs");
include!("sql/checkouts.rs");
include!("sql/orders.rs");
include!("sql/clients.rs");
include!("sql/customers.rs");
include!("sql/events.rs");
include!("sql/idempotency.rs");
include!("sql/issuers.rs");
include!("sql/keys.rs");
include!("sql/mail.rs");
include!("sql/memberships.rs");
include!("sql/merchant_accounts.rs");
include!("sql/references.rs");
include!("sql/sessions.rs");
include!("sql/vouchers.rs");
include!("sql/wallets.rs");
include!("sql/merchants.rs");
include!("sql/availability.rs");
include!("sql/products.rs");
include!("sql/calendar.rs");
include!("sql/timeslots.rs");

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use uuid::Uuid;

    use super::dialect::take_statements;
    use crate::store::Places;

    #[test]
    fn takes_become_statements_each_owned_by_its_take_and_then_the_commit() {
        let group = Uuid::from_u128(1);
        let slot = Uuid::from_u128(2);
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let (sql, owners) = take_statements(&[
            Places::Day {
                group,
                day,
                quantity: 3,
            },
            Places::Timeslot {
                timeslot_id: slot,
                quantity: 2,
            },
        ]);
        let statements: Vec<&str> = sql.split(";\n").collect();
        assert_eq!(
            statements.len(),
            owners.len() + 1,
            "one owner per take statement"
        );
        assert_eq!(owners, [0, 0, 1]);
        assert!(statements[0].starts_with("INSERT INTO availability_day"));
        assert!(statements[1].contains("reserved = reserved + 3"));
        assert!(statements[1].contains(&format!("availability_group_id = '{group}'")));
        assert!(statements[1].contains("day = '2026-12-01'"));
        assert!(statements[2].contains(&format!("timeslot_id = '{slot}'")));
        assert!(statements[2].contains("reserved = reserved + 2"));
        assert_eq!(statements[3], "COMMIT AND CHAIN");
    }
}
