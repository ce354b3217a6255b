//! The head file: a record of the committed head kept outside sled, so that a store that lost
//! or changed acknowledged events is refused instead of read as another history.
//!
//! sled 0.34 recovers a damaged database by dropping what it cannot read (and zeroing it on
//! disk): after a one-byte change or a truncation it opens as an empty or shorter ledger. So
//! beside sled's files the ledger keeps `ladder-head`, a small file written after every
//! committed append. Opening and closing write it as text, atomically (a temporary file, fsync,
//! rename, fsync of the directory):
//!
//! ```text
//! ladder ledger
//! format 4
//! head 89:5ae8f091d6513304e6bc1a1cfd1fd2ebc15752b18a159410e79751eb8aabfc26
//! file conf 62 1732464000123456789 1732464000123456789 1234
//! file db 524287 1732464000123456789 1732464000123456789 1235
//! check 9c4e...
//! ```
//!
//! While a writer has the ledger open, each commit records its head in place instead, in the
//! *slot layout*: the file is two fixed slots of [`SLOT_BYTES`] bytes, and commit `n` writes
//! slot `n % 2` with one positioned write and one `fdatasync`, no temporary file, rename or
//! directory sync (the way LMDB writes its two meta pages, each on a page of its own: a crash
//! tears a write by pages, so one slot's torn write never reaches the other). Each slot holds the same kind of
//! text with a counter line, under its own check line, padded with zero bytes:
//!
//! ```text
//! ladder ledger slot
//! counter 7
//! format 4
//! head 89:5ae8f091d6513304e6bc1a1cfd1fd2ebc15752b18a159410e79751eb8aabfc26
//! check 3f1a...
//! ```
//!
//! A reader takes the whole slot with the higher counter. A crash in the middle of a slot's write
//! leaves that slot failing its check and the other one whole, naming the head before: the store
//! is then at most one commit ahead of it, which opening accepts and records (as it does for a
//! crash between a commit and its head file). A file whose two slots both fail their checks is
//! refused as damaged. Closing the ledger writes the text layout above again (atomically, with
//! the seals), so a ledger closed cleanly is read by builds that know only that layout; one left
//! by a crash is refused by them as a damaged head file, and opened by this build.
//!
//! `head` is the last acknowledged head. Each `file` line is the *seal* of one of sled's files
//! as this build left it when it closed the ledger: its length, modification and change times
//! (nanoseconds) and inode. `check` is the blake3 of the lines before it, so a damaged head
//! file is refused too.
//!
//! Opening: when the files still match their seals, nothing touched them since this build
//! closed the ledger, and sled opens them in place. When they do not (a crash, a copy, or
//! damage), sled first opens a copy of the ledger in the temporary directory, and the ledger is
//! opened in place only if that copy holds the recorded head; otherwise it is refused and its
//! files are left exactly as they were. Either way, after sled opens, the store must hold the
//! recorded head (its seq, with the same chain hash) or be refused.

use crate::{Head, LogError};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The head file's name inside the ledger directory.
pub const HEAD_FILE: &str = "ladder-head";
/// The lock file's name inside the ledger directory.
pub const LOCK_FILE: &str = "ladder-lock";
const TEMP_SUFFIX: &str = ".tmp";
const MAGIC: &str = "ladder ledger";
/// The first line of a slot of the slot layout.
const SLOT_MAGIC: &str = "ladder ledger slot";
/// The size of each of the two slots of the slot layout; the file is twice this. One page of the
/// page cache and of a disk of 4 KiB sectors, the unit a crash tears a write by: each slot on a
/// page of its own, so a torn write of one never damages the other (as LMDB keeps its two meta
/// pages on two pages).
pub const SLOT_BYTES: usize = 4096;
/// The slot size of the first slot layout (both slots on one page), still read: a ledger left by
/// a crash of a build that wrote it opens, and its next commit writes slots of [`SLOT_BYTES`].
const FIRST_SLOT_BYTES: usize = 512;

/// The seal of one file: what changes whenever anything writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    /// The path inside the ledger directory, `/`-separated.
    pub name: String,
    /// Its length in bytes.
    pub len: u64,
    /// Its modification time, nanoseconds since the epoch.
    pub mtime: i128,
    /// Its status change time (which no user command can set back), nanoseconds since the epoch.
    pub ctime: i128,
    /// Its inode number.
    pub ino: u64,
}

/// What the head file records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The ledger format.
    pub format: u8,
    /// The last acknowledged head.
    pub head: Head,
    /// The seals of sled's files as this build left them; empty while a writer has them open.
    pub seals: Vec<Seal>,
}

fn damaged(path: &Path, detail: impl Into<String>) -> LogError {
    LogError::Corrupt { place: format!("the head file {}", path.display()), detail: detail.into() }
}

impl Recorded {
    fn text(&self) -> String {
        let mut body = format!("{MAGIC}\nformat {}\nhead {}\n", self.format, self.head);
        for s in &self.seals {
            body.push_str(&format!(
                "file {} {} {} {} {}\n",
                s.name, s.len, s.mtime, s.ctime, s.ino
            ));
        }
        let check = blake3::hash(body.as_bytes());
        body.push_str(&format!("check {}\n", check.to_hex()));
        body
    }

    fn parse(path: &Path, text: &str) -> Result<Recorded, LogError> {
        let bad = |detail: &str| damaged(path, detail);
        let (body, check) = text
            .strip_suffix('\n')
            .and_then(|t| t.rsplit_once('\n'))
            .ok_or_else(|| bad("it is cut short"))?;
        let body = format!("{body}\n");
        let check = check.strip_prefix("check ").ok_or_else(|| bad("no check line"))?;
        if blake3::hash(body.as_bytes()).to_hex().as_str() != check {
            return Err(bad("its check line does not match its contents"));
        }
        let mut lines = body.lines();
        if lines.next() != Some(MAGIC) {
            return Err(bad("it does not start with `ladder ledger`"));
        }
        let format = lines
            .next()
            .and_then(|l| l.strip_prefix("format "))
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad("no format line"))?;
        let head = lines
            .next()
            .and_then(|l| l.strip_prefix("head "))
            .and_then(|h| Head::parse(h).ok())
            .ok_or_else(|| bad("no head line"))?;
        let mut seals = Vec::new();
        for line in lines {
            let mut f = line
                .strip_prefix("file ")
                .ok_or_else(|| bad("a line it does not know"))?
                .split(' ');
            let mut next = || f.next().ok_or_else(|| bad("a file line is cut short"));
            let name = next()?.to_string();
            let num =
                |t: &str| t.parse::<i128>().map_err(|_| bad("a file line holds a non-number"));
            let len = u64::try_from(num(next()?)?).map_err(|_| bad("a negative length"))?;
            let mtime = num(next()?)?;
            let ctime = num(next()?)?;
            let ino = u64::try_from(num(next()?)?).map_err(|_| bad("a negative inode"))?;
            seals.push(Seal { name, len, mtime, ctime, ino });
        }
        Ok(Recorded { format, head, seals })
    }
}

/// Reads the head file of the ledger at `dir`, if it has one.
pub fn read(dir: &Path) -> Result<Option<Recorded>, LogError> {
    let path = dir.join(HEAD_FILE);
    match fs::read(&path) {
        // The text layout starts with its magic line; the slot layout is two slots, either of
        // which may be torn (its first bytes included).
        Ok(bytes)
            if (bytes.len() == 2 * SLOT_BYTES || bytes.len() == 2 * FIRST_SLOT_BYTES)
                && !bytes.starts_with(format!("{MAGIC}\n").as_bytes()) =>
        {
            parse_slots(&path, &bytes).map(|(r, _)| Some(r))
        }
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| damaged(&path, "not UTF-8"))?;
            Recorded::parse(&path, &text).map(Some)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LogError::from_io(&path, "reading the head file", e)),
    }
}

/// Writes the head file of the ledger at `dir` atomically and durably.
pub fn write(dir: &Path, recorded: &Recorded) -> Result<(), LogError> {
    let path = dir.join(HEAD_FILE);
    let temp = dir.join(format!("{HEAD_FILE}{TEMP_SUFFIX}"));
    let io = |what: &str, e: std::io::Error| LogError::from_io(&path, what, e);
    let mut f = fs::File::create(&temp).map_err(|e| io("writing the head file", e))?;
    f.write_all(recorded.text().as_bytes()).map_err(|e| io("writing the head file", e))?;
    f.sync_all().map_err(|e| io("syncing the head file", e))?;
    drop(f);
    fs::rename(&temp, &path).map_err(|e| io("replacing the head file", e))?;
    // The rename is durable once the directory is.
    if let Ok(d) = fs::File::open(dir) {
        d.sync_all().map_err(|e| io("syncing the ledger directory", e))?;
    }
    Ok(())
}

/// The text of one slot: `recorded` (whose seals are left out: a slot is written only while the
/// files are open) under `counter`, with its check line, padded with zero bytes to [`SLOT_BYTES`].
fn slot_bytes(recorded: &Recorded, counter: u64) -> Result<[u8; SLOT_BYTES], LogError> {
    let mut body = format!(
        "{SLOT_MAGIC}\ncounter {counter}\nformat {}\nhead {}\n",
        recorded.format, recorded.head
    );
    let check = blake3::hash(body.as_bytes());
    body.push_str(&format!("check {}\n", check.to_hex()));
    let mut out = [0u8; SLOT_BYTES];
    // A head is at most 20 digits, a colon and 64 hex digits: a slot's text is under 200 bytes.
    let Some(dest) = out.get_mut(..body.len()) else {
        return Err(LogError::Corrupt {
            place: "the head file".into(),
            detail: format!("a slot of {} bytes does not fit in {SLOT_BYTES}", body.len()),
        });
    };
    dest.copy_from_slice(body.as_bytes());
    Ok(out)
}

/// One slot's record and counter, or `None` when the slot is not whole (torn, zero, damaged).
fn parse_slot(slot: &[u8]) -> Option<(Recorded, u64)> {
    let end = slot.iter().position(|&b| b == 0).unwrap_or(slot.len());
    if slot[end..].iter().any(|&b| b != 0) {
        return None;
    }
    let text = std::str::from_utf8(&slot[..end]).ok()?;
    let (body, check) = text.strip_suffix('\n')?.rsplit_once('\n')?;
    let body = format!("{body}\n");
    if blake3::hash(body.as_bytes()).to_hex().as_str() != check.strip_prefix("check ")? {
        return None;
    }
    let mut lines = body.lines();
    if lines.next() != Some(SLOT_MAGIC) {
        return None;
    }
    let counter = lines.next()?.strip_prefix("counter ")?.parse().ok()?;
    let format = lines.next()?.strip_prefix("format ")?.parse().ok()?;
    let head = Head::parse(lines.next()?.strip_prefix("head ")?).ok()?;
    if lines.next().is_some() {
        return None;
    }
    Some((Recorded { format, head, seals: Vec::new() }, counter))
}

/// The record of a head file in the slot layout (two slots, each half the file): its whole slot
/// with the higher counter.
fn parse_slots(path: &Path, bytes: &[u8]) -> Result<(Recorded, u64), LogError> {
    let (a, b) = bytes.split_at(bytes.len() / 2);
    match (parse_slot(a), parse_slot(b)) {
        (Some(a), Some(b)) => Ok(if a.1 >= b.1 { a } else { b }),
        (Some(one), None) | (None, Some(one)) => Ok(one),
        (None, None) => Err(damaged(path, "neither of its two slots is whole")),
    }
}

/// The head file in the slot layout, open for writing: each [`SlotWriter::write`] is one
/// positioned write of the next slot and one `fdatasync`.
pub struct SlotWriter {
    file: fs::File,
    path: PathBuf,
    /// The counter of the slot written last.
    counter: u64,
}

impl SlotWriter {
    /// Replaces the head file of the ledger at `dir` by one in the slot layout recording
    /// `recorded` (atomically: a temporary file, fsync, rename, fsync of the directory, as
    /// [`write`]), and keeps it open for the next commits.
    pub fn create(dir: &Path, recorded: &Recorded) -> Result<SlotWriter, LogError> {
        let path = dir.join(HEAD_FILE);
        let temp = dir.join(format!("{HEAD_FILE}{TEMP_SUFFIX}"));
        let io = |what: &str, e: std::io::Error| LogError::from_io(&path, what, e);
        // Counter 1 goes in slot 1; slot 0 is zeros (not whole) until counter 2.
        let mut bytes = vec![0u8; 2 * SLOT_BYTES];
        bytes[SLOT_BYTES..].copy_from_slice(&slot_bytes(recorded, 1)?);
        let mut f = fs::File::create(&temp).map_err(|e| io("writing the head file", e))?;
        f.write_all(&bytes).map_err(|e| io("writing the head file", e))?;
        f.sync_all().map_err(|e| io("syncing the head file", e))?;
        drop(f);
        fs::rename(&temp, &path).map_err(|e| io("replacing the head file", e))?;
        if let Ok(d) = fs::File::open(dir) {
            d.sync_all().map_err(|e| io("syncing the ledger directory", e))?;
        }
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| io("opening the head file", e))?;
        Ok(SlotWriter { file, path, counter: 1 })
    }

    /// Records `recorded` in the slot the older record is in, durably (its data: the file's
    /// length never changes, so `fdatasync` is enough).
    pub fn write(&mut self, recorded: &Recorded) -> Result<(), LogError> {
        let io = |what: &str, e: std::io::Error| LogError::from_io(&self.path, what, e);
        let counter = self.counter + 1;
        let bytes = slot_bytes(recorded, counter)?;
        let offset = (counter % 2) * SLOT_BYTES as u64;
        write_at(&self.file, &bytes, offset).map_err(|e| io("writing the head file", e))?;
        self.file.sync_data().map_err(|e| io("syncing the head file", e))?;
        self.counter = counter;
        Ok(())
    }
}

#[cfg(unix)]
fn write_at(file: &fs::File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, offset)
}

#[cfg(not(unix))]
fn write_at(mut file: &fs::File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

/// True for the files of ours the seals leave out (and a copy leaves behind): the head file, the
/// lock, the folded form with its temporary files, the leaf hashes' and the entry bundles' files (derived data,
/// checked on their own before a replay or a server trusts them: `folded.rs`, `leaves.rs`).
fn is_ours(name: &str) -> bool {
    name == HEAD_FILE
        || name == LOCK_FILE
        || name.starts_with(&format!("{HEAD_FILE}{TEMP_SUFFIX}"))
        || name.starts_with(crate::FOLDED_FILE)
        || name == crate::LEAVES_FILE
        || name == crate::ENTRIES_FILE
}

/// The seals of every file in the ledger directory but ours, sorted by name.
pub fn seals(dir: &Path) -> Result<Vec<Seal>, LogError> {
    let mut out = Vec::new();
    collect(dir, dir, &mut out)?;
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<Seal>) -> Result<(), LogError> {
    let io = |e| LogError::from_io(dir, "reading the ledger directory", e);
    for entry in fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).map_err(io)?;
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace(std::path::MAIN_SEPARATOR, "/");
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else if !is_ours(&name) {
            out.push(seal_of(name, &meta));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn seal_of(name: String, meta: &fs::Metadata) -> Seal {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    Seal {
        name,
        len: meta.len(),
        mtime: ns(meta.mtime(), meta.mtime_nsec()),
        ctime: ns(meta.ctime(), meta.ctime_nsec()),
        ino: meta.ino(),
    }
}

#[cfg(not(unix))]
fn seal_of(name: String, meta: &fs::Metadata) -> Seal {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    Seal { name, len: meta.len(), mtime, ctime: mtime, ino: 0 }
}

/// The prefix of the temporary copies' directory names.
const COPY_PREFIX: &str = "ladder-check-";
/// The lock file inside a temporary copy, held while the copy is in use.
const COPY_LOCK: &str = "ladder-copy-lock";

/// Copies the ledger directory at `dir` (but for our files) to a fresh temporary directory, for
/// sled to open there: its recovery then writes to the copy, never to the ledger. The copy holds
/// a lock while it is in use; copies whose lock nobody holds (left by a process that was killed)
/// are removed first.
pub fn copy_to_temp(dir: &Path) -> Result<TempCopy, LogError> {
    use fs2::FileExt;
    let temp = std::env::temp_dir();
    remove_abandoned_copies(&temp);
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let to = temp.join(format!("{COPY_PREFIX}{}-{n}", std::process::id()));
    let io = |e| LogError::from_io(&to, "making a copy of the ledger to check it", e);
    fs::create_dir_all(&to).map_err(io)?;
    // Locked under another name first, so a sweeper never sees the lock file unlocked.
    let pending = to.join(format!("{COPY_LOCK}{TEMP_SUFFIX}"));
    let lock = fs::File::create(&pending).map_err(io)?;
    lock.try_lock_exclusive().map_err(io)?;
    fs::rename(&pending, to.join(COPY_LOCK)).map_err(io)?;
    let copy = TempCopy(to.clone(), lock);
    copy_dir(dir, &to)?;
    Ok(copy)
}

/// Removes the temporary copies in `temp` that no process holds (their owner was killed before it
/// could remove them). A copy still being made, or in use, holds its lock and is left alone.
fn remove_abandoned_copies(temp: &Path) {
    use fs2::FileExt;
    let Ok(entries) = fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(COPY_PREFIX) {
            continue;
        }
        let Ok(lock) = fs::File::open(entry.path().join(COPY_LOCK)) else { continue };
        if lock.try_lock_exclusive().is_ok() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), LogError> {
    let io = |e| LogError::from_io(to, "copying the ledger to check it", e);
    fs::create_dir_all(to).map_err(io)?;
    for entry in fs::read_dir(from).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let name = entry.file_name();
        if is_ours(&name.to_string_lossy()) || name == COPY_LOCK {
            continue;
        }
        if entry.file_type().map_err(io)?.is_dir() {
            copy_dir(&path, &to.join(&name))?;
        } else {
            fs::copy(&path, to.join(&name)).map_err(io)?;
        }
    }
    Ok(())
}

/// Copies made by [`copy_to_temp`] in this process, to name each one.
static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A temporary copy of a ledger, removed when dropped; it holds its lock file while it lives.
pub struct TempCopy(PathBuf, fs::File);

impl TempCopy {
    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempCopy {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
        let _ = self.1.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_any_changed_byte() {
        let r = Recorded {
            format: 3,
            head: Head { seq: 89, hash: [0xab; 32] },
            seals: vec![Seal { name: "db".into(), len: 524287, mtime: 17, ctime: 18, ino: 5 }],
        };
        let text = r.text();
        assert_eq!(Recorded::parse(Path::new("h"), &text).unwrap(), r);
        for i in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[i] ^= 0x01;
            let Ok(changed) = String::from_utf8(bytes) else { continue };
            assert!(Recorded::parse(Path::new("h"), &changed).is_err(), "byte {i} changed");
        }
        assert!(Recorded::parse(Path::new("h"), &text[..text.len() - 1]).is_err());
    }

    fn at(seq: u64) -> Recorded {
        Recorded { format: 4, head: Head { seq, hash: [seq as u8; 32] }, seals: Vec::new() }
    }

    /// The slot layout: each write goes to the other slot, a reader takes the whole slot with
    /// the higher counter, a torn or damaged slot gives way to the other one (the head before),
    /// and a file with neither slot whole is refused.
    #[test]
    fn slots_alternate_and_a_torn_slot_gives_the_head_before() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(HEAD_FILE);
        let mut w = SlotWriter::create(dir.path(), &at(1)).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(at(1)));
        for seq in 2..=5 {
            w.write(&at(seq)).unwrap();
            let bytes = fs::read(&file).unwrap();
            assert_eq!(bytes.len(), 2 * SLOT_BYTES);
            assert_eq!(read(dir.path()).unwrap(), Some(at(seq)));
            // Counter `seq` is in slot `seq % 2`, the one before it in the other slot.
            let newer = (seq as usize % 2) * SLOT_BYTES;
            let older = SLOT_BYTES - newer;
            assert_eq!(parse_slot(&bytes[newer..newer + SLOT_BYTES]).unwrap(), (at(seq), seq));
            assert_eq!(parse_slot(&bytes[older..older + SLOT_BYTES]).unwrap().0, at(seq - 1));
        }
        let whole = fs::read(&file).unwrap();
        // Counter 5 is in slot 1. Tear it anywhere (a change of any byte, or its end zeroed, as
        // a write cut short would leave it): the reader gives the head before, 4.
        for i in (SLOT_BYTES..2 * SLOT_BYTES).step_by(7) {
            let mut bytes = whole.clone();
            bytes[i] ^= 0x20;
            fs::write(&file, &bytes).unwrap();
            assert_eq!(read(dir.path()).unwrap(), Some(at(4)), "byte {i} changed");
            let mut cut = whole.clone();
            cut[i..].fill(0);
            fs::write(&file, &cut).unwrap();
            // Zeros past the slot's text leave it whole; any of its text cut, it gives way.
            let text_len = whole[SLOT_BYTES..].iter().position(|&b| b == 0).unwrap();
            let expected = if i < SLOT_BYTES + text_len { at(4) } else { at(5) };
            assert_eq!(read(dir.path()).unwrap(), Some(expected), "cut at {i}");
        }
        // Both slots damaged: refused, naming the head file.
        let mut bytes = whole.clone();
        bytes[40] ^= 1;
        bytes[SLOT_BYTES + 40] ^= 1;
        fs::write(&file, &bytes).unwrap();
        let e = read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("neither of its two slots is whole"), "{e}");
        // A slot file of another length: refused.
        fs::write(&file, &whole[..SLOT_BYTES + 10]).unwrap();
        assert!(read(dir.path()).unwrap_err().to_string().contains("head file"));
        // Closing writes the text layout again, which older builds read.
        fs::write(&file, &whole).unwrap();
        write(dir.path(), &at(5)).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(Recorded::parse(&file, &text).unwrap(), at(5));
    }

    /// A write is torn by the unit the file system and the disk write, not by the slot: a page
    /// of 4,096 bytes (the page cache writes a file back a page at a time, and a disk of 4 KiB
    /// sectors rewrites a whole sector). A crash in the middle of the newest slot's write may
    /// leave that whole page garbage; the other slot must sit on another page, so that the
    /// head before is still read (LMDB keeps each of its two meta pages on its own page for
    /// this reason), and the file is not refused as damaged.
    #[test]
    fn a_torn_page_of_the_newest_slot_leaves_the_other_slot_whole() {
        const PAGE: usize = 4096;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(HEAD_FILE);
        let mut w = SlotWriter::create(dir.path(), &at(1)).unwrap();
        for seq in 2..=5 {
            w.write(&at(seq)).unwrap();
            let whole = fs::read(&file).unwrap();
            // The newest slot (counter `seq`) starts at `(seq % 2) * SLOT_BYTES`: garble the
            // whole page it starts in, as a torn write of that page would leave it.
            let start = (seq as usize % 2) * SLOT_BYTES;
            let page = start / PAGE * PAGE;
            for garbage in [0x00u8, 0xa5, 0xff] {
                let mut torn = whole.clone();
                let end = (page + PAGE).min(torn.len());
                torn[page..end].fill(garbage);
                fs::write(&file, &torn).unwrap();
                assert_eq!(
                    read(dir.path()).unwrap(),
                    Some(at(seq - 1)),
                    "counter {seq}'s page torn to {garbage:#x}"
                );
            }
            fs::write(&file, &whole).unwrap();
        }
    }

    /// The first slot layout (two slots of 512 bytes, a file of 1,024) is still read, so a
    /// ledger a build of that layout left by a crash opens: the whole slot with the higher
    /// counter, the other one when it is torn, refused when neither is whole.
    #[test]
    fn the_first_slot_layout_is_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(HEAD_FILE);
        let slot =
            |r: &Recorded, counter| slot_bytes(r, counter).unwrap()[..FIRST_SLOT_BYTES].to_vec();
        // Counter 2 in slot 0, counter 1 in slot 1, as that build left them.
        let first = [slot(&at(8), 2), slot(&at(7), 1)].concat();
        assert_eq!(first.len(), 1024);
        fs::write(&file, &first).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(at(8)));
        let mut torn = first.clone();
        torn[60..FIRST_SLOT_BYTES].fill(0);
        fs::write(&file, &torn).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(at(7)));
        torn[FIRST_SLOT_BYTES + 60..].fill(0);
        fs::write(&file, &torn).unwrap();
        assert!(read(dir.path()).unwrap_err().to_string().contains("neither of its two slots"));
    }

    /// Builds from before the slot layout parse the head file only as text
    /// ([`Recorded::parse`], unchanged since): every state a writer of the slot layout can
    /// leave (one slot, both, either torn) fails that parse, so such a build refuses a ledger
    /// this one left by a crash as a damaged head file, and never reads it as a head.
    #[test]
    fn the_text_parser_of_older_builds_refuses_every_slot_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(HEAD_FILE);
        let mut w = SlotWriter::create(dir.path(), &at(1)).unwrap();
        let mut states = vec![fs::read(&file).unwrap()];
        for seq in 2..=4 {
            w.write(&at(seq)).unwrap();
            states.push(fs::read(&file).unwrap());
        }
        let mut all = states.clone();
        for s in &states {
            for cut in [10, 100, SLOT_BYTES / 2] {
                let mut torn = s.clone();
                torn[cut..SLOT_BYTES].fill(0);
                all.push(torn);
                let mut torn = s.clone();
                torn[SLOT_BYTES + cut..].fill(0);
                all.push(torn);
            }
        }
        for (i, bytes) in all.iter().enumerate() {
            // An older build reads the bytes as UTF-8 (zero bytes are valid UTF-8) and parses
            // the text; either step fails.
            if let Ok(text) = String::from_utf8(bytes.clone()) {
                let e = Recorded::parse(&file, &text).unwrap_err();
                assert!(e.to_string().contains("head file"), "state {i}: {e}");
            }
        }
    }
}
