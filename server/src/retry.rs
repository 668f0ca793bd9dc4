//! How the outboxes' workers (webhook deliveries, `events/webhooks.rs`; mails,
//! `mail/outbox.rs`) retry and spend their claims, written once: the back-off after a failed
//! attempt, and the lease a claim holds its rows under.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

/// A row not sent within this long of its writing is given up (FAILED).
const GIVE_UP_AFTER: chrono::Duration = chrono::Duration::hours(24);

/// When to try again after `attempts` failed attempts, or `None` once the row is more than a
/// day old: 5 s, 10 s, 20 s, … capped at one hour, each lengthened by a random part of up to a
/// quarter, so that rows that failed together (a partner's or the mail server's outage) do not
/// all come back at the same instant.
pub fn retry_at(
    attempts: i32,
    written_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let next = now + back_off(attempts, rand::random::<f64>());
    (next - written_at <= GIVE_UP_AFTER).then_some(next)
}

/// The delay after `attempts` failed attempts for a `jitter` in `[0, 1)`.
fn back_off(attempts: i32, jitter: f64) -> chrono::Duration {
    let base_ms = 5_000i64
        .saturating_mul(1i64 << attempts.clamp(0, 20))
        .min(3_600_000);
    let extra_ms = (base_ms as f64 * 0.25 * jitter.clamp(0.0, 1.0)) as i64;
    chrono::Duration::milliseconds(base_ms + extra_ms)
}

/// How long a claim holds its rows, and how much of that must be left for a send to start:
/// the send's timeout and the time to record its outcome. A worker gives back what it could
/// not start, so no row is sent by two claims at once.
#[derive(Debug, Clone, Copy)]
pub struct Lease {
    pub length: Duration,
    pub reserve: Duration,
}

impl Lease {
    /// The end of a lease taken at `now`.
    pub fn until(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now + chrono::Duration::milliseconds(self.length.as_millis() as i64)
    }

    /// Whether a send may still start under a claim taken at `claimed_at`.
    pub fn may_start(&self, claimed_at: Instant) -> bool {
        claimed_at.elapsed() + self.reserve < self.length
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn back_off_doubles_caps_at_an_hour_and_stops_after_a_day() {
        let t0 = Utc::now();
        let s = chrono::Duration::seconds;
        assert_eq!(back_off(0, 0.0), s(5));
        assert_eq!(back_off(3, 0.0), s(40));
        assert_eq!(back_off(15, 0.0), s(3600));
        let late = t0 + chrono::Duration::hours(23) + chrono::Duration::minutes(30);
        assert_eq!(retry_at(15, t0, late), None);
    }

    #[test]
    fn back_off_has_jitter_of_up_to_a_quarter() {
        let s = chrono::Duration::seconds;
        assert_eq!(back_off(3, 0.5), s(45));
        assert_eq!(back_off(3, 1.0), s(50));
        let t0 = Utc::now();
        let delays: HashSet<i64> = (0..200)
            .map(|_| retry_at(3, t0, t0).unwrap() - t0)
            .inspect(|d| assert!(*d >= s(40) && *d <= s(50), "{d} within 40 s to 50 s"))
            .map(|d| d.num_milliseconds())
            .collect();
        assert!(delays.len() > 100, "the delays differ: {delays:?}");
    }

    #[test]
    fn no_send_starts_in_a_leases_reserve() {
        let lease = Lease {
            length: Duration::from_secs(120),
            reserve: Duration::from_secs(40),
        };
        let now = Instant::now();
        assert!(lease.may_start(now));
        let late = now.checked_sub(Duration::from_secs(81)).unwrap();
        assert!(!lease.may_start(late));
    }
}
