//! The key-value store under the ledger: a handful of ordered trees of byte keys and values.
//!
//! [`Store`] is everything the ledger asks of an engine; [`SledStore`] is the only code in the
//! workspace that names sled, and [`MemStore`] keeps the same trees in `BTreeMap`s for tests and for
//! replays of a JSON Lines file. Moving to another engine is a new implementation of this trait.

use crate::LogError;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Bound, Deref};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The trees of a ledger. Each is an ordered map of byte keys to byte values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Tree {
    /// Blocks of events, keyed by the sequence number of their first event (big-endian `u64`).
    Events,
    /// The idempotency index: buckets of (id fingerprint, sequence number), keyed by bucket number.
    Ids,
    /// Chunks of facts (joins, voids, ticks), keyed by the sequence number of their first fact.
    Facts,
    /// The committed head and the format version.
    Meta,
    /// Opaque replay checkpoints, keyed by the replay crate.
    Checkpoints,
    /// The stored hashes of the Merkle tree's perfect subtrees of 256 leaves and more, keyed by
    /// level and index (`tree::node_key`).
    Nodes,
}

impl Tree {
    /// Every tree, in a fixed order.
    pub const ALL: [Tree; 6] =
        [Tree::Events, Tree::Ids, Tree::Facts, Tree::Meta, Tree::Checkpoints, Tree::Nodes];

    /// The tree's name on disk.
    pub fn name(self) -> &'static str {
        match self {
            Tree::Events => "events",
            Tree::Ids => "ids",
            Tree::Facts => "facts",
            Tree::Meta => "meta",
            Tree::Checkpoints => "checkpoints",
            Tree::Nodes => "nodes",
        }
    }

    fn index(self) -> usize {
        match self {
            Tree::Events => 0,
            Tree::Ids => 1,
            Tree::Facts => 2,
            Tree::Meta => 3,
            Tree::Checkpoints => 4,
            Tree::Nodes => 5,
        }
    }
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value read from a store: shared bytes, not copied out of the engine's cache.
#[derive(Clone)]
pub struct Value(ValueInner);

impl Value {
    /// A value holding a copy of `bytes` (a key the ledger computed rather than read).
    pub(crate) fn copy_of(bytes: &[u8]) -> Value {
        Value(ValueInner::Shared(Arc::from(bytes)))
    }
}

#[derive(Clone)]
enum ValueInner {
    Sled(sled::IVec),
    Shared(Arc<[u8]>),
}

impl Deref for Value {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            ValueInner::Sled(v) => v,
            ValueInner::Shared(v) => v,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Value({} bytes)", self.len())
    }
}

/// A key and its value, as scans return them.
pub type Entry = (Value, Value);

/// One write of an atomic batch: `Some(value)` inserts, `None` removes.
pub type Write = (Vec<u8>, Option<Vec<u8>>);

/// Everything the ledger needs from a storage engine.
///
/// Writes become durable only at [`Store::flush`]. [`Store::apply`] is atomic across a crash (all
/// or nothing of it survives) and is used only for small batches: large batches are pathological
/// in sled 0.34 (its issue 1303), so bulk data goes through single inserts.
pub trait Store: Send + Sync {
    /// The value under `key`.
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError>;
    /// Sets `key` to `value`.
    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError>;
    /// Removes `key`, if present.
    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError>;
    /// Applies a small batch of writes to one tree, atomically.
    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError>;
    /// The entry with the greatest key at or before `key`.
    fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError>;
    /// The entries with keys at or after `from`, in key order, read lazily.
    fn scan<'a>(
        &'a self,
        tree: Tree,
        from: &[u8],
    ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a>;
    /// Makes every earlier write durable.
    fn flush(&self) -> Result<(), LogError>;
    /// Bytes used on disk, when the store has a disk.
    fn size_on_disk(&self) -> Result<Option<u64>, LogError>;
    /// True once a storage failure has spent the store (what it holds on disk is then unknown
    /// until it is opened again).
    fn is_spent(&self) -> bool {
        false
    }
}

/// A shared store is a store: a test can keep a handle on the store a ledger writes to, and look
/// at or change what it holds behind the ledger's back.
impl<S: Store + ?Sized> Store for Arc<S> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
        (**self).get(tree, key)
    }
    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
        (**self).insert(tree, key, value)
    }
    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
        (**self).remove(tree, key)
    }
    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
        (**self).apply(tree, writes)
    }
    fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
        (**self).last_at_or_before(tree, key)
    }
    fn scan<'a>(
        &'a self,
        tree: Tree,
        from: &[u8],
    ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
        (**self).scan(tree, from)
    }
    fn flush(&self) -> Result<(), LogError> {
        (**self).flush()
    }
    fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        (**self).size_on_disk()
    }
    fn is_spent(&self) -> bool {
        (**self).is_spent()
    }
}

/// The largest sled page cache we ask for (the memory goal: 64 MB or less).
pub const SLED_CACHE_BYTES: u64 = 64 << 20;

/// How long the ledger waits for sled's lock while it holds its own lock file (see
/// [`SledStore::open_retrying`]).
pub(crate) const OWN_HANDLE_RETRY: std::time::Duration = std::time::Duration::from_secs(10);

/// How long [`SledStore::open`] retries a refused lock before reporting [`LogError::Locked`].
pub const LOCK_RETRY: std::time::Duration = std::time::Duration::from_millis(500);

/// The sled 0.34 implementation of [`Store`]: one sled tree per [`Tree`].
///
/// After its first storage failure (a full disk, a read-only file system, an io error) the store
/// is spent: every later call returns that failure without touching sled, and dropping it leaves
/// sled's handles unclosed (the process keeps the ledger's lock until it exits). sled 0.34 flushes
/// when its last handle drops, and after an io error that flush can wait forever for a write that
/// will never complete; the next open discards whatever the failed append left beyond the head.
pub struct SledStore {
    path: PathBuf,
    /// The sled handles; `None` only while dropping.
    engine: Option<Engine>,
    /// The first storage failure: its kind and message.
    failed: Mutex<Option<(std::io::ErrorKind, String)>>,
    /// Writes left before an injected failure, and its kind ([`InjectedFaults`]).
    injected: Option<(std::sync::atomic::AtomicI64, std::io::ErrorKind)>,
}

/// Storage faults a test injects into a [`SledStore`] (through [`crate::Ledger::open_injected`]),
/// below the store's own handling of failures, so that handling is tested on every machine,
/// including where a full disk or a read-only mount cannot be made.
#[derive(Clone, Copy, Debug)]
pub struct InjectedFaults {
    /// The free space the open sees instead of the file system's figure.
    pub free_space: Option<u64>,
    /// After this many writes (inserts, removals, batches, flushes) reach sled, the next one
    /// fails with `kind` instead of reaching it, as sled would report a failed write.
    pub fail_after_writes: Option<u64>,
    /// The error of the injected failure (`StorageFull`, `ReadOnlyFilesystem`, ...).
    pub kind: std::io::ErrorKind,
}

struct Engine {
    db: sled::Db,
    trees: [sled::Tree; 6],
}

impl Drop for SledStore {
    fn drop(&mut self) {
        let failed = self.failed.get_mut().map_or(true, |f| f.is_some());
        // An injected failure never reached sled, which can close as usual.
        let injected = self
            .injected
            .as_ref()
            .is_some_and(|(left, _)| left.load(std::sync::atomic::Ordering::SeqCst) < 0);
        if failed && !injected {
            std::mem::forget(self.engine.take());
            // The forgotten engine keeps sled's lock on the files until the process exits.
            if let Ok(mut f) = FORGOTTEN_ENGINES.lock() {
                f.insert(std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone()));
            }
        }
    }
}

impl SledStore {
    /// Opens (creating if needed) the sled database at `path`. A database another process holds
    /// is [`LogError::Locked`] at once: sled takes a non-blocking exclusive lock on its `conf` file.
    ///
    /// sled finishes writes on a global thread pool that can keep the lock file open for a few
    /// milliseconds after a database of this process is dropped, so a refused lock is retried for
    /// up to [`LOCK_RETRY`] before it is reported: opening, closing and opening again in one
    /// process works, and another process still gets its answer within that time.
    ///
    /// A disk with less than [`MIN_FREE_BYTES`] free is [`LogError::Full`] before sled touches
    /// the files: sled 0.34 writes while it recovers a database, and on a full disk that recovery
    /// leaves the database unreadable (found by `tests/it/faults.rs`).
    pub fn open(path: &Path) -> Result<SledStore, LogError> {
        SledStore::open_injected(path, None)
    }

    /// [`SledStore::open`] with injected faults (none when `faults` is `None`).
    pub fn open_injected(
        path: &Path,
        faults: Option<InjectedFaults>,
    ) -> Result<SledStore, LogError> {
        SledStore::open_retrying(path, faults, LOCK_RETRY)
    }

    /// [`SledStore::open_injected`], retrying a refused lock for up to `retry`. The ledger calls
    /// it with [`OWN_HANDLE_RETRY`] once it holds the directory's own lock file: no other ladder
    /// process can then hold sled's lock, so a refusal is this process's last handle still
    /// closing (sled's threads flushing a large or damaged database on a loaded machine can take
    /// more than [`LOCK_RETRY`]; the fault campaign saw it) and is worth waiting for.
    pub(crate) fn open_retrying(
        path: &Path,
        faults: Option<InjectedFaults>,
        retry: std::time::Duration,
    ) -> Result<SledStore, LogError> {
        let free = faults.and_then(|f| f.free_space);
        check_free_space(path, free)?;
        remove_unfinished_snapshots(path)?;
        let engine = quiet_catch(path, || {
            let start = std::time::Instant::now();
            let db = loop {
                let opened = sled::Config::new()
                    .path(path)
                    .cache_capacity(SLED_CACHE_BYTES)
                    .mode(sled::Mode::LowSpace)
                    .open()
                    .map_err(|e| open_error(path, e));
                match opened {
                    Err(LogError::Locked { .. }) if failed_earlier(path) => {
                        return Err(LogError::EnginePanic {
                            path: path.to_path_buf(),
                            message: "it failed on these files earlier in this process and still \
                                      holds them; a new process can open them again"
                                .into(),
                        })
                    }
                    Err(LogError::Locked { .. }) if start.elapsed() < retry => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    other => break other?,
                }
            };
            let open = |t: Tree| db.open_tree(t.name()).map_err(|e| open_error(path, e));
            let trees = [
                open(Tree::Events)?,
                open(Tree::Ids)?,
                open(Tree::Facts)?,
                open(Tree::Meta)?,
                open(Tree::Checkpoints)?,
                open(Tree::Nodes)?,
            ];
            Ok(Engine { db, trees })
        })?;
        let injected = faults.and_then(|f| {
            let left = i64::try_from(f.fail_after_writes?).unwrap_or(i64::MAX);
            Some((std::sync::atomic::AtomicI64::new(left), f.kind))
        });
        Ok(SledStore {
            path: path.to_path_buf(),
            engine: Some(engine),
            failed: Mutex::new(None),
            injected,
        })
    }

    /// Counts a write against an injected failure: once the budget is spent, the write fails as
    /// sled would report it, and the store is spent like after any storage failure.
    fn injected_write(&self, what: impl fmt::Display) -> Result<(), LogError> {
        let Some((left, kind)) = &self.injected else { return Ok(()) };
        if left.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            return Ok(());
        }
        let io = std::io::Error::new(*kind, format!("injected {kind:?}"));
        self.failed().get_or_insert_with(|| (io.kind(), io.to_string()));
        Err(LogError::from_io(&self.path, what, io))
    }

    /// Runs one call into sled, turning a panic of sled's (it panics on some damaged files) into
    /// [`LogError::EnginePanic`]; the store is then spent, so sled is not touched again.
    fn guard<T>(&self, f: impl FnOnce() -> Result<T, LogError>) -> Result<T, LogError> {
        quiet_catch(&self.path, f).inspect_err(|e| {
            if let LogError::EnginePanic { message, .. } = e {
                self.failed().get_or_insert_with(|| (std::io::ErrorKind::Other, message.clone()));
            }
        })
    }

    fn engine(&self) -> &Engine {
        match &self.engine {
            Some(e) => e,
            None => unreachable!("the engine is taken only while dropping"),
        }
    }

    fn tree(&self, tree: Tree) -> &sled::Tree {
        &self.engine().trees[tree.index()]
    }

    fn failed(&self) -> MutexGuard<'_, Option<(std::io::ErrorKind, String)>> {
        self.failed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The earlier failure, if the store is spent.
    fn check(&self, what: impl fmt::Display) -> Result<(), LogError> {
        match &*self.failed() {
            None => Ok(()),
            Some((kind, message)) => Err(LogError::from_io(
                &self.path,
                format_args!("{what} after an earlier storage failure"),
                std::io::Error::new(*kind, message.clone()),
            )),
        }
    }

    fn err(&self, what: impl fmt::Display, e: sled::Error) -> LogError {
        let io: std::io::Error = e.into();
        self.failed().get_or_insert_with(|| (io.kind(), io.to_string()));
        LogError::from_io(&self.path, what, io)
    }
}

thread_local! {
    /// True while this thread is inside [`quiet_catch`]: its panics are reported as errors, so
    /// the panic hook stays quiet about them.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic into [`LogError::EnginePanic`] without the panic hook printing it
/// (the hook is wrapped once per process; panics elsewhere print as before).
fn quiet_catch<T>(path: &Path, f: impl FnOnce() -> Result<T, LogError>) -> Result<T, LogError> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(LogError::EnginePanic { path: path.to_path_buf(), message })
    })
}

/// The databases whose sled engine this process gave up after a failure (a panic on damaged
/// files, a full disk): the engine is forgotten rather than closed, because closing a failed sled
/// can hang or write, and a forgotten engine keeps sled's lock on the files until the process
/// exits. A later open of the same files in this process would otherwise read as "in use by
/// another process"; it is reported as the earlier failure instead. Every `ladder` command is
/// its own process and never sees this; a long-lived program that embeds the ledger does.
static FORGOTTEN_ENGINES: Mutex<std::collections::BTreeSet<PathBuf>> =
    Mutex::new(std::collections::BTreeSet::new());

/// True when this process gave up sled's engine on the database at `path` (see
/// [`FORGOTTEN_ENGINES`]).
fn failed_earlier(path: &Path) -> bool {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    FORGOTTEN_ENGINES.lock().is_ok_and(|f| f.contains(&path))
}

/// Removes the snapshot files sled did not finish (`snap.<lsn>.generating`) before sled opens.
///
/// sled 0.34 writes a snapshot to `snap.<lsn>.generating`, fsyncs it and renames it to
/// `snap.<lsn>`; the rename is the snapshot's commit. But when it opens a database it lists every
/// `snap.` file but those ending in `.in___motion`, and reads the one that sorts last, which is
/// an unfinished `.generating` file whenever a process was killed while writing one: sled then
/// reports the database corrupt, and it never opens again. The fault campaign found this (one
/// kill in about 2,000; docs/GUARANTEES.md). Such a file holds nothing sled needs (the previous
/// snapshot and the log still hold everything), so it is removed. The ledger calls this on its
/// copy first, and on its own files only once that copy opened and held the recorded head.
fn remove_unfinished_snapshots(path: &Path) -> Result<(), LogError> {
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        // A new ledger: nothing to remove.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(LogError::from_io(path, "reading the ledger directory", e)),
    };
    for entry in entries {
        let entry =
            entry.map_err(|e| LogError::from_io(path, "reading the ledger directory", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("snap.") && name.ends_with(".generating") {
            std::fs::remove_file(entry.path())
                .map_err(|e| LogError::from_io(path, "removing an unfinished sled snapshot", e))?;
        }
    }
    Ok(())
}

/// The free space [`SledStore::open`] asks for on the ledger's file system: room for sled's
/// recovery writes (a snapshot, a fresh 512 KB segment) with a wide margin.
pub const MIN_FREE_BYTES: u64 = 4 << 20;

/// Refuses to open when the file system holding `path` (or, for a new ledger, its nearest existing
/// ancestor) has less than [`MIN_FREE_BYTES`] free. A file system that cannot say is not refused.
fn check_free_space(path: &Path, injected: Option<u64>) -> Result<(), LogError> {
    // A relative path's last ancestor is "": the current directory.
    let existing = path
        .ancestors()
        .map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p })
        .find(|p| p.exists());
    let Some(existing) = existing else { return Ok(()) };
    let free = match injected {
        Some(free) => free,
        None => match fs2::available_space(existing) {
            Ok(free) => free,
            Err(_) => return Ok(()),
        },
    };
    if free >= MIN_FREE_BYTES {
        return Ok(());
    }
    let why = format!(
        "{free} bytes free, and opening a ledger needs {MIN_FREE_BYTES}: sled writes while it \
         recovers a ledger, and on a full disk that would damage it"
    );
    Err(LogError::from_io(
        path,
        "opening the ledger",
        std::io::Error::new(std::io::ErrorKind::StorageFull, why),
    ))
}

/// The free-space refusal of [`SledStore::open`] for an injected figure (before a ledger is
/// created or its head file read).
pub(crate) fn check_free_space_of(path: &Path, free: u64) -> Result<(), LogError> {
    check_free_space(path, Some(free))
}

/// sled reports its lock as `Io(Other, "could not acquire lock on ...")`; fs2 underneath says
/// WouldBlock. Either becomes [`LogError::Locked`].
fn open_error(path: &Path, e: sled::Error) -> LogError {
    let io: std::io::Error = e.into();
    let text = io.to_string();
    if io.kind() == std::io::ErrorKind::WouldBlock || text.contains("could not acquire lock") {
        LogError::Locked { path: path.to_path_buf() }
    } else {
        LogError::from_io(path, "opening the ledger", io)
    }
}

impl Store for SledStore {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
        self.check(format_args!("reading tree {tree}"))?;
        self.guard(|| {
            self.tree(tree)
                .get(key)
                .map(|v| v.map(|v| Value(ValueInner::Sled(v))))
                .map_err(|e| self.err(format_args!("reading tree {tree}"), e))
        })
    }

    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
        self.check(format_args!("writing tree {tree}"))?;
        self.injected_write(format_args!("writing tree {tree}"))?;
        self.guard(|| {
            self.tree(tree)
                .insert(key, value)
                .map(drop)
                .map_err(|e| self.err(format_args!("writing tree {tree}"), e))
        })
    }

    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
        self.check(format_args!("removing from tree {tree}"))?;
        self.injected_write(format_args!("removing from tree {tree}"))?;
        self.guard(|| {
            self.tree(tree)
                .remove(key)
                .map(drop)
                .map_err(|e| self.err(format_args!("removing from tree {tree}"), e))
        })
    }

    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
        self.check(format_args!("writing a batch to tree {tree}"))?;
        self.injected_write(format_args!("writing a batch to tree {tree}"))?;
        let mut batch = sled::Batch::default();
        for (k, v) in writes {
            match v {
                Some(v) => batch.insert(k, v),
                None => batch.remove(k),
            }
        }
        self.guard(|| {
            self.tree(tree)
                .apply_batch(batch)
                .map_err(|e| self.err(format_args!("writing a batch to tree {tree}"), e))
        })
    }

    fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
        self.check(format_args!("reading tree {tree}"))?;
        self.guard(|| {
            self.tree(tree)
                .range(..=key)
                .next_back()
                .transpose()
                .map(|o| o.map(|(k, v)| (Value(ValueInner::Sled(k)), Value(ValueInner::Sled(v)))))
                .map_err(|e| self.err(format_args!("reading tree {tree}"), e))
        })
    }

    fn scan<'a>(
        &'a self,
        tree: Tree,
        from: &[u8],
    ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
        if let Err(e) = self.check(format_args!("scanning tree {tree}")) {
            return Box::new(std::iter::once(Err(e)));
        }
        // One fresh range per item, not one long iterator: see [`SledStore`]'s note on memory.
        let t = self.tree(tree);
        let mut next: Option<Bound<sled::IVec>> = Some(Bound::Included(from.into()));
        Box::new(std::iter::from_fn(move || {
            let bound = next.take()?;
            let item = self.guard(|| Ok(t.range((bound, Bound::Unbounded)).next()));
            let (k, v) = match item {
                Ok(None) => return None,
                Ok(Some(Ok(kv))) => kv,
                Ok(Some(Err(e))) => {
                    return Some(Err(self.err(format_args!("scanning tree {tree}"), e)))
                }
                Err(e) => return Some(Err(e)),
            };
            next = Some(Bound::Excluded(k.clone()));
            Some(Ok((Value(ValueInner::Sled(k)), Value(ValueInner::Sled(v)))))
        }))
    }

    fn flush(&self) -> Result<(), LogError> {
        self.check("flushing")?;
        self.injected_write("flushing")?;
        self.guard(|| self.engine().db.flush().map(drop).map_err(|e| self.err("flushing", e)))
    }

    fn is_spent(&self) -> bool {
        self.failed().is_some()
    }

    fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        self.check("measuring the size")?;
        self.engine().db.size_on_disk().map(Some).map_err(|e| self.err("measuring the size", e))
    }
}

type MemTrees = [BTreeMap<Vec<u8>, Arc<[u8]>>; 6];

/// The in-memory implementation of [`Store`]: one `BTreeMap` per tree. Nothing is durable; a
/// [`Store::flush`] does nothing.
#[derive(Default)]
pub struct MemStore {
    trees: Mutex<MemTrees>,
}

impl MemStore {
    /// An empty store.
    pub fn new() -> MemStore {
        MemStore::default()
    }

    /// A [`Value`] holding a copy of `bytes`.
    pub fn value(bytes: &[u8]) -> Value {
        Value(ValueInner::Shared(Arc::from(bytes)))
    }

    fn lock(&self) -> MutexGuard<'_, MemTrees> {
        // A panic while holding the lock cannot leave a map half-updated (each write is one call),
        // so a poisoned lock is still consistent.
        self.trees.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn shared(k: &[u8], v: &Arc<[u8]>) -> Entry {
    (Value(ValueInner::Shared(Arc::from(k))), Value(ValueInner::Shared(v.clone())))
}

impl Store for MemStore {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Value>, LogError> {
        Ok(self.lock()[tree.index()].get(key).map(|v| Value(ValueInner::Shared(v.clone()))))
    }

    fn insert(&self, tree: Tree, key: &[u8], value: &[u8]) -> Result<(), LogError> {
        self.lock()[tree.index()].insert(key.to_vec(), Arc::from(value));
        Ok(())
    }

    fn remove(&self, tree: Tree, key: &[u8]) -> Result<(), LogError> {
        self.lock()[tree.index()].remove(key);
        Ok(())
    }

    fn apply(&self, tree: Tree, writes: Vec<Write>) -> Result<(), LogError> {
        let mut trees = self.lock();
        for (k, v) in writes {
            match v {
                Some(v) => trees[tree.index()].insert(k, Arc::from(v)),
                None => trees[tree.index()].remove(&k),
            };
        }
        Ok(())
    }

    fn last_at_or_before(&self, tree: Tree, key: &[u8]) -> Result<Option<Entry>, LogError> {
        Ok(self.lock()[tree.index()]
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .map(|(k, v)| shared(k, v)))
    }

    fn scan<'a>(
        &'a self,
        tree: Tree,
        from: &[u8],
    ) -> Box<dyn Iterator<Item = Result<Entry, LogError>> + 'a> {
        let mut next: Bound<Vec<u8>> = Bound::Included(from.to_vec());
        Box::new(std::iter::from_fn(move || {
            let trees = self.lock();
            let bound = match &next {
                Bound::Included(k) => Bound::Included(k.as_slice()),
                Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
                Bound::Unbounded => Bound::Unbounded,
            };
            let (k, v) = trees[tree.index()].range::<[u8], _>((bound, Bound::Unbounded)).next()?;
            let entry = shared(k, v);
            next = Bound::Excluded(k.clone());
            Some(Ok(entry))
        }))
    }

    fn flush(&self) -> Result<(), LogError> {
        Ok(())
    }

    fn size_on_disk(&self) -> Result<Option<u64>, LogError> {
        Ok(None)
    }
}
