//! Conformance with transparency-dev/tessera's own test log (Apache-2.0, copied with its licence
//! into `fixtures/conformance/tessera-log/`): 15 entries appended one at a time and the signed
//! checkpoint after each. Nobody on this project wrote those files, so they are an independent
//! oracle for the tree (RFC 6962 with SHA-256) and for C2SP checkpoints and signed notes.

use std::path::PathBuf;

use ladder_proof::note::{sign_note, Checkpoint, SignerKey, VerifierKey};
use ladder_proof::{empty_root, MemTree};

/// The entries, as the log's README and `build_log.sh` give them (the spelling is theirs).
const ENTRIES: [&str; 15] = [
    "one", "two", "three", "four", "five", "six", "seven", "eit", "nain", "ten", "ileven", "twelf",
    "threeten", "fourten", "fivten",
];
/// The log's keys, from its `build_log.sh` (test keys, public on purpose).
const SIGNER: &str =
    "PRIVATE+KEY+example.com/log/testdata+33d7b496+AeymY/SZAX0jZcJ8enZ5FY1Dz+wTML2yWSkK+9DSF3eg";
const VERIFIER: &str =
    "example.com/log/testdata+33d7b496+AeHTu4Q3hEIMHNqc6fASMsq3rKNx280NI+oO5xCFkkSx";

fn log_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/conformance/tessera-log")
}

fn checkpoint_note(n: usize) -> String {
    let path = log_dir().join(format!("checkpoint.{n}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_checkpoint_verifies_with_tesseras_key_and_names_our_root() {
    let verifier = VerifierKey::parse(VERIFIER).unwrap();
    let mut tree = MemTree::new();
    for n in 0..=ENTRIES.len() {
        if n > 0 {
            tree.push(ENTRIES[n - 1].as_bytes());
        }
        let note = checkpoint_note(n);
        let checkpoint = Checkpoint::open(&note, std::slice::from_ref(&verifier))
            .unwrap_or_else(|e| panic!("checkpoint.{n}: {e}"));
        assert_eq!(checkpoint.origin, "example.com/log/testdata");
        assert_eq!(checkpoint.size, n as u64, "checkpoint.{n}");
        assert_eq!(checkpoint.root, tree.root(), "root of the first {n} entries");
    }
    assert_eq!(Checkpoint::open(&checkpoint_note(0), &[verifier]).unwrap().root, empty_root());
}

#[test]
fn signing_with_the_test_key_gives_tesseras_checkpoint_bytes() {
    // Ed25519 is deterministic (RFC 8032), so the same key and text give the same note.
    let signer = SignerKey::parse(SIGNER).unwrap();
    assert_eq!(signer.verifier(), VerifierKey::parse(VERIFIER).unwrap());
    let mut tree = MemTree::new();
    for n in 0..=ENTRIES.len() {
        if n > 0 {
            tree.push(ENTRIES[n - 1].as_bytes());
        }
        let checkpoint = Checkpoint {
            origin: "example.com/log/testdata".into(),
            size: n as u64,
            root: tree.root(),
        };
        assert_eq!(checkpoint.sign(&signer).unwrap(), checkpoint_note(n), "checkpoint.{n}");
    }
}

#[test]
fn a_checkpoint_signed_by_another_key_or_altered_is_refused() {
    let verifier = VerifierKey::parse(VERIFIER).unwrap();
    let other = SignerKey::from_seed("example.com/log/testdata", [7; 32]).unwrap();
    assert_ne!(other.verifier(), verifier);
    let body = checkpoint_note(15);
    let text = &body[..body.find("\n\n").unwrap() + 1];
    let forged = sign_note(text, &other).unwrap();
    assert!(Checkpoint::open(&forged, std::slice::from_ref(&verifier)).is_err());
    let altered = checkpoint_note(15).replacen("\n15\n", "\n14\n", 1);
    assert!(Checkpoint::open(&altered, &[verifier]).is_err());
}
