//! The ledger of ladder: an append-only, blake3 hash-chained log of [`Event`]s in sled, and the
//! only crate of the workspace that touches sled.
//!
//! Every stored event has a gapless sequence number (1, 2, 3, ...), its encoded bytes
//! ([`ladder_events::codec`]: what is stored and read back) and a chain hash
//! `blake3(prev_hash || leaf)` (32 zero bytes before seq 1), where `leaf` is the event's canonical
//! JSON line, exactly as `ladder log --format jsonl` prints it, so anyone can recompute the chain
//! from an export (ledger format 3; format 2 hashed the codec bytes, and `upgrade.rs` rebuilds
//! such a ledger). The [`Head`] is the last (seq, hash); seq 0 is the empty ledger.
//!
//! Design decisions (measured and argued in `docs/adr/0001-ledger-storage.md`):
//! - **Blocks, not one sled key per event.** sled 0.34.7 with one key per small value is slow and
//!   takes gigabytes of memory at millions of keys. Events are stored in blocks of up to
//!   [`MAX_BLOCK_BYTES`] (6 KB, about 60 events: small enough that sled's cache turns over while
//!   a long read goes by, so reading a ledger does not keep it in memory), keyed by the first
//!   event's seq in big-endian, so key order is sequence order. An append writes whole blocks beyond the head; the small blocks left
//!   by single appends (the tail) are merged into one by a small atomic batch once there are 16.
//! - **One commit point.** An append writes its blocks, facts and ids with keys beyond the current
//!   head, flushes, then writes the new head to the `meta` tree and flushes again: only then is it
//!   acknowledged. A refusal removes what it wrote; opening removes anything beyond the head (the
//!   leftovers of a crash). Nothing before the head is ever rewritten except by the tail merge,
//!   which changes layout, not content, in one atomic batch.
//! - **Validation streams.** [`Ledger::append`] takes an iterator and holds only the block being
//!   filled, the new facts and the batch's id fingerprints (spilled to disk every million), never
//!   the batch: a ten-million-event import runs in bounded memory.
//! - **Indexes sized for 30 million events.** The idempotency index is a few sorted runs of
//!   16-byte (fingerprint, seq) entries on disk, each in 2^14 buckets (a million-entry run has
//!   about 60 entries a bucket, 1 KB; not one key per id); a spill writes a new run and runs of
//!   one size are merged four at a time, so a long import writes O(N log N) bytes of index. A hit is confirmed by reading the event, so
//!   the index never needs undoing. A long append keeps a Bloom filter of the spilled
//!   fingerprints, so a new id reads no bucket. Joins, voids and ticks are few and live in memory.
//! - **sled is behind [`Store`].** [`SledStore`] is the only code naming sled; [`MemStore`] holds the
//!   same trees in memory (tests, `--events FILE.jsonl` replays). sled's cache is 64 MB.
//! - **Reading without copying.** [`Ledger::read_records`] lends a block's records at a time while
//!   a second thread reads the next blocks, for readers that decode in place (a replay).
#![deny(missing_docs)]

mod append;
mod block;
mod chain_many;
mod create;
mod folded;
mod headfile;
mod index;
mod leaves;
mod ledger;
mod recent;
mod runs;
mod store;
mod tree;
mod upgrade;
mod verify;

pub use append::{Below, Durable, Held, NewLeaves, Prepared, Staged};
pub use block::{
    chain_hash, decode_block, OwnedRecord, GENESIS, MAX_BLOCK_BYTES, MAX_BLOCK_EVENTS,
};
pub use folded::{
    Folded, FoldedCheck, FoldedState, FoldedVoid, SealedFolded, SealedHead, FOLDED_FILE,
};
pub use headfile::{HEAD_FILE, LOCK_FILE};
pub use index::ID_BUCKETS;
pub use ladder_proof::{ConsistencyProof, InclusionProof};
pub use leaves::{LeafFile, ENTRIES_FILE, LEAVES_FILE};
pub use ledger::{Checkpoint, Events, Ledger, Record, LEDGER_FORMAT, META_HEAD};
pub use store::{
    Entry, InjectedFaults, MemStore, SledStore, Store, Tree, Value, Write, LOCK_RETRY,
    MIN_FREE_BYTES, SLED_CACHE_BYTES,
};
pub use tree::TILE_LEVEL;
pub use upgrade::Upgraded;

use ladder_events::codec::DecodeError;
use ladder_events::{Event, Timestamp, Violation};
use std::fmt;
use std::path::PathBuf;

/// The end of a chain: the last sequence number and its chain hash. Seq 0 (hash all zeros) is the
/// empty ledger. Displayed and parsed as `SEQ:HASH`, the hash in 64 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Head {
    /// The last sequence number, 0 when empty.
    pub seq: u64,
    /// Its chain hash ([`GENESIS`] when empty).
    pub hash: [u8; 32],
}

impl Default for Head {
    fn default() -> Head {
        Head::EMPTY
    }
}

impl Head {
    /// The head of the empty ledger.
    pub const EMPTY: Head = Head { seq: 0, hash: GENESIS };

    /// The hash in 64 lowercase hex digits.
    pub fn hash_hex(&self) -> String {
        ladder_proof::hex(&self.hash)
    }

    /// Parses `SEQ:HASH` (64 hex digits, either case).
    pub fn parse(text: &str) -> Result<Head, HeadParseError> {
        let bad = || HeadParseError(text.to_string());
        let (seq, hash) = text.split_once(':').ok_or_else(bad)?;
        let seq: u64 = seq.parse().map_err(|_| bad())?;
        if hash.len() != 64 || !hash.is_ascii() {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Head { seq, hash: out })
    }
}

impl fmt::Display for Head {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.seq, self.hash_hex())
    }
}

impl std::str::FromStr for Head {
    type Err = HeadParseError;
    fn from_str(s: &str) -> Result<Head, HeadParseError> {
        Head::parse(s)
    }
}

/// A text that is not `SEQ:HASH`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a head: expected SEQ:HASH, a sequence number and 64 hex digits")]
pub struct HeadParseError(pub String);

/// How [`Ledger::append`] treats its input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppendOptions {
    /// Before an event naming a player who has not joined, append their PlayerJoined at the same
    /// instant (no id, no prior), in seat order.
    pub auto_join: bool,
    /// Insert a MidnightTick at each UTC date boundary crossed between two consecutive events
    /// (the ledger's last stored event counts as the one before the first appended), never after
    /// the last event. A boundary at an event's own instant is ticked before it. Dates already
    /// ticked are not ticked again.
    pub ticks: bool,
    /// Skip events that break a rule and report them, instead of refusing the batch; except
    /// rule `unreadable-input` (an input that failed to be read), which always refuses it.
    pub skip_invalid: bool,
    /// Refuse events whose `at` is later than this (rule `future-instant`). The log reads no
    /// clock: the caller passes its clock plus a margin (`ladder` uses one day), or `None` to
    /// accept any instant.
    pub not_after: Option<Timestamp>,
}

/// What an append did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppendReport {
    /// Events written, including the inserted joins and ticks: the head moved by this much.
    pub appended: u64,
    /// Input events skipped as duplicates of stored (or earlier) events.
    pub duplicates: u64,
    /// PlayerJoined events inserted by [`AppendOptions::auto_join`] (counted in `appended`).
    pub auto_joined: u64,
    /// MidnightTick events inserted by [`AppendOptions::ticks`] (counted in `appended`).
    pub ticks_inserted: u64,
    /// Input events skipped under [`AppendOptions::skip_invalid`]: input index and rule.
    pub skipped: Vec<(usize, Violation)>,
    /// The head after the append.
    pub head: Head,
}

/// One stored event as iteration returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEvent {
    /// Its sequence number (from 1).
    pub seq: u64,
    /// Its chain hash, as stored.
    pub hash: [u8; 32],
    /// The chain hash of the event before it (as stored; [`GENESIS`] for seq 1).
    pub prev_hash: [u8; 32],
    /// Its encoded bytes ([`ladder_events::codec`]).
    pub bytes: Vec<u8>,
    /// The decoded event.
    pub event: Event,
}

/// Why the ledger could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// Another process has the ledger open (sled allows one process at a time).
    #[error("the ledger {} is in use by another process", path.display())]
    Locked {
        /// The ledger's path.
        path: PathBuf,
    },
    /// The ledger cannot be written: a read-only file system, or no permission. sled opens a
    /// ledger for writing even to read it, so this comes at open as well as at an append.
    #[error(
        "the ledger {} cannot be written (read-only file system or no permission); make it \
         writable and run the command again, or copy the directory somewhere writable to read it",
        path.display()
    )]
    ReadOnly {
        /// The ledger's path.
        path: PathBuf,
        /// The engine's error.
        #[source]
        source: std::io::Error,
    },
    /// The disk holding the ledger is full (or a quota is reached).
    #[error(
        "no space left for the ledger {}; free disk space and run the command again (the \
         events the ledger acknowledged are kept)",
        path.display()
    )]
    Full {
        /// The ledger's path.
        path: PathBuf,
        /// The engine's error.
        #[source]
        source: std::io::Error,
    },
    /// The storage engine failed.
    #[error("storage error {context}")]
    Storage {
        /// What was being done, and where.
        context: String,
        /// The engine's error.
        #[source]
        source: std::io::Error,
    },
    /// The storage engine panicked on the stored bytes (sled 0.34 does, on some damaged files).
    #[error(
        "the ledger {} is damaged: the storage engine failed on it ({message}). Restore the \
         directory from a backup, or import an export of it into a new ledger",
        path.display()
    )]
    EnginePanic {
        /// The ledger's path.
        path: PathBuf,
        /// The engine's panic message.
        message: String,
    },
    /// An earlier append through this handle failed while committing, so what the handle holds
    /// in memory may not match the store: it refuses further appends (the stored bytes are not
    /// known to be damaged; opening the ledger again reads them afresh).
    #[error(
        "an earlier append through this handle failed while committing; open the ledger again"
    )]
    Poisoned,
    /// Stored bytes are not what the ledger writes.
    #[error("{place} of the ledger is corrupt: {detail}")]
    Corrupt {
        /// Which part (a block, a bucket, the head record).
        place: String,
        /// What is wrong.
        detail: String,
    },
    /// A stored event's bytes do not decode.
    #[error("the event at seq {seq} does not decode")]
    Decode {
        /// Its sequence number.
        seq: u64,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// The ledger was written by an older format, whose tree (format 3: blake3) or chain
    /// (formats 1 and 2: over the stored bytes) is hashed otherwise: it is never read as this
    /// format's history, and refusing it writes nothing to it. [`Ledger::upgrade`] rebuilds it.
    #[error(
        "the ledger {} is in format {format}, from before its Merkle tree was SHA-256 (RFC 6962, \
         as every C2SP tlog tool checks it); nothing was written to it. Run `ladder upgrade \
         --ledger {}` to rebuild it in format {} (the old one is kept beside it, unchanged)",
        path.display(),
        path.display(),
        ledger::LEDGER_FORMAT
    )]
    OldFormat {
        /// The ledger's path.
        path: PathBuf,
        /// Its format byte.
        format: u8,
    },
    /// A ledger was to be created at a directory that holds no ledger but other files: it is
    /// refused, and nothing is written there. A ledger is created only at a path that does not
    /// exist or in an empty directory, so that it is made whole (docs/GUARANTEES.md) and never
    /// scatters its files among a user's own.
    #[error(
        "{} is a directory holding other files ({entry}, ...) and no ledger: a ledger is created \
         only at a new path or in an empty directory, so nothing was written there",
        path.display(),
        entry = entry.to_string_lossy()
    )]
    NotALedgerDirectory {
        /// The directory.
        path: PathBuf,
        /// The first entry found in it that no ledger writes.
        entry: std::ffi::OsString,
    },
    /// No ledger is stored at the path (a command that only reads never creates one).
    #[error("there is no ledger at {}", path.display())]
    NoLedger {
        /// The path.
        path: PathBuf,
    },
    /// The store holds less or other than the ledger acknowledged (its head file records the
    /// head): damaged storage, never read as another history. Nothing was written to it.
    #[error(
        "the ledger {} does not hold what it acknowledged: its head file records {expected}, and \
         sled gives {found}. The store was damaged or changed outside ladder; {}. Restore the \
         directory from a backup, or import an export of it (`ladder log --format jsonl` of a \
         good copy) into a new ledger",
        path.display(),
        if *untouched {
            "nothing was written to it"
        } else {
            "sled opened its files in place before the damage was found (they matched their seals, \
             as after damage below the file system, or there was no head file to compare them \
             with), so its recovery may have rewritten them"
        }
    )]
    Damaged {
        /// The ledger's path.
        path: PathBuf,
        /// The head its head file records.
        expected: Head,
        /// What the store holds instead.
        found: String,
        /// True when the damage was found on a copy (or before sled opened anything), so the
        /// ledger's files are exactly as they were; false when the files matched their seals, sled
        /// opened them in place, and only then was the head found missing.
        untouched: bool,
    },
    /// A proof or root was asked of a tree the ledger does not hold (a size beyond the head, an
    /// event outside it, a consistency proof from 0 or backwards).
    #[error("no such proof: {0}")]
    Proof(String),
    /// The ledger's files changed since this build closed them, and a verify found damage: it
    /// refuses writes, so a new chain is never built on a damaged one.
    #[error(
        "the ledger {} is damaged ({detail}); it refuses writes. Run `ladder verify --ledger {}` \
         for the first bad event, and restore the directory from a backup or import an export \
         of a good copy into a new ledger",
        path.display(),
        path.display()
    )]
    Unverified {
        /// The ledger's path.
        path: PathBuf,
        /// What verify found.
        detail: String,
    },
    /// A stored event is missing.
    #[error("the event at seq {seq} is missing (the head is {head})")]
    Missing {
        /// Its sequence number.
        seq: u64,
        /// The committed head.
        head: u64,
    },
}

/// Why an append wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppendError {
    /// Input event `index` (from 0, in input order) breaks a rule; nothing of the batch is stored.
    #[error("input event {index} is refused: {violation}")]
    Refused {
        /// Its index in the input.
        index: usize,
        /// The rule and what broke it.
        violation: Violation,
    },
    /// The storage failed before the commit point; nothing of the batch is stored.
    #[error(transparent)]
    Storage(#[from] LogError),
    /// The storage failed at the commit point (writing or flushing the new head): the batch was
    /// not acknowledged, and whether it is stored is known only after opening the ledger again.
    /// It is stored whole or not at all; re-running an import of events with ids is safe.
    #[error(
        "the append was not confirmed (the storage failed while committing it): open the ledger \
         again and check its head; re-running the same import is safe, stored events with ids \
         are skipped as duplicates"
    )]
    Unconfirmed(#[source] LogError),
}

impl LogError {
    /// The error for an engine failure at `path` while doing `what`: a read-only file system or
    /// a refused permission is [`LogError::ReadOnly`], a full disk or quota [`LogError::Full`],
    /// anything else [`LogError::Storage`]. Every [`Store`] reports io failures through this.
    pub fn from_io(
        path: &std::path::Path,
        what: impl fmt::Display,
        source: std::io::Error,
    ) -> Self {
        use std::io::ErrorKind;
        let path = path.to_path_buf();
        match source.kind() {
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                LogError::ReadOnly { path, source }
            }
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => LogError::Full { path, source },
            _ => LogError::Storage { context: format!("{what} in {}", path.display()), source },
        }
    }
}

/// Why verification failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The chain is broken first at `seq`.
    #[error("the chain is broken at seq {seq}: {reason}")]
    Broken {
        /// The first bad sequence number.
        seq: u64,
        /// What is wrong there.
        reason: String,
    },
    /// An index or a checkpoint disagrees with the events.
    #[error("{what} disagrees with the events: {detail}")]
    Index {
        /// Which index or checkpoint.
        what: String,
        /// How.
        detail: String,
    },
    /// The ledger no longer holds the expected head.
    #[error("the ledger does not hold the expected head {expected}; its head is {actual}")]
    HeadMissing {
        /// The head asked for.
        expected: Head,
        /// The ledger's (intact) head.
        actual: Head,
    },
    /// The storage failed.
    #[error(transparent)]
    Storage(#[from] LogError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_displays_and_parses() {
        let h = Head { seq: 42, hash: [0xab; 32] };
        let s = h.to_string();
        assert_eq!(s, format!("42:{}", "ab".repeat(32)));
        assert_eq!(Head::parse(&s).unwrap(), h);
        assert_eq!(Head::parse(&s.to_uppercase()).unwrap(), h);
        assert_eq!(Head::EMPTY.to_string(), format!("0:{}", "0".repeat(64)));
        for bad in [
            "",
            "42",
            "x:00",
            "42:abc",
            &format!("42:{}", "g".repeat(64)),
            &format!("-1:{}", "0".repeat(64)),
        ] {
            assert!(Head::parse(bad).is_err(), "{bad:?} parsed");
        }
        assert!(Head::parse(&format!("1:{}é", "0".repeat(62))).is_err());
    }
}
