//! The ledger: opening (and discarding crash leftovers), reading, verifying, the indexes kept in
//! memory, checkpoints, and the tail merge. Appending is in `append.rs`.

use crate::block::{self, key, seq_of_key, Block, MAX_BLOCK_BYTES, MAX_BLOCK_EVENTS};
use crate::headfile;
use crate::index::{self, decode_facts, visit_facts, FactRef, Names, FACTS_FORMAT};
use crate::store::{InjectedFaults, MemStore, SledStore, Store, Tree, Value, Write};
use crate::tree;
use crate::{Head, LogError, StoredEvent, GENESIS};
use ladder_events::{codec, Body, Event};
use ladder_proof::Frontier;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key of the head record (sequence number, big-endian, then the chain hash) in the
/// [`Tree::Meta`](crate::Tree::Meta) tree: part of the stored format, public for tests that
/// tamper with a ledger's files.
pub const META_HEAD: &[u8] = b"head";
/// The key of the ledger format's number in the meta tree.
pub(crate) const META_FORMAT: &[u8] = b"format";
/// The ledger format this build writes and reads: 4 since the Merkle tree is RFC 6962's with
/// SHA-256 (the tree of every C2SP tlog tool), the chain still blake3 over each event's canonical
/// JSON line (docs/proofs.md). Format 3 had the same chain and a blake3 tree; formats 1 and 2
/// chained the stored codec bytes. They are read only by [`Ledger::upgrade`], which rebuilds the
/// ledger in format 4: a ledger of an older format is never read as this one.
pub const LEDGER_FORMAT: u8 = 4;
/// Formats [`Ledger::upgrade`] reads: 1 (one id bucket set) and 2 (id runs), both hashing the
/// stored codec bytes; 3 (the chain over JSON lines, a blake3 tree).
pub(crate) const LEGACY_FORMATS: [u8; 3] = [1, 2, 3];

/// Trailing blocks smaller than this (in events, or half the byte cap) are the tail.
const SMALL_BLOCK_EVENTS: u32 = (MAX_BLOCK_EVENTS / 2) as u32;
/// The tail is merged when it has this many blocks (or facts chunks).
pub(crate) const TAIL_MERGE: usize = 16;
/// Facts chunks are written once they reach this many bytes.
pub(crate) const FACTS_CHUNK_BYTES: usize = 64 << 10;
const SMALL_FACTS_BYTES: usize = FACTS_CHUNK_BYTES / 4;

/// A replay checkpoint: its key, the head it was computed at, and its bytes.
pub type Checkpoint = (Vec<u8>, Head, Vec<u8>);

/// The format byte of a stored checkpoint's envelope.
const CHECKPOINT_FORMAT: u8 = 1;
/// Envelope bytes before the checkpoint's own: format, head seq, head hash, self hash.
const CHECKPOINT_HEADER: usize = 1 + 8 + 32 + 32;

/// The stored form of a checkpoint: format byte, the head (seq big-endian, hash), then
/// `blake3(key || head || bytes)`, then the bytes. The hash binds the bytes to their key and head,
/// so a checkpoint moved under another key, or edited, is refused.
fn checkpoint_envelope(key: &[u8], at: Head, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(CHECKPOINT_HEADER + bytes.len());
    out.push(CHECKPOINT_FORMAT);
    out.extend_from_slice(&head_bytes(&at));
    out.extend_from_slice(&checkpoint_hash(key, &out[1..41], bytes));
    out.extend_from_slice(bytes);
    out
}

fn checkpoint_hash(key: &[u8], head: &[u8], bytes: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&(key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(head);
    h.update(bytes);
    *h.finalize().as_bytes()
}

/// Opens a stored checkpoint: its head and bytes, after checking its hash.
fn open_checkpoint<'v>(key: &[u8], value: &'v [u8]) -> Result<(Head, &'v [u8]), LogError> {
    let bad = |detail: String| LogError::Corrupt {
        place: format!("the checkpoint {}", ladder_proof::hex(key)),
        detail,
    };
    if value.len() < CHECKPOINT_HEADER || value[0] != CHECKPOINT_FORMAT {
        return Err(bad(format!(
            "{} bytes, format {:?}: not a checkpoint this build wrote",
            value.len(),
            value.first()
        )));
    }
    let head = parse_head(&value[1..41])?;
    let bytes = &value[CHECKPOINT_HEADER..];
    if checkpoint_hash(key, &value[1..41], bytes)[..] != value[41..73] {
        return Err(bad(
            "its bytes do not match its hash (edited, or moved from another key)".into()
        ));
    }
    Ok((head, bytes))
}

/// An open ledger. See the crate documentation for the design.
///
/// Invariants: `head` is the committed head; the `events` tree holds exactly the blocks of seqs
/// `1..=head.seq` (an append in progress may add blocks beyond it); `voids` and `ticks` hold every
/// void and tick at or before the head, and `players`, once loaded, every join (see
/// [`Ledger::players`]).
pub struct Ledger {
    pub(crate) store: Box<dyn Store>,
    path: Option<PathBuf>,
    pub(crate) head: Head,
    /// Player name → seq of their PlayerJoined: loaded on first use ([`Ledger::players`]; every
    /// append and verify uses it, a replay does not). Opening checks every facts chunk whole, so
    /// a damaged one is refused at open as before; only the map is left for later.
    pub(crate) players: std::sync::OnceLock<Names>,
    /// Voided match id → seq of the MatchVoided.
    pub(crate) voids: HashMap<String, u64>,
    /// UTC day → seq of its MidnightTick.
    pub(crate) ticks: HashMap<i64, u64>,
    /// The trailing small blocks: (first seq, events, bytes).
    pub(crate) tail_blocks: Vec<(u64, u32, usize)>,
    /// The trailing small facts chunks: (key seq, bytes).
    pub(crate) tail_facts: Vec<(u64, usize)>,
    /// Set when a storage error struck between the first write of a commit and its end: the state
    /// on disk is unknown until the ledger is opened again.
    pub(crate) poisoned: std::sync::atomic::AtomicBool,
    /// Set while an append is staged or durable and not yet published ([`Ledger::stage`]): no
    /// other append may start from the same head.
    pub(crate) writing: std::sync::atomic::AtomicBool,
    /// The idempotency index's Bloom filter and the bucket reads made without one, kept from
    /// one append to the next ([`crate::append`]): lent to each append and given back when it
    /// is published or refused.
    pub(crate) id_filter: std::sync::Mutex<crate::index::IdFilter>,
    /// An append merges its id fingerprints into the on-disk index when this many are pending
    /// ([`crate::append::ID_SPILL`]; smaller in tests, to exercise the spills).
    pub(crate) id_spill: usize,
    /// Ids of committed events not yet in the on-disk index ([`crate::recent`]): filled by
    /// commits while deferral is on, and by opening a store that holds such ids.
    pub(crate) recent: crate::recent::RecentIds,
    /// With deferral on ([`Ledger::defer_id_index`]), the most events since the last spill of
    /// ids whose ids are left in `recent`; 0: every commit writes its ids to the index.
    pub(crate) defer_ids: u64,
    /// With [`Ledger::hand_out_leaves`]: each append keeps the leaf hash and canonical line of
    /// every event it writes, for its caller ([`crate::Durable::take_leaves`]).
    pub(crate) hand_leaves: bool,
    /// The stored format byte ([`LEDGER_FORMAT`], or a legacy one for [`Ledger::upgrade`]).
    pub(crate) format: u8,
    /// The Merkle tree through the head, once something asked for it.
    pub(crate) frontier: Option<Frontier>,
    /// For a ledger on disk: its directory, lock and head file.
    pub(crate) disk: Option<Disk>,
}

/// What a ledger on disk keeps besides its store.
pub(crate) struct Disk {
    dir: PathBuf,
    /// Held while the ledger is open: no other process reads or writes the head file meanwhile.
    _lock: std::fs::File,
    /// True when its files did not match their seals, so a copy was opened first.
    checked_on_copy: bool,
    /// For a reader ([`Ledger::open_existing`]) of such a ledger, the copy sled reads instead of
    /// the ledger's files, removed on close.
    copy: Option<headfile::TempCopy>,
    /// True until a whole verify passes, for a ledger opened through a copy: what changed its
    /// files may have damaged events the open did not read, so it takes no write before a
    /// verify, and it is not sealed on close (the next open goes through a copy again).
    unverified: std::sync::atomic::AtomicBool,
    /// The head file in the slot layout, open since this handle's first commit (`headfile.rs`).
    slots: std::sync::Mutex<Option<headfile::SlotWriter>>,
    /// sled's log file (`db`), open since this handle's first commit, synced by each commit
    /// before the head file ([`Disk::commit`]).
    sled_log: std::sync::Mutex<SledFiles>,
}

impl Disk {
    /// Writes the head file in the text layout, atomically: `head`, and the seals of the files
    /// (empty while they are open). What opening and closing write.
    pub(crate) fn record(&self, head: Head, seals: Vec<headfile::Seal>) -> Result<(), LogError> {
        // The file is replaced: a slot writer would go on writing the old one.
        *self.slots.lock().unwrap_or_else(|p| p.into_inner()) = None;
        headfile::write(&self.dir, &headfile::Recorded { format: LEDGER_FORMAT, head, seals })
    }

    /// Records a commit's head, durably, after the store's flush: the first commit of a handle
    /// replaces the head file by one in the slot layout, each later one rewrites one slot in
    /// place (one write and one `fdatasync`).
    ///
    /// Before the slot, sled's log file is synced with `fdatasync`: sled 0.34's `flush` writes its
    /// log with `sync_file_range` on Linux, which makes neither the file's length nor its block
    /// map durable, so a commit that grew the log could lose its end to a power cut after the
    /// head file named it (a store behind its head file: refused, the acknowledged events
    /// lost). The old atomic rewrite of the head file hid this: its `fsync` of a new file
    /// committed the file system's journal, sled's metadata with it; a slot's `fdatasync` of an
    /// unchanged length does not.
    pub(crate) fn commit(&self, head: Head) -> Result<(), LogError> {
        self.sync_sled_log()?;
        let recorded = headfile::Recorded { format: LEDGER_FORMAT, head, seals: Vec::new() };
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        match slots.as_mut() {
            Some(w) => w.write(&recorded),
            None => {
                *slots = Some(headfile::SlotWriter::create(&self.dir, &recorded)?);
                Ok(())
            }
        }
    }
}

/// sled's files a commit syncs ([`Disk::commit`]), open since this handle's first commit.
#[derive(Default)]
pub(crate) struct SledFiles {
    /// sled's log file, `db`.
    log: Option<std::fs::File>,
    /// The names of the files in `blobs/` synced so far (those still there).
    blobs: std::collections::BTreeSet<String>,
    /// True once `blobs/` itself has been synced into the ledger's directory.
    blob_dir_synced: bool,
}

impl Disk {
    /// Syncs sled's blob files not synced yet, then `fdatasync`s sled's log file (see
    /// [`Disk::commit`]).
    ///
    /// sled 0.34 writes a log message larger than a quarter of its segment (512 KiB) to a file
    /// of its own, `blobs/LSN`, and its flush syncs neither that file nor the directory's new
    /// entry: only its log. A ledger makes such messages (a leaf of sled's tree holding two or
    /// more facts chunks of up to 64 KiB, written whole when sled rewrites it), so a crash after
    /// the head file named a commit could lose a blob its log points to (docs/GUARANTEES.md,
    /// promise 3). Each commit lists `blobs/` (one directory read) and syncs every file it has
    /// not synced, then the directory when one was new.
    fn sync_sled_log(&self) -> Result<(), LogError> {
        let mut files = self.sled_log.lock().unwrap_or_else(|p| p.into_inner());
        self.sync_blobs(&mut files)?;
        let path = self.dir.join("db");
        let io = |what: &str, e| LogError::from_io(&path, what, e);
        let log = &mut files.log;
        let file = match log.take() {
            Some(f) => f,
            // Write access only for the platforms whose sync needs it; nothing writes through it.
            None => std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(|e| io("opening sled's log to sync it", e))?,
        };
        file.sync_data().map_err(|e| io("syncing sled's log", e))?;
        *log = Some(file);
        Ok(())
    }

    /// The blob part of [`Disk::sync_sled_log`].
    fn sync_blobs(&self, files: &mut SledFiles) -> Result<(), LogError> {
        let dir = self.dir.join("blobs");
        let io = |path: &Path, what: &str, e| LogError::from_io(path, what, e);
        let listing = match std::fs::read_dir(&dir) {
            Ok(l) => l,
            // sled makes the directory at open; without it there is no blob to sync.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io(&dir, "listing sled's blob files", e)),
        };
        let mut present = std::collections::BTreeSet::new();
        let mut new = false;
        for entry in listing {
            let entry = entry.map_err(|e| io(&dir, "listing sled's blob files", e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !files.blobs.contains(&name) {
                let path = entry.path();
                let file = match std::fs::File::open(&path) {
                    Ok(f) => f,
                    // sled's own threads remove a blob file once no page refers to it any more:
                    // listed a moment ago, gone now, it holds nothing a commit needs.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(io(&path, "opening a blob file", e)),
                };
                file.sync_all().map_err(|e| io(&path, "syncing a blob file", e))?;
                new = true;
            }
            present.insert(name);
        }
        if new {
            sync_dir(&dir)?;
        }
        if !files.blob_dir_synced {
            sync_dir(&self.dir)?;
            files.blob_dir_synced = true;
        }
        files.blobs = present;
        Ok(())
    }

    /// The blob files synced so far ([`Ledger::synced_blob_files`]).
    fn synced_blobs(&self) -> Vec<String> {
        self.sled_log.lock().unwrap_or_else(|p| p.into_inner()).blobs.iter().cloned().collect()
    }
}

/// `fsync` of a directory: its entries (new files) made durable.
fn sync_dir(dir: &Path) -> Result<(), LogError> {
    #[cfg(unix)]
    {
        let d = std::fs::File::open(dir)
            .map_err(|e| LogError::from_io(dir, "opening a directory to sync it", e))?;
        d.sync_all().map_err(|e| LogError::from_io(dir, "syncing a directory", e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// An error and every source under it, `: `-separated, for a message that names the cause.
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// Takes the ledger directory's lock file, retrying for up to [`crate::LOCK_RETRY`] (this
/// process's own earlier handle may still be closing): another process holding it is
/// [`LogError::Locked`].
pub(crate) fn lock_dir(path: &Path) -> Result<std::fs::File, LogError> {
    use fs2::FileExt;
    let lock_path = path.join(headfile::LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| LogError::from_io(path, "opening the lock file", e))?;
    let start = std::time::Instant::now();
    loop {
        match file.try_lock_exclusive() {
            Ok(()) => return Ok(file),
            Err(_) if start.elapsed() < crate::LOCK_RETRY => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(_) => return Err(LogError::Locked { path: path.to_path_buf() }),
        }
    }
}

impl Drop for Ledger {
    /// Closes sled, then seals its files in the head file, so the next open finds them as this
    /// build left them. A handle whose store failed leaves the head file as it is.
    fn drop(&mut self) {
        if self.disk.is_none() {
            return;
        }
        if self.poisoned.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        // Ids this handle's commits left in memory ([`Ledger::defer_id_index`]) go to the index
        // first ([`crate::recent`]), so a ledger closed cleanly has them all there: best effort,
        // since a handle that cannot write them leaves the mark where it was, and the next open
        // reads them from the events again. A handle that did not defer (a reader) writes
        // nothing.
        if self.defer_ids > 0 && !self.store.is_spent() {
            let _ = self.spill_recent();
        }
        let Some(disk) = self.disk.take() else { return };
        let store = std::mem::replace(&mut self.store, Box::new(MemStore::new()));
        let spent = store.is_spent();
        drop(store);
        if spent {
            return;
        }
        let unverified = disk.unverified.load(std::sync::atomic::Ordering::Relaxed);
        if disk.copy.is_some() && unverified {
            // Read from a copy and not verified: the ledger's files and head file stay as they
            // were (the next open checks them on a copy again).
        } else if unverified {
            // Not sealed: the next open checks it on a copy again, and writes wait for a verify.
            let _ = disk.record(self.head, Vec::new());
        } else if let Ok(seals) = headfile::seals(&disk.dir) {
            // Verified (on the copy, whose bytes are the ledger's untouched files), or closed
            // cleanly: sealed as they are.
            let _ = disk.record(self.head, seals);
        }
    }
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).field("head", &self.head).finish()
    }
}

pub(crate) fn head_bytes(head: &Head) -> [u8; 40] {
    let mut out = [0; 40];
    out[..8].copy_from_slice(&head.seq.to_be_bytes());
    out[8..].copy_from_slice(&head.hash);
    out
}

fn parse_head(bytes: &[u8]) -> Result<Head, LogError> {
    let bad = || LogError::Corrupt {
        place: "the head record".into(),
        detail: format!("{} bytes, not 40", bytes.len()),
    };
    let (seq, hash) = bytes.split_first_chunk::<8>().ok_or_else(bad)?;
    let hash: [u8; 32] = hash.try_into().map_err(|_| bad())?;
    Ok(Head { seq: u64::from_be_bytes(*seq), hash })
}

pub(crate) fn is_small_block(count: u32, bytes: usize) -> bool {
    count < SMALL_BLOCK_EVENTS && bytes < MAX_BLOCK_BYTES / 2
}

pub(crate) fn is_small_facts(bytes: usize) -> bool {
    bytes < SMALL_FACTS_BYTES
}

/// Refuses a ledger directory holding anything but regular files and directories (a FIFO, a
/// socket, a device, a symbolic link): sled would hang opening a FIFO, and a link would let writes
/// land outside the ledger. Reads only metadata.
pub(crate) fn refuse_special_files(dir: &Path) -> Result<(), LogError> {
    let io = |e| LogError::from_io(dir, "reading the ledger directory", e);
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() {
            refuse_special_files(&entry.path())?;
        } else if !kind.is_file() {
            let what = if kind.is_symlink() { "a symbolic link" } else { "not a regular file" };
            return Err(LogError::Corrupt {
                place: format!("the ledger {}", dir.display()),
                detail: format!(
                    "{} is {what} (a FIFO, socket, device or link where sled keeps a file); \
                     nothing was opened or written. Put the ledger's own files back, from a \
                     backup if need be",
                    entry.path().display()
                ),
            });
        }
    }
    Ok(())
}

/// Refuses, writing nothing, a ledger of a format other than [`LEDGER_FORMAT`]: by its head file
/// when it has one (format 3 and later), else (a ledger from before format 3, or one that lost its
/// head file) by opening a copy of it.
fn refuse_other_format(path: &Path) -> Result<(), LogError> {
    match headfile::read(path)? {
        Some(rec) if rec.format == LEDGER_FORMAT => Ok(()),
        Some(rec) => Err(other_format(path, rec.format)),
        None => {
            let copy = headfile::copy_to_temp(path)?;
            let opened = SledStore::open(copy.path())
                .and_then(|store| Ledger::with_store_any_format(Box::new(store), None));
            let l = match opened {
                Ok(l) => l,
                Err(e @ (LogError::Corrupt { .. } | LogError::OldFormat { .. })) => return Err(e),
                Err(e) => {
                    return Err(LogError::Damaged {
                        path: path.to_path_buf(),
                        expected: Head::EMPTY,
                        found: format!("a store that does not open ({})", with_sources(&e)),
                        untouched: true,
                    })
                }
            };
            if l.format != LEDGER_FORMAT {
                return Err(other_format(path, l.format));
            }
            if l.head.seq > 0 {
                return Err(LogError::Damaged {
                    path: path.to_path_buf(),
                    expected: Head::EMPTY,
                    found: format!(
                        "a store of {} events but no head file ({}): it was removed, or the \
                         ledger was copied without it",
                        l.head.seq,
                        headfile::HEAD_FILE
                    ),
                    untouched: true,
                });
            }
            Ok(())
        }
    }
}

/// The error for a ledger of format `format`: [`LogError::OldFormat`] for one [`Ledger::upgrade`]
/// reads, [`LogError::Corrupt`] for any other.
pub(crate) fn other_format(path: &Path, format: u8) -> LogError {
    if LEGACY_FORMATS.contains(&format) {
        LogError::OldFormat { path: path.to_path_buf(), format }
    } else {
        LogError::Corrupt {
            place: format!("the ledger {}", path.display()),
            detail: format!("unknown ledger format {format} (this build reads {LEDGER_FORMAT})"),
        }
    }
}

impl Ledger {
    /// Opens (creating if needed) the sled ledger at `path`, discarding anything a crashed append
    /// left beyond the committed head. Another process holding it is [`LogError::Locked`] at once.
    /// A store that holds less or other than its head file records is [`LogError::Damaged`], and
    /// is left as it was (see `headfile.rs`).
    pub fn open(path: impl AsRef<Path>) -> Result<Ledger, LogError> {
        Ledger::open_at(path.as_ref(), true, |s| Box::new(s))
    }

    /// [`Ledger::open`] with the sled store wrapped by `wrap` before the ledger uses it: how fault
    /// tests inject storage failures below the ledger, on every machine, without privileges.
    pub fn open_with(
        path: impl AsRef<Path>,
        wrap: impl FnOnce(SledStore) -> Box<dyn Store>,
    ) -> Result<Ledger, LogError> {
        Ledger::open_at(path.as_ref(), true, wrap)
    }

    /// Opens the sled ledger at `path` as [`Ledger::open`] does, but never creates one: a path
    /// holding no ledger is [`LogError::NoLedger`] and nothing is written there. What commands that
    /// only read use.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Ledger, LogError> {
        Ledger::open_at(path.as_ref(), false, |s| Box::new(s))
    }

    /// [`Ledger::open`] with storage faults injected below the sled store ([`InjectedFaults`]):
    /// how tests reach the store's own failure handling on every machine.
    pub fn open_injected(
        path: impl AsRef<Path>,
        faults: InjectedFaults,
    ) -> Result<Ledger, LogError> {
        Ledger::open_at_with(path.as_ref(), true, Some(faults), |s| Box::new(s))
    }

    fn open_at(
        path: &Path,
        create: bool,
        wrap: impl FnOnce(SledStore) -> Box<dyn Store>,
    ) -> Result<Ledger, LogError> {
        Ledger::open_at_with(path, create, None, wrap)
    }

    fn open_at_with(
        path: &Path,
        create: bool,
        faults: Option<InjectedFaults>,
        wrap: impl FnOnce(SledStore) -> Box<dyn Store>,
    ) -> Result<Ledger, LogError> {
        if let Some(free) = faults.and_then(|f| f.free_space) {
            // The free-space check comes before anything is created or read.
            crate::store::check_free_space_of(path, free)?;
        }
        let mut has_store = path.join("conf").is_file() || path.join("db").is_file();
        if path.is_dir() {
            if !has_store && !path.join("conf").exists() && !path.join("db").exists() {
                // A user's directory, not a ledger: refused before anything in it is read
                // further (never walked, never written).
                if create {
                    crate::create::target(path)?;
                } else if crate::create::foreign_entry(path)?.is_some() {
                    return Err(LogError::NoLedger { path: path.to_path_buf() });
                }
            }
            // Before anything opens a file: sled would hang on a FIFO, block on a device.
            refuse_special_files(path)?;
        }
        if !has_store && !create {
            return Err(LogError::NoLedger { path: path.to_path_buf() });
        }
        // A new ledger is built beside the path and renamed into place whole (`create.rs`); its
        // lock, still held, is the one this open takes.
        let mut held = None;
        if create {
            crate::create::remove_abandoned(path);
            if !has_store && matches!(crate::create::target(path)?, crate::create::Target::Fresh) {
                held = crate::create::create_whole(path, faults)?;
                has_store = true;
            }
        }
        if has_store {
            // Before the lock file or sled touch anything: a ledger of another format is refused
            // with its files exactly as they were.
            refuse_other_format(path)?;
        }
        if create {
            std::fs::create_dir_all(path)
                .map_err(|e| LogError::from_io(path, "creating the ledger directory", e))?;
        }
        let lock = match held {
            Some(lock) => lock,
            None => lock_dir(path)?,
        };
        let recorded = headfile::read(path)?;
        let mut checked_on_copy = false;
        let mut kept_copy = None;
        if let Some(rec) = &recorded {
            if rec.seals.is_empty() || headfile::seals(path)? != rec.seals {
                checked_on_copy = true;
                // Touched since this build closed it: let sled recover a copy first.
                let copy = headfile::copy_to_temp(path)?;
                let found = SledStore::open(copy.path()).and_then(|store| {
                    let l = Ledger::with_store_any_format(Box::new(store), None)?;
                    l.check_recorded(path, rec.head)?;
                    Ok(())
                });
                match found {
                    // A reader goes on reading the copy: sled's recovery never writes to a
                    // ledger that may be damaged, and every run reads the same bytes.
                    Ok(()) if !create => kept_copy = Some(copy),
                    Ok(()) => {}
                    Err(e @ LogError::Damaged { .. }) => return Err(e),
                    Err(e) => {
                        return Err(LogError::Damaged {
                            path: path.to_path_buf(),
                            expected: rec.head,
                            found: format!("a store that does not open ({})", with_sources(&e)),
                            untouched: true,
                        })
                    }
                }
            }
        }
        // This process holds the directory's lock file: sled's lock can only be held by this
        // process's previous handle, still closing.
        let sled_dir = kept_copy.as_ref().map_or(path, |c: &headfile::TempCopy| c.path());
        let store =
            wrap(SledStore::open_retrying(sled_dir, faults, crate::store::OWN_HANDLE_RETRY)?);
        // Files that match their seals are as this build closed them, with nothing a clean close
        // leaves behind that only a whole scan of the tree nodes finds ([`Ledger::discard_beyond`]).
        let sealed = recorded.as_ref().is_some_and(|r| !r.seals.is_empty()) && !checked_on_copy;
        let mut ledger = Ledger::with_store_scanning(store, Some(path.to_path_buf()), !sealed)?;
        match &recorded {
            // After a check on a copy this passes; opened in place (seals intact), a failure
            // means sled may have written, and the error says so.
            Some(rec) => ledger.check_recorded(path, rec.head).map_err(|e| match e {
                LogError::Damaged { path, expected, found, .. } => {
                    LogError::Damaged { path, expected, found, untouched: checked_on_copy }
                }
                e => e,
            })?,
            None if ledger.head.seq > 0 => {
                return Err(LogError::Damaged {
                    path: path.to_path_buf(),
                    expected: Head::EMPTY,
                    found: format!(
                        "a store of {} events but no head file ({}): it was removed, or the \
                         ledger was copied without it",
                        ledger.head.seq,
                        headfile::HEAD_FILE
                    ),
                    // Opened in place (there were no seals to compare).
                    untouched: false,
                });
            }
            None => {}
        }
        let disk = Disk {
            dir: path.to_path_buf(),
            _lock: lock,
            checked_on_copy,
            copy: kept_copy,
            unverified: std::sync::atomic::AtomicBool::new(checked_on_copy),
            slots: std::sync::Mutex::new(None),
            sled_log: std::sync::Mutex::default(),
        };
        if recorded.as_ref().map(|r| r.head) != Some(ledger.head) {
            disk.record(ledger.head, Vec::new())?;
        }
        ledger.disk = Some(disk);
        Ok(ledger)
    }

    /// Refuses a store that does not hold `expected`: fewer events, or another chain hash at its
    /// seq. A store holding more is a crash after a commit and before its head file was written.
    pub(crate) fn check_recorded(&self, path: &Path, expected: Head) -> Result<(), LogError> {
        let damaged = |found: String| LogError::Damaged {
            path: path.to_path_buf(),
            expected,
            found,
            untouched: true,
        };
        if self.head.seq < expected.seq {
            return Err(damaged(format!("a store whose head is {}", self.head)));
        }
        if expected.seq == 0 {
            return Ok(());
        }
        // The stored chain hash, read without decoding the event (verify reports what is wrong
        // with an event; this only asks whether the chain still reaches the recorded head).
        let mut records = Records::new(self, expected.seq);
        match records.next_record() {
            Some(Ok(r)) if *r.hash == expected.hash => Ok(()),
            Some(Ok(r)) => Err(damaged(format!(
                "a store whose event {} has the chain hash {}",
                expected.seq,
                ladder_proof::hex(r.hash)
            ))),
            None => Err(damaged(format!("a store without event {}", expected.seq))),
            Some(Err(e)) => {
                Err(damaged(format!("a store whose event {} cannot be read ({e})", expected.seq)))
            }
        }
    }

    /// An empty ledger in memory (nothing is durable): for tests and for replaying a file.
    pub fn memory() -> Ledger {
        match Ledger::with_store(Box::new(MemStore::new()), None) {
            Ok(l) => l,
            Err(e) => unreachable!("an empty memory store opens: {e}"),
        }
    }

    /// A ledger over any [`Store`]; `path` is only for messages. A store of an older format is
    /// [`LogError::OldFormat`] (see [`Ledger::upgrade`]).
    pub fn with_store(store: Box<dyn Store>, path: Option<PathBuf>) -> Result<Ledger, LogError> {
        Ledger::with_store_scanning(store, path, true)
    }

    /// [`Ledger::with_store`], scanning every stored tree node for malformed keys only when
    /// `whole_scan` ([`Ledger::discard_beyond`]).
    fn with_store_scanning(
        store: Box<dyn Store>,
        path: Option<PathBuf>,
        whole_scan: bool,
    ) -> Result<Ledger, LogError> {
        let ledger = Ledger::with_store_format(store, path, whole_scan)?;
        if ledger.format != LEDGER_FORMAT {
            return Err(LogError::OldFormat {
                path: ledger.path.clone().unwrap_or_default(),
                format: ledger.format,
            });
        }
        Ok(ledger)
    }

    /// A ledger of this format or a legacy one (read only by [`Ledger::upgrade`]).
    pub(crate) fn with_store_any_format(
        store: Box<dyn Store>,
        path: Option<PathBuf>,
    ) -> Result<Ledger, LogError> {
        Ledger::with_store_format(store, path, true)
    }

    /// [`Ledger::with_store_any_format`], with [`Ledger::discard_beyond`]'s whole scan of the
    /// tree nodes only when `whole_scan`.
    fn with_store_format(
        store: Box<dyn Store>,
        path: Option<PathBuf>,
        whole_scan: bool,
    ) -> Result<Ledger, LogError> {
        let format = match store.get(Tree::Meta, META_FORMAT)? {
            Some(v) if v[..] == [LEDGER_FORMAT] || LEGACY_FORMATS.iter().any(|f| v[..] == [*f]) => {
                v[0]
            }
            Some(v) => {
                return Err(LogError::Corrupt {
                    place: "the format record".into(),
                    detail: format!(
                        "unknown ledger format {:?} (this build reads {LEDGER_FORMAT})",
                        &v[..]
                    ),
                })
            }
            None if store.get(Tree::Meta, META_HEAD)?.is_some() => {
                return Err(LogError::Corrupt {
                    place: "the format record".into(),
                    detail: "missing, although the ledger has a head".into(),
                })
            }
            None => {
                store.insert(Tree::Meta, META_FORMAT, &[LEDGER_FORMAT])?;
                LEDGER_FORMAT
            }
        };
        let head = match store.get(Tree::Meta, META_HEAD)? {
            Some(v) => parse_head(&v)?,
            None => Head::EMPTY,
        };
        let mut ledger = Ledger {
            store,
            path,
            head,
            players: std::sync::OnceLock::new(),
            voids: HashMap::new(),
            ticks: HashMap::new(),
            tail_blocks: Vec::new(),
            tail_facts: Vec::new(),
            poisoned: std::sync::atomic::AtomicBool::new(false),
            writing: std::sync::atomic::AtomicBool::new(false),
            id_filter: std::sync::Mutex::default(),
            id_spill: crate::append::ID_SPILL,
            recent: crate::recent::RecentIds::new(head.seq),
            defer_ids: 0,
            hand_leaves: false,
            format,
            frontier: None,
            disk: None,
        };
        if ledger.discard_beyond(head.seq, whole_scan)? > 0 {
            ledger.store.flush()?;
        }
        ledger.load_facts()?;
        ledger.load_tail_blocks()?;
        ledger.load_recent_ids()?;
        Ok(ledger)
    }

    /// Reads the ids of the events after the id index's mark ([`crate::recent`]) into memory,
    /// when the store has one: what a commit that deferred them left out of the on-disk index.
    fn load_recent_ids(&mut self) -> Result<(), LogError> {
        let Some(v) = self.store.get(Tree::Meta, crate::recent::META_IDS_THROUGH)? else {
            return Ok(());
        };
        let through = crate::recent::parse_through(&v, self.head.seq)?;
        let mut recent = crate::recent::RecentIds::new(through);
        recent.keyed = true;
        if through < self.head.seq {
            for e in self.events(through + 1) {
                let e = e?;
                if let Some(id) = &e.event.id {
                    recent.insert(index::fingerprint(id), e.seq);
                }
            }
        }
        self.recent = recent;
        Ok(())
    }

    /// Lets commits leave their ids out of the on-disk idempotency index, in memory, until
    /// `events` events were committed since the last time they were written (then one commit
    /// writes them all); 0 turns it off (the default: every commit writes its ids). For a
    /// server committing many small groups (`ladder serve`): a small commit then writes no
    /// index bucket. Every id is still found by every lookup, after a crash too: the store
    /// records where the index ends, in the commit's own flush, and opening reads the ids of
    /// the events after that again ([`crate::recent`]).
    pub fn defer_id_index(&mut self, events: u64) {
        self.defer_ids = events;
    }

    /// Makes each append keep, for its caller, the leaf hash (SHA-256 of `0x00 || line`, RFC
    /// 6962) and the canonical JSON line of every event it writes, which it computes anyway for
    /// the Merkle tree and the chain ([`crate::Durable::take_leaves`]). A server that keeps its
    /// log's level-0 tiles on disk ([`crate::LeafFile::put_tile`]) then writes each new tile
    /// from them instead of reading back, writing out and hashing again the events just
    /// appended (`ladder serve`). Off by default: the copy costs a little memory per append.
    pub fn hand_out_leaves(&mut self, on: bool) {
        self.hand_leaves = on;
    }

    /// Removes every block and facts chunk with a key beyond `seq`, and every stored tree node
    /// whose leaves reach beyond `seq` or whose key is not a node key; returns how many.
    ///
    /// The nodes beyond `seq` are found by one range scan per level (the key is the level byte,
    /// then the index big-endian, so a level's nodes beyond `seq` are the end of its range), and
    /// keys of a level byte of 64 or more by one range scan from there: an open reads only what it
    /// removes, not the whole tree (8,592 nodes at 1M events). A malformed key (not 9 bytes) can
    /// sort among the nodes that stay, so only a scan of every node finds it: with `whole_scan`
    /// the whole tree is scanned as well. The ledger asks for it whenever its files are not as
    /// this build sealed them when it last closed them (a crash, a copy, damage, no head file):
    /// every open since this change, and every open before it, removed any malformed key, and
    /// this build writes none, so files that still match their seals hold none.
    pub(crate) fn discard_beyond(&self, seq: u64, whole_scan: bool) -> Result<usize, LogError> {
        let mut n = 0;
        for tree in [Tree::Events, Tree::Facts] {
            let keys: Vec<Value> = self
                .store
                .scan(tree, &key(seq.saturating_add(1)))
                .map(|r| r.map(|(k, _)| k))
                .collect::<Result<_, _>>()?;
            for k in keys {
                self.store.remove(tree, &k)?;
                n += 1;
            }
        }
        // Subtree hashes whose leaves reach beyond `seq`: at `level`, index `i` covers leaves
        // through `(i + 1) << level`, which reaches beyond `seq` exactly when `i >= seq >> level`.
        let mut beyond = Vec::new();
        if whole_scan {
            for entry in self.store.scan(Tree::Nodes, &[]) {
                let (k, _) = entry?;
                match tree::parse_node_key(&k) {
                    Some((level, index)) if level < 64 && index < seq >> level => {}
                    _ => beyond.push(k),
                }
            }
        } else {
            for level in 0..64u32 {
                for entry in self.store.scan(Tree::Nodes, &tree::node_key(level, seq >> level)) {
                    let (k, _) = entry?;
                    if k.first() != Some(&(level as u8)) {
                        break;
                    }
                    beyond.push(k);
                }
            }
            // Level bytes of 64 and more name no node.
            for entry in self.store.scan(Tree::Nodes, &[64]) {
                beyond.push(entry?.0);
            }
        }
        for k in beyond {
            self.store.remove(Tree::Nodes, &k)?;
            n += 1;
        }
        Ok(n)
    }

    fn load_facts(&mut self) -> Result<(), LogError> {
        let mut chunks = Vec::new();
        for entry in self.store.scan(Tree::Facts, &[]) {
            let (k, v) = entry?;
            let kseq = seq_of_key(&k).ok_or_else(|| LogError::Corrupt {
                place: "the facts tree".into(),
                detail: format!("a key of {} bytes, not 8", k.len()),
            })?;
            // Every chunk is checked whole here (as before); joins are only counted into the
            // players index when something asks for it.
            let (voids, ticks) = (&mut self.voids, &mut self.ticks);
            visit_facts(&k, &v, |fact| match fact {
                FactRef::Join { .. } => {}
                FactRef::Void { seq, match_id } => {
                    voids.insert(match_id.to_string(), seq);
                }
                FactRef::Tick { seq, day } => {
                    ticks.insert(day, seq);
                }
            })?;
            chunks.push((kseq, v.len()));
        }
        let small = chunks.iter().rev().take_while(|(_, len)| is_small_facts(*len)).count();
        self.tail_facts = chunks.split_off(chunks.len() - small);
        Ok(())
    }

    /// The players index (player name → seq of their PlayerJoined), read from the facts tree the
    /// first time something asks for it. Opening checked every facts chunk, so what fails here is
    /// the store itself (or a chunk damaged since), with the error opening would have given.
    pub(crate) fn players(&self) -> Result<&Names, LogError> {
        if let Some(players) = self.players.get() {
            return Ok(players);
        }
        let mut players = Names::default();
        for entry in self.store.scan(Tree::Facts, &[]) {
            let (k, v) = entry?;
            visit_facts(&k, &v, |fact| {
                if let FactRef::Join { seq, player } = fact {
                    players.insert(player, seq);
                }
            })?;
        }
        Ok(self.players.get_or_init(|| players))
    }

    fn load_tail_blocks(&mut self) -> Result<(), LogError> {
        let mut at = self.head.seq;
        let mut tail = Vec::new();
        while at > 0 && tail.len() < 4 * TAIL_MERGE {
            let Some((k, v)) = self.store.last_at_or_before(Tree::Events, &key(at))? else {
                break;
            };
            // A corrupt block is verify's to report: opening must still work so it can.
            let Ok(b) = Block::parse(&k, &v) else { break };
            if !is_small_block(b.count, v.len()) {
                break;
            }
            tail.push((b.first, b.count, v.len()));
            at = b.first - 1;
        }
        tail.reverse();
        self.tail_blocks = tail;
        Ok(())
    }

    /// The path given to [`Ledger::open`], if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// True when this ledger's files no longer matched what this build left when it last closed
    /// them (a crash, a copy, a touch), so sled first opened a copy of them to check that they
    /// still hold the recorded head. False for a ledger in memory, or opened in place.
    pub fn was_checked_on_a_copy(&self) -> bool {
        self.disk.as_ref().is_some_and(|d| d.checked_on_copy)
    }

    /// Refuses writes to a ledger opened through a copy (its files changed since this build
    /// closed them: a crash, a copy, or damage) until a whole [`Ledger::verify`] passes, which
    /// it runs now: damage the open did not read must not be extended by a new chain.
    pub(crate) fn check_before_writing(&self) -> Result<(), LogError> {
        let Some(disk) = &self.disk else { return Ok(()) };
        if !disk.unverified.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        match self.verify(None) {
            Ok(_) => Ok(()),
            Err(crate::VerifyError::Storage(e)) => Err(e),
            Err(e) => Err(LogError::Unverified { path: disk.dir.clone(), detail: e.to_string() }),
        }
    }

    /// Marks the ledger verified (a whole verify passed): it takes writes and is sealed on close.
    pub(crate) fn mark_verified(&self) {
        if let Some(disk) = &self.disk {
            disk.unverified.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The ledger's directory, for a ledger on disk (what the folded form sits beside).
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.disk.as_ref().map(|d| d.dir.as_path())
    }

    /// The committed head.
    pub fn head(&self) -> Head {
        self.head
    }

    /// The names of sled's blob files (in the ledger's `blobs/` directory) that this handle's
    /// commits have synced and that are still there: each commit syncs every one it finds before
    /// it records its head (docs/GUARANTEES.md, promise 3). Empty for a ledger in memory. What a
    /// test checks the directory against.
    pub fn synced_blob_files(&self) -> Vec<String> {
        self.disk.as_ref().map(Disk::synced_blobs).unwrap_or_default()
    }

    /// The seq of the MatchVoided that voided match `match_id`, if it is voided. A replay through
    /// seq `n` treats the match as voided when this is `Some(s)` with `s <= n`.
    pub fn voided_at(&self, match_id: &str) -> Option<u64> {
        self.voids.get(match_id).copied()
    }

    /// Every voided match id with the seq of its MatchVoided, in no particular order.
    pub fn voids(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.voids.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// The seq of player `player`'s PlayerJoined, if they joined.
    /// The players index is loaded on the first call (a replay never needs it); a store that
    /// fails to give it is the error.
    pub fn joined_at(&self, player: &str) -> Result<Option<u64>, LogError> {
        Ok(self.players()?.get(player))
    }

    /// The seq of the stored event whose `id` is `id`, if any (the idempotency index).
    pub fn seq_of_id(&self, id: &str) -> Result<Option<u64>, LogError> {
        let fp = index::fingerprint(id);
        for seq in self.recent.candidates(fp) {
            if seq <= self.head.seq
                && self.get(seq)?.is_some_and(|e| e.event.id.as_deref() == Some(id))
            {
                return Ok(Some(seq));
            }
        }
        let mut found = None;
        crate::runs::Runs::load(&*self.store, self.head.seq)?.find(&*self.store, fp, |seq| {
            let hit = self.get(seq)?.is_some_and(|e| e.event.id.as_deref() == Some(id));
            found = hit.then_some(seq);
            Ok(hit)
        })?;
        Ok(found)
    }

    /// The seq of the stored MatchResult whose `id` is `match_id`, if any.
    pub fn match_seq(&self, match_id: &str) -> Result<Option<u64>, LogError> {
        let Some(seq) = self.seq_of_id(match_id)? else { return Ok(None) };
        Ok(match self.get(seq)? {
            Some(StoredEvent { event: Event { body: Body::MatchResult { .. }, .. }, .. }) => {
                Some(seq)
            }
            _ => None,
        })
    }

    /// The stored event at `seq`, or `None` when `seq` is 0 or beyond the head.
    pub fn get(&self, seq: u64) -> Result<Option<StoredEvent>, LogError> {
        if seq == 0 || seq > self.head.seq {
            return Ok(None);
        }
        self.events(seq).next().transpose()
    }

    /// The stored events from `from_seq` (1 if 0) through the head, read block by block.
    pub fn events(&self, from_seq: u64) -> Events<'_> {
        Events(Records::new(self, from_seq.max(1)))
    }

    /// Hands every stored record from `from_seq` (1 if 0) through the head to `visit`, in order,
    /// a block's worth at a time, until it returns `Ok(false)` or an error (returned as is). The
    /// same records as [`Ledger::events`], undecoded and uncopied, and a second thread reads the
    /// blocks from the store ahead of the records handed out, so the store's own work (page
    /// reads, checksums) overlaps `visit`'s: what a replay wants. A damaged or missing block is
    /// the same error, after the same records, as [`Ledger::events`] gives.
    pub fn read_records<E: From<LogError>>(
        &self,
        from_seq: u64,
        mut visit: impl FnMut(&[Record<'_>]) -> Result<bool, E>,
    ) -> Result<(), E> {
        let from = from_seq.max(1);
        if from > self.head.seq {
            return Ok(());
        }
        let start = start_key(self, from)?;
        let store: &dyn Store = &*self.store;
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<_>>(2);
            let head = self.head.seq;
            scope.spawn(move || {
                // Block by block with `get`, each key computed from the block before (blocks
                // are contiguous): cheaper in sled than a range per block, and like it every
                // read counts in sled's cache (see the ADR). A missing block ends the reading,
                // and the reader reports the gap; a damaged one is handed over for the reader
                // to report, and ends it too. Blocks go over in batches: one hand-over per block
                // would cost a thread wake-up per 6 KB.
                let mut batch = Vec::with_capacity(READ_AHEAD);
                let mut key = start;
                loop {
                    let value = match store.get(Tree::Events, &key) {
                        Ok(Some(v)) => v,
                        Ok(None) => break,
                        Err(e) => {
                            batch.push(Err(e));
                            break;
                        }
                    };
                    let k = Value::copy_of(&key);
                    let next = Block::parse(&k, &value).ok().map(|b| b.last() + 1);
                    batch.push(Ok((k, value)));
                    match next {
                        Some(n) if n <= head => key = block::key(n).to_vec(),
                        _ => break,
                    }
                    if batch.len() == READ_AHEAD {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(READ_AHEAD));
                        // The reader hung up (done, or stopped early): stop reading.
                        if tx.send(full).is_err() {
                            return;
                        }
                    }
                }
                let _ = tx.send(batch);
            });
            // Owns the receiving end: returning drops it, which ends the scan thread before the
            // scope waits for it.
            let mut records = Records::empty(self, from);
            records.scan = Some(Box::new(rx.into_iter().flatten()));
            while let Some(batch) = records.next_batch() {
                if !visit(&batch?)? {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Stores a replay checkpoint (opaque bytes) under `key`, durably, bound to the head `at` it
    /// was computed at and to a hash of its own bytes ([`Ledger::checkpoints`] checks both).
    pub fn put_checkpoint(&self, key: &[u8], at: Head, bytes: &[u8]) -> Result<(), LogError> {
        self.store.insert(Tree::Checkpoints, key, &checkpoint_envelope(key, at, bytes))?;
        self.store.flush()
    }

    /// Removes the checkpoint under `key`, durably.
    pub fn remove_checkpoint(&self, key: &[u8]) -> Result<(), LogError> {
        self.store.remove(Tree::Checkpoints, key)?;
        self.store.flush()
    }

    /// Every checkpoint whose key starts with `prefix`, in key order, each with the head it was
    /// computed at. A checkpoint whose bytes do not match its own hash, or whose head is not in the
    /// chain, is [`LogError::Corrupt`]: it is never handed out.
    pub fn checkpoints(&self, prefix: &[u8]) -> Result<Vec<Checkpoint>, LogError> {
        let mut out = Vec::new();
        for entry in self.store.scan(Tree::Checkpoints, prefix) {
            let (k, v) = entry?;
            if !k.starts_with(prefix) {
                break;
            }
            let (at, bytes) = open_checkpoint(&k, &v)?;
            let in_chain = at.seq <= self.head.seq
                && (at.seq == 0 || self.get(at.seq)?.is_some_and(|e| e.hash == at.hash));
            if !in_chain {
                return Err(LogError::Corrupt {
                    place: format!("the checkpoint {}", ladder_proof::hex(&k)),
                    detail: format!("it was computed at {at}, which is not in the chain"),
                });
            }
            out.push((k.to_vec(), at, bytes.to_vec()));
        }
        Ok(out)
    }

    /// Every checkpoint's key and head, each checked against its own hash (for `verify`).
    pub(crate) fn checkpoint_heads(&self) -> Result<Vec<(Vec<u8>, Head)>, LogError> {
        let mut out = Vec::new();
        for entry in self.store.scan(Tree::Checkpoints, &[]) {
            let (k, v) = entry?;
            let (at, _) = open_checkpoint(&k, &v)?;
            out.push((k.to_vec(), at));
        }
        Ok(out)
    }

    /// Bytes the ledger uses on disk (`None` in memory).
    pub fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        self.store.size_on_disk()
    }

    /// True when [`Ledger::merge_tail`] would merge something.
    pub(crate) fn tail_wants_merge(&self) -> bool {
        self.tail_blocks.len() >= TAIL_MERGE || self.tail_facts.len() >= TAIL_MERGE
    }

    /// Merges the tail (the trailing small blocks, and the trailing small facts chunks) once it has
    /// [`TAIL_MERGE`] pieces, each in one small atomic batch. Layout only: content is unchanged.
    pub(crate) fn merge_tail(&mut self) -> Result<(), LogError> {
        if self.tail_blocks.len() >= TAIL_MERGE {
            let mut values = Vec::new();
            for &(first, _, _) in &self.tail_blocks {
                let v = self
                    .store
                    .get(Tree::Events, &key(first))?
                    .ok_or(LogError::Missing { seq: first, head: self.head.seq })?;
                values.push((first, v));
            }
            let mut writes: Vec<Write> = Vec::new();
            let mut groups: Vec<Vec<Block<'_>>> = vec![Vec::new()];
            let (mut count, mut bytes) = (0usize, 0usize);
            for (first, v) in &values {
                let b = Block::parse(&key(*first), v)?;
                if count + b.count as usize > MAX_BLOCK_EVENTS || bytes + v.len() > MAX_BLOCK_BYTES
                {
                    groups.push(Vec::new());
                    (count, bytes) = (0, 0);
                }
                count += b.count as usize;
                bytes += v.len();
                if let Some(g) = groups.last_mut() {
                    g.push(b);
                }
            }
            let mut tail = Vec::new();
            for g in groups.into_iter().filter(|g| !g.is_empty()) {
                let first = g[0].first;
                let count: u32 = g.iter().map(|b| b.count).sum();
                for b in &g[1..] {
                    writes.push((key(b.first).to_vec(), None));
                }
                let merged = block::merge(g);
                if is_small_block(count, merged.len()) {
                    tail.push((first, count, merged.len()));
                } else {
                    tail.clear();
                }
                writes.push((key(first).to_vec(), Some(merged)));
            }
            self.store.apply(Tree::Events, writes)?;
            self.tail_blocks = tail;
        }
        if self.tail_facts.len() >= TAIL_MERGE {
            let mut merged = vec![FACTS_FORMAT];
            let mut writes: Vec<Write> = Vec::new();
            let first = self.tail_facts[0].0;
            for &(k, _) in &self.tail_facts {
                let v = self.store.get(Tree::Facts, &key(k))?.ok_or_else(|| LogError::Corrupt {
                    place: format!("facts chunk {k}"),
                    detail: "missing".into(),
                })?;
                decode_facts(&key(k), &v)?;
                merged.extend_from_slice(&v[1..]);
                if k != first {
                    writes.push((key(k).to_vec(), None));
                }
            }
            let len = merged.len();
            writes.push((key(first).to_vec(), Some(merged)));
            self.store.apply(Tree::Facts, writes)?;
            self.tail_facts = if is_small_facts(len) { vec![(first, len)] } else { Vec::new() };
        }
        Ok(())
    }
}

/// One stored record as [`Ledger::read_records`] lends it: no copy, no decode.
#[derive(Clone, Copy, Debug)]
pub struct Record<'r> {
    /// Its sequence number.
    pub seq: u64,
    /// Its chain hash, as stored.
    pub hash: &'r [u8; 32],
    /// The chain hash of the record before it, as stored ([`GENESIS`] for seq 1).
    pub prev_hash: [u8; 32],
    /// Its encoded bytes ([`ladder_events::codec`]); [`ladder_events::codec::view`] reads them in
    /// place.
    pub bytes: &'r [u8],
}

/// The stored records from a sequence number through the head, read block by block and lent one
/// at a time ([`Records::next_record`], for [`Events`]) or a block at a time
/// ([`Records::next_batch`], for [`Ledger::read_records`]). Stops after the first error (a missing
/// or corrupt block).
pub(crate) struct Records<'a> {
    scan: Option<Box<dyn Iterator<Item = Result<crate::store::Entry, LogError>> + 'a>>,
    head: u64,
    /// The next seq to yield.
    next: u64,
    /// The current block, the offset of the next record in it, and the records left.
    block: Option<(Value, u64, usize, u32)>,
    prev: [u8; 32],
    /// An error met after a batch's records, returned by the next call.
    pending: Option<LogError>,
}

impl<'a> Records<'a> {
    /// The records from `from` through the head.
    pub(crate) fn from_seq(ledger: &'a Ledger, from: u64) -> Records<'a> {
        Records::new(ledger, from)
    }

    fn new(ledger: &'a Ledger, from: u64) -> Records<'a> {
        let mut it = Records::empty(ledger, from);
        if from <= it.head {
            it.scan = Some(match start_key(ledger, from) {
                Ok(start) => ledger.store.scan(Tree::Events, &start),
                Err(e) => Box::new(std::iter::once(Err(e))),
            });
        }
        it
    }

    /// Records from `from` with no scan yet (none at all when `from` is beyond the head).
    fn empty(ledger: &Ledger, from: u64) -> Records<'a> {
        Records {
            scan: None,
            head: ledger.head.seq,
            next: from,
            block: None,
            prev: GENESIS,
            pending: None,
        }
    }

    /// Ends the reading with `e`.
    fn fail<T>(&mut self, e: LogError) -> Option<Result<T, LogError>> {
        self.scan = None;
        self.block = None;
        self.next = u64::MAX;
        Some(Err(e))
    }

    /// Makes `self.block` a block with records left, loading the next one when the current one is
    /// used up. `None` after the head; an error ends the reading.
    fn current_block(&mut self) -> Option<Result<(), LogError>> {
        loop {
            if self.next > self.head {
                return None;
            }
            if let Some((_, _, _, left)) = &self.block {
                if *left > 0 {
                    return Some(Ok(()));
                }
                self.block = None;
            }
            if let Err(e) = self.load_block()? {
                return self.fail(e);
            }
        }
    }

    /// The next record, borrowed from the block it is stored in; `None` after the head or after
    /// an error.
    pub(crate) fn next_record(&mut self) -> Option<Result<Record<'_>, LogError>> {
        if let Err(e) = self.current_block()? {
            return Some(Err(e));
        }
        let Some((v, first, pos, left)) = &mut self.block else { return None };
        let rec_seq = self.next;
        let (hash, bytes, rest) = match block::read_record(*first, rec_seq, &v[*pos..]) {
            Ok(r) => r,
            Err(e) => {
                self.scan = None;
                self.next = u64::MAX;
                return Some(Err(e));
            }
        };
        *pos = v.len() - rest.len();
        *left -= 1;
        let prev_hash = std::mem::replace(&mut self.prev, *hash);
        self.next += 1;
        Some(Ok(Record { seq: rec_seq, hash, prev_hash, bytes }))
    }

    /// The rest of the current block's records (through the head), all borrowed from it, after
    /// loading the next block when the current one is used up: what a reader that works a block
    /// at a time wants. `None` after the head; an error met after some records comes after them,
    /// at the next call, as [`Records::next_record`] would order it.
    pub(crate) fn next_batch(&mut self) -> Option<Result<Vec<Record<'_>>, LogError>> {
        if let Some(e) = self.pending.take() {
            return self.fail(e);
        }
        if let Err(e) = self.current_block()? {
            return Some(Err(e));
        }
        let Some((v, first, pos, left)) = &mut self.block else { return None };
        let end = self.head.min(self.next + u64::from(*left) - 1);
        let mut batch = Vec::with_capacity((end + 1 - self.next) as usize);
        let mut rest = &v[*pos..];
        while self.next <= end {
            match block::read_record(*first, self.next, rest) {
                Ok((hash, bytes, r)) => {
                    let prev_hash = std::mem::replace(&mut self.prev, *hash);
                    batch.push(Record { seq: self.next, hash, prev_hash, bytes });
                    rest = r;
                    self.next += 1;
                }
                Err(e) if batch.is_empty() => {
                    // As `fail` does, field by field (the block is still borrowed).
                    self.scan = None;
                    self.next = u64::MAX;
                    return Some(Err(e));
                }
                Err(e) => {
                    self.pending = Some(e);
                    break;
                }
            }
        }
        *left = 0;
        Some(Ok(batch))
    }

    /// Reads the block holding `self.next` into `self.block`. `None` when the scan has ended.
    fn load_block(&mut self) -> Option<Result<(), LogError>> {
        let (k, v) = match self.scan.as_mut()?.next() {
            Some(Ok(e)) => e,
            Some(Err(e)) => return Some(Err(e)),
            None => return Some(Err(LogError::Missing { seq: self.next, head: self.head })),
        };
        let b = match Block::parse(&k, &v) {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if b.first > self.next || b.last() < self.next {
            return Some(Err(LogError::Missing { seq: self.next, head: self.head }));
        }
        // Skip the records before `next`, keeping the hash of the one just before it.
        let mut prev = b.prev;
        let mut rest = b.body();
        let mut seq = b.first;
        while seq < self.next {
            match block::read_record(b.first, seq, rest) {
                Ok((h, _, r)) => {
                    prev = *h;
                    rest = r;
                }
                Err(e) => return Some(Err(e)),
            }
            seq += 1;
        }
        let pos = v.len() - rest.len();
        let left = (b.last() - self.next + 1) as u32;
        self.prev = prev;
        let first = b.first;
        self.block = Some((v.clone(), first, pos, left));
        Some(Ok(()))
    }
}

/// The key of the block holding `seq`, where a scan for it starts.
fn start_key(ledger: &Ledger, seq: u64) -> Result<Vec<u8>, LogError> {
    Ok(match ledger.store.last_at_or_before(Tree::Events, &key(seq))? {
        Some((k, _)) => k.to_vec(),
        None => key(seq).to_vec(),
    })
}

/// Blocks a [`Ledger::read_records`] scan thread hands over at a time (it reads up to three such
/// batches ahead of the records handed out).
const READ_AHEAD: usize = 64;

/// The stored events from a sequence number through the head, decoded one by one (owned). Yields
/// an error (and then stops) at a missing or corrupt block or an event that does not decode.
pub struct Events<'a>(Records<'a>);

impl Iterator for Events<'_> {
    type Item = Result<StoredEvent, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        let r = match self.0.next_record()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let (seq, hash, prev_hash, bytes) = (r.seq, *r.hash, r.prev_hash, r.bytes.to_vec());
        Some(match codec::decode(&bytes) {
            Ok(event) => Ok(StoredEvent { seq, hash, prev_hash, bytes, event }),
            Err(source) => {
                self.0.scan = None;
                self.0.next = u64::MAX;
                Err(LogError::Decode { seq, source })
            }
        })
    }
}
