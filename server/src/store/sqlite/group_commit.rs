//! Group commit: checkout transactions that reach SQLite's one writer together share one
//! database transaction and one flush to the disk, each in a savepoint of its own.
//!
//! With `synchronous=FULL` every commit waits for the disk, and SQLite's one writer waits with
//! it: on disk that wait, not the work, set how many checkouts a second a node could take
//! (docs/benchmarks.md, "Group commit"). Here the wait is shared, and the writer does not wait
//! for it:
//!
//! - The writer's connection belongs to the open group while there is one: the group begins
//!   (`BEGIN IMMEDIATE`) when its first member arrives and ends with one `COMMIT`.
//! - A [`Member`] has the group to itself for its whole unit of work, as a transaction of its
//!   own had SQLite's write lock: `SAVEPOINT member`, then its statements. When it succeeds it
//!   sends nothing more: its savepoint stays open in the group's transaction, the next
//!   member's opens inside it, and the group's `COMMIT` keeps them all (SQLite commits open
//!   savepoints with their transaction). When it fails or is dropped, `ROLLBACK TO member`
//!   goes back to the innermost savepoint of that name, its own, which undoes it alone and
//!   never its neighbours.
//! - A member's hold on the group is what the group's cycle is made of (docs/benchmarks.md,
//!   "Group commit"), so it sends as few messages to the writer's thread as it can: a member
//!   may send its first statement with its savepoint ([`GroupCommit::join_with`]), and needs
//!   no message to succeed.
//! - Whoever opens a group starts its committer, a task that queues for the group behind the
//!   members already waiting (the lock is fair: first come, first served) and commits when its
//!   turn comes. A group therefore holds every member that arrived while the group before it
//!   was committing; a member alone waits for nothing but its own commit.
//! - The group's `COMMIT` runs with `synchronous=NORMAL`: it writes the group's frames to the
//!   WAL and returns, and the writer goes to the next group while the flusher's thread puts
//!   the WAL on disk ([`WalFlush`], which says why that is as durable as `FULL`).
//! - A member that succeeded returns only once its group's commit is on disk: nobody is told
//!   of a write a crash could still lose. When the commit fails, every member of the group
//!   fails with it and nothing of the group is kept; none of them had been answered.
//! - Every other write (the operator's, sessions, the workers' claims) takes the writer's
//!   connection from its pool as before, with `synchronous=FULL`, and so waits for an open
//!   group to commit.
//!
//! A member reads what the members before it in its group wrote, as it would have read their
//! commits one after the other. A member refused because of such a write (the places a
//! neighbour took) is refused at once; it wrote nothing, so there is nothing to wait for.
//! Other connections see a group's writes from its `COMMIT`, before they are on disk: a read
//! whose result must not be lost waits for the flush (`SqliteStore::wait_for_disk`).

use std::{
    ops::{Deref, DerefMut},
    sync::Arc,
};

use sqlx::{pool::PoolConnection, Executor};
use tokio::sync::{watch, Mutex, OwnedMutexGuard};

use super::wal_flush::WalFlush;

type Db = sqlx::Sqlite;
type Conn = <Db as sqlx::Database>::Connection;

/// How a group ended: `None` while it is open, then its commit's outcome (the error's text,
/// as every member gets a copy of it).
type Ended = Option<Result<(), Arc<str>>>;

/// The writer's group commit. Clones share it.
#[derive(Clone)]
pub(crate) struct GroupCommit {
    writer: sqlx::Pool<Db>,
    slot: Arc<Mutex<Slot>>,
    flush: WalFlush,
}

/// What the writer's group holds between its members' turns.
#[derive(Default)]
struct Slot {
    group: Option<Group>,
    /// A member is at work in its savepoint: true from its `SAVEPOINT` until it succeeds or
    /// is rolled back. Still true when the next holder comes, its member was dropped mid-work
    /// (a failure, a cancelled request), and that holder rolls it back first. True only when
    /// that savepoint surely exists, as the innermost: a rollback to `member` with none of its
    /// own would undo the member before it.
    savepoint_open: bool,
}

/// The open group: the writer's connection, inside the group's transaction, with
/// `synchronous=NORMAL` until the group's `COMMIT` sets it back. A group dropped before its
/// commit closes the connection, which rolls the transaction back and leaves nothing of the
/// group's setting for the pool's next user.
struct Group {
    conn: Option<PoolConnection<Db>>,
    ended: watch::Sender<Ended>,
    members: u32,
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(conn) = &mut self.conn {
            conn.close_on_drop();
        }
    }
}

/// Begins a group on the writer's connection: commits without waiting for the disk.
const BEGIN_GROUP: &str = "PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE";
/// Commits a group and gives the connection back its setting (outside a transaction, where
/// SQLite allows the change), one message for both.
const COMMIT_GROUP: &str = "COMMIT; PRAGMA synchronous = FULL";

/// One checkout's unit of work inside the open group: it holds the group until it commits
/// (its savepoint kept, then the group's commit awaited) or is dropped (its savepoint is
/// rolled back by whoever holds the group next).
pub(crate) struct Member {
    slot: OwnedMutexGuard<Slot>,
}

impl GroupCommit {
    pub(crate) fn new(writer: sqlx::Pool<Db>, flush: WalFlush) -> Self {
        Self {
            writer,
            slot: Arc::default(),
            flush,
        }
    }

    /// Returns once every group commit a read made before the call could see is on disk.
    pub(crate) async fn wait_for_disk(&self) -> sqlx::Result<()> {
        self.flush.all_begun().await.map_err(|why| group_lost(&why))
    }

    /// Joins the open group, or opens one, and begins this member's savepoint.
    pub(crate) async fn join(&self) -> sqlx::Result<Member> {
        let (member, _) = self.join_with(sqlx::query(SAVEPOINT)).await?;
        Ok(member)
    }

    /// Joins as [`Self::join`] does, with `first` as the savepoint's message: its SQL begins
    /// with [`SAVEPOINT`], and its further statements run inside the savepoint, one hand-off
    /// to the writer's thread for all. Returns the member and the rows `first` returned. When
    /// `first` fails nobody can tell whether its savepoint was made, so the whole group fails,
    /// as it does when a savepoint alone cannot be made.
    pub(crate) async fn join_with<'q>(
        &self,
        first: sqlx::query::Query<'q, Db, sqlx::sqlite::SqliteArguments<'q>>,
    ) -> sqlx::Result<(Member, Vec<sqlx::sqlite::SqliteRow>)> {
        debug_assert!(
            sqlx::Execute::sql(&first).starts_with(SAVEPOINT),
            "a member's first message begins with its savepoint"
        );
        let mut slot = self.slot.clone().lock_owned().await;
        slot.roll_back_left_open().await?;
        if slot.group.is_none() {
            let mut group = Group {
                conn: Some(self.writer.acquire().await?),
                ended: watch::Sender::new(None),
                members: 0,
            };
            // On failure the group is dropped, closing the connection whatever the message did.
            group.conn().execute(BEGIN_GROUP).await?;
            slot.group = Some(group);
            tokio::spawn(commit_in_turn(self.slot.clone(), self.flush.clone()));
        }
        // Marked first: the message is queued for the writer's thread in the first poll below,
        // with no wait before it (the thread's queue is never full: one holder at a time), so
        // once this is set the savepoint is made even if this future is dropped, and the next
        // holder's rollback finds it as the innermost.
        slot.savepoint_open = true;
        match first.fetch_all(slot.conn()).await {
            Ok(rows) => Ok((Member { slot }, rows)),
            Err(e) => {
                slot.end_group(Err(&e));
                Err(e)
            }
        }
    }
}

/// The statement that begins a member's savepoint; the first of a member's first message.
pub(crate) const SAVEPOINT: &str = "SAVEPOINT member";

impl Group {
    fn conn(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("an open group has its connection")
    }
}

impl Slot {
    fn conn(&mut self) -> &mut Conn {
        self.group
            .as_mut()
            .expect("a member's group is open")
            .conn()
    }

    /// Undoes the savepoint a dropped member left open. When that fails the group's
    /// transaction is not what its members left (SQLite rolled all of it back on an I/O
    /// error, say), so the whole group fails.
    async fn roll_back_left_open(&mut self) -> sqlx::Result<()> {
        if !self.savepoint_open {
            return Ok(());
        }
        self.savepoint_open = false;
        if let Err(e) = self.roll_back_savepoint().await {
            self.end_group(Err(&e));
            return Err(e);
        }
        Ok(())
    }

    /// Undoes the innermost savepoint, the member's at work, and closes it; the kept
    /// savepoints of the members before it stay as they were.
    async fn roll_back_savepoint(&mut self) -> sqlx::Result<()> {
        self.conn()
            .execute("ROLLBACK TO member; RELEASE member")
            .await?;
        Ok(())
    }

    /// Ends the open group with `outcome`, telling its members; a group ended with an error
    /// is rolled back (its connection closed). Nothing when no group is open.
    fn end_group(&mut self, outcome: Result<(), &sqlx::Error>) {
        if let Some(group) = self.group.take() {
            self.savepoint_open = false;
            metrics::histogram!(crate::store::GROUP_COMMIT_MEMBERS)
                .record(f64::from(group.members));
            group
                .ended
                .send_replace(Some(outcome.map_err(|e| e.to_string().into())));
        }
    }
}

/// The open group's committer: its turn comes after every member that queued before it. It
/// leaves the writer to the next group as soon as the `COMMIT` returns, and tells the members
/// once the flush after it has ended.
async fn commit_in_turn(slot: Arc<Mutex<Slot>>, flush: WalFlush) {
    let mut slot = slot.lock_owned().await;
    if slot.roll_back_left_open().await.is_err() {
        return; // the group failed and its members were told
    }
    let Some(mut group) = slot.group.take() else {
        return; // it failed before its turn
    };
    let commit = flush.next_commit();
    let mut conn = group.conn.take().expect("an open group has its connection");
    let committed = conn.execute(COMMIT_GROUP).await;
    if committed.is_err() {
        // Still in the transaction, or its setting unknown: not for the pool's next user.
        conn.close_on_drop();
    }
    drop(conn);
    drop(slot); // the next group's turn
    let members = group.members;
    metrics::histogram!(crate::store::GROUP_COMMIT_MEMBERS).record(f64::from(members));
    let outcome = match committed {
        Ok(_) => flush.flushed(commit).await,
        Err(e) => {
            flush.committed(commit); // a read waiting for this number is let go
            Err(e.to_string().into())
        }
    };
    if let Err(e) = &outcome {
        tracing::error!(error = %e, members, "a group commit failed; its members fail with it");
    }
    group.ended.send_replace(Some(outcome));
}

impl Member {
    /// Keeps this member's writes and returns once the group holding them is on disk. Its
    /// savepoint stays open under the next member's: the group's commit keeps it.
    pub(crate) async fn commit(mut self) -> sqlx::Result<()> {
        let slot = &mut *self.slot;
        slot.savepoint_open = false;
        let group = slot.group.as_mut().expect("a member's group is open");
        group.members += 1;
        let mut ended = group.ended.subscribe();
        drop(self); // the next member's turn, or the committer's
        let outcome = ended
            .wait_for(Option::is_some)
            .await
            .map(|ended| ended.clone())
            .map_err(|_| group_lost("the group ended without an outcome"))?;
        match outcome {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(group_lost(&e)),
            None => unreachable!("waited for an outcome"),
        }
    }

    /// Undoes this member's writes, and only them, and leaves the group to the next.
    pub(crate) async fn roll_back(mut self) -> sqlx::Result<()> {
        self.slot.roll_back_left_open().await
    }
}

fn group_lost(why: &str) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::other(format!(
        "the group commit holding this write failed: {why}"
    )))
}

impl Deref for Member {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.slot
            .group
            .as_ref()
            .and_then(|group| group.conn.as_deref())
            .expect("a member's group is open")
    }
}

impl DerefMut for Member {
    fn deref_mut(&mut self) -> &mut Conn {
        self.slot.conn()
    }
}

#[cfg(test)]
mod tests {
    //! On a single-threaded runtime, so the order in which members queue for the group is the
    //! order their tasks were spawned in.

    use std::str::FromStr;

    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};

    use super::*;

    struct Fixture {
        group: GroupCommit,
        writer: sqlx::Pool<sqlx::Sqlite>,
        reader: sqlx::Pool<sqlx::Sqlite>,
        _dir: tempfile::TempDir,
    }

    /// A database file with `row (n PRIMARY KEY, parent REFERENCES row, deferred)`, its writer
    /// in a group commit and a reader beside it, as the store opens them.
    async fn database() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let flush = WalFlush::start(dir.path().join("group.db")).unwrap();
        database_flushed_by(dir, flush).await
    }

    async fn database_flushed_by(dir: tempfile::TempDir, flush: WalFlush) -> Fixture {
        let url = format!("sqlite://{}", dir.path().join("group.db").display());
        let options = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone().create_if_missing(true))
            .await
            .unwrap();
        sqlx::query(
            "CREATE TABLE row (n INTEGER PRIMARY KEY CHECK (n >= 0),
                 parent INTEGER REFERENCES row (n) DEFERRABLE INITIALLY DEFERRED)",
        )
        .execute(&writer)
        .await
        .unwrap();
        let reader = SqlitePoolOptions::new()
            .connect_with(options.read_only(true))
            .await
            .unwrap();
        Fixture {
            group: GroupCommit::new(writer.clone(), flush),
            writer,
            reader,
            _dir: dir,
        }
    }

    async fn insert(member: &mut Member, n: i64) -> sqlx::Result<()> {
        sqlx::query("INSERT INTO row (n) VALUES ($1)")
            .bind(n)
            .execute(&mut **member)
            .await
            .map(drop)
    }

    /// The rows a reader sees: what is committed.
    async fn committed(db: &Fixture) -> Vec<i64> {
        sqlx::query_scalar("SELECT n FROM row ORDER BY n")
            .fetch_all(&db.reader)
            .await
            .unwrap()
    }

    /// Lets every spawned task run until it waits.
    async fn let_others_queue() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn members_queued_together_share_a_commit_and_none_returns_before_it() {
        let db = database().await;
        let mut first = db.group.join().await.unwrap();
        insert(&mut first, 0).await.unwrap();
        // Fifteen members queue while the first holds the group; every third fails after
        // its first write, which its rollback undoes, and never its neighbours'.
        let members: Vec<_> = (1..=15)
            .map(|n| {
                let group = db.group.clone();
                let reader = db.reader.clone();
                tokio::spawn(async move {
                    let mut member = group.join().await.unwrap();
                    insert(&mut member, n).await.unwrap();
                    if n % 3 == 0 {
                        insert(&mut member, -n).await.unwrap_err(); // the CHECK refuses it
                        return None;
                    }
                    member.commit().await.unwrap();
                    // Returned: what it wrote, and its whole group, is committed.
                    let seen: Vec<i64> = sqlx::query_scalar("SELECT n FROM row ORDER BY n")
                        .fetch_all(&reader)
                        .await
                        .unwrap();
                    Some(seen)
                })
            })
            .collect();
        let_others_queue().await;
        first.commit().await.unwrap();
        let kept: Vec<i64> = (0..=15).filter(|n| n % 3 != 0 || *n == 0).collect();
        // The next group may have committed while the first's flush ran, but only as a whole.
        let seen = committed(&db).await;
        assert!(
            seen == [0] || seen == kept,
            "the first committed alone: {seen:?}"
        );

        for task in members {
            if let Some(seen) = task.await.unwrap() {
                assert_eq!(seen, kept, "the fifteen were one group");
            }
        }
        assert_eq!(committed(&db).await, kept);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_member_is_answered_after_its_flush_while_the_writer_goes_on_with_full_sync() {
        let gate = Arc::new(super::super::wal_flush::tests::Gate::default());
        let db = database_flushed_by(tempfile::tempdir().unwrap(), gate.flusher()).await;
        let mut member = db.group.join().await.unwrap();
        insert(&mut member, 1).await.unwrap();
        let answered = tokio::spawn(member.commit());
        let_others_queue().await;
        // The group committed and left the writer; its flush has not ended.
        let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&db.writer)
            .await
            .unwrap();
        assert_eq!(synchronous, 2, "the writer's other writes commit with FULL");
        assert_eq!(committed(&db).await, [1], "visible from the COMMIT");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!answered.is_finished(), "answered before its flush");
        // A read that must not be lost waits for the flush too.
        let read = tokio::spawn({
            let group = db.group.clone();
            async move { group.wait_for_disk().await }
        });
        let_others_queue().await;
        assert!(!read.is_finished(), "a read waited for no flush");
        gate.let_one_through();
        answered.await.unwrap().unwrap();
        read.await.unwrap().unwrap();
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_member_dropped_mid_work_is_undone_before_the_next_begins() {
        let db = database().await;
        let mut dropped = db.group.join().await.unwrap();
        insert(&mut dropped, 1).await.unwrap();
        drop(dropped); // a failure or a cancelled request: no commit, no rollback said
        let mut next = db.group.join().await.unwrap();
        // The dropped member's row is gone, so the next may write the same key.
        insert(&mut next, 1).await.unwrap();
        insert(&mut next, 2).await.unwrap();
        next.commit().await.unwrap();
        assert_eq!(committed(&db).await, [1, 2]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_first_statement_sent_with_the_savepoint_is_undone_with_its_member_alone() {
        let db = database().await;
        let mut holder = db.group.join().await.unwrap();
        insert(&mut holder, 1).await.unwrap();
        let first = |n: i64| {
            sqlx::query("SAVEPOINT member; INSERT INTO row (n) VALUES ($1) RETURNING n").bind(n)
        };
        // Three members of the next group, in this order: one kept, one dropped after its
        // first message and a write, one that writes the dropped one's first row again.
        let kept = tokio::spawn({
            let group = db.group.clone();
            async move {
                let mut member = group.join().await.unwrap();
                insert(&mut member, 2).await.unwrap();
                member.commit().await.unwrap();
            }
        });
        let dropped = tokio::spawn({
            let group = db.group.clone();
            async move {
                let (mut member, rows) = group.join_with(first(3)).await.unwrap();
                assert_eq!(
                    rows.len(),
                    1,
                    "the insert's row came back with the savepoint"
                );
                insert(&mut member, 4).await.unwrap();
                // Dropped: the next holder rolls back to its savepoint, the innermost, and
                // not to the kept member's before it.
            }
        });
        let again = tokio::spawn({
            let group = db.group.clone();
            async move {
                let (member, _) = group.join_with(first(3)).await.unwrap();
                member.commit().await.unwrap();
            }
        });
        let_others_queue().await;
        holder.commit().await.unwrap();
        for task in [kept, dropped, again] {
            task.await.unwrap();
        }
        assert_eq!(committed(&db).await, [1, 2, 3]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_commit_that_fails_fails_every_member_of_its_group_and_keeps_nothing() {
        let db = database().await;
        let mut holder = db.group.join().await.unwrap();
        insert(&mut holder, 1).await.unwrap();
        let members: Vec<_> = [10_i64, 11]
            .into_iter()
            .map(|n| {
                let group = db.group.clone();
                tokio::spawn(async move {
                    let mut member = group.join().await.unwrap();
                    if n == 11 {
                        // A row whose parent does not exist: refused only at the commit.
                        sqlx::query("INSERT INTO row (n, parent) VALUES ($1, 99)")
                            .bind(n)
                            .execute(&mut *member)
                            .await
                            .unwrap();
                    } else {
                        insert(&mut member, n).await.unwrap();
                    }
                    member.commit().await
                })
            })
            .collect();
        let_others_queue().await;
        holder.commit().await.unwrap();
        for task in members {
            let err = task.await.unwrap().unwrap_err();
            assert!(err.to_string().contains("group commit"), "{err}");
        }
        assert_eq!(committed(&db).await, [1], "nothing of the failed group");
        // The writer is clean again: a new group commits.
        let mut after = db.group.join().await.unwrap();
        insert(&mut after, 10).await.unwrap();
        after.commit().await.unwrap();
        assert_eq!(committed(&db).await, [1, 10]);
    }
}
