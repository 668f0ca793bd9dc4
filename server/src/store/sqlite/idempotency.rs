//! SQLite's side of claiming an Idempotency-Key ([`KeyClaim`]): none of PostgreSQL's
//! shortcuts apply. The key's SQL is `sql/idempotency.rs`; the rule is
//! `checkout/idempotency.rs`.

use chrono::{DateTime, Utc};

use super::backend::Sqlite;
use crate::store::{IdempotentRequest, KeyClaim};

type Db = sqlx::Sqlite;

impl KeyClaim for Sqlite {
    /// SQLite has no commit that skips its flush for one transaction, so nothing is turned
    /// off here; `WHERE true` is the clause its parser needs before an upsert's `ON CONFLICT`.
    const CLAIM_SOURCE: &'static str = "WHERE true";

    /// Never: SQLite's statements are calls into this process, with no round trip to save,
    /// so every claim takes the full path.
    async fn claim_new_and_begin(
        _pool: &sqlx::Pool<Db>,
        _request: &IdempotentRequest,
        _now: DateTime<Utc>,
    ) -> sqlx::Result<Option<sqlx::Transaction<'static, Db>>> {
        Ok(None)
    }
}
