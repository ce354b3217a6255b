//! The head file: a record of the committed head kept outside sled, so that a store that lost
//! or changed acknowledged events is refused instead of read as another history.
//!
//! sled 0.34 recovers a damaged database by dropping what it cannot read (and zeroing it on
//! disk): after a one-byte change or a truncation it opens as an empty or shorter ledger. So
//! beside sled's files the ledger keeps `ladder-head`, a small text file written atomically
//! (a temporary file, fsync, rename, fsync of the directory) after every committed append:
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

/// True for the files of ours the seals leave out (and a copy leaves behind): the head file, the
/// lock, and the folded form with its temporary files (derived data, checked on its own before a
/// replay trusts it: `folded.rs`).
fn is_ours(name: &str) -> bool {
    name == HEAD_FILE
        || name == LOCK_FILE
        || name.starts_with(&format!("{HEAD_FILE}{TEMP_SUFFIX}"))
        || name.starts_with(crate::FOLDED_FILE)
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
}
