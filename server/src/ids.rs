//! Every id the server makes, of two kinds, named for what they are:
//!
//! - [`random_id`]: a random UUIDv4, for every id that is not written thousands a second;
//!   the checkout, order and payment ids a checkout shows are of this kind, as the contract
//!   says (decisions.md, §5).
//! - [`time_ordered_id`]: a UUIDv7 for the rows a checkout writes that its answers do not
//!   show (its lines, events, ticket mail and loyalty entry), thousands a second under load.
//!
//! Time-ordered ids are UUIDv7: the first 48 bits are the time in milliseconds, so each new row's key
//! lands at the right edge of its table's primary-key index, in pages a group commit has just
//! written. Random (v4) keys land anywhere in the index: every checkout dirtied pages of its
//! own in every index, each written to the WAL and copied at a checkpoint, and as the tables
//! grew the express checkout slowed round after round (docs/benchmarks.md, "Group commit").
//!
//! The other 74 bits are random, all of them, and no counter makes one id tell its neighbour's,
//! as `Uuid::now_v7`'s would: an event's id is shown to the partner that receives it, and
//! someone who knows when a row was made still has 2^74 ids to guess from.

use uuid::Uuid;

/// A new random id (UUIDv4: 122 random bits from a CSPRNG, `docs/security.md`).
pub fn random_id() -> Uuid {
    Uuid::new_v4()
}

/// A new time-ordered id: the time now, then 74 random bits.
pub fn time_ordered_id() -> Uuid {
    let millis = chrono::Utc::now().timestamp_millis();
    let millis = u64::try_from(millis).expect("the clock is after 1970");
    let random: [u8; 10] = rand::random();
    uuid::Builder::from_unix_timestamp_millis(millis, &random).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::time_ordered_id;

    #[test]
    fn ids_begin_with_the_time_they_were_made_and_hold_no_counter() {
        let before = chrono::Utc::now().timestamp_millis();
        let ids: Vec<_> = (0..1_000).map(|_| time_ordered_id()).collect();
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
        // No counter: within one millisecond the ids are in no order, where a counter's would
        // each rise above the one before (as `Uuid::now_v7`'s do).
        let same_millisecond: Vec<_> = ids
            .windows(2)
            .filter(|pair| pair[0].get_timestamp() == pair[1].get_timestamp())
            .collect();
        assert!(same_millisecond.len() >= 10, "ids made too slowly to tell");
        assert!(
            same_millisecond.iter().any(|pair| pair[1] < pair[0]),
            "every id rose above the one before it: a counter"
        );
    }
}
