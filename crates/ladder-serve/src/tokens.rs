//! Write tokens: only their SHA-256 hashes are stored, one `NAME HEX` line each, and a presented
//! token is compared with every stored hash in constant time (`subtle`), so neither the file nor
//! the time an answer takes tells anything about a token.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use subtle::ConstantTimeEq;

/// The prefix of every token ladder makes, so a leaked one is easy to recognise in a scan.
pub const TOKEN_PREFIX: &str = "ladder_";

/// Why the token file could not be read or written. Messages name the file and line, never a
/// token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Reading or writing the file failed.
    #[error("the token file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is not `NAME HEX`.
    #[error("the token file {} line {line}: {problem}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// `token add` of a name that already has a token.
    #[error("a token named {name:?} exists already in {}; revoke it first", path.display())]
    Exists {
        /// The name.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// `token revoke` of a name that has none.
    #[error("no token is named {name:?} in {}", path.display())]
    Unknown {
        /// The name.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// A name that cannot be written on one line of the file.
    #[error(
        "a token name is 1 to 64 characters of letters, digits, `-`, `_` and `.`; {name:?} is not"
    )]
    BadName {
        /// The name.
        name: String,
    },
}

/// The stored hashes: (name, SHA-256 of the token).
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    entries: Vec<(String, [u8; 32])>,
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

impl Tokens {
    /// Reads the file; a missing file holds no token (every write is then refused).
    pub fn load(path: &Path) -> Result<Tokens, TokenError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Tokens::default()),
            Err(source) => return Err(TokenError::Io { path: path.to_path_buf(), source }),
        };
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let bad = |problem: &str| TokenError::Format {
                path: path.to_path_buf(),
                line: i + 1,
                problem: problem.to_string(),
            };
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (name, hex) = line.split_once(' ').ok_or_else(|| bad("expected `NAME HEX`"))?;
            if !valid_name(name) {
                return Err(bad("the name is not 1 to 64 letters, digits, `-`, `_` or `.`"));
            }
            let bytes = ladder_proof::parse_hex_hash(hex)
                .map_err(|_| bad("the hash is not 64 hex digits"))?;
            entries.push((name.to_string(), bytes));
        }
        Ok(Tokens { entries })
    }

    /// The name of the token `presented` is, if any. Every stored hash is compared, each in
    /// constant time, whatever matches.
    pub fn check(&self, presented: &str) -> Option<&str> {
        let h = hash(presented);
        let mut found = None;
        for (name, stored) in &self.entries {
            if bool::from(stored.ct_eq(&h)) {
                found = Some(name.as_str());
            }
        }
        found
    }

    /// The names of the stored tokens, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    fn save(&self, path: &Path) -> Result<(), TokenError> {
        let io = |source| TokenError::Io { path: path.to_path_buf(), source };
        let mut text = String::from(
            "# ladder serve write tokens: NAME SHA-256(token); tokens are never stored\n",
        );
        for (name, h) in &self.entries {
            text.push_str(&format!("{name} {}\n", ladder_proof::hex(h)));
        }
        replace_durably(path, text.as_bytes()).map_err(io)
    }
}

/// The temporary file a save of `path` writes first: beside it (a rename stays within one file
/// system), named after it and this process (two `ladder token` commands at once do not write
/// into one temporary file).
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".tmp.{}", std::process::id()));
    path.with_file_name(name)
}

/// Replaces `path` by `bytes` so that a crash or a power cut at any moment leaves either the old
/// file or the new one, whole: the bytes go to a new temporary file, which is synced, renamed over
/// `path` (a rename is atomic), and then the directory is synced so the rename itself is durable
/// (POSIX `rename(2)` and `fsync(2)`: a rename is on disk only once its directory is). On a
/// failure before the rename, the old file is untouched and the temporary one removed.
fn replace_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = temporary(path);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        // Only a file this call created is removed (`create_new`: never one that was there).
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_directory(path)
}

/// Syncs the directory holding `path`, making a rename into it durable. Only Unix-like systems
/// can open a directory to sync it; elsewhere the rename is as durable as the system makes it.
fn sync_directory(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Stores a new token named `name` made of `secret` (32 random bytes from the caller) and
/// returns the token, which exists nowhere else: only its hash is written to `path`.
pub fn add(path: &Path, name: &str, secret: [u8; 32]) -> Result<String, TokenError> {
    if !valid_name(name) {
        return Err(TokenError::BadName { name: name.to_string() });
    }
    let mut tokens = Tokens::load(path)?;
    if tokens.names().any(|n| n == name) {
        return Err(TokenError::Exists { name: name.to_string(), path: path.to_path_buf() });
    }
    let token = format!("{TOKEN_PREFIX}{}", ladder_proof::hex(&secret));
    tokens.entries.push((name.to_string(), hash(&token)));
    tokens.save(path)?;
    Ok(token)
}

/// Removes the token named `name`. A running `serve` reads the file again within a second.
pub fn revoke(path: &Path, name: &str) -> Result<(), TokenError> {
    let mut tokens = Tokens::load(path)?;
    let before = tokens.entries.len();
    tokens.entries.retain(|(n, _)| n != name);
    if tokens.entries.len() == before {
        return Err(TokenError::Unknown { name: name.to_string(), path: path.to_path_buf() });
    }
    tokens.save(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_hash_is_stored_and_a_revoked_token_no_longer_checks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        let t = add(&path, "club", [7; 32]).unwrap();
        let u = add(&path, "other", [9; 32]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&t) && !text.contains(&t[TOKEN_PREFIX.len()..]));
        let tokens = Tokens::load(&path).unwrap();
        assert_eq!(tokens.check(&t), Some("club"));
        assert_eq!(tokens.check(&u), Some("other"));
        assert_eq!(tokens.check("ladder_nope"), None);
        assert!(matches!(add(&path, "club", [1; 32]), Err(TokenError::Exists { .. })));
        revoke(&path, "club").unwrap();
        let tokens = Tokens::load(&path).unwrap();
        assert_eq!(tokens.check(&t), None);
        assert_eq!(tokens.check(&u), Some("other"));
        assert!(matches!(revoke(&path, "club"), Err(TokenError::Unknown { .. })));
    }

    #[test]
    fn a_damaged_line_is_named_by_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, "# c\nclub 00\n").unwrap();
        let e = Tokens::load(&path).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("64 hex digits"), "{e}");
    }

    /// Every save replaces the file whole: a reader that loads it while tokens are added one by
    /// one always finds a complete file (it parses, and holds every token added before the load
    /// began), never a truncated or half-written one, and no temporary file is left behind.
    #[test]
    fn a_reader_never_sees_a_half_written_token_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.tokens");
        add(&path, "first", [1; 32]).unwrap();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(1));
        let reader = {
            let (path, done) = (path.clone(), done.clone());
            std::thread::spawn(move || {
                let mut loads = 0;
                while done.load(std::sync::atomic::Ordering::Acquire) < 40 {
                    let before = done.load(std::sync::atomic::Ordering::Acquire);
                    let names: Vec<String> =
                        Tokens::load(&path).unwrap().names().map(str::to_string).collect();
                    assert!(
                        names.len() >= before,
                        "{} tokens, {before} added: {names:?}",
                        names.len()
                    );
                    assert_eq!(names[0], "first");
                    loads += 1;
                }
                loads
            })
        };
        for i in 1..40u8 {
            add(&path, &format!("t{i}"), [i; 32]).unwrap();
            done.store(usize::from(i) + 1, std::sync::atomic::Ordering::Release);
        }
        assert!(reader.join().unwrap() > 0);
        assert_eq!(Tokens::load(&path).unwrap().names().count(), 40);
        let left: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("ledger.tokens")]);
    }

    /// A save that fails before its rename (here its temporary file cannot be made) leaves the
    /// old file exactly as it was, and the error names the token file.
    #[test]
    fn a_failed_save_leaves_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.tokens");
        add(&path, "club", [3; 32]).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A directory where the temporary file would go: creating the file fails.
        std::fs::create_dir(temporary(&path)).unwrap();
        let e = add(&path, "other", [4; 32]).unwrap_err().to_string();
        assert!(e.contains("ledger.tokens"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(temporary(&path).is_dir(), "what was there is not removed");
        let e = revoke(&path, "club").unwrap_err().to_string();
        assert!(e.contains("ledger.tokens"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}
