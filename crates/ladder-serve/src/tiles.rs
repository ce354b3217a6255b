//! The log's level-0 tiles made as the tree grows, the way tessera writes tiles when it
//! sequences entries: a background thread keeps ladder-log's [`LeafFile`] (`ladder-leaves` and
//! `ladder-entries` beside the ledger: every full level-0 tile's leaf hashes and entry bundle,
//! each checked against the ledger's stored tree before it is written and again when it is
//! read) up to the durable head, so the first read of a tile or bundle after the server started
//! is one read, not 256 events read, written out and hashed. A tile the file does not hold (yet, or any more: a damaged slot does
//! not check) is computed from the events as before; the bytes are the same either way, those
//! `ladder publish` writes (`tiles_from_the_leaf_file_are_publish_s_bytes` in the tests).
//!
//! The sequencer hands the filler the leaf hashes and canonical lines of every group it
//! commits, as the append computed them for the Merkle tree and the chain
//! ([`ladder_log::Ledger::hand_out_leaves`], [`Leaves::hand`]): a tile those cover is written
//! from them ([`LeafFile::put_tile`]) instead of reading back, writing out and hashing its 256
//! events again. Tiles they do not cover (those before the server started, the start of a
//! tile begun before it, or any left when the queue of handed leaves was full) are filled from
//! the events as before.

use crate::Shared;
use ladder_log::{LeafFile, NewLeaves};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::Weak;
use std::time::Duration;

/// Full tiles made at most while the filler holds the ledger for reading (4,096 events, a few
/// milliseconds: a commit waits at most that long for it).
const TILES_AT_ONCE: u64 = 16;

/// The most events whose handed leaves wait for the filler ([`Leaves::hand`]): about 50 MB of
/// hashes and lines. Beyond it, new ones are dropped and their tiles filled from the events, so
/// the queue's memory stays bounded if the filler falls behind (while it checks the tiles of a
/// large ledger after a start, say).
const MAX_HANDED: usize = 1 << 18;

/// The level-0 tiles kept beside the ledger, and the thread that makes them.
pub struct Leaves {
    file: LeafFile,
    /// Every full tile before this one is in the file (as far as the filler knows).
    through: AtomicU64,
    /// Told of each commit (one wake-up waiting is enough).
    wake: SyncSender<()>,
    /// Set by [`crate::Service::stop`]: the filler ends.
    stopping: AtomicBool,
    /// Leaves of committed groups not yet taken by the filler ([`Leaves::hand`]), and how many
    /// events they hold.
    handed: std::sync::Mutex<(VecDeque<NewLeaves>, usize)>,
    /// Tiles written from handed leaves since the service started.
    put: AtomicU64,
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
            handed: std::sync::Mutex::new((VecDeque::new(), 0)),
            put: AtomicU64::new(0),
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

    /// How many tiles the filler wrote from handed leaves ([`Leaves::hand`]) since the service
    /// started (the others were filled from the events).
    pub fn tiles_put(&self) -> u64 {
        self.put.load(Ordering::Acquire)
    }

    /// Tells the filler the tree grew.
    pub fn wake(&self) {
        let _ = self.wake.try_send(());
    }

    /// Hands the filler the leaf hashes and lines of a group just committed and published (the
    /// caller wakes it): dropped when tiles are not kept or [`MAX_HANDED`] events wait already.
    pub fn hand(&self, leaves: NewLeaves) {
        if !self.file.is_kept() {
            return;
        }
        let mut handed = self.handed.lock().unwrap_or_else(|p| p.into_inner());
        if handed.1 + leaves.len() <= MAX_HANDED {
            handed.1 += leaves.len();
            handed.0.push_back(leaves);
        }
    }

    /// Takes every handed group, in order.
    fn take_handed(&self) -> VecDeque<NewLeaves> {
        let mut handed = self.handed.lock().unwrap_or_else(|p| p.into_inner());
        handed.1 = 0;
        std::mem::take(&mut handed.0)
    }

    /// Makes the filler end.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.wake();
    }
}

/// The filler: after each commit (and every half second), brings the leaf file up to the
/// ledger's full tiles under the ledger's read lock: a tile the handed leaves cover
/// ([`Leaves::hand`]) from them, one at a time, any other from the events,
/// [`TILES_AT_ONCE`] at a time. Ends when the service stops or is gone, and after the first
/// error (a store that failed, or events that do not hash to the stored tree): tiles are then
/// computed from the events, as without the file.
pub fn run(shared: Weak<Shared>, wake: Receiver<()>) {
    // The handed leaves not yet written, contiguous (a gap starts them again).
    let mut carry = NewLeaves::default();
    loop {
        match wake.recv_timeout(Duration::from_millis(500)) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(s) = shared.upgrade() else { return };
        if !s.leaves.file.is_kept() {
            return;
        }
        for more in s.leaves.take_handed() {
            if carry.is_empty() || more.first() == carry.first() + carry.len() as u64 {
                carry.extend(more);
            } else {
                carry = more;
            }
        }
        loop {
            if s.leaves.stopping.load(Ordering::Acquire) {
                return;
            }
            let from = s.leaves.through();
            let width = 1u64 << ladder_log::TILE_LEVEL;
            let start = from * width + 1;
            carry.drop_before(start);
            // From the handed leaves when they hold the tile: the ledger is held only to read
            // the tile's stored hash, and the files are written after it is let go.
            if !carry.is_empty() && carry.first() == start && carry.len() as u64 >= width {
                let node = {
                    let ledger = s.read_ledger();
                    s.leaves.file.tile_node(&ledger, from)
                };
                match node {
                    Ok(Some(node)) => {
                        let n = width as usize;
                        let lines = (0..n).filter_map(|i| carry.line(i));
                        if s.leaves.file.put_tile(&node, from, &carry.hashes()[..n], lines) {
                            s.leaves.put.fetch_add(1, Ordering::AcqRel);
                            s.leaves.through.store(from + 1, Ordering::Release);
                            continue;
                        }
                    }
                    // Not full in the ledger yet.
                    Ok(None) => break,
                    Err(_) => return,
                }
            }
            let made = {
                let ledger = s.read_ledger();
                if from >= ledger.head().seq / width {
                    break;
                }
                // From the events: up to the first tile the handed leaves cover whole.
                let covered = if carry.is_empty() || carry.first() <= start {
                    u64::MAX
                } else {
                    (carry.first() - 1).div_ceil(width)
                };
                let max = covered.saturating_sub(from).clamp(1, TILES_AT_ONCE);
                s.leaves.file.fill(&ledger, from, max)
            };
            match made {
                Ok(next) if next > from => s.leaves.through.store(next, Ordering::Release),
                Ok(_) => break,
                Err(_) => return,
            }
        }
    }
}
