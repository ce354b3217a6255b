//! `ladder keygen` and `ladder check-proof`: offline, no ledger.

use crate::support::Env;
use ladder_proof::note::{Checkpoint, SignerKey, VerifierKey};
use ladder_proof::{
    consistency_proof, inclusion_proof, root, ConsistencyProof, InclusionProof, MemTree, Proof,
};

const LINES: [&str; 6] = [
    r#"{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"ann"}"#,
    r#"{"type":"PlayerJoined","at":"2026-03-01T00:00:00Z","player":"bob"}"#,
    r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"g1","seats":[{"player":"ann","score":1},{"player":"bob","score":0}]}"#,
    r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#,
    r#"{"type":"MatchResult","at":"2026-03-02T10:00:00Z","id":"g2","seats":[{"player":"ann","score":0},{"player":"bob","score":1}]}"#,
    r#"{"type":"MatchVoided","at":"2026-03-02T11:00:00Z","match":"g2","reason":"wrong players"}"#,
];

fn inclusion(index: u64, size: u64) -> Proof {
    let mut t = MemTree::from_leaves(LINES);
    Proof::Inclusion(InclusionProof {
        index,
        size,
        leaf: LINES[index as usize].into(),
        root: root(size, &mut t).unwrap(),
        path: inclusion_proof(index, size, &mut t).unwrap(),
    })
}

fn keygen(e: &Env, file: &str, name: &str) -> (SignerKey, VerifierKey) {
    let path = e.dir.path().join(file);
    let r = e.run(&["keygen", path.to_str().unwrap(), "--name", name], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let signer = SignerKey::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let printed = VerifierKey::parse(r.stdout.trim()).unwrap();
    assert_eq!(printed, signer.verifier());
    (signer, printed)
}

fn arg(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn keygen_writes_a_secret_key_and_prints_its_verifier_key() {
    let e = Env::new();
    let (signer, verifier) = keygen(&e, "club.key", "club.example/ladder");
    assert_eq!(verifier.name(), "club.example/ladder");
    let key = e.dir.path().join("club.key");
    let public = std::fs::read_to_string(e.dir.path().join("club.key.pub")).unwrap();
    assert_eq!(VerifierKey::parse(public.trim()).unwrap(), verifier);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // Never overwrites: the key is unchanged and the refusal says why.
    let before = std::fs::read(&key).unwrap();
    let r = e.run(&["keygen", arg(&key)], b"");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert_eq!(std::fs::read(&key).unwrap(), before);
    // Two keys are different keys.
    let (other, _) = keygen(&e, "other.key", "club.example/ladder");
    assert_ne!(other.to_text(), signer.to_text());
    // A name C2SP forbids is a usage error, and no file is left behind.
    let r = e.run(&["keygen", arg(&e.dir.path().join("bad.key")), "--name", "a b"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--name"), "{}", r.stderr);
    assert!(!e.dir.path().join("bad.key").exists());
}

#[test]
fn check_proof_verifies_inclusion_and_consistency_offline() {
    let e = Env::new();
    let p = e.file("p.json", inclusion(2, 6).to_json().as_bytes());
    let out = e.ok(&["check-proof", arg(&p)]);
    assert!(
        out.starts_with("ok: event 3 (leaf index 2) is in the tree of the first 6 events"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&e.ok(&["check-proof", arg(&p), "--format", "json"])).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["kind"], "inclusion");
    assert_eq!(v["size"], 6);
    // From standard input.
    let r = e.run(&["check-proof", "-"], inclusion(5, 6).to_json().as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);

    let mut t = MemTree::from_leaves(LINES);
    let c = Proof::Consistency(ConsistencyProof {
        from: 3,
        to: 6,
        old_root: root(3, &mut t).unwrap(),
        new_root: t.root(),
        path: consistency_proof(3, 6, &mut t).unwrap(),
    });
    let cp = e.file("c.json", c.to_json().as_bytes());
    let out = e.ok(&["check-proof", arg(&cp)]);
    assert!(out.starts_with("ok: the first 3 events (root "), "{out}");
}

#[test]
fn check_proof_names_what_failed() {
    let e = Env::new();
    let good = inclusion(2, 6).to_json();
    let cases = [
        (good.replace(r#"\"score\":1"#, r#"\"score\":0"#), "the path leads to root"),
        (good.replace(r#""index":2"#, r#""index":3"#), "does not verify"),
        (good.replace(r#""size":6"#, r#""size":60"#), "path too short"),
        (
            good.replace(r#""kind":"inclusion""#, r#""kind":"exclusion""#),
            "proof kind \"exclusion\" is unknown",
        ),
        (good.replacen(r#""root":""#, r#""root":"X"#, 1), "field root"),
        ("not json".to_string(), "not valid JSON"),
    ];
    for (text, want) in cases {
        assert_ne!(text, good, "the case changes the proof");
        let p = e.file("bad.json", text.as_bytes());
        let r = e.run(&["check-proof", arg(&p)], b"");
        assert_eq!(r.code, 1, "{text}");
        assert!(r.stderr.contains(want), "{want:?} not in {}", r.stderr);
        let r = e.run(&["check-proof", arg(&p), "--format", "json"], b"");
        assert_eq!(r.code, 1);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["ok"], false);
        assert!(v["error"].as_str().unwrap().contains(want));
    }
}

#[test]
fn check_proof_against_a_signed_checkpoint() {
    let e = Env::new();
    let (signer, verifier) = keygen(&e, "club.key", "club.example/ladder");
    let pubfile = e.dir.path().join("club.key.pub");
    let proof = inclusion(4, 6);
    let p = e.file("p.json", proof.to_json().as_bytes());
    let (size, top) = proof.tree_head();
    let cp = Checkpoint { origin: "club.example/ladder".into(), size, root: top };
    let note = cp.sign(&signer).unwrap();
    let n = e.file("checkpoint.txt", note.as_bytes());

    // The key as text or as a file.
    for key in [verifier.to_text(), arg(&pubfile).to_string()] {
        let out = e.ok(&["check-proof", arg(&p), "--checkpoint", arg(&n), "--pubkey", &key]);
        assert!(
            out.contains("; checkpoint of club.example/ladder signed by club.example/ladder+"),
            "{out}"
        );
    }
    let run = |note_path: &std::path::Path, key: &str| {
        e.run(&["check-proof", arg(&p), "--checkpoint", arg(note_path), "--pubkey", key], b"")
    };
    // Another key of the same name: not signed by it.
    let (_, stranger) = keygen(&e, "stranger.key", "club.example/ladder");
    let r = run(&n, &stranger.to_text());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not signed by"), "{}", r.stderr);
    // One changed byte in the note's text: the signature fails.
    let forged = e.file("forged.txt", note.replacen("\n6\n", "\n7\n", 1).as_bytes());
    let r = run(&forged, &verifier.to_text());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("does not verify"), "{}", r.stderr);
    // A genuine checkpoint of another tree: the proof is not about it.
    let other = Checkpoint { size: 5, ..cp.clone() }.sign(&signer).unwrap();
    let o = e.file("other.txt", other.as_bytes());
    let r = run(&o, &verifier.to_text());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("but the checkpoint is of 5 events"), "{}", r.stderr);
    // A key that is neither a key nor a file.
    let r = run(&n, "nonsense");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("neither a verifier key"), "{}", r.stderr);
    // --checkpoint needs --pubkey: a usage error.
    let r = e.run(&["check-proof", arg(&p), "--checkpoint", arg(&n)], b"");
    assert_eq!(r.code, 2);
}

/// The fenced block after `<!-- example: NAME -->` in docs/proofs.md.
fn doc_block(name: &str) -> String {
    let page = include_str!("../../../../docs/proofs.md");
    let marker = format!("<!-- example: {name} -->\n");
    let at = page.find(&marker).unwrap() + marker.len();
    let body = page[at..].split_once('\n').unwrap().1;
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_check_proof_lines_of_docs_proofs_md() {
    // The page shows these two outputs with the root shortened to its first 8 and last 4 digits.
    let e = Env::new();
    let p = e.file("inclusion.json", doc_block("inclusion").as_bytes());
    let n = e.file("checkpoint.txt", doc_block("checkpoint").as_bytes());
    let key = doc_block("verifier-key");
    let shorten = |s: String| {
        let long = s.split("root ").nth(1).unwrap()[..64].to_string();
        s.replace(&long, &format!("{}...{}", &long[..8], &long[60..]))
    };
    let page = include_str!("../../../../docs/proofs.md");
    let alone = shorten(e.ok(&["check-proof", arg(&p)]));
    assert!(page.contains(&format!("$ ladder check-proof inclusion.json\n{alone}")), "{alone}");
    let signed =
        shorten(e.ok(&["check-proof", arg(&p), "--checkpoint", arg(&n), "--pubkey", key.trim()]));
    assert!(page.contains(&format!("--pubkey '{}'\n{signed}", key.trim())), "{signed}");
}

#[test]
fn explain_shows_the_events_inclusion_proof_against_the_current_tree_head() {
    let e = Env::new();
    let input: String = LINES.iter().map(|l| format!("{l}\n")).collect();
    let file = e.file("six.jsonl", input.as_bytes());
    e.ok(&["import", arg(&file)]);
    let explained: serde_json::Value = serde_json::from_str(
        &e.ok(&["explain", "--algo", "elo", "--event", "3", "--format", "json"]),
    )
    .unwrap();
    assert_eq!(explained["inclusion_ok"], true);
    // The proof is the one `ladder prove` prints, and the one built here with the in-memory
    // tree from the six canonical lines (`log --format jsonl`: scores print as 1.0, so these are
    // not the input's bytes).
    let proved: serde_json::Value =
        serde_json::from_str(&e.ok(&["prove", "--event", "3", "--format", "json"])).unwrap();
    assert_eq!(explained["inclusion"], proved);
    let export = e.ok(&["log", "--format", "jsonl"]);
    let canonical: Vec<&str> = export.lines().collect();
    assert_eq!(canonical.len(), 6);
    let mut t = MemTree::from_leaves(canonical.iter().copied());
    let expected = Proof::Inclusion(InclusionProof {
        index: 2,
        size: 6,
        leaf: canonical[2].into(),
        root: t.root(),
        path: inclusion_proof(2, 6, &mut t).unwrap(),
    });
    let expected: serde_json::Value = serde_json::from_str(&expected.to_json()).unwrap();
    assert_eq!(explained["inclusion"], expected);
    // Its root is the current checkpoint's.
    let note = e.ok(&["checkpoint", "--origin", "example.org/six"]);
    let checkpoint = Checkpoint::parse(&format!("{}\n", note.trim_end())).unwrap();
    assert_eq!(checkpoint.size, 6);
    assert_eq!(explained["inclusion"]["root"], ladder_proof::hex(&checkpoint.root));
    // The text names the tree, shows the path and how to check it offline.
    let text = e.ok(&["explain", "--algo", "elo", "--event", "3"]);
    assert!(text.contains("event 3 is in the tree of the first 6 events"), "{text}");
    assert!(text.contains(&ladder_proof::hex(&checkpoint.root)), "{text}");
    assert!(text.contains("it checks"), "{text}");
    assert!(text.contains("ladder prove --event 3 --format json > p.json"), "{text}");
}

/// The operator's routine of docs/audit.md: publish a signed checkpoint, let the log grow,
/// publish another; anyone checks a match's inclusion and that the second checkpoint extends the
/// first. A rewritten history fails the second check.
#[test]
fn two_published_checkpoints_are_checked_consistent_and_a_rewrite_is_caught() {
    let e = Env::new();
    let (_, verifier) = keygen(&e, "club.key", "club.example/ladder");
    let key = arg(&e.dir.path().join("club.key")).to_string();
    let origin = ["--origin", "club.example/ladder", "--key", &key];
    let input: String = LINES.iter().map(|l| format!("{l}\n")).collect();
    let first = e.file("first.jsonl", input.as_bytes());
    e.ok(&["import", arg(&first)]);
    let monday = e.file("monday.txt", e.ok(&[&["checkpoint"][..], &origin].concat()).as_bytes());
    e.ok(&["append", "--at", "2026-03-03T10:00:00Z", "match", "ann", "bob", "--score", "1-0"]);
    e.ok(&["append", "--at", "2026-03-03T11:00:00Z", "match", "bob", "ann", "--score", "1-0"]);
    let tuesday = e.file("tuesday.txt", e.ok(&[&["checkpoint"][..], &origin].concat()).as_bytes());

    // A player's match (event 3) is in Monday's tree and in Tuesday's.
    let p = e.file(
        "p.json",
        e.ok(&["prove", "--event", "3", "--size", "6", "--format", "json"]).as_bytes(),
    );
    let pk = verifier.to_text();
    e.ok(&["check-proof", arg(&p), "--checkpoint", arg(&monday), "--pubkey", &pk]);
    // The log only grew from Monday to Tuesday.
    let c = e.file(
        "c.json",
        e.ok(&["prove", "--from", "6", "--to", "8", "--format", "json"]).as_bytes(),
    );
    let both = ["--old-checkpoint", arg(&monday), "--checkpoint", arg(&tuesday), "--pubkey", &pk];
    let out = e.ok(&[&["check-proof", arg(&c)][..], &both].concat());
    assert!(out.contains("checkpoints of club.example/ladder at 6 and 8 events"), "{out}");
    // The checkpoints swapped: the proof does not start from the "old" one.
    let swapped =
        ["--old-checkpoint", arg(&tuesday), "--checkpoint", arg(&monday), "--pubkey", &pk];
    let r = e.run(&[&["check-proof", arg(&c)][..], &swapped].concat(), b"");
    assert_eq!(r.code, 1, "{}", r.stderr);

    // The same operator rewrites Monday's history (event 3 won by bob instead) and re-appends
    // Tuesday's games: the new log's consistency proof cannot start from Monday's checkpoint.
    let r2 = Env::new();
    let rewritten = input.replacen(
        r#""player":"ann","score":1},{"player":"bob","score":0}"#,
        r#""player":"ann","score":0},{"player":"bob","score":1}"#,
        1,
    );
    assert_ne!(rewritten, input);
    let f = r2.file("rewritten.jsonl", rewritten.as_bytes());
    r2.ok(&["import", arg(&f)]);
    r2.ok(&["append", "--at", "2026-03-03T10:00:00Z", "match", "ann", "bob", "--score", "1-0"]);
    r2.ok(&["append", "--at", "2026-03-03T11:00:00Z", "match", "bob", "ann", "--score", "1-0"]);
    let forged = e.file(
        "forged.json",
        r2.ok(&["prove", "--from", "6", "--to", "8", "--format", "json"]).as_bytes(),
    );
    let r = e.run(&[&["check-proof", arg(&forged)][..], &both].concat(), b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    // (Tuesday's checkpoint names the honest tree, so the forged proof fails there already;
    // against its own new root it would fail at Monday's: both are refusals.)
    assert!(r.stderr.contains("check failed"), "{}", r.stderr);
    // The real scenario: the operator signs and publishes the rewritten log's checkpoint. A
    // watcher holding Monday's note asks for the consistency proof, and it fails at Monday's.
    let forged_tuesday =
        e.file("forged-tuesday.txt", r2.ok(&[&["checkpoint"][..], &origin].concat()).as_bytes());
    let watcher =
        ["--old-checkpoint", arg(&monday), "--checkpoint", arg(&forged_tuesday), "--pubkey", &pk];
    let r = e.run(&[&["check-proof", arg(&forged)][..], &watcher].concat(), b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("but the old checkpoint is of 6 events"), "{}", r.stderr);
    let p3 = e.file(
        "p3.json",
        r2.ok(&["prove", "--event", "3", "--size", "6", "--format", "json"]).as_bytes(),
    );
    let r = e.run(&["check-proof", arg(&p3), "--checkpoint", arg(&monday), "--pubkey", &pk], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("but the checkpoint is of 6 events"), "{}", r.stderr);
}
