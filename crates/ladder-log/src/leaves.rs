//! The leaf hashes and entry bundles of the ledger's full level-0 tiles, kept beside the chain:
//! derived data for a server's tile reads.
//!
//! A C2SP tlog-tiles level-0 tile is the leaf hashes (RFC 6962: SHA-256 of `0x00 || line`) of
//! 256 consecutive events. Computing one means reading, decoding, writing out and hashing its 256
//! events; a server answering a mirror's first pass over the log would do that for every tile.
//! `ladder-leaves` in the ledger's directory keeps those tiles once computed, so a first read
//! of a tile costs one read of 8 KiB and one checksum (docs/PERFORMANCE.md, "Serving"); and
//! `ladder-entries` keeps their entry bundles (each event's line, length-prefixed: what a
//! mirror reads beside each level-0 tile), made in the same pass.
//!
//! Like the folded form they are a cache, not part of the ledger format: deleting them is safe,
//! the seals and copies leave them out, and nothing in them is served before it is checked.
//!
//! Layout: the magic `LDLEAF\0\x02` (8 bytes), then one slot of [`SLOT`] bytes per full
//! level-0 tile, tile `t` at `8 + t * SLOT`: the tile's 256 leaf hashes (8,192 bytes, exactly
//! the tile's bytes), then a checksum, blake3 keyed with the ledger's own stored hash of the
//! same 256 leaves (the perfect subtree at level [`TILE_LEVEL`], index `t`) over the 8,192
//! bytes, then where the tile's entry bundle is in `ladder-entries` (its offset, `u64`, and its
//! length, `u32`, little-endian, then 4 zero bytes). `ladder-entries` is the magic
//! `LDENTR\0\x01`, then bundles one after the other, each its checksum (blake3 keyed with the
//! same stored hash, over the bundle) then its bytes; a bundle made again is appended again.
//! Before a slot is written its hashes are computed from the events and their root is checked
//! against that stored hash (and the bundle is made from the same lines); a read checks the
//! checksums against the stored hash again.
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
/// The entry bundles' file in the ledger directory.
pub const ENTRIES_FILE: &str = "ladder-entries";

const MAGIC: [u8; 8] = *b"LDLEAF\x00\x02";
const ENTRIES_MAGIC: [u8; 8] = *b"LDENTR\x00\x01";
/// The longest bundle read: 256 entries of at most 65,535 bytes and their 2-byte lengths.
const MAX_BUNDLE: u32 = (1 << TILE_LEVEL) * (u16::MAX as u32 + 2);
/// Leaves in a full level-0 tile.
const WIDTH: u64 = 1 << TILE_LEVEL;
/// The bytes of a full level-0 tile: 256 hashes of 32 bytes.
pub const TILE_BYTES: usize = 32 << TILE_LEVEL;
/// The bytes of one tile's slot in the file: its hashes, their checksum, and where its entry
/// bundle is.
pub const SLOT: usize = TILE_BYTES + 32 + 16;

/// The leaf hashes and entry bundles of a ledger's full level-0 tiles as kept in
/// [`LEAVES_FILE`] and [`ENTRIES_FILE`]: read with [`LeafFile::tile`] and [`LeafFile::bundle`],
/// written by [`LeafFile::fill`]. Both take the ledger, whose stored tree
/// every slot is checked against; neither changes the ledger.
pub struct LeafFile {
    /// The file, or `None` for a ledger in memory, or a directory it cannot be made in (then
    /// every tile is computed from the events, as without it).
    file: Option<File>,
    /// The entry bundles' file, and its length (where the next bundle goes); `None` as above.
    entries: Option<(File, std::sync::Mutex<u64>)>,
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
            return LeafFile { file: None, entries: None, path: PathBuf::new() };
        };
        let path = dir.join(LEAVES_FILE);
        let file = open_file(&path, MAGIC).ok();
        let entries = open_file(&dir.join(ENTRIES_FILE), ENTRIES_MAGIC).ok().and_then(|f| {
            let len = f.metadata().ok()?.len();
            Some((f, std::sync::Mutex::new(len)))
        });
        LeafFile { file, entries, path }
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
        if blake3::keyed_hash(&node, hashes).as_bytes()[..] != sum[..32] {
            return Ok(None);
        }
        slot.truncate(TILE_BYTES);
        Ok(Some(slot))
    }

    /// The entry bundle of full level-0 tile `t` of `ledger` (each of its 256 events' lines,
    /// length-prefixed, as C2SP tlog-tiles has it) when the file holds it and it checks against
    /// the ledger's stored tree; `Ok(None)` otherwise, as [`LeafFile::tile`].
    pub fn bundle(&self, ledger: &Ledger, t: u64) -> Result<Option<Vec<u8>>, LogError> {
        let (Some(file), Some((entries, _))) = (&self.file, &self.entries) else {
            return Ok(None);
        };
        if t >= ledger.head().seq / WIDTH {
            return Ok(None);
        }
        let mut place = [0u8; 12];
        if read_at(file, &mut place, offset(t) + (TILE_BYTES + 32) as u64).is_err() {
            return Ok(None);
        }
        let mut at = [0u8; 8];
        let mut len = [0u8; 4];
        at.copy_from_slice(&place[..8]);
        len.copy_from_slice(&place[8..]);
        let (at, len) = (u64::from_le_bytes(at), u32::from_le_bytes(len));
        if len > MAX_BUNDLE || at < ENTRIES_MAGIC.len() as u64 {
            return Ok(None);
        }
        let mut bytes = vec![0u8; 32 + len as usize];
        if read_at(entries, &mut bytes, at).is_err() {
            return Ok(None);
        }
        let node = stored_node(&*ledger.store, TILE_LEVEL, t)?;
        if blake3::keyed_hash(&node, &bytes[32..]).as_bytes()[..] != bytes[..32] {
            return Ok(None);
        }
        bytes.drain(..32);
        Ok(Some(bytes))
    }

    /// Appends `bundle` (its checksum keyed with `node`) to the entries' file: where it went,
    /// or `None` when it could not be written.
    fn append_bundle(&self, node: &Hash, bundle: &[u8]) -> Option<(u64, u32)> {
        let (file, end) = self.entries.as_ref()?;
        let len = u32::try_from(bundle.len()).ok().filter(|&l| l <= MAX_BUNDLE)?;
        let mut end = end.lock().unwrap_or_else(|p| p.into_inner());
        let mut record = Vec::with_capacity(32 + bundle.len());
        record.extend_from_slice(blake3::keyed_hash(node, bundle).as_bytes());
        record.extend_from_slice(bundle);
        write_at(file, &record, *end).ok()?;
        let at = *end;
        *end += record.len() as u64;
        Some((at, len))
    }

    /// Whether tile `t`'s hashes, and its bundle when bundles are kept, both check.
    fn holds(&self, ledger: &Ledger, t: u64) -> Result<bool, LogError> {
        Ok(self.tile(ledger, t)?.is_some()
            && (self.entries.is_none() || self.bundle(ledger, t)?.is_some()))
    }

    /// The ledger's stored hash of full level-0 tile `t` (the perfect subtree at level
    /// [`TILE_LEVEL`], index `t`), what [`LeafFile::put_tile`] keys the tile's checksums with;
    /// `None` when `t` is not full in the ledger (or no file is kept). An error only when the
    /// ledger's store fails. The one step of writing a tile that needs the ledger, so a
    /// caller sharing it with a writer holds it only for this.
    pub fn tile_node(&self, ledger: &Ledger, t: u64) -> Result<Option<Hash>, LogError> {
        if self.file.is_none() || t >= ledger.head().seq / WIDTH {
            return Ok(None);
        }
        stored_node(&*ledger.store, TILE_LEVEL, t).map(Some)
    }

    /// Writes full level-0 tile `t` from its 256 leaf hashes and their events' canonical lines
    /// as the append that wrote them computed them ([`crate::Durable::take_leaves`]), without
    /// reading the events back: the slot, its checksum keyed with `node` (the ledger's stored
    /// hash of the tile, [`LeafFile::tile_node`], as [`LeafFile::fill`] keys it) and the entry
    /// bundle made from the lines. The hashes are not checked against the stored tree here:
    /// they are the values the append built that tree from, in the same step; a read checks
    /// the slot's checksum against the stored hash as always, so a slot keyed with any other
    /// hash is never handed out. Returns false when nothing was written: no file kept, not 256
    /// hashes and lines, or a write that failed (the caller then fills the tile from the
    /// events).
    pub fn put_tile<'a>(
        &self,
        node: &Hash,
        t: u64,
        hashes: &[Hash],
        lines: impl IntoIterator<Item = &'a [u8]>,
    ) -> bool {
        let Some(file) = &self.file else { return false };
        if hashes.len() as u64 != WIDTH {
            return false;
        }
        let mut bundle = Some(Vec::with_capacity(48 << 10));
        let mut count = 0u64;
        for (i, line) in lines.into_iter().enumerate() {
            count += 1;
            let pushed = bundle.as_mut().map(|b| {
                ladder_proof::tiles::push_entry::<()>(b, t * WIDTH + i as u64, line).is_ok()
            });
            if pushed == Some(false) {
                bundle = None;
            }
        }
        if count != WIDTH {
            return false;
        }
        let mut slot = Vec::with_capacity(SLOT);
        for h in hashes {
            slot.extend_from_slice(h);
        }
        let sum = blake3::keyed_hash(node, &slot);
        slot.extend_from_slice(sum.as_bytes());
        let (at, len) =
            bundle.as_deref().and_then(|b| self.append_bundle(node, b)).unwrap_or((0, 0));
        slot.extend_from_slice(&at.to_le_bytes());
        slot.extend_from_slice(&len.to_le_bytes());
        slot.extend_from_slice(&[0; 4]);
        write_at(file, &slot, offset(t)).is_ok()
    }

    /// Makes the files hold every full level-0 tile and its bundle from `from` on, at most `max`
    /// of them: the tiles whose hashes and bundle already check are kept, and each run of tiles that do not is computed from its
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
            if self.holds(ledger, t)? {
                t += 1;
                continue;
            }
            // A run of tiles to compute: up to the next one that checks, 64 at most.
            let mut run_end = t + 1;
            while run_end < end && run_end - t < 64 && !self.holds(ledger, run_end)? {
                run_end += 1;
            }
            let (leaves, bundles) = leaves_and_bundles(ledger, t * WIDTH + 1, run_end * WIDTH)?;
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
                // The bundle first, so a slot never names a bundle not yet written; one that
                // could not be written is named nowhere (a read of it does not check).
                let bundle = bundles.get(i).and_then(|b| b.as_deref());
                let (at, len) = bundle.and_then(|b| self.append_bundle(&node, b)).unwrap_or((0, 0));
                slot.extend_from_slice(&at.to_le_bytes());
                slot.extend_from_slice(&len.to_le_bytes());
                slot.extend_from_slice(&[0; 4]);
                if write_at(file, &slot, offset(index)).is_err() {
                    return Ok(index);
                }
            }
            t = run_end;
        }
        Ok(t)
    }
}

/// Opens (or makes) a file, starting it again when it does not begin with `magic`.
fn open_file(path: &Path, magic: [u8; 8]) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let mut start = [0u8; 8];
    if read_at(&file, &mut start, 0).is_err() || start != magic {
        file.set_len(0)?;
        write_at(&file, &magic, 0)?;
    }
    Ok(file)
}

/// One bundle being made: its bytes, or `None` once a line was too long for one.
type Bundle = Option<Vec<u8>>;

/// The leaf hashes of events `first` through `last` (each the hash of its canonical JSON line),
/// and the entry bundle of each level-0 tile among them (ladder-proof's `push_entry` of each
/// line, as `tile_bytes` makes them), read in one pass in place. `first - 1` is a multiple of
/// 256.
fn leaves_and_bundles(
    ledger: &Ledger,
    first: u64,
    last: u64,
) -> Result<(Vec<Hash>, Vec<Bundle>), LogError> {
    let mut out = Vec::with_capacity((last + 1).saturating_sub(first) as usize);
    let mut bundles: Vec<Bundle> = Vec::new();
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
            if (r.seq - 1) % WIDTH == 0 {
                bundles.push(Some(Vec::with_capacity(48 << 10)));
            }
            if let Some(slot) = bundles.last_mut() {
                let pushed = slot
                    .as_mut()
                    .map(|b| ladder_proof::tiles::push_entry::<()>(b, r.seq - 1, &line).is_ok());
                if pushed == Some(false) {
                    *slot = None;
                }
            }
        }
    }
    let expected = (last + 1).saturating_sub(first);
    if (out.len() as u64) < expected {
        return Err(LogError::Missing { seq: first + out.len() as u64, head: ledger.head().seq });
    }
    Ok((out, bundles))
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
