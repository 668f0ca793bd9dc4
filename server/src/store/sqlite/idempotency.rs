//! SQLite's side of claiming an Idempotency-Key ([`KeyClaim`]): the claim is made inside the
//! checkout's unit of work, so none of PostgreSQL's shortcuts is needed. The key's SQL is
//! `sql/idempotency.rs`; the rule is `checkout/idempotency.rs`.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};

use super::{
    backend::Sqlite,
    group_commit::{Member, SAVEPOINT},
    sql::idempotency::{claim_on, claim_values, CLAIM_INSERT},
    SqliteStore,
};
use crate::store::{IdempotencyClaim, IdempotentRequest, KeyClaim};

impl KeyClaim for Sqlite {
    /// Nothing to turn off here: the claim is written in the checkout's unit of work, whose
    /// group commit already shares its flush (`group_commit.rs`); `WHERE true` is the clause
    /// SQLite's parser needs before an upsert's `ON CONFLICT`.
    const CLAIM_SOURCE: &'static str = "WHERE true";

    const CLAIM_IN_WORK: bool = true;
}

impl SqliteStore {
    /// `IdempotencyStore::claim_and_begin`: the claim is the first write of the checkout's
    /// member of the group commit. Until the member ends it holds the one writer, so no
    /// concurrent request can find the claim in flight, and a failure undoes the claim with
    /// the rest (`claim_ends_with_its_checkout`). A refusal ends the member as a commit would:
    /// a replay may answer with a neighbour's write that is still on its way to the disk.
    ///
    /// A key seen for the first time, nearly every request's, is claimed in the message that
    /// begins the member's savepoint: the insert returns a row when it took the key. Any other
    /// key goes through the whole claim (`claim_on`), whose insert then finds the row.
    pub(super) async fn claim_with_work(
        &self,
        r: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> sqlx::Result<IdempotencyClaim<Member>> {
        let first = claim_values(sqlx::query(&SAVEPOINT_AND_CLAIM), r, now);
        let (mut work, inserted) = self.group.join_with(first).await?;
        if !inserted.is_empty() {
            return Ok(IdempotencyClaim::Claimed(work));
        }
        match claim_on(&mut work, r, now).await?.claimed() {
            Ok(()) => Ok(IdempotencyClaim::Claimed(work)),
            Err(refused) => {
                work.commit().await?;
                Ok(refused)
            }
        }
    }
}

/// A member's savepoint and the claim's insert, in one message to the writer's thread.
static SAVEPOINT_AND_CLAIM: LazyLock<String> =
    LazyLock::new(|| format!("{SAVEPOINT};\n{} RETURNING 1", *CLAIM_INSERT));
