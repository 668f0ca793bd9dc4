//! The claim of an outbox's due rows, written once for the webhook deliveries (`events.rs`) and
//! the mails (`mail/outbox.rs`). A queue's rows have `status`, `next_attempt_at`, `locked_until` and
//! `claim_id`; a row is due when PENDING, its next attempt has come and no live lease holds it.
//!
//! One statement is the claim: the rows are picked and leased together. Postgres skips rows a
//! concurrent claim is locking (`Dialect::SKIP_LOCKED`), SQLite's one writer runs claims one
//! after the other, and the update's own condition refuses a row whose lease another claim
//! took meanwhile. Only the claim's holder records an outcome (its statements say
//! `AND claim_id = …`), so a worker whose lease ran out records nothing.

use super::ThisDialect;
use crate::store::dialect::Dialect;

/// A table of rows sent by a worker under a lease, and its key column.
pub(super) struct Queue {
    pub table: &'static str,
    pub key: &'static str,
}

impl Queue {
    /// The condition on the row `alias` of being due at `$1`.
    pub fn due(&self, alias: &str) -> String {
        format!(
            "{alias}.status = 'PENDING' AND {alias}.next_attempt_at <= $1
             AND ({alias}.locked_until IS NULL OR {alias}.locked_until <= $1)"
        )
    }

    /// The claim of up to `$4` rows due at `$1`, oldest due first, leased until `$2` under the
    /// claim `$3`, returning `returning`. `and` is a further condition on the candidate row
    /// `q`, whose own placeholders start at `$5` (`TRUE` for none).
    pub fn claim_due(&self, and: &str, returning: &str) -> String {
        let Queue { table, key } = self;
        format!(
            "UPDATE {table} SET locked_until = $2, claim_id = $3
             WHERE {key} IN (
                 SELECT q.{key} FROM {table} q
                 WHERE {due} AND ({and})
                 ORDER BY q.next_attempt_at LIMIT $4 {skip_locked})
               AND status = 'PENDING' AND (locked_until IS NULL OR locked_until <= $1)
             RETURNING {returning}",
            due = self.due("q"),
            skip_locked = ThisDialect::SKIP_LOCKED,
        )
    }

    /// Gives the row `$1` back without an attempt, while the claim `$2` holds it: due at once
    /// for the next claim.
    pub fn release(&self) -> String {
        let Queue { table, key } = self;
        format!(
            "UPDATE {table} SET locked_until = NULL, claim_id = NULL
             WHERE {key} = $1 AND claim_id = $2"
        )
    }
}
