//! What one fuzz input means for the parsers of ladder-proof: proof JSON (`ladder check-proof`),
//! checkpoint notes and signed notes (`--checkpoint`), key texts (`--pubkey`, signer key files),
//! the stored tree frontier (read back from the ledger), and what `ladder mirror` and
//! `check-proof` read from others: C2SP tile paths, entry bundles and tlog-proofs.
//!
//! Shared, through `#[path]`, by the libFuzzer target `fuzz/fuzz_targets/proof_inputs.rs` and by
//! the corpus replay test of `ladder-proof`, so CI replays exactly what the fuzzer ran.

use ladder_proof::note::{open_note, Checkpoint, SignerKey, VerifierKey};
use ladder_proof::tiles::{push_entry, read_entry_bundle, Tile};
use ladder_proof::tlog_proof::TlogProof;
use ladder_proof::{Frontier, Proof};

/// Parses `data` with one parser: the first byte modulo 8 chooses proof JSON (0), checkpoint
/// text (1), a signed note checked with docs/proofs.md's example key (2), a verifier or signer
/// key text (3), stored frontier bytes (4), a tile path (5), an entry bundle whose width is the
/// next byte plus one (6), a tlog-proof checked with the example key (7); the rest is the input
/// (text for 0 to 3, 5 and 7).
///
/// Must not panic. What parses writes back to the same value (the same bytes where the format
/// is canonical), and errors have a message.
pub fn proof_inputs(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    if which % 8 == 6 {
        let Some((&w, bytes)) = rest.split_first() else { return };
        let tile = Tile::entries(0, u32::from(w) + 1);
        match read_entry_bundle(&tile, bytes) {
            Ok(entries) => {
                let mut again = Vec::new();
                for (i, e) in entries.iter().enumerate() {
                    push_entry::<()>(&mut again, i as u64, e).expect("an entry read fits");
                }
                assert_eq!(again, bytes);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        return;
    }
    if which % 8 == 4 {
        match Frontier::from_bytes(rest) {
            Ok(f) => {
                assert_eq!(f.to_bytes(), rest);
                let _ = f.root();
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        return;
    }
    let Ok(text) = std::str::from_utf8(rest) else { return };
    match which % 8 {
        0 => match Proof::from_json(text) {
            Ok(p) => {
                assert_eq!(Proof::from_json(&p.to_json()).as_ref(), Ok(&p));
                if let Err(e) = p.check() {
                    assert!(!e.to_string().is_empty());
                }
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        },
        1 => match Checkpoint::parse(text) {
            Ok(c) => assert_eq!(c.to_text(), text),
            Err(e) => assert!(!e.to_string().is_empty()),
        },
        2 => {
            let key = SignerKey::from_seed("example.org/ladder", [7; 32]).expect("a valid name");
            match open_note(text, &[key.verifier()]) {
                Ok((body, signers)) => {
                    assert!(text.starts_with(body) && signers.len() == 1);
                    let _ = Checkpoint::parse(body);
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        5 => match Tile::parse_path(text) {
            Ok(t) => assert_eq!(t.path(), text),
            Err(e) => assert!(!e.to_string().is_empty()),
        },
        7 => match TlogProof::parse(text) {
            Ok(p) => {
                assert_eq!(TlogProof::parse(&p.to_text()).as_ref(), Ok(&p));
                let key =
                    SignerKey::from_seed("example.org/ladder", [7; 32]).expect("a valid name");
                if let Err(e) = p.verify(None, &[key.verifier()]) {
                    assert!(!e.to_string().is_empty());
                }
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        },
        _ => {
            if let Ok(k) = VerifierKey::parse(text) {
                assert_eq!(VerifierKey::parse(&k.to_text()).as_ref(), Ok(&k));
            }
            if let Ok(k) = SignerKey::parse(text) {
                assert_eq!(SignerKey::parse(&k.to_text()).map(|s| s.to_text()), Ok(k.to_text()));
            }
        }
    }
}
