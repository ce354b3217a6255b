//! `ladder publish`, `ladder mirror` and C2SP tlog-proofs through the binary.

use crate::support::{fixture, run_in, Env};
use ladder_proof::note::Checkpoint;
use ladder_proof::note::VerifierKey;

const ORIGIN: &str = "chess.example.org/club";

/// A ledger of `club.jsonl` and the log's key (`club.key`, `club.key.pub`).
fn club() -> Env {
    let e = Env::new();
    e.ok(&["import", "--auto-join", fixture("club.jsonl").to_str().unwrap()]);
    e.ok(&["keygen", "club.key", "--name", ORIGIN]);
    e
}

#[test]
fn publish_then_mirror_gives_the_same_head_and_a_rewrite_is_refused_with_evidence() {
    let e = club();
    let dir = e.dir.path();
    let out = e.ok(&["publish", "site", "--origin", ORIGIN, "--key", "club.key"]);
    assert!(out.starts_with("published "), "{out}");
    let note = std::fs::read_to_string(dir.join("site/checkpoint")).unwrap();
    let key = VerifierKey::parse(std::fs::read_to_string(dir.join("club.key.pub")).unwrap().trim())
        .unwrap();
    let cp = Checkpoint::open(&note, &[key]).unwrap();
    let head = e.ok(&["verify"]);
    assert!(head.contains(&format!("ok: head {}:", cp.size)), "{head}");

    let mirror = dir.join("mirror.db");
    let r = run_in(dir, &mirror, &["mirror", "site", "--pubkey", "club.key.pub"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let theirs = run_in(dir, &mirror, &["verify"], b"");
    assert_eq!(theirs.stdout, head, "the mirror's head and root are the source's");

    // The source is rewritten: one event fewer, another appended, signed again.
    let lines: Vec<&str> = include_str!("../../../../fixtures/club.jsonl").lines().collect();
    let other = Env::new();
    std::fs::copy(dir.join("club.key"), other.dir.path().join("club.key")).unwrap();
    let shorter = lines[..lines.len() - 1].join("\n");
    other.file("shorter.jsonl", shorter.as_bytes());
    other.ok(&["import", "--auto-join", "shorter.jsonl"]);
    other.ok(&["append", "tick", "--at", "2026-03-13"]);
    std::fs::remove_dir_all(dir.join("site")).unwrap();
    let site = dir.join("site");
    other.ok(&["publish", site.to_str().unwrap(), "--origin", ORIGIN, "--key", "club.key"]);
    let r = run_in(dir, &mirror, &["mirror", "site", "--pubkey", "club.key.pub"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("forked or rewritten"), "{}", r.stderr);
    assert!(r.stderr.contains("mirror.db.mirror/fork-"), "{}", r.stderr);
    assert!(r.stderr.contains("What a failed mirror means"), "{}", r.stderr);
    assert_eq!(run_in(dir, &mirror, &["verify"], b"").stdout, head, "nothing appended");
}

#[test]
fn mirror_takes_a_ca_certificate_only_for_an_https_source() {
    let e = club();
    let dir = e.dir.path();
    e.ok(&["publish", "site", "--origin", ORIGIN, "--key", "club.key"]);
    e.file("ca.pem", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    let mirror = dir.join("mirror.db");
    let args = ["mirror", "site", "--pubkey", "club.key.pub", "--ca-cert", "ca.pem"];
    let r = run_in(dir, &mirror, &args, b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("ca.pem"), "{}", r.stderr);
    assert!(r.stderr.contains("only for an https:// source, not site"), "{}", r.stderr);
    assert!(!mirror.exists(), "no ledger is made for a refused mirror");
    // A missing file is named too.
    let args = ["mirror", "https://127.0.0.1:9/log", "--pubkey", "club.key.pub", "--ca-cert", "x"];
    let r = run_in(dir, &mirror, &args, b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("reading x:"), "{}", r.stderr);
}

#[test]
fn publish_needs_a_key() {
    let e = club();
    let r = e.run(&["publish", "site"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--key"), "{}", r.stderr);
    assert!(!e.dir.path().join("site").exists());
}

#[test]
fn a_tlog_proof_checks_with_the_key_and_every_tampering_is_refused() {
    let e = club();
    let text = e.ok(&[
        "prove",
        "--event",
        "5",
        "--format",
        "tlog-proof",
        "--key",
        "club.key",
        "--origin",
        ORIGIN,
    ]);
    assert!(text.starts_with("c2sp.org/tlog-proof@v1\nextra "), "{text}");
    assert!(text.contains("\nindex 4\n"), "{text}");
    e.file("p.tlog-proof", text.as_bytes());
    let ok = e.ok(&["check-proof", "p.tlog-proof", "--pubkey", "club.key.pub"]);
    assert!(ok.starts_with("ok: event 5 (leaf index 4)"), "{ok}");

    // Against the published checkpoint, as a player would be given it.
    e.ok(&["publish", "site", "--origin", ORIGIN, "--key", "club.key"]);
    let published = e.ok(&[
        "prove",
        "--event",
        "5",
        "--format",
        "tlog-proof",
        "--checkpoint",
        "site/checkpoint",
    ]);
    assert_eq!(published, text, "the same checkpoint bytes (Ed25519 is deterministic)");

    let lines: Vec<&str> = text.lines().collect();
    let hash_line = lines[3];
    let mut flipped = hash_line.to_string().into_bytes();
    flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
    let tampered = [
        text.replacen("\nindex 4\n", "\nindex 5\n", 1),
        text.replacen(hash_line, std::str::from_utf8(&flipped).unwrap(), 1),
        text.replacen(lines[1], "extra eyJ0eXBlIjoiTWlkbmlnaHRUaWNrIn0=", 1),
        text.replacen(&format!("\n{}\n", lines[3]), "\n", 1),
    ];
    for (i, bad) in tampered.iter().enumerate() {
        let f = e.file(&format!("bad{i}.tlog-proof"), bad.as_bytes());
        let r = e.run(&["check-proof", f.to_str().unwrap(), "--pubkey", "club.key.pub"], b"");
        assert_eq!(r.code, 1, "tampering {i} was accepted: {}", r.stdout);
        assert!(r.stderr.contains("check failed"), "{}", r.stderr);
    }
    // Another key, and a proof without its key.
    e.ok(&["keygen", "other.key", "--name", ORIGIN]);
    let r = e.run(&["check-proof", "p.tlog-proof", "--pubkey", "other.key.pub"], b"");
    assert_eq!(r.code, 1, "{}", r.stdout);
    let r = e.run(&["check-proof", "p.tlog-proof"], b"");
    assert_eq!(r.code, 2, "{}", r.stdout);
}
