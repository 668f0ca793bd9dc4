//! Every statement of the Idempotency-Key rule (`checkout/idempotency.rs`): claiming,
//! completing inside the checkout's transaction, replaying, releasing and purging. What the
//! two databases do differently is their `KeyClaim` (`sqlite/idempotency.rs`,
//! `postgres/idempotency.rs`).

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::checkout_tx::SqlCheckoutTx;
use super::{Args, Batch, Db, SqlStore, ThisBackend};
use crate::store::{
    CalendarDay, CheckoutTx, DbDecimal, IdempotencyClaim, IdempotencyStore, IdempotencyTx,
    IdempotentRequest, KeyClaim, KeyState, StoreResult,
};

/// The insert of a claim row whose values are `values` (the key's campaign and key, the
/// request's hash, the customer, then the lock's end, now, the record's end and the claim's
/// owner), as SQL expressions.
pub(crate) fn claim_insert(values: [&str; 8]) -> String {
    let [campaign, key, hash, customer, lock_until, now, expires_at, owner] = values;
    format!(
        "INSERT INTO idempotency_record (campaign_id, idempotency_key, request_hash, customer_id, state,
             locked_until, created_at, expires_at, owner)
         SELECT {campaign}, {key}, {hash}, {customer}, '{in_flight}', {lock_until}, {now}, {expires_at},
             {owner} {}",
        ThisBackend::CLAIM_SOURCE,
        in_flight = KeyState::InFlight.as_str(),
    )
}

/// Stores the success of a claimed request inside the transaction that made it, so the
/// outcome and the stored response commit together (added to the transaction's batch).
///
/// Only the claim's owner completes it. When a retry took the claim over (this request
/// outlived its lock), the row's state would become `TAKEN_OVER`, which the table refuses
/// (`idempotency_record_owned`, migration 0006): the error rolls the whole transaction back,
/// so a late request never commits a second order. A row that is gone (the retry failed and
/// released it) is written anew, done: the order this transaction commits is the key's.
fn complete_idempotency_key(
    batch: &mut Batch,
    r: &IdempotentRequest,
    status: u16,
    body: &[u8],
    now: DateTime<Utc>,
) {
    batch
        .statement(&COMPLETE)
        .bind(r.campaign_id)
        .bind(r.key)
        .bind(r.request_hash.clone())
        .bind(r.customer_id)
        .bind(now)
        .bind(r.expires_at)
        .bind(r.owner)
        .bind(i32::from(status))
        .bind(body.to_vec());
}

/// The row of `day_and_key_seen`: the day's columns are null when it is not priced.
#[derive(sqlx::FromRow)]
struct DayAndKey {
    day: Option<NaiveDate>,
    price: Option<DbDecimal>,
    list_price: Option<DbDecimal>,
    capacity: Option<i32>,
    reserved: Option<i32>,
    key_seen: bool,
}

#[derive(sqlx::FromRow)]
struct IdempotencyRow {
    request_hash: Vec<u8>,
    customer_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    state: KeyState,
    locked_until: DateTime<Utc>,
    response_status: Option<i32>,
    response_body: Option<Vec<u8>>,
    expires_at: DateTime<Utc>,
}

/// A claim's success, written by its owner; another owner's write is refused by the table.
static COMPLETE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT INTO idempotency_record (campaign_id, idempotency_key, request_hash, customer_id, state,
             locked_until, created_at, expires_at, owner, response_status, response_body)
         VALUES ($1, $2, $3, $4, '{done}', $5, $5, $6, $7, $8, $9)
         ON CONFLICT (campaign_id, idempotency_key) DO UPDATE
         SET state = CASE WHEN idempotency_record.owner = excluded.owner THEN '{done}' ELSE '{taken_over}' END,
             response_status = excluded.response_status, response_body = excluded.response_body",
        done = KeyState::Done.as_str(),
        taken_over = KeyState::TakenOver.as_str(),
    )
});

/// A stale claim taken over by a retry: the lock of a request still running ran out, or the
/// record outlived its retention.
static TAKEOVER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "UPDATE idempotency_record SET request_hash = $3, customer_id = $4, state = '{in_flight}',
             locked_until = $5, created_at = $6, expires_at = $7, owner = $8,
             response_status = NULL, response_body = NULL
         WHERE campaign_id = $1 AND idempotency_key = $2
           AND ((state = '{in_flight}' AND locked_until <= $6) OR expires_at <= $6)",
        in_flight = KeyState::InFlight.as_str()
    )
});

/// A claim's row, inserted unless the key has one.
pub(crate) static CLAIM_INSERT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    claim_insert(["$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8"]) + " ON CONFLICT DO NOTHING"
});

/// Claims the key on `conn` (each statement commits on its own, unless `conn` is in a unit of
/// work); see `IdempotencyStore::claim_idempotency_key`. A replay's record may still be on its
/// way to the disk: before answering with it the caller waits (`wait_for_disk`), or answers
/// after a commit of its own that takes it along.
pub(crate) async fn claim_on(
    conn: &mut <Db as sqlx::Database>::Connection,
    r: &IdempotentRequest,
    now: DateTime<Utc>,
) -> sqlx::Result<IdempotencyClaim> {
    // A takeover can lose a race to another takeover; a few rounds settle it.
    for _ in 0..3 {
        let inserted = claim_values(sqlx::query(&CLAIM_INSERT), r, now)
            .execute(&mut *conn)
            .await?
            .rows_affected();
        if inserted == 1 {
            return Ok(IdempotencyClaim::Claimed(()));
        }
        let Some(row): Option<IdempotencyRow> = sqlx::query_as(
            "SELECT request_hash, customer_id, state, locked_until, response_status, response_body, expires_at
             FROM idempotency_record WHERE campaign_id = $1 AND idempotency_key = $2",
        )
        .bind(r.campaign_id)
        .bind(r.key)
        .fetch_optional(&mut *conn)
        .await?
        else {
            continue; // released between our insert and read: try again
        };
        let stale =
            (row.state == KeyState::InFlight && row.locked_until <= now) || row.expires_at <= now;
        if stale {
            let takeover = sqlx::query(&TAKEOVER);
            let taken = claim_values(takeover, r, now)
                .execute(&mut *conn)
                .await?
                .rows_affected();
            if taken == 1 {
                return Ok(IdempotencyClaim::Claimed(()));
            }
            continue;
        }
        if row.request_hash != r.request_hash || row.customer_id != r.customer_id {
            return Ok(IdempotencyClaim::Reused);
        }
        return Ok(match (row.state, row.response_status, row.response_body) {
            (KeyState::Done, Some(status), Some(body)) => IdempotencyClaim::Replay {
                status: u16::try_from(status).unwrap_or(200),
                body,
            },
            _ => IdempotencyClaim::InFlight,
        });
    }
    Ok(IdempotencyClaim::InFlight)
}

#[async_trait::async_trait]
impl IdempotencyStore for SqlStore {
    async fn claim_idempotency_key(
        &self,
        r: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim> {
        let claim = claim_on(&mut *self.writer.acquire().await?, r, now).await?;
        if matches!(claim, IdempotencyClaim::Replay { .. }) {
            // The first answer may still be on its way to the disk; waited for with the
            // writer given back.
            self.wait_for_disk(&mut *self.pool.acquire().await?).await?;
        }
        Ok(claim)
    }

    async fn claim_and_begin(
        &self,
        r: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<IdempotencyClaim<Box<dyn CheckoutTx>>> {
        Ok(match self.claim_with_work(r, now).await?.claimed() {
            Ok(work) => IdempotencyClaim::Claimed(Box::new(SqlCheckoutTx::new(work))),
            Err(refused) => refused,
        })
    }

    fn claim_ends_with_its_checkout(&self) -> bool {
        ThisBackend::CLAIM_IN_WORK
    }

    async fn idempotency_key_seen(&self, campaign_id: Uuid, key: Uuid) -> StoreResult<bool> {
        let found: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM idempotency_record WHERE campaign_id = $1 AND idempotency_key = $2",
        )
        .bind(campaign_id)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    async fn day_and_key_seen(
        &self,
        product_id: Uuid,
        day: NaiveDate,
        campaign_id: Uuid,
        key: Uuid,
    ) -> StoreResult<(Option<CalendarDay>, bool)> {
        // One row whether or not the day is priced: the day joined to a row of its own.
        let row: DayAndKey = sqlx::query_as(concat!(
            "SELECT d.day, d.price, d.list_price, d.capacity, d.reserved,
                    EXISTS (SELECT 1 FROM idempotency_record
                            WHERE campaign_id = $4 AND idempotency_key = $5) AS key_seen
             FROM (SELECT 1 AS one) AS always
             LEFT JOIN (",
            priced_days!(),
            ") AS d ON true"
        ))
        .bind(product_id)
        .bind(day)
        .bind(day)
        .bind(campaign_id)
        .bind(key)
        .fetch_one(&self.pool)
        .await?;
        let day = match (row.day, row.price, row.list_price, row.reserved) {
            (Some(date), Some(price), Some(list_price), Some(reserved)) => Some(CalendarDay {
                date,
                price: price.0,
                list_price: list_price.0,
                capacity: row.capacity,
                reserved,
            }),
            _ => None,
        };
        Ok((day, row.key_seen))
    }

    async fn release_idempotency_key(
        &self,
        campaign_id: Uuid,
        key: Uuid,
        owner: Uuid,
    ) -> StoreResult<()> {
        sqlx::query(&format!(
            "DELETE FROM idempotency_record
             WHERE campaign_id = $1 AND idempotency_key = $2 AND state = '{}' AND owner = $3",
            KeyState::InFlight.as_str()
        ))
        .bind(campaign_id)
        .bind(key)
        .bind(owner)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    async fn purge_idempotency_records(&self, now: DateTime<Utc>) -> StoreResult<u64> {
        Ok(
            sqlx::query("DELETE FROM idempotency_record WHERE expires_at <= $1")
                .bind(now)
                .execute(&self.writer)
                .await?
                .rows_affected(),
        )
    }
}

#[async_trait::async_trait]
impl IdempotencyTx for SqlCheckoutTx {
    async fn complete_idempotency(
        &mut self,
        request: &IdempotentRequest,
        status: u16,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        complete_idempotency_key(&mut self.batch, request, status, body, now);
        Ok(())
    }
}

/// Binds a claim's values to `$1..$8` in the order the claim's insert and its takeover name
/// them: the key's campaign and key, the request's hash and customer, the lock's end, now,
/// the record's end and the claim's owner.
pub(crate) fn claim_values<'q>(
    query: sqlx::query::Query<'q, Db, Args<'q>>,
    r: &'q IdempotentRequest,
    now: DateTime<Utc>,
) -> sqlx::query::Query<'q, Db, Args<'q>> {
    query
        .bind(r.campaign_id)
        .bind(r.key)
        .bind(&r.request_hash)
        .bind(r.customer_id)
        .bind(r.lock_until)
        .bind(now)
        .bind(r.expires_at)
        .bind(r.owner)
}
