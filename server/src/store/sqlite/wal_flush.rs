//! The group commit's flush to disk, off the writer: the group's `COMMIT` writes its frames to
//! the write-ahead log (WAL) without waiting for the disk, and this flusher's thread makes the
//! WAL durable (`fdatasync`) while the writer already runs the next group.
//!
//! With `synchronous=FULL` SQLite flushes the WAL inside `COMMIT`, and its one writer waits
//! for the disk with it: on disk that wait was most of a group's cycle (docs/benchmarks.md,
//! "Group commit"). A group commits with `synchronous=NORMAL` instead, which in WAL mode
//! writes the commit's frames and flushes nothing but at checkpoints, then asks for a flush
//! here, and its members are answered once a flush that began after its `COMMIT` returned
//! has ended. That is the guarantee `FULL` gives, with the flush moved: nobody is told of a
//! write a power cut could still lose.
//!
//! Why a flush of the WAL file from another descriptor is enough:
//! - `fdatasync` writes every page of the file the kernel holds, whoever wrote it, and the
//!   file's size with them: the group's frames, its commit frame and every commit before it.
//! - SQLite itself flushes the WAL's header, and the directory the first time, whenever it
//!   begins a WAL or begins one again after a checkpoint (`NORMAL` does that), so a flushed
//!   frame is never behind a header the disk does not have.
//! - A checkpoint flushes the WAL before it copies frames into the database file and the
//!   database file before the WAL is used again from its start (`NORMAL` does that too), so
//!   frames overwritten after a checkpoint are on disk in the database file.
//! - The file is opened afresh for each flush: when the last connection closes SQLite
//!   checkpoints the WAL and deletes it, and a file that is not there holds nothing to lose.
//!
//! Commits are numbered in the order they are sent ([`WalFlush::next_commit`]) and a flush
//! is asked for by a commit's committer once its `COMMIT` has returned
//! ([`WalFlush::committed`]); a read that must not show what a power cut could lose waits
//! for every commit numbered so far ([`WalFlush::all_begun`]).
//!
//! A flush that fails leaves the disk's state unknown, so every wait after it fails too, as
//! PostgreSQL stops on a failed `fsync`: the node needs a restart, whose recovery reads what
//! the disk really holds.

use std::{
    fs::OpenOptions,
    io,
    path::PathBuf,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc,
    },
};

use tokio::sync::watch;

/// How far the WAL is on disk: every commit up to this number, or the flush that failed.
#[derive(Clone, Debug)]
enum Flushed {
    Upto(u64),
    Failed(Arc<str>),
}

/// Flushes the WAL of one database file. Clones share the flusher's thread, which ends when
/// the last clone is dropped.
#[derive(Clone)]
pub(crate) struct WalFlush {
    /// The number of the last commit begun.
    begun: Arc<AtomicU64>,
    /// Asks the thread for a flush that covers the given commit.
    ask: mpsc::Sender<u64>,
    flushed: watch::Receiver<Flushed>,
}

impl WalFlush {
    /// Starts the flusher of the database file at `database`: its WAL is `database` with
    /// `-wal` after it.
    pub(crate) fn start(database: PathBuf) -> io::Result<Self> {
        let mut wal = database.into_os_string();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        Self::start_with(move || sync_file(&wal))
    }

    /// Starts a flusher whose flush is `sync` (the file's, or a test's).
    fn start_with(sync: impl FnMut() -> io::Result<()> + Send + 'static) -> io::Result<Self> {
        let (ask, asked) = mpsc::channel();
        let (tell, flushed) = watch::channel(Flushed::Upto(0));
        std::thread::Builder::new()
            .name("sqlite-wal-flush".into())
            .spawn(move || flush_when_asked(&asked, &tell, sync))?;
        Ok(Self {
            begun: Arc::default(),
            ask,
            flushed,
        })
    }

    /// Numbers a commit about to be sent; call it on the writer, before the `COMMIT`, so the
    /// numbers follow the order of the commits and a read never sees a commit not numbered.
    pub(crate) fn next_commit(&self) -> u64 {
        self.begun.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Asks for a flush that covers commit `commit`, whose `COMMIT` has returned (or failed:
    /// whoever waits for it is let go all the same). Only then: a flush asked for while the
    /// `COMMIT` still ran could end before its frames were written, and tell it on disk.
    pub(crate) fn committed(&self, commit: u64) {
        // The thread outlives every sender, so asking never fails while `self` is alive.
        let _ = self.ask.send(commit);
    }

    /// [`Self::committed`], then waits for that flush.
    pub(crate) async fn flushed(&self, commit: u64) -> Result<(), Arc<str>> {
        self.committed(commit);
        self.wait(commit).await
    }

    /// Returns once commit `commit` is on disk; its committer asks for the flush.
    async fn wait(&self, commit: u64) -> Result<(), Arc<str>> {
        let mut flushed = self.flushed.clone();
        let outcome = flushed
            .wait_for(|f| match f {
                Flushed::Upto(n) => *n >= commit,
                Flushed::Failed(_) => true,
            })
            .await
            .map(|f| f.clone());
        match outcome {
            Ok(Flushed::Upto(_)) => Ok(()),
            Ok(Flushed::Failed(why)) => Err(why),
            Err(_) => Err("the WAL's flusher stopped".into()),
        }
    }

    /// Returns once every commit numbered so far is on disk: whatever a read made before the
    /// call could see.
    pub(crate) async fn all_begun(&self) -> Result<(), Arc<str>> {
        match self.begun.load(Ordering::SeqCst) {
            0 => Ok(()),
            last => self.wait(last).await,
        }
    }
}

/// The flusher's thread: one flush at a time, each covering every commit asked for before it
/// began, until every [`WalFlush`] is gone.
fn flush_when_asked(
    asked: &mpsc::Receiver<u64>,
    tell: &watch::Sender<Flushed>,
    mut sync: impl FnMut() -> io::Result<()>,
) {
    let mut upto = 0;
    while let Ok(first) = asked.recv() {
        // Commits asked for while the last flush ran are covered by this one together.
        let target = asked.try_iter().fold(first, u64::max);
        if target <= upto {
            continue; // a flush that began after it returned has ended
        }
        if let Err(e) = sync() {
            tracing::error!(error = %e, "flushing the SQLite WAL failed; commits cannot be confirmed until a restart");
            tell.send_replace(Flushed::Failed(
                format!("flushing the WAL to disk failed: {e}").into(),
            ));
            return;
        }
        upto = target;
        tell.send_replace(Flushed::Upto(upto));
    }
}

fn sync_file(path: &PathBuf) -> io::Result<()> {
    match OpenOptions::new().write(true).open(path) {
        Ok(file) => file.sync_data(),
        // Deleted after a checkpoint into the database file, which was flushed first.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::{Condvar, Mutex};

    use super::*;

    /// A flush the test lets through one at a time, counting them.
    #[derive(Default)]
    pub(in crate::store::sqlite) struct Gate {
        open: Mutex<u32>,
        moved: Condvar,
    }

    impl Gate {
        pub(in crate::store::sqlite) fn let_one_through(&self) {
            *self.open.lock().unwrap() += 1;
            self.moved.notify_all();
        }

        /// A flusher whose every flush waits for this gate.
        pub(in crate::store::sqlite) fn flusher(self: &Arc<Self>) -> WalFlush {
            let gate = self.clone();
            WalFlush::start_with(move || {
                gate.pass();
                Ok(())
            })
            .unwrap()
        }

        fn pass(&self) {
            let mut open = self.open.lock().unwrap();
            while *open == 0 {
                open = self.moved.wait(open).unwrap();
            }
            *open -= 1;
        }
    }

    #[tokio::test]
    async fn a_commit_is_flushed_by_a_flush_begun_after_it_and_not_before() {
        let gate = Arc::new(Gate::default());
        let flush = gate.flusher();
        let first = flush.next_commit();
        let waiting = tokio::spawn({
            let flush = flush.clone();
            async move { flush.flushed(first).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "answered before its flush");
        gate.let_one_through();
        waiting.await.unwrap().unwrap();

        // A read of a second commit, still being sent, waits for that commit's flush: it
        // asks for none itself, which could end before the commit's frames were written.
        let second = flush.next_commit();
        let read = tokio::spawn({
            let flush = flush.clone();
            async move { flush.all_begun().await }
        });
        gate.let_one_through();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(
            !read.is_finished(),
            "a read was let go before its commit returned"
        );
        flush.committed(second); // its `COMMIT` returned
        read.await.unwrap().unwrap();
        flush.flushed(second).await.unwrap();
    }

    #[tokio::test]
    async fn after_a_failed_flush_every_wait_fails() {
        let flush = WalFlush::start_with(|| Err(io::Error::other("disk gone"))).unwrap();
        let commit = flush.next_commit();
        let err = flush.flushed(commit).await.unwrap_err();
        assert!(err.contains("disk gone"), "{err}");
        flush.next_commit();
        assert!(flush.all_begun().await.is_err());
    }

    #[tokio::test]
    async fn a_missing_wal_holds_nothing_to_flush() {
        let dir = tempfile::tempdir().unwrap();
        let flush = WalFlush::start(dir.path().join("none.db")).unwrap();
        let commit = flush.next_commit();
        flush.flushed(commit).await.unwrap();
    }
}
