//! Conformance with transparency-dev/tessera's own test log (Apache-2.0, copied with its licence
//! into `fixtures/conformance/tessera-log/`): 15 entries appended one at a time and the signed
//! checkpoint after each. Nobody on this project wrote those files, so they are an independent
//! oracle for the tree (RFC 6962 with SHA-256) and for C2SP checkpoints and signed notes.

use std::path::PathBuf;

use ladder_proof::note::{sign_note, Checkpoint, SignerKey, VerifierKey};
use ladder_proof::tiles::{self, TileSource};
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

/// The 15 entries as a tile source: their leaf hashes in a [`MemTree`], and the bytes.
struct Entries {
    tree: MemTree,
    entries: Vec<&'static [u8]>,
}

impl ladder_proof::Subtrees for Entries {
    type Error = ladder_proof::MemTreeError;
    fn subtree(&mut self, level: u32, index: u64) -> Result<ladder_proof::Hash, Self::Error> {
        self.tree.subtree(level, index)
    }
}

impl TileSource for Entries {
    fn entries(
        &mut self,
        start: u64,
        end: u64,
        visit: &mut dyn FnMut(&[u8]),
    ) -> Result<(), Self::Error> {
        for e in &self.entries[start as usize..end as usize] {
            visit(e);
        }
        Ok(())
    }
}

/// Every file under the log's `tile/`, as paths relative to the log.
fn tile_files() -> Vec<String> {
    fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(&log_dir().join("tile"), &log_dir(), &mut out);
    out.sort();
    out
}

#[test]
fn tiles_and_entry_bundles_are_tesseras_bytes() {
    // Tessera wrote the tree after each of the 15 appends: the partial level-0 tile and entry
    // bundle of every size from 1 to 15. Build each from the entries alone and compare.
    let mut src = Entries { tree: MemTree::new(), entries: Vec::new() };
    let mut made = Vec::new();
    for (n, entry) in ENTRIES.iter().enumerate() {
        src.tree.push(entry.as_bytes());
        src.entries.push(entry.as_bytes());
        let size = n as u64 + 1;
        for tile in tiles::tiles_added(size - 1, size) {
            let path = tile.path();
            let ours = tiles::tile_bytes(&tile, &mut src).unwrap();
            let theirs = std::fs::read(log_dir().join(&path))
                .unwrap_or_else(|e| panic!("tessera has no {path} for size {size}: {e}"));
            assert_eq!(ours, theirs, "{path}");
            assert_eq!(tiles::Tile::parse_path(&path), Ok(tile));
            made.push(path);
        }
        // The tree read back from the tiles alone has the checkpoint's root.
        let dir = log_dir();
        let mut from_tiles = tiles::TileTree::new(size, |t: &tiles::Tile| {
            std::fs::read(dir.join(t.path())).map_err(|e| e.to_string())
        });
        let root = ladder_proof::root(size, &mut from_tiles).unwrap();
        let note = checkpoint_note(n + 1);
        let verifier = VerifierKey::parse(VERIFIER).unwrap();
        assert_eq!(Checkpoint::open(&note, &[verifier]).unwrap().root, root, "size {size}");
    }
    made.sort();
    assert_eq!(made, tile_files(), "every file under tile/ is built, and nothing else");
}
