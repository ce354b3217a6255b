//! `ladder publish DIR`: the ledger as a static C2SP tlog-tiles tree.

use crate::ledger_tiles::LedgerTiles;
use ladder_log::{Ledger, LogError};
use ladder_proof::note::{split_note, Checkpoint, NoteError, SignerKey};
use ladder_proof::tiles::{tile_bytes, tiles_added, Tile, TileError, TileKind};
use ladder_proof::{hex, Hash};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// What a publish wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishReport {
    /// The tree size the directory's checkpoint had before (0 when there was none).
    pub old_size: u64,
    /// The tree size published now.
    pub size: u64,
    /// Its root.
    pub root: Hash,
    /// Tiles and entry bundles written.
    pub written: u64,
    /// Bytes of them.
    pub bytes: u64,
    /// The signed checkpoint written last.
    pub checkpoint: String,
}

/// Why a publish stopped. The directory's checkpoint is unchanged whenever this is returned:
/// it is written last.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// A file of the directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The ledger could not be read.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The directory already holds a log this ledger does not extend.
    #[error("{} already holds a checkpoint that this ledger does not extend: {detail}", dir.display())]
    Foreign {
        /// The directory.
        dir: PathBuf,
        /// How it differs.
        detail: String,
    },
    /// An event whose line an entry bundle cannot hold.
    #[error("event {seq}: its line is {len} bytes, and an entry bundle holds at most 65,535")]
    EntryTooLong {
        /// Its sequence number.
        seq: u64,
        /// Its line's length.
        len: usize,
    },
    /// The checkpoint could not be signed (an origin with control characters).
    #[error("signing the checkpoint: {0}")]
    Note(#[from] NoteError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PublishError + '_ {
    move |source| PublishError::Io { path: path.to_path_buf(), source }
}

/// Writes `bytes` at `path` through a temporary file beside it and a rename, so the path never
/// holds part of a file. Durability is the caller's (one syncfs before the checkpoint).
fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), PublishError> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = parent.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Flushes everything written under `dir` to stable storage: one `syncfs` on Linux, which
/// flushes the file system holding it (tens of thousands of tiles in one call).
fn sync_dir_tree(dir: &Path, written: &[PathBuf]) -> Result<(), PublishError> {
    #[cfg(target_os = "linux")]
    {
        let _ = written;
        let d = std::fs::File::open(dir).map_err(io(dir))?;
        rustix::fs::syncfs(&d).map_err(|e| PublishError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::from_raw_os_error(e.raw_os_error()),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        for p in written {
            std::fs::File::open(p).and_then(|f| f.sync_all()).map_err(io(p))?;
        }
        Ok(())
    }
}

/// The checkpoint a directory holds (its text, not its signature: the directory is ours), or
/// `None` when it has none.
fn published(dir: &Path) -> Result<Option<Checkpoint>, PublishError> {
    let path = dir.join("checkpoint");
    let note = match std::fs::read_to_string(&path) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&path)(e)),
    };
    let foreign = |detail: String| PublishError::Foreign { dir: dir.to_path_buf(), detail };
    let (text, _) = split_note(&note).map_err(|e| foreign(format!("its checkpoint: {e}")))?;
    Checkpoint::parse(text).map(Some).map_err(|e| foreign(format!("its checkpoint: {e}")))
}

/// A tile's bytes and where they go, from a computing thread to a writing one.
type Written = (Tile, PathBuf, Vec<u8>);

/// Computes the bytes of `tiles` (of the tree of the first `size` events) and hands each to
/// `out` with its path under `dir`; stops early when the writers have hung up.
fn compute_tiles(
    ledger: &Ledger,
    size: u64,
    dir: &Path,
    tiles: &[Tile],
    out: &SyncSender<Written>,
) -> Result<(), PublishError> {
    let mut src = LedgerTiles::new(ledger, size);
    for tile in tiles {
        let data = tile_bytes(tile, &mut src).map_err(|e| match e {
            TileError::EntryTooLong { index, len } => {
                PublishError::EntryTooLong { seq: index + 1, len }
            }
            TileError::Source(e) => PublishError::Log(e),
            other => PublishError::Log(LogError::Proof(other.to_string())),
        })?;
        if out.send((*tile, dir.join(tile.path()), data)).is_err() {
            break;
        }
    }
    Ok(())
}

/// Writes one tile at its path, whose directory exists: a new file, created with its bytes (no
/// temporary file and rename: no checkpoint names the path before the one this publish writes
/// last, after making every tile durable). A file already there was left by an interrupted
/// publish: a full tile is kept when whole and the same, anything else is replaced through a
/// temporary file. Whether it wrote.
fn write_tile(tile: &Tile, path: &Path, data: &[u8]) -> Result<bool, PublishError> {
    use std::io::Write as _;
    match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(data).map_err(io(path))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if tile.is_full() && std::fs::read(path).is_ok_and(|b| b == data) {
                return Ok(false);
            }
            write_replacing(path, data)?;
            Ok(true)
        }
        Err(e) => Err(io(path)(e)),
    }
}

/// A writing thread: tiles from `tiles` until the computing threads are done, each written by
/// [`write_tile`]. The files written, their bytes and their paths; the first error stops it.
fn write_tiles(tiles: &Mutex<Receiver<Written>>) -> Result<(u64, u64, Vec<PathBuf>), PublishError> {
    let (mut written, mut bytes) = (0u64, 0u64);
    let mut paths = Vec::new();
    loop {
        let next = match tiles.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        let Ok((tile, path, data)) = next else { break };
        if write_tile(&tile, &path, &data)? {
            written += 1;
            bytes += data.len() as u64;
            paths.push(path);
        }
    }
    Ok((written, bytes, paths))
}

/// Publishes the ledger's tree through its head into `dir` as C2SP tlog-tiles, signed by `key`
/// under `origin`: every tile and entry bundle the tree has that the directory's checkpoint's
/// tree did not (a full tile is never rewritten), made durable, then the checkpoint, written
/// atomically. A directory whose checkpoint is of another origin, or of a tree this ledger does
/// not extend, is refused before anything is written.
pub fn publish(
    ledger: &Ledger,
    dir: &Path,
    origin: &str,
    key: &SignerKey,
) -> Result<PublishReport, PublishError> {
    let size = ledger.head().seq;
    let root = ledger.root()?;
    let old = published(dir)?;
    let old_size = match &old {
        None => 0,
        Some(cp) => {
            let foreign = |detail: String| PublishError::Foreign { dir: dir.to_path_buf(), detail };
            if cp.origin != origin {
                return Err(foreign(format!(
                    "it is of origin {:?}, not {origin:?} (publish each log in its own directory)",
                    cp.origin
                )));
            }
            if cp.size > size {
                return Err(foreign(format!(
                    "it is of {} events, and the ledger holds {size}",
                    cp.size
                )));
            }
            let ours = ledger.root_at(cp.size)?;
            if ours != cp.root {
                return Err(foreign(format!(
                    "its tree of {} events has root {}, and the ledger's first {} events have \
                     root {}",
                    cp.size,
                    hex(&cp.root),
                    cp.size,
                    hex(&ours)
                )));
            }
            cp.size
        }
    };
    let checkpoint = Checkpoint { origin: origin.to_owned(), size, root }.sign(key)?;
    let tiles = tiles_added(old_size, size);
    // Every directory the new tiles go in, made once (a few per thousand tiles) instead of
    // once per file.
    let dirs: BTreeSet<PathBuf> =
        tiles.iter().filter_map(|t| dir.join(t.path()).parent().map(Path::to_path_buf)).collect();
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for d in &dirs {
        std::fs::create_dir_all(d).map_err(io(d))?;
    }
    // Level 0 and the entry bundles are the work (every event read, hashed and written): split
    // in contiguous runs of tile indexes over every core, each bundle beside the level-0 tile of
    // the same index (one read of its events). The levels above are stored hashes. The files
    // are written by more threads than there are cores: creating a file mostly waits on the
    // file system (its inode allocator, its journal), and those waits overlap.
    let (mut low, high): (Vec<Tile>, Vec<Tile>) =
        tiles.into_iter().partition(|t| matches!(t.kind, TileKind::Entries | TileKind::Hashes(0)));
    low.sort_by_key(|t| (t.index, t.kind));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    let writers = (4 * cores).clamp(4, 32);
    let per = low.len().div_ceil(cores).max(2).next_multiple_of(2);
    let (tx, rx) = sync_channel::<Written>(4 * writers);
    // Shared by the writers alone: once they have all stopped (on an error), the computing
    // threads' sends fail and they stop too.
    let rx = Arc::new(Mutex::new(rx));
    let panicked = || PublishError::Log(LogError::Proof("a publishing thread panicked".into()));
    let (computed, parts) = std::thread::scope(|scope| {
        let writing: Vec<_> = (0..writers)
            .map(|_| {
                let rx = Arc::clone(&rx);
                scope.spawn(move || write_tiles(&rx))
            })
            .collect();
        drop(rx);
        let mut computing = Vec::new();
        for part in std::iter::once(&high[..]).chain(low.chunks(per)) {
            let tx = tx.clone();
            computing.push(scope.spawn(move || compute_tiles(ledger, size, dir, part, &tx)));
        }
        drop(tx);
        let computed: Vec<_> =
            computing.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))).collect();
        let parts: Vec<_> =
            writing.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))).collect();
        (computed, parts)
    });
    computed.into_iter().collect::<Result<(), _>>()?;
    let (mut written, mut bytes, mut paths) = (0u64, 0u64, Vec::new());
    for part in parts {
        let (w, b, p) = part?;
        written += w;
        bytes += b;
        paths.extend(p);
    }
    sync_dir_tree(dir, &paths)?;
    let cp_path = dir.join("checkpoint");
    let tmp = dir.join(".checkpoint.tmp");
    {
        use std::io::Write as _;
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(checkpoint.as_bytes()).and_then(|()| f.sync_all()).map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, &cp_path).map_err(io(&cp_path))?;
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))?;
    Ok(PublishReport { old_size, size, root, written, bytes, checkpoint })
}
