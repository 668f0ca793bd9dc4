//! Ids of the rows a checkout writes: its checkout, lines, order, payment, events, ticket mail
//! and loyalty entry, thousands a second under load.
//!
//! They are UUIDv7: the first 48 bits are the time in milliseconds, so each new row's key
//! lands at the right edge of its table's primary-key index, in pages a group commit has just
//! written. Random (v4) keys land anywhere in the index: every checkout dirtied pages of its
//! own in every index, each written to the WAL and copied at a checkpoint, and as the tables
//! grew the express checkout slowed round after round (docs/benchmarks.md, "Group commit").
//!
//! The other 74 bits are random, all of them: a guest's checkout is readable by its id
//! (docs/api-checkout.md), so no counter makes one id tell its neighbour's, as `Uuid::now_v7`'s
//! would. Someone who knows when a checkout was made still has 2^74 ids to guess from. What
//! the id does tell, its minute of creation, every answer that carries it says anyway.

use uuid::Uuid;

/// A new row id: the time now, then 74 random bits.
pub fn new_row_id() -> Uuid {
    let millis = chrono::Utc::now().timestamp_millis();
    let millis = u64::try_from(millis).expect("the clock is after 1970");
    let random: [u8; 10] = rand::random();
    uuid::Builder::from_unix_timestamp_millis(millis, &random).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::new_row_id;

    #[test]
    fn ids_begin_with_the_time_they_were_made_and_are_otherwise_random() {
        let before = chrono::Utc::now().timestamp_millis();
        let ids: Vec<_> = (0..1_000).map(|_| new_row_id()).collect();
        let after = chrono::Utc::now().timestamp_millis();
        for id in &ids {
            assert_eq!(id.get_version_num(), 7);
            let (secs, nanos) = id.get_timestamp().expect("a v7 id has a time").to_unix();
            let millis = i64::try_from(secs).unwrap() * 1_000 + i64::from(nanos / 1_000_000);
            assert!((before..=after).contains(&millis), "{id} made at {millis}");
        }
        // Later ids sort after earlier ones, millisecond by millisecond: the index's right edge.
        let mut by_time = ids.clone();
        by_time.sort_by_key(|id| id.get_timestamp().map(|t| t.to_unix()));
        assert_eq!(by_time, ids, "made in order of time");
        // No counter: two ids of one millisecond share no more than the time and the version.
        let mut distinct_tails: Vec<_> = ids.iter().map(|id| &id.as_bytes()[8..]).collect();
        distinct_tails.sort();
        distinct_tails.dedup();
        assert_eq!(distinct_tails.len(), ids.len());
    }
}
