//! The head file: a damaged store is refused and left exactly as it was, never read as another
//! (shorter or empty) history; reading never creates a ledger; a crash between a commit and its
//! head file is recovered; and the upgrade from format 2.

use crate::{append_ok, stored_lines};
use ladder_log::{AppendOptions, Head, Ledger, LogError, GENESIS};
use std::path::{Path, PathBuf};

/// A ledger of `n` matches among three players, closed; returns its head.
fn build(path: &Path, n: usize) -> Head {
    let mut text = String::new();
    for p in ["alice", "bob", "carol"] {
        text.push_str(&format!(
            "{{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"{p}\"}}\n"
        ));
    }
    for i in 0..n {
        let (a, b) = [("alice", "bob"), ("bob", "carol"), ("carol", "alice")][i % 3];
        text.push_str(&format!(
            "{{\"type\":\"MatchResult\",\"at\":\"2026-03-01T{:02}:{:02}:{:02}Z\",\"id\":\"m-{i}\",\"seats\":[{{\"player\":\"{a}\",\"score\":1}},{{\"player\":\"{b}\",\"score\":0}}]}}\n",
            1 + i / 3600,
            i / 60 % 60,
            i % 60
        ));
    }
    let mut l = Ledger::open(path).unwrap();
    append_ok(&mut l, &text, AppendOptions::default());
    l.head()
}

fn file_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.ends_with(ladder_log::LOCK_FILE) {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Flips every bit of byte 5000 of the ledger's sled `db` file (inside its first segment).
fn flip_a_byte_of_db(path: &Path) {
    let db = path.join("db");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[5000] ^= 0xff;
    std::fs::write(&db, &bytes).unwrap();
}

/// Every open of a damaged store is refused (never an empty or shorter ledger), names the
/// recorded head, and leaves every file byte for byte as it was, however often it is tried.
fn assert_refused_untouched(path: &Path, head: Head) {
    let before = file_bytes(path);
    for _ in 0..3 {
        match Ledger::open(path) {
            Err(LogError::Damaged { expected, .. }) => assert_eq!(expected, head),
            Err(LogError::EnginePanic { .. }) => {}
            Err(other) => panic!("a damaged store gave another error: {other}"),
            Ok(l) => panic!("a damaged store opened with head {}", l.head()),
        }
        assert!(file_bytes(path) == before, "a refused open wrote to the ledger");
    }
}

#[test]
fn a_flipped_byte_or_a_truncation_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for (i, damage) in ["flip 5000", "flip 200", "truncate 3000", "truncate 0"].iter().enumerate() {
        let path = dir.path().join(format!("l{i}"));
        let head = build(&path, 300);
        let db = path.join("db");
        let mut bytes = std::fs::read(&db).unwrap();
        let (what, at) = damage.split_once(' ').unwrap();
        let at: usize = at.parse().unwrap();
        match what {
            "flip" => bytes[at] ^= 0xff,
            _ => bytes.truncate(at),
        }
        std::fs::write(&db, &bytes).unwrap();
        assert_refused_untouched(&path, head);
    }
}

#[test]
fn a_cleanly_closed_ledger_opens_in_place_and_a_touched_one_through_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let head = build(&path, 50);
    for _ in 0..3 {
        let l = Ledger::open(&path).unwrap();
        assert_eq!(l.head(), head);
        assert!(!l.was_checked_on_a_copy(), "the seals matched, no copy was needed");
    }
    // Rewriting a file with the same bytes changes its seal: a copy is opened first, found
    // whole, and the ledger opens.
    let db = path.join("db");
    std::fs::write(&db, std::fs::read(&db).unwrap()).unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.head(), head);
    assert!(l.was_checked_on_a_copy());
}

/// Damage the seals cannot see (below the file system: a disk's bit rot keeps a file's length,
/// times and inode) is simulated by resealing the head file over the damaged files: sled then
/// opens them in place, and the ledger is still refused, but the error must not claim that
/// nothing was written (sled's recovery may have rewritten them), as the copy path's does.
#[cfg(unix)]
#[test]
fn damage_the_seals_miss_is_refused_and_the_error_says_sled_may_have_written() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let head = build(&path, 300);
    flip_a_byte_of_db(&path);
    // The head file's format (crates/ladder-log/src/headfile.rs): the recorded head, then one
    // `file NAME LEN MTIME CTIME INODE` line per file of sled's, sorted by name.
    let mut seals = Vec::new();
    let mut stack = vec![path.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(&path).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if !name.starts_with(ladder_log::HEAD_FILE) && name != ladder_log::LOCK_FILE {
                let m = std::fs::metadata(&p).unwrap();
                let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
                seals.push(format!(
                    "file {name} {} {} {} {}\n",
                    m.len(),
                    ns(m.mtime(), m.mtime_nsec()),
                    ns(m.ctime(), m.ctime_nsec()),
                    m.ino()
                ));
            }
        }
    }
    seals.sort();
    let body = format!(
        "ladder ledger\nformat {}\nhead {head}\n{}",
        ladder_log::LEDGER_FORMAT,
        seals.concat()
    );
    let check = blake3::hash(body.as_bytes()).to_hex();
    std::fs::write(path.join(ladder_log::HEAD_FILE), format!("{body}check {check}\n")).unwrap();
    match Ledger::open(&path) {
        Err(e @ LogError::Damaged { untouched: false, expected, .. }) => {
            assert_eq!(expected, head);
            assert!(e.to_string().contains("may have rewritten"), "{e}");
            assert!(!e.to_string().contains("nothing was written"), "{e}");
        }
        Err(LogError::EnginePanic { .. }) => {}
        Err(other) => panic!("another error: {other}"),
        Ok(l) => panic!("a damaged store opened with head {}", l.head()),
    }
    // The same damage seen by the seals: refused on a copy, and the error says nothing was
    // written (which a_flipped_byte_or_a_truncation_is_refused_and_nothing_is_written checks).
    let other = dir.path().join("m");
    let head = build(&other, 300);
    flip_a_byte_of_db(&other);
    match Ledger::open(&other) {
        Err(e @ LogError::Damaged { untouched: true, .. }) => {
            assert!(e.to_string().contains("nothing was written"), "{e}");
            assert!(e.to_string().contains(&head.to_string()), "{e}");
        }
        Err(LogError::EnginePanic { .. }) => {}
        Err(other) => panic!("another error: {other}"),
        Ok(l) => panic!("a damaged store opened with head {}", l.head()),
    }
}

/// A process killed while sled writes a snapshot leaves `snap.<lsn>.generating`, which sled 0.34
/// then reads as the newest snapshot and reports corrupt, so the ledger never opened again (the
/// fault campaign's kills found it). The unfinished file is removed and the ledger opens whole,
/// whether its seals match or not.
#[test]
fn a_snapshot_left_unfinished_by_a_kill_does_not_keep_the_ledger_shut() {
    let dir = tempfile::tempdir().unwrap();
    for (i, empty) in [true, false].into_iter().enumerate() {
        let path = dir.path().join(format!("l{i}"));
        let head = build(&path, 50);
        // Sorts after every real snapshot: sled picks the last name.
        let unfinished = path.join("snap.7FFFFFFFFFFFFFFF.generating");
        std::fs::write(&unfinished, if empty { &b""[..] } else { &[7u8; 40][..] }).unwrap();
        let l = Ledger::open(&path).unwrap();
        assert_eq!(l.head(), head);
        assert!(l.was_checked_on_a_copy(), "a new file breaks the seals");
        assert!(l.verify(None).is_ok());
        drop(l);
        assert!(!unfinished.exists());
        assert_eq!(Ledger::open(&path).unwrap().head(), head);
    }
}

#[test]
fn a_damaged_head_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 5);
    let file = path.join(ladder_log::HEAD_FILE);
    let mut text = std::fs::read(&file).unwrap();
    text[20] ^= 1;
    std::fs::write(&file, text).unwrap();
    let e = Ledger::open(&path).unwrap_err();
    assert!(matches!(e, LogError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("head file"), "{e}");
}

#[test]
fn a_head_file_behind_the_store_is_a_crash_after_a_commit_and_is_caught_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 10);
    let earlier = {
        let l = Ledger::open(&path).unwrap();
        Head { seq: 5, hash: l.get(5).unwrap().unwrap().hash }
    };
    let head = Ledger::open(&path).unwrap().head();
    // As if the process died after the commit of events 6..=13 and before its head file.
    crate::forge_head_file(&path, earlier);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.head(), head);
    drop(l);
    let recorded = std::fs::read_to_string(path.join(ladder_log::HEAD_FILE)).unwrap();
    assert!(recorded.contains(&format!("head {head}\n")), "{recorded}");
    // A head file naming another event at a seq the store holds is not a crash: refused.
    crate::forge_head_file(&path, Head { seq: 5, hash: [9; 32] });
    assert!(matches!(Ledger::open(&path), Err(LogError::Damaged { .. })));
}

#[test]
fn reading_never_creates_a_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("e");
    std::fs::create_dir(&empty).unwrap();
    for path in [empty.clone(), dir.path().join("missing")] {
        assert!(matches!(Ledger::open_existing(&path), Err(LogError::NoLedger { .. })));
    }
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "nothing was written");
    assert!(!dir.path().join("missing").exists());
}

/// Copies a fixture ledger directory (files only) to `to`.
fn copy_fixture(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// RFC 6962 section 2.1's MTH with SHA-256, written out here from the RFC (not ladder-proof's):
/// the root every C2SP tool computes over these leaves.
fn sha256_root(leaves: &[String]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    fn mth(d: &[[u8; 32]]) -> [u8; 32] {
        match d.len() {
            0 => Sha256::digest(b"").into(),
            1 => d[0],
            n => {
                let k = 1usize << (usize::BITS - (n - 1).leading_zeros() - 1);
                let mut h = Sha256::new();
                h.update([0x01]);
                h.update(mth(&d[..k]));
                h.update(mth(&d[k..]));
                h.finalize().into()
            }
        }
    }
    let hashes: Vec<[u8; 32]> = leaves
        .iter()
        .map(|l| {
            let mut h = Sha256::new();
            h.update([0x00]);
            h.update(l.as_bytes());
            h.finalize().into()
        })
        .collect();
    mth(&hashes)
}

/// `fixtures/formatN/ledger` (N = 2, 3) was written by the last build of format N. It is refused
/// as it is (naming the command) and nothing is written to it; `upgrade` rebuilds it: the same
/// events, the chain recomputed here from their JSON lines with blake3 alone, the SHA-256 root
/// from the lines by RFC 6962, and the old ledger kept byte for byte as it was.
fn refused_then_upgraded(format: u8, old_head: &str) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("club.db");
    copy_fixture(&fixtures.join(format!("format{format}/ledger")), &path);
    let original = file_bytes(&path);
    let names = |d: &Path| {
        let mut n: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        n.sort();
        n
    };
    let original_names = names(&path);
    for _ in 0..2 {
        let e = Ledger::open(&path).unwrap_err();
        assert!(matches!(e, LogError::OldFormat { format: f, .. } if f == format), "{e}");
        assert!(e.to_string().contains("ladder upgrade"), "{e}");
        let e = Ledger::open_existing(&path).unwrap_err();
        assert!(matches!(e, LogError::OldFormat { .. }), "{e}");
        assert!(file_bytes(&path) == original, "a refused open wrote to the ledger");
        assert_eq!(names(&path), original_names, "a refused open created a file");
    }
    let up = Ledger::upgrade(&path).unwrap();
    assert_eq!((up.from_format, up.old_head.to_string()), (format, old_head.to_string()));
    let lines: Vec<String> =
        std::fs::read_to_string(fixtures.join(format!("format{format}/export.jsonl")))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
    let mut h = GENESIS;
    for line in &lines {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&h);
        hasher.update(line.as_bytes());
        h = *hasher.finalize().as_bytes();
    }
    assert_eq!(up.head, Head { seq: 89, hash: h });
    assert_eq!(up.root, sha256_root(&lines));
    let l = Ledger::open(&path).unwrap();
    assert_eq!(stored_lines(&l), lines);
    assert_eq!(l.verify(None).unwrap(), up.head);
    assert_eq!(l.root().unwrap(), up.root);
    drop(l);
    // The old ledger is kept exactly as it was: the same files, the same bytes.
    let kept = up.kept.unwrap();
    assert_eq!(kept, dir.path().join(format!("club.db.format{format}")));
    let kept_bytes: Vec<_> = file_bytes(&kept)
        .into_iter()
        .map(|(p, b)| (p.file_name().unwrap().to_owned(), b))
        .collect();
    let original: Vec<_> =
        original.into_iter().map(|(p, b)| (p.file_name().unwrap().to_owned(), b)).collect();
    assert!(kept_bytes == original, "the kept ledger differs from the one upgraded");
    assert_eq!(names(&kept), original_names);
    // Upgrading again does nothing.
    let again = Ledger::upgrade(&path).unwrap();
    assert_eq!((again.kept, again.head), (None, up.head));
}

#[test]
fn a_format_2_ledger_is_refused_untouched_then_upgraded() {
    refused_then_upgraded(2, "89:5ae8f091d6513304e6bc1a1cfd1fd2ebc15752b18a159410e79751eb8aabfc26");
}

/// Format 3 chained the same lines as format 4: the upgrade keeps the head and changes the root.
#[test]
fn a_format_3_ledger_is_refused_untouched_then_upgraded_to_the_same_head() {
    let head = "89:9b66bf452de92c10417f39b643cb1e4ee21a0b23bc5f21ce220427c67f4e005e";
    refused_then_upgraded(3, head);
}

/// A FIFO where sled keeps a file made every command hang in open(): refused at once, naming it.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_file_is_refused_without_opening_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 5);
    std::fs::remove_file(path.join("db")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(path.join("db")).status().unwrap();
    assert!(status.success());
    for open in [Ledger::open, Ledger::open_existing] {
        let e = open(&path).unwrap_err();
        assert!(matches!(e, LogError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(e.to_string().contains("db"), "{e}");
    }
    let e = Ledger::upgrade(&path).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

/// The stored tree serves RFC 6962 roots and proofs that agree with a tree built in memory from
/// the events' JSON lines, at sizes around the 256-leaf tiles, before and after reopening.
#[test]
fn roots_and_proofs_agree_with_a_tree_of_the_json_lines() {
    use ladder_proof::{verify_consistency, verify_inclusion, MemTree};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 700);
    let l = Ledger::open(&path).unwrap();
    let lines = stored_lines(&l);
    assert_eq!(lines.len(), 703);
    let mem = |n: usize| MemTree::from_leaves(lines[..n].iter().map(|s| s.as_bytes()));
    assert_eq!(l.root().unwrap(), mem(703).root());
    for size in [1u64, 2, 3, 255, 256, 257, 511, 512, 513, 700, 703] {
        let root = mem(size as usize).root();
        assert_eq!(l.root_at(size).unwrap(), root, "size {size}");
        for seq in (1..=size).step_by(37).chain([size]) {
            let p = l.prove_inclusion(seq, size).unwrap();
            assert_eq!((p.index, p.size, p.root), (seq - 1, size, root));
            assert_eq!(p.leaf, lines[seq as usize - 1]);
            let leaf = ladder_proof::leaf_hash(p.leaf.as_bytes());
            verify_inclusion(p.index, size, &leaf, &p.path, &root).unwrap();
        }
        for from in [1u64, 100, 256, size] {
            if from <= size {
                let c = l.prove_consistency(from, size).unwrap();
                assert_eq!((c.old_root, c.new_root), (mem(from as usize).root(), root));
                verify_consistency(from, size, &c.old_root, &c.new_root, &c.path).unwrap();
            }
        }
    }
    assert!(l.prove_inclusion(704, 703).is_err());
    assert!(l.prove_inclusion(0, 703).is_err());
    assert!(l.prove_consistency(10, 704).is_err());
    // A further append into a reopened ledger continues the same tree.
    let before = l.root().unwrap();
    drop(l);
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.root().unwrap(), before);
    let line = r#"{"type":"MatchResult","at":"2026-03-02T00:00:00Z","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}"#;
    append_ok(&mut l, line, AppendOptions::default());
    let lines = stored_lines(&l);
    assert_eq!(l.root().unwrap(), MemTree::from_leaves(lines.iter().map(|s| s.as_bytes())).root());
    assert_eq!(l.verify(None).unwrap(), l.head());
}

/// The copies a check makes in the temporary directory carry a lock while in use; a copy left by
/// a killed process (its lock free) is removed by the next check, and one in use is left alone.
#[test]
fn check_copies_left_by_killed_processes_are_removed() {
    use fs2::FileExt;
    let temp = std::env::temp_dir();
    let stamp = std::process::id();
    let abandoned = temp.join(format!("ladder-check-abandoned-{stamp}"));
    let in_use = temp.join(format!("ladder-check-in-use-{stamp}"));
    for d in [&abandoned, &in_use] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("db"), b"a copy's bytes").unwrap();
        std::fs::write(d.join("ladder-copy-lock"), b"").unwrap();
    }
    let held = std::fs::File::open(in_use.join("ladder-copy-lock")).unwrap();
    held.try_lock_exclusive().unwrap();
    // A ledger whose files changed since it was closed is checked on a copy.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 5);
    let db = path.join("db");
    std::fs::write(&db, std::fs::read(&db).unwrap()).unwrap();
    let l = Ledger::open(&path).unwrap();
    assert!(l.was_checked_on_a_copy());
    assert!(!abandoned.exists(), "the abandoned copy was removed");
    assert!(in_use.join("db").exists(), "the copy in use was kept");
    drop(held);
    std::fs::remove_dir_all(&in_use).unwrap();
}

/// A match of `i` (after `build`'s), as one JSON line.
fn one_more(i: usize) -> String {
    format!(
        "{{\"type\":\"MatchResult\",\"at\":\"2026-03-02T00:00:{:02}Z\",\"id\":\"more-{i}\",\"seats\":[{{\"player\":\"alice\",\"score\":1}},{{\"player\":\"bob\",\"score\":0}}]}}\n",
        i % 60
    )
}

/// The slot layout of the head file (`src/headfile.rs`): a closed ledger's head file is text;
/// while a writer commits it is two slots of 4,096 bytes (one page each), the newest head in the slot the
/// counter names; closing writes text again. A crash that tore the newest slot leaves the head
/// before it in the other slot: the store is one commit ahead, which opening accepts and records.
/// Both slots torn: refused as a damaged head file.
#[test]
fn the_head_file_is_slots_while_committing_and_a_torn_newest_slot_is_caught_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 5);
    let file = path.join(ladder_log::HEAD_FILE);
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("ladder ledger\nformat "));

    let mut l = Ledger::open(&path).unwrap();
    append_ok(&mut l, &one_more(1), AppendOptions::default());
    let first = l.head();
    append_ok(&mut l, &one_more(2), AppendOptions::default());
    let second = l.head();
    // As a crash would leave it: the head file of the open ledger, two commits in.
    let slots = std::fs::read(&file).unwrap();
    assert_eq!(slots.len(), 8192);
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end_matches('\0').to_string();
    // The first commit is counter 1, in slot 1; the second is counter 2, in slot 0.
    assert!(text(&slots[4096..]).contains(&format!("counter 1\nformat 4\nhead {first}\n")));
    assert!(text(&slots[..4096]).contains(&format!("counter 2\nformat 4\nhead {second}\n")));
    drop(l);
    let closed = std::fs::read_to_string(&file).unwrap();
    assert!(
        closed.starts_with("ladder ledger\nformat ")
            && closed.contains(&format!("head {second}\n"))
    );

    // The newest slot torn (its head line cut), as by a crash in the middle of its write.
    let mut torn = slots.clone();
    torn[60..4096].fill(0);
    std::fs::write(&file, &torn).unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.head(), second, "the store one commit ahead of the head file is caught up");
    drop(l);
    assert!(std::fs::read_to_string(&file).unwrap().contains(&format!("head {second}\n")));

    // Both slots torn: the head file is damaged, and the open refused.
    let mut both = slots;
    both[60..4096].fill(0);
    both[4096 + 60..].fill(0);
    std::fs::write(&file, &both).unwrap();
    let e = Ledger::open(&path).unwrap_err();
    assert!(matches!(e, LogError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("neither of its two slots is whole"), "{e}");
}

/// One slot of the slot layout, written by hand from its description in `src/headfile.rs` (the
/// text, its blake3 check line, zero bytes to 4,096): what an adversary or a crash can leave.
fn forged_slot(counter: u64, head: Head) -> Vec<u8> {
    let body = format!(
        "ladder ledger slot\ncounter {counter}\nformat {}\nhead {head}\n",
        ladder_log::LEDGER_FORMAT
    );
    let check = blake3::hash(body.as_bytes()).to_hex();
    let mut slot = format!("{body}check {check}\n").into_bytes();
    slot.resize(4096, 0);
    slot
}

/// The slot layout as an adversary and a crash leave it, against a real store (each state put
/// in place of the head file after the writer closed, as a crash would leave it):
/// - the head file as it was after the first of two commits (a crash between the second
///   commit's flush and its slot write): the store is one commit ahead, caught up;
/// - both slots whole, the newer (higher counter) naming a head the store does not hold (a
///   later seq, or another event at the stored seq): refused, every file left as it was;
/// - the file cut to one slot, or a closed ledger's text head file with two slots appended:
///   refused as a damaged head file before anything is opened, every file left as it was.
#[test]
fn slot_files_naming_a_head_the_store_lacks_or_cut_short_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    build(&path, 5);
    let file = path.join(ladder_log::HEAD_FILE);
    let mut l = Ledger::open(&path).unwrap();
    append_ok(&mut l, &one_more(1), AppendOptions::default());
    let first = l.head();
    let after_first = std::fs::read(&file).unwrap();
    append_ok(&mut l, &one_more(2), AppendOptions::default());
    let second = l.head();
    drop(l);
    let closed = std::fs::read(&file).unwrap();

    // A crash after the second commit's flush, before its slot: counter 1 (the first) only.
    assert_eq!(after_first.len(), 8192);
    assert_eq!(after_first[..4096], [0u8; 4096][..], "slot 0 is empty before counter 2");
    assert_eq!(after_first[4096..], forged_slot(1, first)[..]);
    std::fs::write(&file, &after_first).unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.head(), second, "one commit ahead of the head file: caught up");
    drop(l);

    // Both slots whole, the newer naming a head the store does not hold.
    let unknown = [
        Head { seq: second.seq + 1, hash: [7; 32] },
        Head { seq: second.seq, hash: [7; 32] },
        Head { seq: first.seq, hash: [7; 32] },
    ];
    for forged in unknown {
        // Counter 3 goes in slot 1; slot 0 keeps counter 2, the head the store holds.
        let slots = [forged_slot(2, second), forged_slot(3, forged)].concat();
        std::fs::write(&file, &slots).unwrap();
        assert_refused_untouched(&path, forged);
    }

    // Cut to one slot (either), or text with slots appended: a damaged head file.
    let slots = [forged_slot(2, second), forged_slot(1, first)].concat();
    let states = [
        slots[..4096].to_vec(),
        slots[4096..].to_vec(),
        [closed.clone(), slots.clone()].concat(),
        [slots.clone(), closed.clone()].concat(),
    ];
    for (i, state) in states.iter().enumerate() {
        std::fs::write(&file, state).unwrap();
        let before = file_bytes(&path);
        let e = Ledger::open(&path).unwrap_err();
        assert!(matches!(e, LogError::Corrupt { .. }), "state {i}: {e}");
        assert!(e.to_string().contains("head file"), "state {i}: {e}");
        assert!(file_bytes(&path) == before, "state {i}: a refused open wrote");
    }

    // The slots as the writer left them open the ledger at its head.
    std::fs::write(&file, &slots).unwrap();
    assert_eq!(Ledger::open(&path).unwrap().head(), second);
}
