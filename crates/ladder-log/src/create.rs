//! Creating a ledger whole: a new ledger is built in a temporary directory beside its path and
//! moved into place by one rename, so a process killed at any moment of the creation leaves
//! either no ledger at the path or a whole empty one, never a half-made one.
//!
//! sled 0.34 writes its `conf` file with two writes (the settings, then their CRC) and its first
//! log segment from its own threads after its open returns. A ledger created in place and killed
//! between those writes held a `conf` that sled's recovery calls `Corruption`: every later open
//! was refused as damaged, and the user had to delete a ledger that never held anything (the
//! fault campaign met it; `tests/it/create.rs` kills a creation at each of its system calls).
//!
//! The creation: a directory `.NAME.ladder-creating-PID-N` is made beside the path `NAME`, its
//! lock file taken, sled created in it, flushed and closed, every one of its files synced, the
//! head file written with the files' seals (as a clean close leaves them), then the directory is
//! renamed to the path (replacing an empty directory there: a user's `mkdir`) and the parent
//! directory synced. The lock taken first is still held after the rename, as the new ledger's
//! lock, so the open that follows holds it without a gap. The temporary directory's name starts
//! with a dot and says what it is; one left by a killed process (its lock no longer held) is
//! removed by the next [`crate::Ledger::open`] of that path.

use crate::headfile::{self, LOCK_FILE};
use crate::store::{InjectedFaults, SledStore};
use crate::{Head, Ledger, LogError, LEDGER_FORMAT};
use std::fs;
use std::path::{Path, PathBuf};

/// What the temporary directory's name holds between the ledger's name and the process id.
pub(crate) const CREATING_MARK: &str = ".ladder-creating-";

/// Temporary directories made by this process, to name each one.
static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How the path stands before a creation.
pub(crate) enum Target {
    /// Nothing is there, or an empty directory: the ledger is built beside it and renamed in.
    Fresh,
    /// A directory holding only files a ledger writes, without sled's store (what is left of a
    /// ledger whose store was removed, or a lock file alone): the ledger is created in place, and
    /// the open's checks judge what is there (a head file that records events refuses it). A
    /// file at the path: creating the directory fails, naming the path.
    InPlace,
}

/// Whether `name` is one a ledger writes in its directory: sled's `conf`, `db`, `blobs/` and
/// `snap.*`, and ladder's own `ladder-*` files (lock, head, folded form, leaves, copies).
pub(crate) fn is_ledger_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    matches!(name.as_ref(), "conf" | "db" | "blobs")
        || name.starts_with("snap.")
        || name.starts_with("ladder-")
}

/// The first entry of the directory `path` that no ledger writes, if any.
pub(crate) fn foreign_entry(path: &Path) -> Result<Option<std::ffi::OsString>, LogError> {
    let io = |e| LogError::from_io(path, "reading the ledger directory", e);
    let mut names = Vec::new();
    for entry in fs::read_dir(path).map_err(io)? {
        let name = entry.map_err(io)?.file_name();
        if !is_ledger_name(&name) {
            names.push(name);
        }
    }
    // The smallest name, so the error names the same entry on every run.
    names.sort();
    Ok(names.into_iter().next())
}

/// How `path` stands: [`Target::Fresh`] when it does not exist or is an empty directory;
/// [`LogError::NotALedgerDirectory`] when it is a directory holding a file no ledger writes.
pub(crate) fn target(path: &Path) -> Result<Target, LogError> {
    let io = |e| LogError::from_io(path, "reading the ledger directory", e);
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Target::Fresh),
        Err(e) => Err(io(e)),
        Ok(m) if m.is_dir() => {
            if let Some(entry) = foreign_entry(path)? {
                return Err(LogError::NotALedgerDirectory { path: path.to_path_buf(), entry });
            }
            let empty = fs::read_dir(path).map_err(io)?.next().is_none();
            Ok(if empty { Target::Fresh } else { Target::InPlace })
        }
        Ok(_) => Ok(Target::InPlace),
    }
}

/// The directory the ledger's directory sits in (made if missing, as `create_dir_all` made it
/// before) and the ledger directory's name in it, both resolved through the current directory
/// and symbolic links, so `ledger`, `./ledger/` and `.` all name the same place.
fn place(path: &Path) -> Result<(PathBuf, std::ffi::OsString), LogError> {
    let io = |what: &str, e| LogError::from_io(path, what, e);
    if path.is_dir() {
        let full = fs::canonicalize(path).map_err(|e| io("resolving the ledger's path", e))?;
        if let (Some(parent), Some(name)) = (full.parent(), full.file_name()) {
            return Ok((parent.to_path_buf(), name.to_os_string()));
        }
        return Err(io(
            "creating the ledger directory",
            std::io::Error::other("the root directory cannot be a ledger"),
        ));
    }
    let name = path.file_name().ok_or_else(|| {
        io(
            "creating the ledger directory",
            std::io::Error::other("the path does not end in a directory name"),
        )
    })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(parent).map_err(|e| io("creating the ledger directory", e))?;
    let parent = fs::canonicalize(parent).map_err(|e| io("resolving the ledger's path", e))?;
    Ok((parent, name.to_os_string()))
}

/// The prefix of the temporary directories of a ledger named `name`.
fn prefix(name: &std::ffi::OsStr) -> String {
    format!(".{}{CREATING_MARK}", name.to_string_lossy())
}

/// Removes the temporary directories of creations of the ledger `path` that no process holds:
/// left by a process killed while it created the ledger. One still being built holds its lock
/// and is left alone; one whose lock file is not there yet is taken (its builder then finds its
/// lock file gone and starts again under another name).
pub(crate) fn remove_abandoned(path: &Path) {
    use fs2::FileExt;
    // `.` or `dir/..` name no directory by their last part: their resolved path does.
    let full = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let (Some(name), parent) = (full.file_name(), full.parent()) else { return };
    let parent = match parent {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let prefix = prefix(name);
    let Ok(entries) = fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        match fs::File::open(entry.path().join(LOCK_FILE)) {
            Ok(lock) => {
                if lock.try_lock_exclusive().is_ok() {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let _ = fs::remove_dir_all(entry.path());
            }
            Err(_) => {}
        }
    }
}

/// Builds an empty ledger beside `path` and renames it to `path` (see the module's
/// documentation). Returns the new ledger's lock file, held, or `None` when another process put a
/// ledger at `path` first (this one's is removed; the caller opens that one).
pub(crate) fn create_whole(
    path: &Path,
    faults: Option<InjectedFaults>,
) -> Result<Option<fs::File>, LogError> {
    let (parent, name) = place(path)?;
    let target = parent.join(&name);
    // A few attempts: a concurrent creator's sweep may take a directory whose lock file is not
    // there yet (see [`remove_abandoned`]).
    for _ in 0..4 {
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = parent.join(format!("{}{}-{n}", prefix(&name), std::process::id()));
        match build(&temp, faults) {
            Ok(Some(lock)) => return place_built(&temp, &target, path, lock),
            Ok(None) => {}
            Err(e) => {
                let _ = fs::remove_dir_all(&temp);
                return Err(named(e, &temp, path));
            }
        }
        let _ = fs::remove_dir_all(&temp);
    }
    Err(LogError::from_io(
        path,
        "creating the ledger",
        std::io::Error::other("its temporary directory was removed four times while it was built"),
    ))
}

/// A failure while building in `temp`, told of the ledger `path` the user named: a full disk
/// or a read-only directory is the ledger's, not a directory they never heard of.
fn named(e: LogError, temp: &Path, path: &Path) -> LogError {
    let user = path.to_path_buf();
    match e {
        LogError::Full { source, .. } => LogError::Full { path: user, source },
        LogError::ReadOnly { source, .. } => LogError::ReadOnly { path: user, source },
        LogError::Locked { .. } => LogError::Locked { path: user },
        LogError::EnginePanic { message, .. } => LogError::EnginePanic { path: user, message },
        LogError::Storage { context, source } => LogError::Storage {
            context: format!(
                "{} (creating the ledger {})",
                context.replace(&temp.display().to_string(), "its new directory"),
                path.display()
            ),
            source,
        },
        e => e,
    }
}

/// Makes `temp` and its lock file, then an empty ledger in it, closed and synced, with its head
/// file. `None` when the directory or its lock file vanished before the lock was taken.
fn build(temp: &Path, faults: Option<InjectedFaults>) -> Result<Option<fs::File>, LogError> {
    use fs2::FileExt;
    let io = |what: &str, e| LogError::from_io(temp, what, e);
    fs::create_dir(temp).map_err(|e| io("creating the ledger's temporary directory", e))?;
    let lock_path = temp.join(LOCK_FILE);
    let lock =
        match fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("opening the lock file", e)),
        };
    if lock.try_lock_exclusive().is_err() || !same_file(&lock, &lock_path) {
        return Ok(None);
    }
    {
        let store = SledStore::open_injected(temp, faults)?;
        // Writes the format record.
        let ledger = Ledger::with_store(Box::new(store), Some(temp.to_path_buf()))?;
        ledger.store.flush()?;
        // Dropping the ledger closes sled (no disk part: no head file is written here).
    }
    sync_tree(temp)?;
    let seals = headfile::seals(temp)?;
    headfile::write(temp, &headfile::Recorded { format: LEDGER_FORMAT, head: Head::EMPTY, seals })?;
    Ok(Some(lock))
}

/// True when `path` is still the file `file` has open (a sweep did not remove it meanwhile).
fn same_file(file: &fs::File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.is_file()
    }
}

/// Syncs every file under `dir`, then every directory (their entries), so the rename publishes
/// files whose bytes are on disk.
fn sync_tree(dir: &Path) -> Result<(), LogError> {
    let io = |p: &Path, what: &str, e| LogError::from_io(p, what, e);
    for entry in fs::read_dir(dir).map_err(|e| io(dir, "listing the new ledger", e))? {
        let entry = entry.map_err(|e| io(dir, "listing the new ledger", e))?;
        let p = entry.path();
        if entry.file_type().map_err(|e| io(&p, "listing the new ledger", e))?.is_dir() {
            sync_tree(&p)?;
        } else {
            let f = fs::File::open(&p).map_err(|e| io(&p, "opening a new file to sync it", e))?;
            f.sync_all().map_err(|e| io(&p, "syncing a new file", e))?;
        }
    }
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), LogError> {
    #[cfg(unix)]
    {
        let d = fs::File::open(dir)
            .map_err(|e| LogError::from_io(dir, "opening a directory to sync it", e))?;
        d.sync_all().map_err(|e| LogError::from_io(dir, "syncing a directory", e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Renames the built ledger `temp` to `target` (an empty directory there is replaced, keeping
/// its permissions), then syncs the parent directory. `None` when a ledger got there first.
fn place_built(
    temp: &Path,
    target: &Path,
    path: &Path,
    lock: fs::File,
) -> Result<Option<fs::File>, LogError> {
    if let Ok(m) = fs::metadata(target) {
        // A user's `mkdir` (with its mode) stays as they made it.
        let _ = fs::set_permissions(temp, m.permissions());
    }
    let mut renamed = fs::rename(temp, target);
    if renamed.is_err() && is_empty_dir(target) == Some(true) {
        // Platforms whose rename does not replace an empty directory: remove it first (a kill
        // between the two leaves no ledger, and the temporary directory for the next open).
        let _ = fs::remove_dir(target);
        renamed = fs::rename(temp, target);
    }
    if let Err(e) = renamed {
        let _ = fs::remove_dir_all(temp);
        if target.join("conf").is_file() || target.join("db").is_file() {
            // Another process created the ledger meanwhile: the caller opens it.
            return Ok(None);
        }
        return Err(LogError::from_io(path, "moving the new ledger into place", e));
    }
    if let Some(parent) = target.parent() {
        sync_dir(parent)?;
    }
    Ok(Some(lock))
}

/// Whether `path` is an empty directory (`None` when it cannot be read).
fn is_empty_dir(path: &Path) -> Option<bool> {
    Some(fs::read_dir(path).ok()?.next().is_none())
}
