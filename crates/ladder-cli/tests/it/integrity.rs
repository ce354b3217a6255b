//! The ledger's integrity from the command line: a damaged store is refused (exit 1, both heads
//! named, nothing written), reading creates nothing, the upgrade from format 2, and proofs and
//! checkpoints from a real ledger checked offline.

use crate::support::{fixture, Env};

fn club(e: &Env) {
    e.ok(&["import", "--auto-join", "--ticks", fixture("club.jsonl").to_str().unwrap()]);
}

fn head(e: &Env) -> String {
    let out = e.ok(&["verify", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["head"].as_str().unwrap().to_string()
}

#[test]
fn a_damaged_store_is_refused_every_time_and_left_as_it_was() {
    let e = Env::new();
    club(&e);
    let head = head(&e);
    let db = e.ledger().join("db");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[5000] ^= 0xff;
    std::fs::write(&db, &bytes).unwrap();
    for _ in 0..2 {
        let r = e.run(&["verify"], b"");
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stderr.contains(&head), "the recorded head is named: {}", r.stderr);
        assert!(r.stderr.contains("Restore the directory from a backup"), "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert_eq!(std::fs::read(&db).unwrap(), bytes, "the refused open wrote to the store");
    }
    // Truncated: the same.
    std::fs::write(&db, &bytes[..3000]).unwrap();
    let r = e.run(&["replay", "--algo", "elo"], b"");
    assert_eq!((r.code, r.stdout.as_str()), (1, ""), "{}", r.stderr);
}

#[test]
fn commands_that_read_create_no_ledger() {
    let e = Env::new();
    let dir = e.dir.path().join("empty");
    std::fs::create_dir(&dir).unwrap();
    for args in
        [&["verify"][..], &["log"], &["replay", "--algo", "elo"], &["prove", "--event", "1"]]
    {
        let r = crate::support::run_in(e.dir.path(), &dir, args, b"");
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("there is no ledger"), "{}", r.stderr);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "{args:?} wrote to {dir:?}");
    }
}

/// A ledger of format 2 or 3 (each written by the last build of its format) is refused by every
/// command that reads it, naming the upgrade and writing nothing; `upgrade` rebuilds it in format
/// 4 with the same events (and from format 3 the same head) and keeps the old one unchanged.
#[test]
fn old_format_ledgers_are_refused_naming_the_upgrade_which_keeps_the_old_one() {
    for from in [2u64, 3] {
        let e = Env::new();
        std::fs::create_dir(e.ledger()).unwrap();
        let mut original = Vec::new();
        for f in std::fs::read_dir(fixture(&format!("format{from}/ledger"))).unwrap() {
            let f = f.unwrap();
            if f.path().is_file() {
                std::fs::copy(f.path(), e.ledger().join(f.file_name())).unwrap();
                original.push((f.file_name(), std::fs::read(f.path()).unwrap()));
            }
        }
        original.sort();
        let files = |dir: &std::path::Path| {
            let mut v: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|f| {
                    let f = f.unwrap();
                    (f.file_name(), std::fs::read(f.path()).unwrap())
                })
                .collect();
            v.sort();
            v
        };
        for args in [
            &["verify"][..],
            &["log"],
            &["replay", "--algo", "elo"],
            &["append", "tick", "--at", "2026-07-01"],
        ] {
            let r = e.run(args, b"");
            assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
            assert!(r.stderr.contains("ladder upgrade"), "{}", r.stderr);
            assert!(files(&e.ledger()) == original, "{args:?} wrote to a format {from} ledger");
        }
        let out = e.ok(&["upgrade", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!((v["from_format"].as_u64(), v["format"].as_u64()), (Some(from), Some(4)));
        assert_eq!(v["head"].as_str().unwrap(), head(&e));
        if from == 3 {
            assert_eq!(v["old_head"], v["head"], "format 3's chain is format 4's");
        }
        let export = e.ok(&["log", "--format", "jsonl"]);
        let want = std::fs::read_to_string(fixture(&format!("format{from}/export.jsonl"))).unwrap();
        assert_eq!(export, want);
        let kept = std::path::Path::new(v["kept"].as_str().unwrap());
        assert!(files(kept) == original, "the kept format {from} ledger is not the original");
    }
}

#[test]
fn proofs_and_signed_checkpoints_from_the_ledger_check_offline() {
    let e = Env::new();
    club(&e);
    let dir = e.dir.path();
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    std::fs::write(dir.join("inc.json"), e.ok(&["prove", "--event", "17", "--format", "json"]))
        .unwrap();
    std::fs::write(
        dir.join("con.json"),
        e.ok(&["prove", "--from", "10", "--to", "88", "--format", "json"]),
    )
    .unwrap();
    e.ok(&["keygen", &path("club.key"), "--name", "example.org/club"]);
    let note = e.ok(&["checkpoint", "--origin", "example.org/club", "--key", &path("club.key")]);
    assert!(note.starts_with("example.org/club\n88\n"), "{note}");
    std::fs::write(dir.join("cp.txt"), &note).unwrap();
    for proof in ["inc.json", "con.json"] {
        let out = e.ok(&[
            "check-proof",
            &path(proof),
            "--checkpoint",
            &path("cp.txt"),
            "--pubkey",
            &path("club.key.pub"),
        ]);
        assert!(out.starts_with("ok:"), "{out}");
    }
    // verify holds the ledger to the published checkpoint, before and after it grows.
    let args = ["verify", "--expect-head", &path("cp.txt"), "--pubkey", &path("club.key.pub")];
    e.ok(&args);
    e.ok(&["append", "match", "alice", "bob", "--score", "1-0", "--at", "2026-04-01"]);
    e.ok(&args);
    // A checkpoint naming another root at that size is not held.
    let other = e.ok(&["checkpoint", "--origin", "example.org/club"]).replace("\n89\n", "\n88\n");
    std::fs::write(dir.join("other.txt"), other).unwrap();
    let r = e.run(&["verify", "--expect-head", &path("other.txt")], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("does not hold the checkpoint"), "{}", r.stderr);
}

/// `log --format jsonl` of a ledger damaged in the middle prints the readable prefix and exits 1,
/// so a backup redirected to a file is silently partial; `--output FILE` writes FILE whole or
/// not at all (a temporary file renamed at the end), and on an intact ledger writes exactly what
/// stdout gets.
#[test]
fn log_output_writes_a_backup_whole_or_not_at_all() {
    use ladder_log::{SledStore, Store, Tree};
    let e = Env::new();
    let mut text = String::from(
        "{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"a\"}\n\
         {\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"b\"}\n",
    );
    for i in 0..600 {
        text.push_str(&format!(
            "{{\"type\":\"MatchResult\",\"at\":\"2026-03-01T01:{:02}:{:02}Z\",\"id\":\"m{i}\",\"seats\":[{{\"player\":\"a\",\"score\":1}},{{\"player\":\"b\",\"score\":0}}]}}\n",
            i / 60,
            i % 60
        ));
    }
    let input = e.file("in.jsonl", text.as_bytes());
    e.ok(&["import", input.to_str().unwrap()]);
    let backup = e.dir.path().join("backup.jsonl");
    let out = e.ok(&["log", "--format", "jsonl", "--output", backup.to_str().unwrap()]);
    assert_eq!(out, "");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), e.ok(&["log", "--format", "jsonl"]));
    std::fs::remove_file(&backup).unwrap();
    // Damage the second block of events (its bytes cut short) below the ledger, in sled.
    {
        let store = SledStore::open(&e.ledger()).unwrap();
        let blocks: Vec<_> = store.scan(Tree::Events, &[]).map(|kv| kv.unwrap()).collect();
        assert!(blocks.len() >= 3, "{} blocks", blocks.len());
        let (k, v) = &blocks[1];
        store.insert(Tree::Events, k, &v[..v.len() / 2]).unwrap();
        store.flush().unwrap();
    }
    let r = e.run(&["log", "--format", "jsonl"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!r.stdout.is_empty(), "stdout gets the readable prefix");
    let r = e.run(&["log", "--format", "jsonl", "--output", backup.to_str().unwrap()], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!backup.exists(), "no partial backup");
    let left: Vec<_> = std::fs::read_dir(e.dir.path())
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}
