//! The log's level-0 tiles made as the tree grows, the way tessera writes tiles when it
//! sequences entries: a background thread keeps ladder-log's [`LeafFile`] (`ladder-leaves` and
//! `ladder-entries` beside the ledger: every full level-0 tile's leaf hashes and entry bundle,
//! each checked against the ledger's stored tree before it is written and again when it is
//! read) up to the durable head, so the first read of a tile or bundle after the server started
//! is one read, not 256 events read, written out and hashed. A tile the file does not hold (yet, or any more: a damaged slot does
//! not check) is computed from the events as before; the bytes are the same either way, those
//! `ladder publish` writes (`tiles_from_the_leaf_file_are_publish_s_bytes` in the tests).

use crate::Shared;
use ladder_log::LeafFile;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::Weak;
use std::time::Duration;

/// Full tiles made at most while the filler holds the ledger for reading (4,096 events, a few
/// milliseconds: a commit waits at most that long for it).
const TILES_AT_ONCE: u64 = 16;

/// The level-0 tiles kept beside the ledger, and the thread that makes them.
pub struct Leaves {
    file: LeafFile,
    /// Every full tile before this one is in the file (as far as the filler knows).
    through: AtomicU64,
    /// Told of each commit (one wake-up waiting is enough).
    wake: SyncSender<()>,
    /// Set by [`crate::Service::stop`]: the filler ends.
    stopping: AtomicBool,
}

impl Leaves {
    /// The file beside `ledger`'s directory (none kept for a ledger in memory), and the receiving
    /// end of its wake-ups, for [`run`].
    pub fn open(ledger: &ladder_log::Ledger) -> (Leaves, Receiver<()>) {
        let (wake, rx) = std::sync::mpsc::sync_channel(1);
        let leaves = Leaves {
            file: LeafFile::open(ledger),
            through: AtomicU64::new(0),
            wake,
            stopping: AtomicBool::new(false),
        };
        (leaves, rx)
    }

    /// The file.
    pub fn file(&self) -> &LeafFile {
        &self.file
    }

    /// How many full level-0 tiles from the first the file is known to hold.
    pub fn through(&self) -> u64 {
        self.through.load(Ordering::Acquire)
    }

    /// Tells the filler the tree grew.
    pub fn wake(&self) {
        let _ = self.wake.try_send(());
    }

    /// Makes the filler end.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.wake();
    }
}

/// The filler: after each commit (and every half second), brings the leaf file up to the
/// ledger's full tiles, [`TILES_AT_ONCE`] at a time under the ledger's read lock. Ends when the
/// service stops or is gone, and after the first error (a store that failed, or events that do
/// not hash to the stored tree): tiles are then computed from the events, as without the file.
pub fn run(shared: Weak<Shared>, wake: Receiver<()>) {
    loop {
        match wake.recv_timeout(Duration::from_millis(500)) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(s) = shared.upgrade() else { return };
        if !s.leaves.file.is_kept() {
            return;
        }
        loop {
            if s.leaves.stopping.load(Ordering::Acquire) {
                return;
            }
            let from = s.leaves.through();
            let made = {
                let ledger = s.read_ledger();
                s.leaves.file.fill(&ledger, from, TILES_AT_ONCE)
            };
            match made {
                Ok(next) if next > from => s.leaves.through.store(next, Ordering::Release),
                Ok(_) => break,
                Err(_) => return,
            }
        }
    }
}
