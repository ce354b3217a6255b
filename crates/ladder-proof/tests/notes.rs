//! Keys, checkpoints and signed notes. The fixed vectors are from the tests of Go's
//! `golang.org/x/mod/sumdb/note` package (key "PeterNeumann"), so ladder's notes and keys are
//! the ones that package writes and reads; Ed25519 signatures are deterministic (RFC 8032).

use ladder_proof::note::{
    open_note, sign_note, split_note, Checkpoint, NoteError, SignerKey, VerifierKey,
};
use ladder_proof::MemTree;

const GO_SIGNER: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const GO_VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_TEXT: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const GO_ENOCH: &str = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";

#[test]
fn keys_and_notes_match_go_note_package() {
    let signer = SignerKey::parse(GO_SIGNER).unwrap();
    assert_eq!(signer.to_text(), GO_SIGNER);
    assert_eq!(signer.verifier().to_text(), GO_VERIFIER);
    assert_eq!(signer.id(), 0xc74f20a3);
    let verifier = VerifierKey::parse(GO_VERIFIER).unwrap();
    assert_eq!(verifier, signer.verifier());
    assert_eq!(sign_note(GO_TEXT, &signer).unwrap(), GO_NOTE);
    let (text, by) = open_note(GO_NOTE, std::slice::from_ref(&verifier)).unwrap();
    assert_eq!(text, GO_TEXT);
    assert_eq!(by, vec![verifier]);
}

#[test]
fn generated_keys_round_trip_through_their_texts() {
    for (i, name) in ["ladder", "club.example/ladder-2026", "é"].iter().enumerate() {
        let seed = [i as u8 * 31 + 7; 32];
        let k = SignerKey::from_seed(name, seed).unwrap();
        let again = SignerKey::parse(&k.to_text()).unwrap();
        assert_eq!(again.to_text(), k.to_text());
        assert_eq!(again.verifier(), k.verifier());
        let v = VerifierKey::parse(&k.verifier().to_text()).unwrap();
        assert_eq!(v, k.verifier());
        assert_eq!(v.name(), *name);
        assert_eq!(v.id(), k.id());
        // A trailing newline (a key read from a file) is accepted.
        assert_eq!(VerifierKey::parse(&format!("{}\n", v.to_text())).unwrap(), v);
    }
    for bad in ["", "a b", "a+b", "tab\there"] {
        assert!(
            matches!(SignerKey::from_seed(bad, [1; 32]), Err(NoteError::KeyName(_))),
            "{bad:?}"
        );
    }
}

#[test]
fn mangled_keys_are_refused() {
    // As Go's TestNewVerifier: every proper substring and every one-byte change is refused.
    for key in [GO_VERIFIER, GO_SIGNER] {
        let parse = |t: &str| {
            if key == GO_VERIFIER {
                VerifierKey::parse(t).is_ok()
            } else {
                SignerKey::parse(t).is_ok()
            }
        };
        let b = key.as_bytes();
        for i in 0..=b.len() {
            for j in i + 1..=b.len() {
                if (i, j) != (0, b.len()) {
                    if let Ok(t) = std::str::from_utf8(&b[i..j]) {
                        assert!(!parse(t), "substring {t:?} accepted");
                    }
                }
            }
        }
        for i in 0..b.len() {
            let mut m = b.to_vec();
            m[i] = m[i].wrapping_add(1);
            if let Ok(t) = std::str::from_utf8(&m) {
                assert!(!parse(t), "{t:?} accepted");
            }
        }
    }
    // A key whose ID does not match its name and key: named as such.
    let wrong_id = GO_VERIFIER.replace("c74f20a3", "c74f20a4");
    assert_eq!(
        VerifierKey::parse(&wrong_id).unwrap_err(),
        NoteError::KeyIdMismatch {
            what: "verifier key",
            name: "PeterNeumann".into(),
            written: 0xc74f20a4,
            computed: 0xc74f20a3,
        }
    );
    // Go's: an unknown algorithm byte with an adjusted key ID.
    let e =
        VerifierKey::parse("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")
            .unwrap_err();
    assert!(e.to_string().contains("not Ed25519"), "{e}");
}

#[test]
fn one_changed_byte_anywhere_is_refused() {
    let key = SignerKey::from_seed("ladder.example/club", [9; 32]).unwrap();
    let cp = Checkpoint { origin: "ladder.example/club".into(), size: 12, root: [0xab; 32] };
    let note = cp.sign(&key).unwrap();
    let trusted = [key.verifier()];
    assert_eq!(Checkpoint::open(&note, &trusted).unwrap(), cp);
    let bytes = note.as_bytes();
    let mut refused = 0;
    for i in 0..bytes.len() {
        for delta in [1u8, 0x20] {
            let mut b = bytes.to_vec();
            b[i] ^= delta;
            // Changes that break UTF-8 cannot even be handed over as text: refused too.
            let Ok(t) = std::str::from_utf8(&b) else {
                refused += 1;
                continue;
            };
            assert!(Checkpoint::open(t, &trusted).is_err(), "byte {i} ^ {delta:#x} accepted:\n{t}");
            refused += 1;
        }
    }
    assert_eq!(refused, 2 * bytes.len());
}

#[test]
fn unknown_keys_and_bad_signatures_are_named() {
    let key = SignerKey::from_seed("ladder", [1; 32]).unwrap();
    let other = SignerKey::from_seed("ladder", [2; 32]).unwrap();
    let note = sign_note("hello\n", &key).unwrap();
    // Same name, other key (so another ID): no signature from a trusted key.
    let e = open_note(&note, &[other.verifier()]).unwrap_err();
    assert!(matches!(e, NoteError::NotSigned { .. }), "{e}");
    assert!(e.to_string().contains(&format!("ladder+{:08x}", key.id())), "{e}");
    // Same name and ID as the signer, but a different key: the signature must fail.
    let forged = note.replace("hello", "hellO");
    assert_eq!(
        open_note(&forged, &[key.verifier()]).unwrap_err(),
        NoteError::BadSignature { name: "ladder".into(), id: key.id() }
    );
    // Unknown signatures are ignored when a known one verifies.
    let both =
        format!("{}{}", note, sign_note("hello\n", &other).unwrap().split_once("\n\n").unwrap().1);
    assert_eq!(split_note(&both).unwrap().1.len(), 2);
    assert!(open_note(&both, &[key.verifier()]).is_ok());
    assert!(open_note(&both, &[]).is_err());
    // Go's malformed notes.
    let sig = note.split_once("\n\n").unwrap().1;
    for bad in [
        "hello\n".to_string(),
        "hello\n\n".to_string(),
        format!("hello\n\n{}", sig.trim_end()),
        format!("\x01hello\n\n{sig}"),
        format!("hello\n\n{}", sig.replace("ladder", "Bad Name")),
        format!("hello\n\n{sig}Unexpected line.\n"),
    ] {
        assert!(open_note(&bad, &[key.verifier()]).is_err(), "{bad:?}");
    }
}

#[test]
fn a_repeated_signature_line_is_refused() {
    let key = SignerKey::from_seed("ladder", [1; 32]).unwrap();
    let other = SignerKey::from_seed("other", [2; 32]).unwrap();
    let note = sign_note("hello\n", &key).unwrap();
    let sig = note.split_once("\n\n").unwrap().1;
    let unknown = sign_note("hello\n", &other).unwrap().split_once("\n\n").unwrap().1.to_string();
    // The trusted key's line twice, and an untrusted key's line twice around it.
    for (twice, lines) in [
        (format!("{note}{sig}"), "2 repeats signature line 1"),
        (format!("{note}{unknown}{unknown}"), "3 repeats signature line 2"),
    ] {
        let e = open_note(&twice, &[key.verifier()]).unwrap_err();
        assert!(matches!(e, NoteError::Malformed(_)), "{e}");
        assert!(e.to_string().contains(&format!("signature line {lines}")), "{e}");
        assert!(split_note(&twice).is_err());
        assert!(Checkpoint::open(&twice, &[key.verifier()]).is_err());
    }
    // Each once is still a note signed by both.
    let both = format!("{note}{unknown}");
    assert!(open_note(&both, &[key.verifier(), other.verifier()]).is_ok());
}

#[test]
fn checkpoints_parse_strictly() {
    let t = MemTree::from_leaves(["a", "b", "c"]);
    let cp = Checkpoint { origin: "example.org/ladder".into(), size: 3, root: t.root() };
    let text = cp.to_text();
    assert_eq!(text.lines().count(), 3);
    assert_eq!(Checkpoint::parse(&text).unwrap(), cp);
    let b64 = text.lines().nth(2).unwrap();
    assert_eq!(b64.len(), 44);
    assert!(b64.ends_with('='));
    let cases = [
        ("example.org/ladder\n3\n", 3, "missing"),
        ("example.org/ladder\n03\nAAAA\n", 2, "leading zeros"),
        ("example.org/ladder\n+3\nAAAA\n", 2, "decimal"),
        ("example.org/ladder\n99999999999999999999\nAAAA\n", 2, "too large"),
        ("\n3\nAAAA\n", 1, "origin is empty"),
        ("example.org/ladder\n3\nAAAA\n", 3, "3 bytes, expected 32"),
        ("example.org/ladder\n3\n!!!!\n", 3, "base64"),
    ];
    for (bad, line, what) in cases {
        let e = Checkpoint::parse(bad).unwrap_err();
        assert!(matches!(e, NoteError::Checkpoint { line: l, .. } if l == line), "{bad:?}: {e}");
        assert!(e.to_string().contains(what), "{bad:?}: {e}");
    }
    assert!(Checkpoint::parse(&format!("{text}extension\n")).is_err());
    assert!(Checkpoint::parse(text.trim_end()).is_err(), "no final newline");
    // Unpadded base64 is not the standard padded form.
    let unpadded = text.replace('=', "");
    assert!(Checkpoint::parse(&unpadded).is_err());
    // Go's second key parses with the ID Go computed for it.
    let go = VerifierKey::parse(GO_ENOCH).unwrap();
    assert_eq!(go.id(), 0xaf0cfe78);
}
