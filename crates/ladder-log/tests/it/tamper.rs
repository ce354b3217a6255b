//! Tamper evidence: changes made directly in sled, bypassing the API, are caught by verify and
//! named by their first bad sequence number.
//!
//! The helpers here read and write the block format documented in `src/block.rs`: a format byte,
//! a u32 LE count, the previous chain hash, then records of (u32 LE len, 32-byte hash, bytes).

use crate::{append_ok, events};
use ladder_events::json::to_line;
use ladder_log::{AppendOptions, Head, Ledger, LogError, Tree, VerifyError, META_HEAD};
use std::path::Path;

struct Record {
    hash: [u8; 32],
    bytes: Vec<u8>,
}

struct RawBlock {
    first: u64,
    prev: [u8; 32],
    records: Vec<Record>,
}

fn parse(key: &[u8], v: &[u8]) -> RawBlock {
    let first = u64::from_be_bytes(key.try_into().unwrap());
    let count = u32::from_le_bytes(v[1..5].try_into().unwrap());
    let prev: [u8; 32] = v[5..37].try_into().unwrap();
    let mut rest = &v[37..];
    let mut records = Vec::new();
    for _ in 0..count {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        let hash = rest[4..36].try_into().unwrap();
        records.push(Record { hash, bytes: rest[36..36 + len].to_vec() });
        rest = &rest[36 + len..];
    }
    assert!(rest.is_empty());
    RawBlock { first, prev, records }
}

fn unparse(b: &RawBlock) -> Vec<u8> {
    let mut out = vec![1];
    out.extend_from_slice(&(b.records.len() as u32).to_le_bytes());
    out.extend_from_slice(&b.prev);
    for r in &b.records {
        out.extend_from_slice(&(r.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&r.hash);
        out.extend_from_slice(&r.bytes);
    }
    out
}

/// Runs `edit` on every stored block (in key order) directly in sled, writing back what it returns.
fn tamper(path: &Path, mut edit: impl FnMut(&mut RawBlock) -> bool) {
    let db = crate::raw_sled(path);
    let tree = db.open_tree("events").unwrap();
    for kv in tree.iter() {
        let (k, v) = kv.unwrap();
        let mut b = parse(&k, &v);
        if edit(&mut b) {
            tree.insert(k, unparse(&b)).unwrap();
        }
    }
    db.flush().unwrap();
}

const N: usize = 5_000;

/// A ledger of `N` events spread over two blocks; returns its head and the stored lines.
fn build(path: &Path) -> (Head, Vec<String>) {
    let mut text = String::new();
    for p in ["alice", "bob", "carol"] {
        text.push_str(&format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01T00:00:01Z","player":"{p}"}}"#
        ));
        text.push('\n');
    }
    for i in 3..N {
        let (a, b) = [("alice", "bob"), ("bob", "carol"), ("carol", "alice")][i % 3];
        text.push_str(&format!(
            r#"{{"type":"MatchResult","at":"2026-03-01T{:02}:{:02}:{:02}Z","id":"m-{i}","seats":[{{"player":"{a}","score":1}},{{"player":"{b}","score":0}}]}}"#,
            1 + i / 3600, i / 60 % 60, i % 60
        ));
        text.push('\n');
    }
    let mut l = Ledger::open(path).unwrap();
    append_ok(&mut l, &text, AppendOptions::default());
    let head = l.verify(None).unwrap();
    assert_eq!(head.seq, N as u64);
    (head, events(&text).iter().map(to_line).collect())
}

fn broken_at(path: &Path) -> u64 {
    let l = Ledger::open(path).unwrap();
    match l.verify(None) {
        Err(VerifyError::Broken { seq, reason }) => {
            assert!(!reason.is_empty());
            seq
        }
        other => panic!("expected a broken chain, got {other:?}"),
    }
}

#[test]
fn a_rewritten_event_is_named() {
    for target in [1u64, 17, 4096, 4097, N as u64] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger");
        build(&path);
        tamper(&path, |b| {
            let Some(r) = target.checked_sub(b.first).and_then(|i| b.records.get_mut(i as usize))
            else {
                return false;
            };
            // "alice" becomes "alicf": still a valid event, only the chain knows.
            let at =
                r.bytes.windows(5).position(|w| w == b"alice" || w == b"carol" || w == b"bob\0\0");
            let at = at.unwrap_or(r.bytes.len() - 1);
            r.bytes[at + 4] ^= 1;
            true
        });
        assert_eq!(broken_at(&path), target, "rewrite of seq {target}");
    }
}

#[test]
fn a_deleted_event_is_named() {
    // From inside a block: the records after it no longer chain.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    tamper(&path, |b| {
        if b.first == 1 {
            assert!(b.records.len() > 50, "the first block holds more than 50 events");
            b.records.remove(49);
            true
        } else {
            false
        }
    });
    assert_eq!(broken_at(&path), 50);
    // A whole block: a gap.
    let (_dir, path) = without_block(0);
    assert_eq!(broken_at(&path), 1);
}

/// A ledger built by [`build`] in a temporary directory, with its `i`-th stored block removed
/// directly in sled.
fn without_block(i: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    let db = crate::raw_sled(&path);
    let tree = db.open_tree("events").unwrap();
    let keys: Vec<_> = tree.iter().keys().map(|k| k.unwrap()).collect();
    assert!(keys.len() > i + 1, "the ledger spans several blocks");
    tree.remove(&keys[i]).unwrap();
    db.flush().unwrap();
    drop((tree, db));
    (dir, path)
}

#[test]
fn swapped_events_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    tamper(&path, |b| {
        if b.first == 1 {
            b.records.swap(41, 42);
            true
        } else {
            false
        }
    });
    assert_eq!(broken_at(&path), 42);
}

#[test]
fn a_consistent_cut_at_the_tail_is_caught_only_with_the_expected_head() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let (head, lines) = build(&path);
    // Cut the last 10 events and rewrite the head record to match: a self-consistent shorter chain.
    let mut cut_hash = [0; 32];
    tamper(&path, |b| {
        let last = b.first + b.records.len() as u64 - 1;
        if last != N as u64 {
            return false;
        }
        b.records.truncate(b.records.len() - 10);
        cut_hash = b.records.last().unwrap().hash;
        true
    });
    {
        let db = crate::raw_sled(&path);
        let mut h = ((N - 10) as u64).to_be_bytes().to_vec();
        h.extend_from_slice(&cut_hash);
        db.open_tree(Tree::Meta.name()).unwrap().insert(META_HEAD, h).unwrap();
        db.flush().unwrap();
    }
    // The head file still records the acknowledged head: the cut is refused at open, and the
    // files are left as they were.
    match Ledger::open(&path) {
        Err(LogError::Damaged { expected, found, .. }) => {
            assert_eq!(expected, head);
            assert!(found.contains(&format!("{}:", N - 10)), "{found}");
        }
        other => panic!("expected Damaged, got {other:?}"),
    }
    // A tamperer who rewrites the head file too gets a self-consistent shorter ledger: only a
    // published head catches that.
    crate::forge_head_file(&path, Head { seq: (N - 10) as u64, hash: cut_hash });
    let l = Ledger::open(&path).unwrap();
    let short = l.verify(None).unwrap();
    assert_eq!(short, Head { seq: (N - 10) as u64, hash: cut_hash });
    match l.verify(Some(head)) {
        Err(VerifyError::HeadMissing { expected, actual }) => {
            assert_eq!((expected, actual), (head, short))
        }
        other => panic!("expected HeadMissing, got {other:?}"),
    }
    // An earlier head the ledger still holds verifies; a wrong hash at a held seq does not.
    let l_lines: Vec<String> = l.events(1).map(|e| to_line(&e.unwrap().event)).collect();
    assert_eq!(l_lines[..], lines[..N - 10]);
    let at_100 = l.get(100).unwrap().unwrap();
    assert_eq!(l.verify(Some(Head { seq: 100, hash: at_100.hash })).unwrap(), short);
    assert!(matches!(
        l.verify(Some(Head { seq: 100, hash: [7; 32] })),
        Err(VerifyError::HeadMissing { .. })
    ));
    // Cutting blocks without the head record is refused at open: the recorded head is gone.
    drop(l);
    tamper(&path, |b| {
        let keep = 3_001u64.saturating_sub(b.first) as usize;
        b.records.truncate(keep);
        true
    });
    assert!(matches!(Ledger::open(&path), Err(LogError::Damaged { .. })));
}

#[test]
fn corrupt_block_bytes_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    let last_of_first;
    {
        let db = crate::raw_sled(&path);
        let tree = db.open_tree("events").unwrap();
        let (k, v) = tree.iter().next().unwrap().unwrap();
        last_of_first = parse(&k, &v).records.len() as u64;
        tree.insert(k, &v[..v.len() / 2]).unwrap();
        db.flush().unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert!(matches!(l.verify(None), Err(VerifyError::Broken { .. })));
    let errors = l.events(1).filter(|e| e.is_err()).count();
    assert_eq!(errors, 1, "iteration reports the corruption once and stops");
    assert!(l.get(10).unwrap().is_some(), "the intact start of the block still reads");
    assert!(l.get(last_of_first).is_err(), "the cut end of the first block is an error");
}

/// Bytes that do not decode, under a chain (and head) recomputed over them, are found by decoding
/// alone, which verify does on a second thread: the seq is still the first bad one, and a broken
/// hash at an earlier seq, or at the same seq, is what is reported instead.
#[test]
fn undecodable_bytes_under_a_recomputed_chain_are_named() {
    let last = N as u64;
    for earlier in [None, Some(17u64), Some(last)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger");
        build(&path);
        let mut new_head = None;
        tamper(&path, |b| {
            let mut changed = false;
            let mut prev = b.prev;
            for (i, r) in b.records.iter_mut().enumerate() {
                let seq = b.first + i as u64;
                if seq == last {
                    // Format byte 0xff: no codec reads it.
                    r.bytes = vec![0xff, 1, 2];
                    r.hash = ladder_log::chain_hash(&prev, &r.bytes);
                    new_head = Some(r.hash);
                    changed = true;
                }
                if Some(seq) == earlier {
                    r.bytes[0] ^= 1;
                    changed = true;
                }
                prev = r.hash;
            }
            changed
        });
        let db = crate::raw_sled(&path);
        let mut head = last.to_be_bytes().to_vec();
        head.extend_from_slice(&new_head.unwrap());
        db.open_tree(Tree::Meta.name()).unwrap().insert(META_HEAD, head).unwrap();
        db.flush().unwrap();
        drop(db);
        crate::forge_head_file(&path, Head { seq: last, hash: new_head.unwrap() });
        let l = Ledger::open(&path).unwrap();
        match (l.verify(None), earlier) {
            (Err(VerifyError::Broken { seq, reason }), None) => {
                assert_eq!(seq, last);
                assert!(reason.contains("do not decode"), "{reason}");
            }
            (Err(VerifyError::Broken { seq, reason }), Some(at)) => {
                // Its codec format byte flipped: it no longer decodes, so it has no JSON line.
                assert_eq!(seq, at);
                assert!(reason.contains("do not decode"), "{reason}");
            }
            (other, _) => panic!("expected a broken chain, got {other:?}"),
        }
    }
}

/// (seq, hash, previous hash, bytes) of every record `read_records` lends from `from`, with the
/// runs it lent them in, and how it ended.
type Lent = (Vec<(u64, [u8; 32], [u8; 32], Vec<u8>)>, Vec<Vec<u64>>, Result<(), String>);

fn lend(ledger: &Ledger, from: u64) -> Lent {
    let (mut records, mut runs) = (Vec::new(), Vec::new());
    let end = ledger.read_records(from, |run| {
        runs.push(run.iter().map(|r| r.seq).collect());
        records.extend(run.iter().map(|r| (r.seq, *r.hash, r.prev_hash, r.bytes.to_vec())));
        Ok::<bool, ladder_log::LogError>(true)
    });
    (records, runs, end.map_err(|e| e.to_string()))
}

/// What `events` yields from `from`, as `lend` reports it.
fn iterate(ledger: &Ledger, from: u64) -> Lent {
    let mut records = Vec::new();
    for item in ledger.events(from) {
        match item {
            Ok(e) => records.push((e.seq, e.hash, e.prev_hash, e.bytes)),
            Err(e) => return (records, Vec::new(), Err(e.to_string())),
        }
    }
    (records, Vec::new(), Ok(()))
}

#[test]
fn read_records_lends_what_events_yields_a_block_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    let l = Ledger::open(&path).unwrap();
    for from in [0, 1, 2, 41, 42, 43, 1000, N as u64 - 1, N as u64, N as u64 + 1] {
        let (lent, runs, end) = lend(&l, from);
        let (want, _, want_end) = iterate(&l, from);
        assert_eq!(lent, want, "from {from}");
        assert_eq!((end, want_end), (Ok(()), Ok(())));
        // Runs are consecutive sequence numbers, never empty, and more than one block's worth
        // comes in more than one run.
        assert!(runs.iter().all(|r| !r.is_empty() && r.windows(2).all(|w| w[1] == w[0] + 1)));
        if lent.len() > 200 {
            assert!(runs.len() > 1, "from {from}: {} records in one run", lent.len());
        }
    }
    // Stopping early: one run, then nothing more is read.
    let mut calls = 0;
    l.read_records(1, |_| {
        calls += 1;
        Ok::<bool, ladder_log::LogError>(false)
    })
    .unwrap();
    assert_eq!(calls, 1);
}

#[test]
fn read_records_reports_a_damaged_block_after_the_records_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    build(&path);
    // Cut the second block's last 10 bytes: its last record no longer fits.
    let db = crate::raw_sled(&path);
    let tree = db.open_tree("events").unwrap();
    let (k, v) = tree.iter().nth(1).unwrap().unwrap();
    tree.insert(&k, &v[..v.len() - 10]).unwrap();
    db.flush().unwrap();
    drop((tree, db));
    let l = Ledger::open(&path).unwrap();
    let (lent, _, end) = lend(&l, 1);
    let (want, _, want_end) = iterate(&l, 1);
    assert!(want_end.is_err() && !want.is_empty());
    assert_eq!(lent, want, "the same records before the damage");
    assert_eq!(end, want_end, "the same error");
}

#[test]
fn read_records_reports_a_missing_block_as_events_does() {
    let (_dir, path) = without_block(1);
    let l = Ledger::open(&path).unwrap();
    for from in [1, 3] {
        let (lent, _, end) = lend(&l, from);
        let (want, _, want_end) = iterate(&l, from);
        assert!(want_end.is_err());
        assert_eq!((lent, end), (want, want_end), "from {from}");
    }
}

/// Damage in the middle of a ledger that opening does not read (the head is intact) is found
/// before any write: an append through a ledger whose files changed since it was closed runs a
/// whole verify first, and refuses, naming `ladder verify`; the ledger is left unsealed, so it
/// keeps refusing on every later open, and verify names the same first bad event every time.
/// (The fault campaign found appends extending the chain of such a ledger.)
#[test]
fn a_damaged_ledger_refuses_writes_naming_verify_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let (head, _) = build(&path);
    tamper(&path, |b| {
        let Some(r) = 1280u64.checked_sub(b.first).and_then(|i| b.records.get_mut(i as usize))
        else {
            return false;
        };
        let at = r.bytes.windows(5).position(|w| w == b"alice" || w == b"carol" || w == b"bob\0\0");
        let at = at.unwrap_or(r.bytes.len() - 1);
        r.bytes[at + 4] ^= 1;
        true
    });
    let one = events(
        r#"{"type":"MatchResult","at":"2026-03-02T00:00:00Z","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}"#,
    );
    for _ in 0..3 {
        let mut l = Ledger::open(&path).unwrap();
        assert_eq!(l.head(), head, "the open reads only the head");
        let e = l.append(one.iter().cloned().map(Ok), &AppendOptions::default()).unwrap_err();
        assert!(matches!(e, ladder_log::AppendError::Storage(LogError::Unverified { .. })), "{e}");
        assert!(e.to_string().contains("ladder verify"), "{e}");
        assert!(e.to_string().contains("seq 1280"), "{e}");
        assert_eq!(l.head(), head, "nothing was appended");
        drop(l);
        assert_eq!(broken_at(&path), 1280);
    }
    // A reader (what `verify`, `log` and `replay` open) reads a copy of such a ledger: every run
    // finds the same first bad event, and the ledger's files are never written.
    let files = |dir: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|f| f.unwrap().path())
            .filter(|p| p.is_file() && !p.ends_with(ladder_log::LOCK_FILE))
            .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = files(&path);
    for _ in 0..3 {
        let l = Ledger::open_existing(&path).unwrap();
        assert!(l.was_checked_on_a_copy());
        match l.verify(None) {
            Err(VerifyError::Broken { seq, .. }) => assert_eq!(seq, 1280),
            other => panic!("expected a broken chain, got {other:?}"),
        }
        drop(l);
        assert!(files(&path) == before, "a reader wrote to the damaged ledger");
    }
    // An intact ledger opened through a copy (its files rewritten with the same bytes) is
    // verified once by its first append, which then goes through, and is sealed again on close.
    let other = dir.path().join("intact");
    let (head, _) = build(&other);
    let db = other.join("db");
    std::fs::write(&db, std::fs::read(&db).unwrap()).unwrap();
    let mut l = Ledger::open(&other).unwrap();
    assert!(l.was_checked_on_a_copy());
    append_ok(&mut l, &to_line(&one[0]), AppendOptions::default());
    assert_eq!(l.head().seq, head.seq + 1);
    drop(l);
    assert!(!Ledger::open(&other).unwrap().was_checked_on_a_copy());
    // A reader's verify of such a ledger, on its copy, seals it too.
    std::fs::write(&db, std::fs::read(&db).unwrap()).unwrap();
    let l = Ledger::open_existing(&other).unwrap();
    assert!(l.was_checked_on_a_copy());
    assert_eq!(l.verify(None).unwrap().seq, head.seq + 1);
    drop(l);
    assert!(!Ledger::open_existing(&other).unwrap().was_checked_on_a_copy());
}
