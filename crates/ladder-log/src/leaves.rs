//! The leaf hashes of the ledger's full level-0 tiles, kept beside the chain: derived data for a
//! server's tile reads.
//!
//! A C2SP tlog-tiles level-0 tile is the leaf hashes (RFC 6962: SHA-256 of `0x00 || line`) of
//! 256 consecutive events. Computing one means reading, decoding, writing out and hashing its 256
//! events; a server answering a mirror's first pass over the log would do that for every tile.
//! `ladder-leaves` in the ledger's directory keeps those tiles once computed, so a first read
//! of a tile costs one read of 8 KiB and one checksum (docs/PERFORMANCE.md, "Serving").
//!
//! Like the folded form it is a cache, not part of the ledger format: deleting it is safe, the
//! seals and copies leave it out, and nothing in it is served before it is checked.
//!
//! Layout: the magic `LDLEAF\0\x01` (8 bytes), then one slot of [`SLOT`] bytes per full
//! level-0 tile, tile `t` at `8 + t * SLOT`: the tile's 256 leaf hashes (8,192 bytes, exactly
//! the tile's bytes), then a checksum, blake3 keyed with the ledger's own stored hash of the
//! same 256 leaves (the perfect subtree at level [`TILE_LEVEL`], index `t`) over the 8,192
//! bytes. Before a slot is written its hashes are computed from the events and their root is
//! checked against that stored hash; a read checks the checksum against the stored hash again.
//! So a slot cut short, edited, zeroed by a crash, left from another ledger or from a history
//! since rewritten does not check, and the caller computes the tile from the events as before.
//! The file is written without a sync: a slot a crash tore is a slot that does not check.

use crate::ledger::{Ledger, Records};
use crate::tree::{stored_node, TILE_LEVEL};
use crate::LogError;
use ladder_proof::{leaf_hash, perfect_root, Hash};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The leaf hashes' file in the ledger directory.
pub const LEAVES_FILE: &str = "ladder-leaves";

const MAGIC: [u8; 8] = *b"LDLEAF\x00\x01";
/// Leaves in a full level-0 tile.
const WIDTH: u64 = 1 << TILE_LEVEL;
/// The bytes of a full level-0 tile: 256 hashes of 32 bytes.
pub const TILE_BYTES: usize = 32 << TILE_LEVEL;
/// The bytes of one tile's slot in the file: its hashes and their checksum.
pub const SLOT: usize = TILE_BYTES + 32;

/// The leaf hashes of a ledger's full level-0 tiles as kept in [`LEAVES_FILE`]: read with
/// [`LeafFile::tile`], written by [`LeafFile::fill`]. Both take the ledger, whose stored tree
/// every slot is checked against; neither changes the ledger.
pub struct LeafFile {
    /// The file, or `None` for a ledger in memory, or a directory it cannot be made in (then
    /// every tile is computed from the events, as without it).
    file: Option<File>,
    path: PathBuf,
}

/// The offset of tile `t`'s slot.
fn offset(t: u64) -> u64 {
    MAGIC.len() as u64 + t * SLOT as u64
}

impl LeafFile {
    /// The file beside `ledger`, made when missing (with its magic; a file without it is
    /// started again). Never an error: a ledger in memory, or a file that cannot be opened or
    /// made (a read-only directory, a full disk), gives a `LeafFile` that keeps nothing
    /// ([`LeafFile::is_kept`] false).
    pub fn open(ledger: &Ledger) -> LeafFile {
        let Some(dir) = ledger.dir() else {
            return LeafFile { file: None, path: PathBuf::new() };
        };
        let path = dir.join(LEAVES_FILE);
        let file = open_file(&path).ok();
        LeafFile { file, path }
    }

    /// Whether tiles are kept (the file is open).
    pub fn is_kept(&self) -> bool {
        self.file.is_some()
    }

    /// The file's path (empty for a ledger in memory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of full level-0 tile `t` of `ledger` (its 256 leaf hashes) when the file holds
    /// them and they check against the ledger's stored tree; `Ok(None)` when the tile is not
    /// full in the ledger, or its slot is missing, short or does not check (the caller computes
    /// it from the events). An error only when the ledger's store fails.
    pub fn tile(&self, ledger: &Ledger, t: u64) -> Result<Option<Vec<u8>>, LogError> {
        let Some(file) = &self.file else { return Ok(None) };
        if t >= ledger.head().seq / WIDTH {
            return Ok(None);
        }
        let mut slot = vec![0u8; SLOT];
        if read_at(file, &mut slot, offset(t)).is_err() {
            return Ok(None);
        }
        let node = stored_node(&*ledger.store, TILE_LEVEL, t)?;
        let (hashes, sum) = slot.split_at(TILE_BYTES);
        if blake3::keyed_hash(&node, hashes).as_bytes()[..] != sum[..] {
            return Ok(None);
        }
        slot.truncate(TILE_BYTES);
        Ok(Some(slot))
    }

    /// Makes the file hold every full level-0 tile from `from` on, at most `max` of them: the
    /// tiles that already check are kept, and each run of tiles that do not is computed from its
    /// events in one pass, checked against the ledger's stored tree and written. Returns the
    /// tile after the last one it made sure of (`from` when there was nothing to do; callers
    /// call again from there as the ledger grows). A tile whose hashes do not match the stored
    /// tree is not written: that is [`LogError::Corrupt`] (the ledger's own damage, which
    /// `verify` names). A failed write of the file only ends the filling early.
    pub fn fill(&self, ledger: &Ledger, from: u64, max: u64) -> Result<u64, LogError> {
        let Some(file) = &self.file else { return Ok(from) };
        let full = ledger.head().seq / WIDTH;
        let end = full.min(from.saturating_add(max));
        let mut t = from;
        while t < end {
            if self.tile(ledger, t)?.is_some() {
                t += 1;
                continue;
            }
            // A run of tiles to compute: up to the next one that checks, 64 at most.
            let mut run_end = t + 1;
            while run_end < end && run_end - t < 64 && self.tile(ledger, run_end)?.is_none() {
                run_end += 1;
            }
            let leaves = leaf_hashes(ledger, t * WIDTH + 1, run_end * WIDTH)?;
            for (i, tile) in leaves.chunks_exact(WIDTH as usize).enumerate() {
                let index = t + i as u64;
                let node = stored_node(&*ledger.store, TILE_LEVEL, index)?;
                if perfect_root(tile) != node {
                    return Err(LogError::Corrupt {
                        place: "the Merkle tree".into(),
                        detail: format!(
                            "the events {} through {} do not hash to the stored subtree at level \
                             {TILE_LEVEL}, index {index}",
                            index * WIDTH + 1,
                            (index + 1) * WIDTH
                        ),
                    });
                }
                let mut slot = Vec::with_capacity(SLOT);
                for h in tile {
                    slot.extend_from_slice(h);
                }
                let sum = blake3::keyed_hash(&node, &slot);
                slot.extend_from_slice(sum.as_bytes());
                if write_at(file, &slot, offset(index)).is_err() {
                    return Ok(index);
                }
            }
            t = run_end;
        }
        Ok(t)
    }
}

/// Opens (or makes) the file, starting it again when it does not begin with the magic.
fn open_file(path: &Path) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let mut magic = [0u8; 8];
    if read_at(&file, &mut magic, 0).is_err() || magic != MAGIC {
        file.set_len(0)?;
        write_at(&file, &MAGIC, 0)?;
    }
    Ok(file)
}

/// The leaf hashes of events `first` through `last` (each the hash of its canonical JSON line),
/// read in one pass in place.
pub(crate) fn leaf_hashes(ledger: &Ledger, first: u64, last: u64) -> Result<Vec<Hash>, LogError> {
    let mut out = Vec::with_capacity((last + 1).saturating_sub(first) as usize);
    let mut line = Vec::with_capacity(256);
    let mut records = Records::from_seq(ledger, first);
    'read: while let Some(batch) = records.next_batch() {
        for r in batch? {
            if r.seq > last {
                break 'read;
            }
            let event = ladder_events::codec::view(r.bytes)
                .map_err(|source| LogError::Decode { seq: r.seq, source })?;
            line.clear();
            ladder_events::json::write_view_line(&event, &mut line);
            out.push(leaf_hash(&line));
        }
    }
    let expected = (last + 1).saturating_sub(first);
    if (out.len() as u64) < expected {
        return Err(LogError::Missing { seq: first + out.len() as u64, head: ledger.head().seq });
    }
    Ok(out)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}

#[cfg(not(unix))]
fn write_at(mut file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(at))?;
    file.write_all(bytes)
}

impl Ledger {
    /// Lends the stored records `first` through `last` (at most the head) to `visit`, a block's
    /// worth at a time, as [`Ledger::read_records`] does but on the calling thread and without
    /// reading ahead: what a reader of one tile's 256 events wants (a thread and 64 blocks read
    /// ahead cost more than the tile). Stops when `visit` returns `Ok(false)`; a record missing
    /// before `last` is [`LogError::Missing`].
    pub fn read_records_through<E: From<LogError>>(
        &self,
        first: u64,
        last: u64,
        mut visit: impl FnMut(&[crate::Record<'_>]) -> Result<bool, E>,
    ) -> Result<(), E> {
        let (first, last) = (first.max(1), last.min(self.head().seq));
        if first > last {
            return Ok(());
        }
        let mut records = Records::from_seq(self, first);
        let mut next = first;
        while let Some(batch) = records.next_batch() {
            let mut batch = batch?;
            batch.retain(|r| r.seq <= last);
            next += batch.len() as u64;
            if !visit(&batch)? || next > last {
                return Ok(());
            }
        }
        Err(LogError::Missing { seq: next, head: self.head().seq }.into())
    }
}
