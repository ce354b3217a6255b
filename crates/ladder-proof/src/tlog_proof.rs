//! C2SP tlog-proof (<https://c2sp.org/tlog-proof>, `c2sp.org/tlog-proof@v1`): an inclusion proof
//! and the signed checkpoint it ends in, in one text that can be checked offline.
//!
//! ```text
//! c2sp.org/tlog-proof@v1
//! extra <base64 of opaque data>       (optional)
//! index <0-based leaf index>
//! <base64 hash>                        (the RFC 6962 audit path, leaf's sibling first)
//! ...
//!
//! <the checkpoint's signed note, verbatim>
//! ```
//!
//! ladder puts the event's leaf bytes (its canonical JSON line) in `extra`, so the proof names
//! the event it proves; the specification leaves `extra` unauthenticated, and it is: the line is
//! only believed because its hash is included in the signed tree.

use crate::note::{Checkpoint, NoteError, VerifierKey};
use crate::tree::{leaf_hash, Hash};
use crate::verify::{verify_inclusion, VerifyError};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The first line of every tlog-proof.
pub const HEADER: &str = "c2sp.org/tlog-proof@v1";

/// A C2SP tlog-proof: leaf `index` is in the tree of the signed `checkpoint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlogProof {
    /// Opaque extra data (ladder: the event's leaf bytes).
    pub extra: Option<Vec<u8>>,
    /// The leaf's index, 0-based.
    pub index: u64,
    /// The inclusion proof, leaf's sibling first.
    pub path: Vec<Hash>,
    /// The checkpoint's signed note, verbatim.
    pub checkpoint: String,
}

/// Why a tlog-proof was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TlogProofError {
    /// The text is not in the tlog-proof form.
    #[error("tlog-proof line {line}: {problem}")]
    Format {
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The checkpoint's note does not verify or parse.
    #[error("the proof's checkpoint: {0}")]
    Checkpoint(#[from] NoteError),
    /// No leaf to check: no `extra` line, and none given.
    #[error("the proof carries no entry (no `extra` line): give the entry's bytes to check it")]
    NoLeaf,
    /// The audit path does not lead from the leaf to the checkpoint's root.
    #[error("the entry is not included in the checkpoint's tree: {0}")]
    Inclusion(#[from] VerifyError),
}

impl TlogProof {
    /// The text form, ending with the checkpoint's note.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(extra) = &self.extra {
            out.push_str(&format!("extra {}\n", STANDARD.encode(extra)));
        }
        out.push_str(&format!("index {}\n", self.index));
        for h in &self.path {
            out.push_str(&STANDARD.encode(h));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.checkpoint);
        out
    }

    /// Parses the text form strictly: the header, an optional `extra`, `index` without leading
    /// zeros, 32-byte hashes in canonical standard base64, a blank line, then the note (checked
    /// as a note only by [`TlogProof::verify`]).
    pub fn parse(text: &str) -> Result<TlogProof, TlogProofError> {
        let bad = |line: usize, problem: String| TlogProofError::Format { line, problem };
        let mut rest = text;
        let mut line_no = 0;
        let mut next_line = |rest: &mut &str| -> Option<(usize, String)> {
            let (line, tail) = rest.split_once('\n')?;
            *rest = tail;
            line_no += 1;
            Some((line_no, line.to_owned()))
        };
        let (n, first) =
            next_line(&mut rest).ok_or_else(|| bad(1, "empty, or no line ends".into()))?;
        if first != HEADER {
            return Err(bad(n, format!("expected {HEADER:?}")));
        }
        let (mut n, mut line) =
            next_line(&mut rest).ok_or_else(|| bad(2, "missing the index line".into()))?;
        let mut extra = None;
        if let Some(b64) = line.strip_prefix("extra ") {
            let bytes = STANDARD
                .decode(b64)
                .map_err(|e| bad(n, format!("extra is not standard base64: {e}")))?;
            extra = Some(bytes);
            (n, line) =
                next_line(&mut rest).ok_or_else(|| bad(n + 1, "missing the index line".into()))?;
        }
        let digits =
            line.strip_prefix("index ").ok_or_else(|| bad(n, "expected `index N`".into()))?;
        let ok = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        let index = digits.parse::<u64>().ok().filter(|_| ok).ok_or_else(|| {
            bad(n, format!("index {digits:?} is not a decimal without leading zeros"))
        })?;
        let mut path = Vec::new();
        loop {
            let (n, line) = next_line(&mut rest).ok_or_else(|| {
                bad(n + path.len() + 1, "no blank line before the checkpoint".into())
            })?;
            if line.is_empty() {
                break;
            }
            let bytes = STANDARD
                .decode(&line)
                .map_err(|e| bad(n, format!("hash is not standard base64: {e}")))?;
            let hash: Hash = bytes
                .as_slice()
                .try_into()
                .map_err(|_| bad(n, format!("hash is {} bytes, expected 32", bytes.len())))?;
            if STANDARD.encode(hash) != line {
                return Err(bad(n, "hash is not in canonical base64".into()));
            }
            path.push(hash);
        }
        if rest.is_empty() {
            return Err(bad(line_no + 1, "no checkpoint after the blank line".into()));
        }
        Ok(TlogProof { extra, index, path, checkpoint: rest.to_owned() })
    }

    /// Verifies the proof: the checkpoint's signature by one of `keys`, then the inclusion of
    /// `leaf` (or, when `None`, the `extra` bytes) at `index` in the checkpoint's tree. Returns
    /// the checkpoint.
    pub fn verify(
        &self,
        leaf: Option<&[u8]>,
        keys: &[VerifierKey],
    ) -> Result<Checkpoint, TlogProofError> {
        let checkpoint = Checkpoint::open(&self.checkpoint, keys)?;
        let leaf = leaf.or(self.extra.as_deref()).ok_or(TlogProofError::NoLeaf)?;
        verify_inclusion(
            self.index,
            checkpoint.size,
            &leaf_hash(leaf),
            &self.path,
            &checkpoint.root,
        )?;
        Ok(checkpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::SignerKey;
    use crate::{inclusion_proof, MemTree};

    fn proof_of(index: u64) -> (TlogProof, VerifierKey) {
        let leaves: Vec<String> = (0..11).map(|i| format!("entry {i}")).collect();
        let mut tree = MemTree::from_leaves(&leaves);
        let key = SignerKey::from_seed("example.org/log", [3; 32]).unwrap();
        let cp = Checkpoint { origin: "example.org/log".into(), size: 11, root: tree.root() };
        let path = inclusion_proof(index, 11, &mut tree).unwrap();
        let proof = TlogProof {
            extra: Some(leaves[index as usize].clone().into_bytes()),
            index,
            path,
            checkpoint: cp.sign(&key).unwrap(),
        };
        (proof, key.verifier())
    }

    #[test]
    fn the_text_round_trips_and_verifies() {
        for index in [0, 5, 10] {
            let (proof, key) = proof_of(index);
            let text = proof.to_text();
            assert!(text.starts_with(&format!("{HEADER}\nextra ")));
            assert!(text.contains(&format!("\nindex {index}\n")));
            let back = TlogProof::parse(&text).unwrap();
            assert_eq!(back, proof);
            assert_eq!(back.verify(None, std::slice::from_ref(&key)).unwrap().size, 11);
        }
    }

    #[test]
    fn tampering_is_refused() {
        let (proof, key) = proof_of(5);
        let keys = std::slice::from_ref(&key);
        let mut other_leaf = proof.clone();
        other_leaf.extra = Some(b"entry 6".to_vec());
        assert!(matches!(other_leaf.verify(None, keys), Err(TlogProofError::Inclusion(_))));
        let mut other_index = proof.clone();
        other_index.index = 4;
        assert!(other_index.verify(None, keys).is_err());
        let mut bad_path = proof.clone();
        bad_path.path[0][0] ^= 1;
        assert!(bad_path.verify(None, keys).is_err());
        let mut short = proof.clone();
        short.path.pop();
        assert!(short.verify(None, keys).is_err());
        let mut resized = proof.clone();
        resized.checkpoint = resized.checkpoint.replacen("\n11\n", "\n12\n", 1);
        assert!(matches!(resized.verify(None, keys), Err(TlogProofError::Checkpoint(_))));
        let stranger = SignerKey::from_seed("example.org/log", [4; 32]).unwrap().verifier();
        assert!(proof.verify(None, &[stranger]).is_err());
        let mut no_extra = proof.clone();
        no_extra.extra = None;
        assert_eq!(no_extra.verify(None, keys), Err(TlogProofError::NoLeaf));
        assert!(no_extra.verify(Some(b"entry 5"), keys).is_ok());
    }

    #[test]
    fn malformed_texts_name_their_line() {
        let (proof, _) = proof_of(5);
        let text = proof.to_text();
        let cases = [
            (text.replacen(HEADER, "c2sp.org/tlog-proof@v2", 1), 1),
            (text.replacen("index 5", "index 05", 1), 3),
            (text.replacen("index 5", "idx 5", 1), 3),
            (text.replacen("\n\n", "\n", 1), 0),
            (String::new(), 1),
        ];
        for (bad, line) in cases {
            match TlogProof::parse(&bad) {
                Err(TlogProofError::Format { line: l, .. }) => {
                    if line > 0 {
                        assert_eq!(l, line, "{bad:?}");
                    }
                }
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
        let hash_line = text.lines().nth(3).unwrap().to_owned();
        let damaged = text.replacen(&hash_line, &hash_line[1..], 1);
        assert!(TlogProof::parse(&damaged).is_err());
    }
}
