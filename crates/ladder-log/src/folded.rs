//! The folded form of the ledger: derived data for replays, kept beside the chain.
//!
//! `ladder-folded` in the ledger's directory holds every stored event as a folded record
//! ([`ladder_events::folded`]: players as numbers, interned once over the whole history, fixed-width
//! fields), so a replay reads a compact file instead of reading sled's blocks, decoding every
//! event and looking up every name (docs/PERFORMANCE.md, "The folded form"). It is a cache, not
//! part of the ledger format: deleting it is safe, and nothing in it is trusted before it is
//! checked.
//!
//! Layout, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `LDFOLD\0` and the layout's version, 3 (version 1 had no short two-seat record, version 2 no number of players) |
//! | 8 | the head's sequence number it was built through |
//! | 32 | that head's chain hash |
//! | 8 | the length of the records' part |
//! | 8 | the number of voids |
//! | 8 | the number of players (name records), so a replay sizes its roster once |
//! | 32 | checksum: blake3 of the records' part, the voids and the 72 bytes above |
//! | ... | the records: segments, each a `u32` length and whole records |
//! | 24 per void | the voids in sequence order: the voided match's seq, the MatchVoided's seq and instant |
//!
//! [`Ledger::folded`] trusts the file only when its head is the ledger's head, its length is what
//! its header says and its checksum matches its bytes; otherwise (missing, stale, damaged) it
//! builds it again from the ledger (through a temporary file and a rename, so a reader never sees
//! half a file), and when it cannot write there (a read-only directory, a full disk, a ledger in
//! memory) the caller reads the ledger as before. It is built lazily, on the first replay after
//! the head moved, not on append: appends stay as they were. `verify` re-derives it from the chain
//! and compares ([`Ledger::check_folded`]).

use crate::ledger::Ledger;
use crate::{Head, LogError};
use ladder_events::codec;
use ladder_events::codec::BodyView;
use ladder_events::folded::Encoder;
use ladder_events::Timestamp;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folded form's file in the ledger directory.
pub const FOLDED_FILE: &str = "ladder-folded";

/// The magic: `LDFOLD\0`, then the layout's version. A file of another version is not read
/// (it is built again, as any damaged one is): the folded form is derived data, so a new layout
/// needs no upgrade step.
const MAGIC: [u8; 8] = *b"LDFOLD\x00\x03";
const HEADER: usize = 104;
/// The checksum's offset in the header: the 72 bytes before it are hashed after the body.
const SUM_AT: usize = 72;
const VOID: usize = 24;
/// Records per segment, in bytes: a segment is read and handed to the replay at once.
const SEGMENT: usize = 256 * 1024;
/// The largest segment a reader accepts: anything longer is damage, not a segment.
const MAX_SEGMENT: usize = 64 * SEGMENT;

/// A void as the folded form keeps it, so a replay knows before it reads a match whether the match
/// is voided (and by an event its `--until` includes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldedVoid {
    /// The voided MatchResult's sequence number.
    pub match_seq: u64,
    /// The MatchVoided's sequence number.
    pub void_seq: u64,
    /// The MatchVoided's instant.
    pub at: Timestamp,
}

/// What the folded form's file is, against the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FoldedState {
    /// There is none.
    Absent,
    /// Built through the ledger's head, whole and matching its checksum.
    Current,
    /// Whole, but built through another head.
    Stale {
        /// The sequence number it was built through.
        seq: u64,
    },
    /// Not what it claims: cut, edited, or not a folded form at all.
    Damaged {
        /// What is wrong.
        detail: String,
    },
}

/// The header of a folded form.
#[derive(Clone, Copy)]
struct Header {
    head: Head,
    body: u64,
    voids: u64,
    players: u64,
    sum: [u8; 32],
}

impl Header {
    fn bytes(&self) -> [u8; HEADER] {
        let mut out = [0u8; HEADER];
        out[..8].copy_from_slice(&MAGIC);
        out[8..16].copy_from_slice(&self.head.seq.to_le_bytes());
        out[16..48].copy_from_slice(&self.head.hash);
        out[48..56].copy_from_slice(&self.body.to_le_bytes());
        out[56..64].copy_from_slice(&self.voids.to_le_bytes());
        out[64..72].copy_from_slice(&self.players.to_le_bytes());
        out[72..104].copy_from_slice(&self.sum);
        out
    }

    fn parse(b: &[u8; HEADER]) -> Option<Header> {
        if b[..8] != MAGIC {
            return None;
        }
        let u64_at = |i: usize| b[i..i + 8].try_into().ok().map(u64::from_le_bytes);
        Some(Header {
            head: Head { seq: u64_at(8)?, hash: b[16..48].try_into().ok()? },
            body: u64_at(48)?,
            voids: u64_at(56)?,
            players: u64_at(64)?,
            sum: b[72..104].try_into().ok()?,
        })
    }

    /// The file length the header promises, if it is representable.
    fn file_len(&self) -> Option<u64> {
        self.voids.checked_mul(VOID as u64)?.checked_add(self.body)?.checked_add(HEADER as u64)
    }
}

/// A checked folded form, open for reading: what [`Ledger::folded`] hands a replay.
pub struct Folded {
    file: File,
    head: Head,
    body: u64,
    players: u64,
    voids: Vec<FoldedVoid>,
    was: FoldedState,
}

impl Folded {
    /// The head it was built through: the ledger's head when it was handed out.
    pub fn head(&self) -> Head {
        self.head
    }

    /// How many players its records name (the number of name records), as its header says, and
    /// at most one per 5 bytes of records (a name record's least): a size to make room for, not a
    /// count to trust (`verify` derives the header again and compares).
    pub fn players(&self) -> u64 {
        self.players.min(self.body / 5)
    }

    /// The length of its records' part in bytes (what [`Folded::read`] hands out, with a 4-byte
    /// length per segment).
    pub fn records_len(&self) -> u64 {
        self.body
    }

    /// Every void, in sequence order.
    pub fn voids(&self) -> &[FoldedVoid] {
        &self.voids
    }

    /// What the file was before [`Ledger::folded`] handed this out: [`FoldedState::Current`] when
    /// it was used as it was, anything else when it was built again first.
    pub fn was(&self) -> &FoldedState {
        &self.was
    }

    /// Hands the records to `visit`, a segment of whole records at a time
    /// ([`ladder_events::folded::Reader`] reads them), until it returns `Ok(false)` or an error.
    /// A segment the file no longer holds whole (changed since it was checked) is
    /// [`LogError::Corrupt`].
    pub fn read<E: From<LogError>>(
        &mut self,
        mut visit: impl FnMut(&[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        let corrupt = |detail: String| LogError::Corrupt { place: FOLDED_FILE.into(), detail };
        self.file.seek(SeekFrom::Start(HEADER as u64)).map_err(|e| io("reading", e))?;
        // One read a segment, straight into `buf`: the segment and the length of the next one
        // after it (no buffered reader, whose buffer every segment would be copied through).
        let mut file = &self.file;
        let mut left = self.body;
        let mut buf = Vec::with_capacity(SEGMENT + 64);
        let mut len = [0u8; 4];
        if left > 0 {
            file.read_exact(&mut len).map_err(|e| io("reading", e))?;
        }
        while left > 0 {
            let n = u32::from_le_bytes(len) as usize;
            if n > MAX_SEGMENT || n as u64 + 4 > left {
                return Err(corrupt(format!("a segment of {n} bytes")).into());
            }
            left -= n as u64 + 4;
            let next = if left > 0 { 4 } else { 0 };
            buf.resize(n + next, 0);
            file.read_exact(&mut buf).map_err(|e| io("reading", e))?;
            if let Some(tail) = buf.get(n..n + 4) {
                len.copy_from_slice(tail);
            }
            if !visit(&buf[..n])? {
                break;
            }
        }
        Ok(())
    }
}

fn io(what: &str, source: std::io::Error) -> LogError {
    LogError::Storage { context: format!("{what} the folded form {FOLDED_FILE}"), source }
}

/// Where the records go while they are derived: a file (building) or only the checksum
/// (verify's comparison).
trait Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()>;
}

impl<W: Write> Sink for BufWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.write_all(bytes)
    }
}

struct Discard;

impl Sink for Discard {
    fn write(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
}

/// What [`derive`] wrote: the header (with the checksum) to put in front.
fn derive(ledger: &Ledger, sink: &mut dyn Sink) -> Result<Header, LogError> {
    let mut enc = Encoder::new();
    let mut sum = blake3::Hasher::new();
    let mut body = 0u64;
    let mut voids: Vec<FoldedVoid> = Vec::new();
    let mut flush = |enc: &mut Encoder, sum: &mut blake3::Hasher| -> Result<(), LogError> {
        let segment = enc.take();
        if segment.is_empty() {
            return Ok(());
        }
        // A segment is at most one event past SEGMENT bytes, and an event is far below 4 GB.
        let len = (segment.len() as u32).to_le_bytes();
        sum.update(&len);
        sum.update(&segment);
        sink.write(&len).and_then(|()| sink.write(&segment)).map_err(|e| io("writing", e))?;
        body += 4 + segment.len() as u64;
        Ok(())
    };
    let head = ledger.head();
    ledger.read_records(1, |batch| -> Result<bool, LogError> {
        for r in batch {
            let event =
                codec::view(r.bytes).map_err(|source| LogError::Decode { seq: r.seq, source })?;
            if let BodyView::MatchVoided { match_id, .. } = event.body {
                let match_seq = ledger.match_seq(match_id)?.ok_or_else(|| LogError::Corrupt {
                    place: format!("the void at seq {}", r.seq),
                    detail: format!("it names no stored match ({match_id:?})"),
                })?;
                voids.push(FoldedVoid { match_seq, void_seq: r.seq, at: event.at });
            }
            enc.push(&event);
            if enc.pending() >= SEGMENT {
                flush(&mut enc, &mut sum)?;
            }
            if r.seq == head.seq {
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    flush(&mut enc, &mut sum)?;
    let mut table = Vec::with_capacity(voids.len() * VOID);
    for v in &voids {
        table.extend_from_slice(&v.match_seq.to_le_bytes());
        table.extend_from_slice(&v.void_seq.to_le_bytes());
        table.extend_from_slice(&v.at.0.to_le_bytes());
    }
    sum.update(&table);
    sink.write(&table).map_err(|e| io("writing", e))?;
    let players = enc.players() as u64;
    let mut header = Header { head, body, voids: voids.len() as u64, players, sum: [0; 32] };
    sum.update(&header.bytes()[..SUM_AT]);
    header.sum = *sum.finalize().as_bytes();
    Ok(header)
}

/// A folded form whose file is whole and matches its own checksum: the file, its header and voids.
type Whole = (File, Header, Vec<FoldedVoid>);

/// Reads and checks the file at `path` against `head`: its state, and when it is current, the
/// file open at its start with its header and voids.
fn check(path: &Path, head: Head) -> (FoldedState, Option<Whole>) {
    against_head(check_whole(path), head)
}

/// [`check_whole`]'s verdict against the ledger's head: a whole file built through another head
/// is stale.
fn against_head(
    (state, whole): (FoldedState, Option<Whole>),
    head: Head,
) -> (FoldedState, Option<Whole>) {
    match whole {
        Some((_, header, _)) if header.head != head => {
            (FoldedState::Stale { seq: header.head.seq }, None)
        }
        whole => (state, whole),
    }
}

/// Reads the file at `path` and checks it against its own header and checksum, whatever head it
/// was built through: [`FoldedState::Current`] with the file, header and voids when it is whole.
fn check_whole(path: &Path) -> (FoldedState, Option<Whole>) {
    let damaged = |detail: String| (FoldedState::Damaged { detail }, None);
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (FoldedState::Absent, None),
        Err(e) => return damaged(format!("cannot be read: {e}")),
    };
    let mut h = [0u8; HEADER];
    if file.read_exact(&mut h).is_err() {
        return damaged("shorter than its header".into());
    }
    let Some(header) = Header::parse(&h) else {
        if h[..7] == MAGIC[..7] {
            return damaged(format!(
                "a folded form of layout version {}, and this build reads version {}",
                h[7], MAGIC[7]
            ));
        }
        return damaged("not a folded form (wrong magic)".into());
    };
    let len = file.metadata().map(|m| m.len()).ok();
    if header.file_len().is_none() || len != header.file_len() {
        return damaged(format!(
            "{} bytes, but its header says {}",
            len.map_or("an unknown number of".into(), |l| l.to_string()),
            header.file_len().map_or("more than fit in a file".into(), |l| l.to_string())
        ));
    }
    let total = header.body + header.voids * VOID as u64;
    let Ok((sum, table)) = checksum(&file, total, &h[..SUM_AT], header.body) else {
        return damaged("cut short while it was read".into());
    };
    if sum != header.sum {
        return damaged("its bytes do not match its checksum".into());
    }
    let voids = table
        .chunks_exact(VOID)
        .map(|c| {
            let u = |i: usize| {
                u64::from_le_bytes([
                    c[i],
                    c[i + 1],
                    c[i + 2],
                    c[i + 3],
                    c[i + 4],
                    c[i + 5],
                    c[i + 6],
                    c[i + 7],
                ])
            };
            FoldedVoid { match_seq: u(0), void_seq: u(8), at: Timestamp(u(16) as i64) }
        })
        .collect();
    (FoldedState::Current, Some((file, header, voids)))
}

/// Hashed inputs at least this long are hashed on two threads ([`checksum`]).
const SPLIT_AT: u64 = 4 << 20;

/// The folded form's checksum: blake3 of the file's `total` bytes after the header, then `tail`
/// (the header's first [`SUM_AT`] bytes), as one input; with the voids table (the bytes from
/// `body` on) kept as they go by. `Err` when the file is cut short.
///
/// A long input on a machine of two cores or more is hashed on two threads: BLAKE3 is a tree
/// ("BLAKE3: one function, fast everywhere", section 2.1), and the root's two subtrees (the
/// first `left_subtree_len` bytes, and the rest) are hashed apart, each reading its own bytes
/// of the file, then joined into the root ([`blake3::hazmat`]): the same hash as one
/// [`blake3::Hasher`] over the whole input, which a test checks on every length around the
/// split. A replay waits for this check before it reads the file, so its two halves on two
/// cores take half the wait (docs/PERFORMANCE.md, "The 1M replay's fixed costs", round five).
fn checksum(
    file: &File,
    total: u64,
    tail: &[u8],
    body: u64,
) -> std::io::Result<([u8; 32], Vec<u8>)> {
    use blake3::hazmat::{left_subtree_len, merge_subtrees_root, HasherExt, Mode};
    let len = total + tail.len() as u64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if !cfg!(unix) || len < SPLIT_AT || cores < 2 {
        let mut sum = blake3::Hasher::new();
        let mut table = Vec::new();
        hash_range(file, 0..len, total, tail, body, &mut sum, &mut table)?;
        return Ok((*sum.finalize().as_bytes(), table));
    }
    let left = left_subtree_len(len);
    let (l, r) = std::thread::scope(|s| {
        let right = s.spawn(|| {
            let mut sum = blake3::Hasher::new();
            sum.set_input_offset(left);
            let mut table = Vec::new();
            hash_range(file, left..len, total, tail, body, &mut sum, &mut table)
                .map(|()| (sum.finalize_non_root(), table))
        });
        let mut sum = blake3::Hasher::new();
        let mut table = Vec::new();
        let l = hash_range(file, 0..left, total, tail, body, &mut sum, &mut table)
            .map(|()| (sum.finalize_non_root(), table));
        let r = right.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (l, r)
    });
    let ((lcv, mut table), (rcv, rest)) = (l?, r?);
    table.extend_from_slice(&rest);
    Ok((*merge_subtrees_root(&lcv, &rcv, Mode::Hash).as_bytes(), table))
}

/// Hashes bytes `range` of the checksum's input (the file's `total` bytes after the header,
/// then `tail`) into `sum`, appending those at `body` and after (up to `total`: the voids) to
/// `table`. Reads at offsets, so two threads read one file at once.
fn hash_range(
    file: &File,
    range: std::ops::Range<u64>,
    total: u64,
    tail: &[u8],
    body: u64,
    sum: &mut blake3::Hasher,
    table: &mut Vec<u8>,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; SEGMENT];
    let mut pos = range.start;
    let file_end = range.end.min(total);
    while pos < file_end {
        let n = (file_end - pos).min(SEGMENT as u64) as usize;
        read_at(file, &mut buf[..n], HEADER as u64 + pos)?;
        sum.update(&buf[..n]);
        let end = pos + n as u64;
        if end > body {
            let from = body.saturating_sub(pos) as usize;
            table.extend_from_slice(&buf[from..n]);
        }
        pos = end;
    }
    if range.end > total {
        let from = (range.start.max(total) - total) as usize;
        sum.update(&tail[from..(range.end - total) as usize]);
    }
    Ok(())
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// Reads with a seek, so [`checksum`] reads on one thread only here.
#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}

/// The folded form beside a ledger, read and checked against its own checksum before the ledger
/// is open (so a replay does both at once, on two threads): [`Ledger::folded_with`] uses it when
/// it was built through the ledger's head, and checks the file again otherwise.
pub struct FoldedCheck {
    path: PathBuf,
    state: FoldedState,
    whole: Option<Whole>,
}

impl FoldedCheck {
    /// Reads and checks the folded form in the ledger directory `dir` (the path a ledger is
    /// opened at). Reads only: a missing or damaged file is reported, not built.
    pub fn read(dir: &Path) -> FoldedCheck {
        let path = dir.join(FOLDED_FILE);
        let (state, whole) = check_whole(&path);
        FoldedCheck { path, state, whole }
    }

    /// What the file was found to be, before it was compared with any head:
    /// [`FoldedState::Current`] means whole and matching its checksum.
    pub fn state(&self) -> &FoldedState {
        &self.state
    }
}

/// Temporary files of builds in this process are numbered, so two builds never share one.
static BUILDS: AtomicU64 = AtomicU64::new(0);

fn build(ledger: &Ledger, dir: &Path) -> Result<(), LogError> {
    let n = BUILDS.fetch_add(1, Ordering::Relaxed);
    let tmp: PathBuf = dir.join(format!("{FOLDED_FILE}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| io("creating", e))?;
        let mut out = BufWriter::with_capacity(SEGMENT, file);
        out.write_all(&[0u8; HEADER]).map_err(|e| io("writing", e))?;
        let header = derive(ledger, &mut out)?;
        let mut file = out.into_inner().map_err(|e| io("writing", e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(|e| io("writing", e))?;
        file.write_all(&header.bytes()).map_err(|e| io("writing", e))?;
        // No fsync: a file cut by a crash fails its checksum and is built again.
        drop(file);
        std::fs::rename(&tmp, dir.join(FOLDED_FILE)).map_err(|e| io("renaming", e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

impl Ledger {
    /// The state of the folded form beside this ledger, checked but not built (what tests and
    /// `verify` ask). A ledger in memory has none.
    pub fn folded_state(&self) -> FoldedState {
        match self.dir() {
            Some(dir) => check(&dir.join(FOLDED_FILE), self.head()).0,
            None => FoldedState::Absent,
        }
    }

    /// The folded form through the head, checked; built first when it is missing, stale or
    /// damaged. `None` when there is none to trust and it cannot be built here (a ledger in
    /// memory, a directory it cannot write, a full disk, an empty ledger): the caller reads the
    /// events instead ([`Ledger::read_records`]), which gives the same history.
    pub fn folded(&self) -> Option<Folded> {
        self.folded_with(None)
    }

    /// [`Ledger::folded`], taking `checked` (a [`FoldedCheck`] of this ledger's folded form, read
    /// while the ledger was opened) instead of reading and checking the file again: the same
    /// answer. A check of another directory's file is ignored.
    pub fn folded_with(&self, checked: Option<FoldedCheck>) -> Option<Folded> {
        let dir = self.dir()?;
        if self.head().seq == 0 {
            return None;
        }
        let path = dir.join(FOLDED_FILE);
        // Something other than a file where the folded form goes (a directory, say) is never
        // replaced: reading the events is cheaper than building a file that cannot be renamed
        // into place.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return None;
        }
        let (was, current) = match checked {
            Some(c) if c.path == path => against_head((c.state, c.whole), self.head()),
            _ => check(&path, self.head()),
        };
        let (file, header, voids) = match current {
            Some(c) => c,
            None => {
                build(self, dir).ok()?;
                check(&path, self.head()).1?
            }
        };
        Some(Folded {
            file,
            head: header.head,
            body: header.body,
            players: header.players,
            voids,
            was,
        })
    }

    /// Checks the folded form against the chain, for `verify`: when there is one built through
    /// the head, it is derived again from the events and its checksum compared with the file's
    /// (which the file's own bytes were checked against), so a file that holds anything but the
    /// chain's history is [`FoldedState::Damaged`]. Nothing is written.
    pub fn check_folded(&self) -> Result<FoldedState, LogError> {
        let state = self.folded_state();
        if state != FoldedState::Current {
            return Ok(state);
        }
        let Some(dir) = self.dir() else { return Ok(FoldedState::Absent) };
        let mut h = [0u8; HEADER];
        File::open(dir.join(FOLDED_FILE))
            .and_then(|mut f| f.read_exact(&mut h))
            .map_err(|e| io("reading", e))?;
        let stored = Header::parse(&h).map(|h| h.sum);
        let derived = derive(self, &mut Discard)?;
        Ok(if stored == Some(derived.sum) {
            FoldedState::Current
        } else {
            FoldedState::Damaged { detail: "it does not hold the chain's events".into() }
        })
    }

    /// Removes the folded form (a cache: the next replay builds it again).
    pub fn remove_folded(&self) -> Result<(), LogError> {
        let Some(dir) = self.dir() else { return Ok(()) };
        match std::fs::remove_file(dir.join(FOLDED_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("removing", e)),
            _ => Ok(()),
        }
    }
}

/// A ledger whose head file says its sled files are exactly as this build closed them (every
/// file's seal matches), found without opening sled: the lock taken, the head file read, the
/// files' seals compared. What a replay needs before it reads the folded form without opening
/// the ledger ([`SealedHead::folded`]; docs/spec.md, "Replays that open nothing").
///
/// Nothing is written: sled is not opened (its open writes a segment's worth of its log and
/// syncs it, and its close syncs again and rewrites the head file), and the lock file is only
/// opened (every ledger on disk has one: opening creates it).
pub struct SealedHead {
    dir: PathBuf,
    head: Head,
    /// The directory's lock, held until the replay has read the folded form.
    lock: File,
}

impl SealedHead {
    /// The sealed head of the ledger at `dir`: `Ok(None)` whenever anything is not as this
    /// build's clean close left it (no store, no head file or a damaged one, another format,
    /// seals missing or not matching, a special file in the directory) or cannot be read, so the
    /// caller opens the ledger as before ([`Ledger::open_existing`]), which repairs, refuses or
    /// rebuilds exactly as it always did. The one error is [`LogError::Locked`]: another process
    /// holds the ledger (after the same wait [`Ledger::open`] gives it), which is what opening
    /// would say too.
    pub fn read(dir: &Path) -> Result<Option<SealedHead>, LogError> {
        if !(dir.join("conf").is_file() || dir.join("db").is_file()) {
            return Ok(None);
        }
        // What opening checks first: a FIFO or a link in the directory is opening's to refuse.
        if crate::ledger::refuse_special_files(dir).is_err() {
            return Ok(None);
        }
        // Read before the lock too (as opening reads it to refuse another format), so that a
        // ledger this path will not take is never locked by it: the lock file exists already.
        let sealed =
            |r: &crate::headfile::Recorded| r.format == crate::LEDGER_FORMAT && !r.seals.is_empty();
        match crate::headfile::read(dir) {
            Ok(Some(r)) if sealed(&r) => {}
            _ => return Ok(None),
        }
        if !dir.join(crate::LOCK_FILE).is_file() {
            return Ok(None);
        }
        let lock = crate::ledger::lock_dir(dir).map_err(|e| match e {
            e @ LogError::Locked { .. } => Some(e),
            _ => None,
        });
        let lock = match lock {
            Ok(l) => l,
            Err(Some(locked)) => return Err(locked),
            Err(None) => return Ok(None),
        };
        // Under the lock: no writer changes the head file or sled's files from here on.
        let recorded = match crate::headfile::read(dir) {
            Ok(Some(r)) if sealed(&r) => r,
            _ => return Ok(None),
        };
        match crate::headfile::seals(dir) {
            Ok(seals) if seals == recorded.seals => {}
            _ => return Ok(None),
        }
        Ok(Some(SealedHead { dir: dir.to_path_buf(), head: recorded.head, lock }))
    }

    /// The head the head file records, which sled's sealed files hold.
    pub fn head(&self) -> Head {
        self.head
    }

    /// The folded form through this head, from `checked` ([`FoldedCheck::read`] of this
    /// directory): trusted exactly when [`Ledger::folded`] would use it as it is (a regular file,
    /// whole, matching its checksum, built through the head). Otherwise `Err(checked)` (boxed), with the
    /// lock released, for the caller to open the ledger and give the check to
    /// [`Ledger::folded_with`] (which builds the folded form again when it is stale or damaged).
    pub fn folded(self, checked: FoldedCheck) -> Result<SealedFolded, Box<FoldedCheck>> {
        let path = self.dir.join(FOLDED_FILE);
        if checked.path != path
            || !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            || checked.state != FoldedState::Current
        {
            return Err(Box::new(checked));
        }
        match checked.whole {
            Some((file, header, voids)) if header.head == self.head => Ok(SealedFolded {
                folded: Folded {
                    file,
                    head: header.head,
                    body: header.body,
                    players: header.players,
                    voids,
                    was: FoldedState::Current,
                },
                _lock: self.lock,
            }),
            whole => Err(Box::new(FoldedCheck { path, state: checked.state, whole })),
        }
    }
}

/// A checked folded form bound to a sealed head ([`SealedHead::folded`]), read with the ledger's
/// lock held and sled never opened.
pub struct SealedFolded {
    folded: Folded,
    _lock: File,
}

impl SealedFolded {
    /// The folded form, to read.
    pub fn folded(&mut self) -> &mut Folded {
        &mut self.folded
    }

    /// The folded form, to ask about.
    pub fn folded_ref(&self) -> &Folded {
        &self.folded
    }

    /// The head it holds the events through: the one the head file records.
    pub fn head(&self) -> Head {
        self.folded.head
    }

    /// Every void, in sequence order.
    pub fn voids(&self) -> &[FoldedVoid] {
        &self.folded.voids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`checksum`] against one [`blake3::Hasher`] over the same input, with the voids table
    /// taken from the same bytes: lengths on both sides of [`SPLIT_AT`] and of the sizes where
    /// the root's left subtree doubles (8 MB, 16 MB), the tail split between the two halves or
    /// not, and the table starting in either half.
    #[test]
    fn the_checksum_on_two_threads_is_blake3_of_the_whole_input() {
        let mut rng = ladder_sim::SplitMix64(27);
        let mut bytes = vec![0u8; (16 << 20) + 4096];
        bytes.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
        let tail: Vec<u8> = (0..SUM_AT as u8).collect();
        let cases: [(u64, u64); 9] = [
            (1000, 24),
            (SPLIT_AT - 65, 24 * 3),
            (SPLIT_AT - 64, 24 * 3),
            (SPLIT_AT, 0),
            ((8 << 20) - 64, 24),
            ((8 << 20) - 40, 24 * 1000),
            ((8 << 20) + 1, 24 * 200_000),
            ((16 << 20) - 64 - 1024, 24),
            ((16 << 20) + 4096, 24 * 7),
        ];
        let dir = tempfile::tempdir().unwrap();
        for (total, voids) in cases {
            let path = dir.path().join(format!("f{total}"));
            let mut file_bytes = vec![0u8; HEADER];
            file_bytes.extend_from_slice(&bytes[..total as usize]);
            std::fs::write(&path, &file_bytes).unwrap();
            let body = total - voids;
            let file = File::open(&path).unwrap();
            let (sum, table) = checksum(&file, total, &tail, body).unwrap();
            let mut want = blake3::Hasher::new();
            want.update(&bytes[..total as usize]);
            want.update(&tail);
            assert_eq!(sum, *want.finalize().as_bytes(), "{total} bytes");
            assert_eq!(table, bytes[body as usize..total as usize], "{total} bytes");
            // A file cut short is an error, whichever half reads past its end.
            let cut = File::open(&path).unwrap();
            assert!(checksum(&cut, total + 1, &tail, body).is_err(), "{total} bytes");
        }
    }
}
