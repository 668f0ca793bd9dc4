//! SQLite's side of claiming an Idempotency-Key ([`KeyClaim`]): the claim is made inside the
//! checkout's unit of work, so none of PostgreSQL's shortcuts is needed. The key's SQL is
//! `sql/idempotency.rs`; the rule is `checkout/idempotency.rs`.

use chrono::{DateTime, Utc};

use super::{backend::Sqlite, group_commit::Member, sql::idempotency::claim_on, SqliteStore};
use crate::store::{IdempotencyClaim, IdempotentRequest, KeyClaim};

impl KeyClaim for Sqlite {
    /// SQLite has no commit that skips its flush for one transaction, so nothing is turned
    /// off here; `WHERE true` is the clause its parser needs before an upsert's `ON CONFLICT`.
    const CLAIM_SOURCE: &'static str = "WHERE true";

    const CLAIM_IN_WORK: bool = true;
}

impl SqliteStore {
    /// `IdempotencyStore::claim_and_begin`: the claim is the first write of the checkout's
    /// member of the group commit. Until the member ends it holds the one writer, so no
    /// concurrent request can find the claim in flight, and a failure undoes the claim with
    /// the rest (`claim_ends_with_its_checkout`). A refusal ends the member as a commit would:
    /// a replay may answer with a neighbour's write that is still on its way to the disk.
    pub(super) async fn claim_with_work(
        &self,
        r: &IdempotentRequest,
        now: DateTime<Utc>,
    ) -> sqlx::Result<IdempotencyClaim<Member>> {
        let mut work = self.group.join().await?;
        match claim_on(&mut work, r, now).await?.claimed() {
            Ok(()) => Ok(IdempotencyClaim::Claimed(work)),
            Err(refused) => {
                work.commit().await?;
                Ok(refused)
            }
        }
    }
}
