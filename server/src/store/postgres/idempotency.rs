//! PostgreSQL's side of claiming an Idempotency-Key ([`KeyClaim`]): the claim commits
//! without waiting for the disk, and a new key's claim and the checkout's `BEGIN` go in one
//! message. The key's SQL itself is `sql/idempotency.rs`; the rule is
//! `checkout/idempotency.rs`.

use base64::{prelude::BASE64_STANDARD, Engine};
use chrono::{DateTime, SecondsFormat, Utc};

use super::{backend::Postgres, sql::idempotency::claim_on, PostgresStore};
use crate::store::{is_unique_violation, IdempotencyClaim, IdempotentRequest, KeyClaim};

type Db = sqlx::Postgres;

impl KeyClaim for Postgres {
    /// The claim's own commit does not wait for its WAL to reach the disk. A claim only has
    /// to be seen by the concurrent requests with its key; the transaction that completes it
    /// is flushed before its answer (`take_places_and_commit`), which takes the claim's WAL
    /// along, so a crash can lose only a claim whose request never finished, which is what a
    /// retry wants. Those flushes had been half of every checkout's (docs/benchmarks.md).
    const CLAIM_SOURCE: &'static str =
        "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS unflushed WHERE true";

    const CLAIM_IN_WORK: bool = false;
}

impl PostgresStore {
    /// `IdempotencyStore::claim_and_begin`: the claim commits on its own, then the checkout's
    /// transaction begins on the connection that made it.
    pub(super) async fn claim_with_work(
        &self,
        r: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> sqlx::Result<IdempotencyClaim<sqlx::Transaction<'static, Db>>> {
        if let Some(tx) = claim_new_and_begin(&self.writer, r, now).await? {
            return Ok(IdempotencyClaim::Claimed(tx));
        }
        let mut conn = self.writer.acquire().await?;
        if let Err(refused) = claim_on(&mut conn, r, now).await?.claimed() {
            if matches!(refused, IdempotencyClaim::Replay { .. }) {
                // The first answer may still be on its way to the disk.
                self.wait_for_disk(&mut conn).await?;
            }
            return Ok(refused);
        }
        Ok(IdempotencyClaim::Claimed(
            sqlx::Transaction::begin(conn, None).await?,
        ))
    }
}

/// Claims a key that has no row yet and begins the transaction, in one message: the
/// claim's insert commits on its own (`CLAIM_SOURCE`), then `BEGIN`. Nearly every key is
/// new, and `BEGIN` alone had been a round trip of every checkout. `None` when the key
/// has a row: the insert fails on the primary key, which ends the message before the
/// `COMMIT` (the statements before it ran as one implicit transaction, so nothing is
/// kept) and the caller makes the full claim (`claim_on`). Postgres logs that failure.
///
/// One message is the simple query protocol, which binds no arguments: every value is
/// written into the text here, and each is a UUID, bytes or an instant, never text from
/// a request. The `COMMIT` of an implicit transaction draws a warning, which is not
/// wanted in every checkout's log: the claim's transaction lowers its own threshold.
async fn claim_new_and_begin(
    pool: &sqlx::Pool<Db>,
    r: &IdempotentRequest,
    now: DateTime<Utc>,
) -> sqlx::Result<Option<sqlx::Transaction<'static, Db>>> {
    let conn = pool.acquire().await?;
    match sqlx::Transaction::begin(conn, Some(claim_then_begin(r, now).into())).await {
        Ok(tx) => Ok(Some(tx)),
        Err(e) if is_unique_violation(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The message of `claim_new_and_begin`.
fn claim_then_begin(r: &IdempotentRequest, now: DateTime<Utc>) -> String {
    let instant = |t: DateTime<Utc>| {
        format!(
            "'{}'::timestamptz",
            t.to_rfc3339_opts(SecondsFormat::Micros, true)
        )
    };
    let hash = format!(
        "decode('{}', 'base64')",
        BASE64_STANDARD.encode(&r.request_hash)
    );
    let customer = r
        .customer_id
        .map_or_else(|| "NULL::uuid".to_owned(), |id| format!("'{id}'::uuid"));
    let insert = super::sql::idempotency::claim_insert([
        &format!("'{}'::uuid", r.campaign_id),
        &format!("'{}'::uuid", r.key),
        &hash,
        &customer,
        &instant(r.lock_until),
        &instant(now),
        &instant(r.expires_at),
        &format!("'{}'::uuid", r.owner),
    ]);
    format!("SELECT set_config('client_min_messages', 'error', true);\n{insert};\nCOMMIT;\nBEGIN")
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::claim_then_begin;
    use crate::store::IdempotentRequest;

    #[test]
    fn a_new_keys_claim_commits_quietly_then_begins_with_every_value_written_as_its_type() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00.123456789Z")
            .unwrap()
            .to_utc();
        let request = IdempotentRequest {
            campaign_id: Uuid::from_u128(1),
            key: Uuid::from_u128(2),
            request_hash: vec![0xfb, 0xff],
            customer_id: None,
            lock_until: now + chrono::Duration::seconds(90),
            expires_at: now + chrono::Duration::hours(24),
            owner: Uuid::from_u128(3),
        };
        let sql = claim_then_begin(&request, now);
        let statements: Vec<&str> = sql.split(";\n").collect();
        assert_eq!(statements.len(), 4);
        assert!(statements[0].contains("set_config('client_min_messages', 'error', true)"));
        let insert = statements[1];
        assert!(insert.starts_with("INSERT INTO idempotency_record"));
        assert!(
            !insert.contains("ON CONFLICT"),
            "a row must fail the message"
        );
        assert!(insert.contains("synchronous_commit"));
        assert!(insert.contains(&format!("'{}'::uuid", Uuid::from_u128(1))));
        assert!(insert.contains(&format!("'{}'::uuid", Uuid::from_u128(2))));
        assert!(insert.contains("decode('+/8=', 'base64')"));
        assert!(insert.contains("NULL::uuid"));
        assert!(insert.contains("'2026-12-01T10:00:00.123456Z'::timestamptz"));
        assert!(insert.contains("'2026-12-01T10:01:30.123456Z'::timestamptz"));
        assert!(insert.contains("'2026-12-02T10:00:00.123456Z'::timestamptz"));
        assert!(insert.contains(&format!("'{}'::uuid", Uuid::from_u128(3))));
        assert_eq!(&statements[2..], ["COMMIT", "BEGIN"]);
    }
}
