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
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
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
}
