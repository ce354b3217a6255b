//! C2SP tlog-checkpoint notes and C2SP signed notes with Ed25519 (<https://c2sp.org/tlog-checkpoint>,
//! <https://c2sp.org/signed-note>), in the key and note text forms of Go's
//! `golang.org/x/mod/sumdb/note` package, so notes and keys interoperate with it.
//!
//! - A checkpoint's text is three lines: the origin, the tree size in decimal, the root hash in
//!   standard padded base64, each ending in a newline.
//! - A signed note is the text, a blank line, and signature lines
//!   `— <key name> <base64(4-byte key ID || 64-byte Ed25519 signature)>`.
//! - Key ID: the first 4 bytes (big-endian) of SHA-256(key name || 0x0A || 0x01 || public key).
//! - Verifier key: `<name>+<8 hex key ID>+<base64(0x01 || 32-byte public key)>`.
//! - Signer key: `PRIVATE+KEY+<name>+<8 hex key ID>+<base64(0x01 || 32-byte seed)>`.

use crate::tree::Hash;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// The signature type byte of Ed25519 in C2SP signed notes.
const ALG_ED25519: u8 = 0x01;
/// The most signature lines a note may carry (Go's `note` package refuses more than 100).
const MAX_SIGNATURES: usize = 100;

/// Why a key, checkpoint or note was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoteError {
    /// A key name that C2SP forbids.
    #[error("key name {0:?}: must be non-empty, with no spaces and no '+'")]
    KeyName(String),
    /// A key text that is not in the expected form.
    #[error("{what}: {problem}")]
    KeyFormat {
        /// Which kind of key text (`verifier key`, `signer key`).
        what: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// The key ID written in a key text is not the one its name and key give.
    #[error("{what} {name}: key ID {written:08x} does not match the name and key (their ID is {computed:08x})")]
    KeyIdMismatch {
        /// Which kind of key text.
        what: &'static str,
        /// The key name.
        name: String,
        /// The ID written in the text.
        written: u32,
        /// The ID computed from name and key.
        computed: u32,
    },
    /// Note text that C2SP forbids (empty, no final newline, control characters).
    #[error("note text: {0}")]
    Text(String),
    /// A signed note that is not text, blank line, signature lines.
    #[error("signed note: {0}")]
    Malformed(String),
    /// A signature line from the given key whose signature does not verify: the text or the
    /// signature was changed, or it was signed by another key with the same name and ID.
    #[error("the signature of key {name}+{id:08x} does not verify: the note's text or signature was changed")]
    BadSignature {
        /// The key name.
        name: String,
        /// The key ID.
        id: u32,
    },
    /// No signature line is from a given key.
    #[error("the note is not signed by {expected}: its signatures are from {found}")]
    NotSigned {
        /// The given keys, as `name+id`.
        expected: String,
        /// The note's signers, as `name+id`.
        found: String,
    },
    /// A checkpoint whose text is not origin, size, root.
    #[error("checkpoint line {line}: {problem}")]
    Checkpoint {
        /// The 1-based line of the note text.
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

/// A C2SP key name: non-empty, no Unicode spaces, no `+`.
fn check_name(name: &str) -> Result<(), NoteError> {
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '+' || c.is_control()) {
        return Err(NoteError::KeyName(name.to_owned()));
    }
    Ok(())
}

/// The C2SP key ID of an Ed25519 key: SHA-256(name || 0x0A || 0x01 || public key)[..4].
pub fn key_id(name: &str, public: &[u8; 32]) -> u32 {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update([0x0A, ALG_ED25519]);
    h.update(public);
    let d = h.finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// Splits `name+hex8+base64` and checks the name, the ID's form and the 0x01 || 32 bytes key.
fn parse_key_parts(what: &'static str, text: &str) -> Result<(String, u32, [u8; 32]), NoteError> {
    let bad = |problem: String| NoteError::KeyFormat { what, problem };
    let parts: Vec<&str> = text.splitn(3, '+').collect();
    let [name, id, key] = parts[..] else {
        return Err(bad(format!(
            "expected NAME+KEYID+KEY (three parts joined by '+'), got {} parts",
            parts.len()
        )));
    };
    check_name(name)?;
    if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(bad(format!("key ID {id:?} is not 8 lowercase hex digits")));
    }
    let id = u32::from_str_radix(id, 16).map_err(|e| bad(format!("key ID: {e}")))?;
    let bytes =
        STANDARD.decode(key).map_err(|e| bad(format!("key is not standard base64: {e}")))?;
    if bytes.len() != 33 {
        return Err(bad(format!(
            "key is {} bytes, expected 33 (0x01 then 32 key bytes)",
            bytes.len()
        )));
    }
    if bytes[0] != ALG_ED25519 {
        return Err(bad(format!(
            "key type byte {:#04x} is not Ed25519 (0x01), the only type ladder reads",
            bytes[0]
        )));
    }
    let mut k = [0u8; 32];
    k.copy_from_slice(&bytes[1..]);
    Ok((name.to_owned(), id, k))
}

/// A public key that verifies signed notes, with its C2SP name and key ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifierKey {
    name: String,
    id: u32,
    key: VerifyingKey,
}

impl VerifierKey {
    /// Parses `<name>+<8 hex key id>+<base64(0x01 || public key)>`, checking the key ID.
    pub fn parse(text: &str) -> Result<VerifierKey, NoteError> {
        const WHAT: &str = "verifier key";
        let (name, id, bytes) = parse_key_parts(WHAT, text.trim_end_matches(['\n', '\r']))?;
        let key = VerifyingKey::from_bytes(&bytes).map_err(|_| NoteError::KeyFormat {
            what: WHAT,
            problem: "the 32 key bytes are not an Ed25519 public key".into(),
        })?;
        let computed = key_id(&name, &bytes);
        if computed != id {
            return Err(NoteError::KeyIdMismatch { what: WHAT, name, written: id, computed });
        }
        Ok(VerifierKey { name, id, key })
    }

    /// The text form.
    pub fn to_text(&self) -> String {
        let mut b = vec![ALG_ED25519];
        b.extend_from_slice(self.key.as_bytes());
        format!("{}+{:08x}+{}", self.name, self.id, STANDARD.encode(b))
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// `name+id`, how messages name the key.
    pub fn label(&self) -> String {
        format!("{}+{:08x}", self.name, self.id)
    }
}

/// A private key that signs notes: an Ed25519 seed with its C2SP name.
#[derive(Clone)]
pub struct SignerKey {
    name: String,
    id: u32,
    key: SigningKey,
}

impl std::fmt::Debug for SignerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the seed.
        write!(f, "SignerKey({}+{:08x})", self.name, self.id)
    }
}

impl SignerKey {
    /// The key with this name from 32 seed bytes (the caller draws them from a good source of
    /// randomness; this crate reads none).
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<SignerKey, NoteError> {
        check_name(name)?;
        let key = SigningKey::from_bytes(&seed);
        let id = key_id(name, key.verifying_key().as_bytes());
        Ok(SignerKey { name: name.to_owned(), id, key })
    }

    /// Parses `PRIVATE+KEY+<name>+<8 hex key id>+<base64(0x01 || seed)>`, checking the key ID.
    pub fn parse(text: &str) -> Result<SignerKey, NoteError> {
        const WHAT: &str = "signer key";
        let text = text.trim_end_matches(['\n', '\r']);
        let rest = text.strip_prefix("PRIVATE+KEY+").ok_or_else(|| NoteError::KeyFormat {
            what: WHAT,
            problem: "does not start with PRIVATE+KEY+".into(),
        })?;
        let (name, id, seed) = parse_key_parts(WHAT, rest)?;
        let key = SignerKey::from_seed(&name, seed)?;
        if key.id != id {
            return Err(NoteError::KeyIdMismatch {
                what: WHAT,
                name,
                written: id,
                computed: key.id,
            });
        }
        Ok(key)
    }

    /// The text form (secret: whoever holds it can sign as this key).
    pub fn to_text(&self) -> String {
        let mut b = vec![ALG_ED25519];
        b.extend_from_slice(self.key.as_bytes());
        format!("PRIVATE+KEY+{}+{:08x}+{}", self.name, self.id, STANDARD.encode(b))
    }

    /// The matching verifier key.
    pub fn verifier(&self) -> VerifierKey {
        VerifierKey { name: self.name.clone(), id: self.id, key: self.key.verifying_key() }
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn id(&self) -> u32 {
        self.id
    }
}

/// C2SP note text: non-empty, ends in a newline, no control characters but newlines.
fn check_text(text: &str) -> Result<(), NoteError> {
    if text.is_empty() || !text.ends_with('\n') {
        return Err(NoteError::Text("must be non-empty and end with a newline".into()));
    }
    if text == "\n" {
        return Err(NoteError::Text("must hold more than a newline".into()));
    }
    if let Some((i, c)) = text.char_indices().find(|(_, c)| *c != '\n' && (*c as u32) < 0x20) {
        return Err(NoteError::Text(format!("control character {c:?} at byte {i}")));
    }
    Ok(())
}

/// Signs `text` (C2SP note text) with `key`: the text, a blank line, one signature line.
pub fn sign_note(text: &str, key: &SignerKey) -> Result<String, NoteError> {
    check_text(text)?;
    let sig = key.key.sign(text.as_bytes());
    let mut b = key.id.to_be_bytes().to_vec();
    b.extend_from_slice(&sig.to_bytes());
    Ok(format!("{text}\n\u{2014} {} {}\n", key.name, STANDARD.encode(b)))
}

/// One signature line of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key name.
    pub name: String,
    /// The key ID (first 4 bytes of the decoded signature).
    pub id: u32,
    /// The signature bytes after the ID.
    pub signature: Vec<u8>,
}

/// Splits a signed note into its text and signature lines, checking the form only.
pub fn split_note(note: &str) -> Result<(&str, Vec<NoteSignature>), NoteError> {
    let bad = |s: String| NoteError::Malformed(s);
    if let Some((i, c)) = note.char_indices().find(|(_, c)| *c != '\n' && (*c as u32) < 0x20) {
        return Err(bad(format!("control character {c:?} at byte {i}")));
    }
    let split = note
        .rfind("\n\n")
        .ok_or_else(|| bad("no blank line between the text and the signatures".into()))?;
    let (text, sigs) = (&note[..split + 1], &note[split + 2..]);
    check_text(text)?;
    if sigs.is_empty() {
        return Err(bad("no signature lines after the blank line".into()));
    }
    if !sigs.ends_with('\n') {
        return Err(bad("the last signature line does not end with a newline".into()));
    }
    let mut out = Vec::new();
    let lines: Vec<&str> = sigs[..sigs.len() - 1].split('\n').collect();
    for (n, &line) in lines.iter().enumerate() {
        let which = n + 1;
        if let Some(first) = lines[..n].iter().position(|&l| l == line) {
            return Err(bad(format!(
                "signature line {which} repeats signature line {}: each signature appears once",
                first + 1
            )));
        }
        let rest = line.strip_prefix("\u{2014} ").ok_or_else(|| {
            bad(format!(
                "signature line {which} does not start with an em dash (U+2014) and a space"
            ))
        })?;
        let (name, b64) = rest
            .split_once(' ')
            .ok_or_else(|| bad(format!("signature line {which}: expected NAME SIGNATURE")))?;
        check_name(name).map_err(|e| bad(format!("signature line {which}: {e}")))?;
        let bytes = STANDARD
            .decode(b64)
            .map_err(|e| bad(format!("signature line {which}: not standard base64: {e}")))?;
        if bytes.len() < 5 {
            return Err(bad(format!("signature line {which}: {} bytes, too short", bytes.len())));
        }
        out.push(NoteSignature {
            name: name.to_owned(),
            id: u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            signature: bytes[4..].to_vec(),
        });
        if out.len() > MAX_SIGNATURES {
            return Err(bad(format!("more than {MAX_SIGNATURES} signature lines")));
        }
    }
    Ok((text, out))
}

/// Verifies a signed note against trusted keys (C2SP signed-note rules): signatures from
/// unknown keys are ignored, one from a known key (same name and ID) that fails refuses the
/// whole note, and at least one must verify. Returns the text and the keys that signed it.
pub fn open_note<'a>(
    note: &'a str,
    keys: &[VerifierKey],
) -> Result<(&'a str, Vec<VerifierKey>), NoteError> {
    let (text, sigs) = split_note(note)?;
    let mut signed_by = Vec::new();
    for sig in &sigs {
        let Some(key) = keys.iter().find(|k| k.name == sig.name && k.id == sig.id) else {
            continue;
        };
        // Two signatures by one known key: malformed, as Go's golang.org/x/mod/sumdb/note
        // `Open` has it (a key signs a text once; the second is a changed or a pasted line).
        if signed_by.contains(key) {
            return Err(NoteError::Malformed(format!(
                "two signatures by key {}: a key signs a note once",
                key.label()
            )));
        }
        let ok = <[u8; 64]>::try_from(sig.signature.as_slice())
            .map(|b| ed25519_dalek::Signature::from_bytes(&b))
            .is_ok_and(|s| key.key.verify_strict(text.as_bytes(), &s).is_ok());
        if !ok {
            return Err(NoteError::BadSignature { name: sig.name.clone(), id: sig.id });
        }
        signed_by.push(key.clone());
    }
    if signed_by.is_empty() {
        let list = |it: &mut dyn Iterator<Item = String>| it.collect::<Vec<_>>().join(", ");
        return Err(NoteError::NotSigned {
            expected: list(&mut keys.iter().map(VerifierKey::label)),
            found: list(&mut sigs.iter().map(|s| format!("{}+{:08x}", s.name, s.id))),
        });
    }
    Ok((text, signed_by))
}

/// A tree head as a C2SP tlog-checkpoint: who (origin), how many leaves, which root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's name, the first line (e.g. `ladder.example.org/club`).
    pub origin: String,
    /// The tree size.
    pub size: u64,
    /// The root hash.
    pub root: Hash,
}

impl Checkpoint {
    /// The note text: origin, size, base64 root, each followed by a newline.
    pub fn to_text(&self) -> String {
        format!("{}\n{}\n{}\n", self.origin, self.size, STANDARD.encode(self.root))
    }

    /// Parses note text strictly: exactly three lines, a non-empty origin, a decimal size
    /// without sign or leading zeros, a root of 32 bytes in standard padded base64.
    /// Extension lines are refused: ladder writes none.
    pub fn parse(text: &str) -> Result<Checkpoint, NoteError> {
        let bad = |line: usize, problem: String| NoteError::Checkpoint { line, problem };
        check_text(text)?;
        let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
        if lines.len() < 3 {
            return Err(bad(
                lines.len() + 1,
                "missing: expected origin, size and root hash lines".into(),
            ));
        }
        if lines.len() > 3 {
            return Err(bad(
                4,
                "unexpected line: a ladder checkpoint has exactly three lines".into(),
            ));
        }
        let origin = lines[0];
        if origin.is_empty() {
            return Err(bad(1, "the origin is empty".into()));
        }
        let size_text = lines[1];
        let digits = !size_text.is_empty() && size_text.bytes().all(|b| b.is_ascii_digit());
        if !digits || (size_text.len() > 1 && size_text.starts_with('0')) {
            return Err(bad(
                2,
                format!("tree size {size_text:?} is not a decimal number without leading zeros"),
            ));
        }
        let size = size_text
            .parse::<u64>()
            .map_err(|e| bad(2, format!("tree size {size_text:?}: {e}")))?;
        let root_bytes = STANDARD
            .decode(lines[2])
            .map_err(|e| bad(3, format!("root hash is not standard padded base64: {e}")))?;
        let root: Hash = root_bytes
            .as_slice()
            .try_into()
            .map_err(|_| bad(3, format!("root hash is {} bytes, expected 32", root_bytes.len())))?;
        if STANDARD.encode(root) != lines[2] {
            return Err(bad(3, "root hash is not in canonical base64".into()));
        }
        Ok(Checkpoint { origin: origin.to_owned(), size, root })
    }

    /// The signed note of this checkpoint.
    pub fn sign(&self, key: &SignerKey) -> Result<String, NoteError> {
        sign_note(&self.to_text(), key)
    }

    /// Verifies a signed checkpoint note against trusted keys and parses its text.
    pub fn open(note: &str, keys: &[VerifierKey]) -> Result<Checkpoint, NoteError> {
        let (text, _) = open_note(note, keys)?;
        Checkpoint::parse(text)
    }
}
