//! The leaf file beside the ledger (`ladder-leaves`, with `ladder-entries`): each full level-0
//! tile's leaf hashes and entry bundle, handed out only when they check against the ledger's
//! stored tree, made again after damage, never taken from another ledger, and left out of the
//! seals (deleting them is safe).

use crate::{append_ok, stored_lines};
use ladder_log::{AppendOptions, LeafFile, Ledger, ENTRIES_FILE, LEAVES_FILE};
use std::path::Path;

/// Two players joining, then `n` results between them.
fn history(tag: &str, n: usize) -> String {
    let mut text = String::new();
    for p in ["ann", "ben"] {
        text.push_str(&format!(
            "{{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T00:00:00Z\",\"player\":\"{p}\"}}\n"
        ));
    }
    for i in 0..n {
        let at = format!("2026-03-{:02}T{:02}:{:02}:00Z", 1 + i / 1440, i / 60 % 24, i % 60);
        text.push_str(&format!(
            "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"id\":\"{tag}-{i}\",\"seats\":[{{\"player\":\"ann\",\"score\":{}}},{{\"player\":\"ben\",\"score\":{}}}]}}\n",
            i % 2,
            1 - i % 2
        ));
    }
    text
}

/// The bytes of full level-0 tile `t` computed here from the stored lines: the RFC 6962 leaf
/// hash of each of its 256 events' lines, one after the other.
fn expected_tile(lines: &[String], t: usize) -> Vec<u8> {
    lines[t * 256..(t + 1) * 256]
        .iter()
        .flat_map(|l| ladder_proof::leaf_hash(l.as_bytes()))
        .collect()
}

/// The entry bundle of full level-0 tile `t` computed here from the stored lines: each line
/// after its length as two bytes, big-endian (C2SP tlog-tiles).
fn expected_bundle(lines: &[String], t: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for l in &lines[t * 256..(t + 1) * 256] {
        out.extend_from_slice(&(l.len() as u16).to_be_bytes());
        out.extend_from_slice(l.as_bytes());
    }
    out
}

fn ledger_at(dir: &Path, tag: &str, results: usize) -> Ledger {
    let mut ledger = Ledger::open(dir).unwrap();
    append_ok(&mut ledger, &history(tag, results), AppendOptions::default());
    ledger
}

/// Changes the bytes of file `name` at `at` (flips one bit).
fn flip_in(dir: &Path, name: &str, at: usize) {
    let path = dir.join(name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at] ^= 1;
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn full_tiles_are_their_leaf_hashes_and_a_damaged_slot_is_never_handed_out() {
    let dir = tempfile::tempdir().unwrap();
    // 2 joins and 1,228 results: 1,230 events, 4 full tiles and 206 leaves of a fifth.
    let ledger = ledger_at(dir.path(), "a", 1228);
    let lines = stored_lines(&ledger);
    let leaves = LeafFile::open(&ledger);
    assert!(leaves.is_kept());
    assert_eq!(leaves.tile(&ledger, 0).unwrap(), None, "nothing is kept before a fill");
    assert_eq!(leaves.fill(&ledger, 0, 2).unwrap(), 2, "at most `max` tiles");
    assert_eq!(leaves.fill(&ledger, 2, 100).unwrap(), 4, "every full tile, no partial one");
    assert_eq!(leaves.fill(&ledger, 4, 100).unwrap(), 4, "nothing more to do");
    for t in 0..4 {
        assert_eq!(leaves.tile(&ledger, t as u64).unwrap(), Some(expected_tile(&lines, t)));
        assert_eq!(leaves.bundle(&ledger, t as u64).unwrap(), Some(expected_bundle(&lines, t)));
    }
    assert_eq!(leaves.tile(&ledger, 4).unwrap(), None, "the fifth tile is not full");
    assert_eq!(leaves.bundle(&ledger, 4).unwrap(), None);
    // 8 bytes of magic, then 8,240 bytes a slot: 8,192 of hashes, 32 of checksum, 16 naming
    // the bundle.
    let slot = |t: usize| 8 + t * (8192 + 48);
    let flip = |at: usize| flip_in(dir.path(), LEAVES_FILE, at);
    assert_eq!(std::fs::metadata(dir.path().join(LEAVES_FILE)).unwrap().len(), slot(4) as u64);
    flip(slot(1) + 100); // a hash of tile 1
    flip(slot(2) + 8192 + 5); // the checksum of tile 2
    flip_in(dir.path(), ENTRIES_FILE, 8 + 32 + 10); // a byte of the first bundle
    flip(slot(3) + 8192 + 32 + 1); // where the bundle of tile 3 is
    for (t, kept) in [(0, true), (1, false), (2, false), (3, true)] {
        assert_eq!(leaves.tile(&ledger, t).unwrap().is_some(), kept, "tile {t}");
    }
    for (t, kept) in [(0, false), (1, true), (2, true), (3, false)] {
        assert_eq!(leaves.bundle(&ledger, t).unwrap().is_some(), kept, "bundle {t}");
    }
    // Cut inside tile 3: it is gone too.
    let file = std::fs::OpenOptions::new().write(true).open(dir.path().join(LEAVES_FILE)).unwrap();
    file.set_len(slot(3) as u64 + 4000).unwrap();
    assert_eq!(leaves.tile(&ledger, 3).unwrap(), None);
    // A fill from the first tile makes each again, the same bytes.
    assert_eq!(leaves.fill(&ledger, 0, 100).unwrap(), 4);
    for t in 0..4 {
        assert_eq!(leaves.tile(&ledger, t as u64).unwrap(), Some(expected_tile(&lines, t)));
        assert_eq!(leaves.bundle(&ledger, t as u64).unwrap(), Some(expected_bundle(&lines, t)));
    }
}

#[test]
fn another_ledger_s_leaf_file_is_never_handed_out() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let la = ledger_at(a.path(), "a", 600);
    LeafFile::open(&la).fill(&la, 0, 100).unwrap();
    // Ledger b has as many events, with other ids: other lines, another tree.
    let lb = ledger_at(b.path(), "b", 600);
    std::fs::copy(a.path().join(LEAVES_FILE), b.path().join(LEAVES_FILE)).unwrap();
    std::fs::copy(a.path().join(ENTRIES_FILE), b.path().join(ENTRIES_FILE)).unwrap();
    let leaves = LeafFile::open(&lb);
    for t in 0..2 {
        assert_eq!(leaves.tile(&lb, t).unwrap(), None);
        assert_eq!(leaves.bundle(&lb, t).unwrap(), None);
    }
    assert_eq!(leaves.fill(&lb, 0, 100).unwrap(), 2);
    let lines = stored_lines(&lb);
    assert_eq!(leaves.tile(&lb, 1).unwrap(), Some(expected_tile(&lines, 1)));
    assert_eq!(leaves.bundle(&lb, 1).unwrap(), Some(expected_bundle(&lines, 1)));
    // A file that is not a leaf file is started again.
    std::fs::write(b.path().join(LEAVES_FILE), b"not a leaf file at all").unwrap();
    let leaves = LeafFile::open(&lb);
    assert_eq!(leaves.tile(&lb, 0).unwrap(), None);
    assert_eq!(std::fs::metadata(b.path().join(LEAVES_FILE)).unwrap().len(), 8);
}

#[test]
fn the_leaf_file_is_left_out_of_the_seals_and_a_ledger_in_memory_keeps_none() {
    let dir = tempfile::tempdir().unwrap();
    {
        let ledger = ledger_at(dir.path(), "a", 300);
        LeafFile::open(&ledger).fill(&ledger, 0, 100).unwrap();
    }
    // Closed with the file there; reopened with it gone: opened in place, not through a copy,
    // and it takes appends.
    std::fs::remove_file(dir.path().join(LEAVES_FILE)).unwrap();
    std::fs::remove_file(dir.path().join(ENTRIES_FILE)).unwrap();
    let mut ledger = Ledger::open(dir.path()).unwrap();
    assert!(!ledger.was_checked_on_a_copy());
    append_ok(
        &mut ledger,
        "{\"type\":\"PlayerJoined\",\"at\":\"2026-04-01T00:00:00Z\",\"player\":\"cat\"}",
        AppendOptions::default(),
    );
    let memory = Ledger::memory();
    let leaves = LeafFile::open(&memory);
    assert!(!leaves.is_kept());
    assert_eq!(leaves.fill(&memory, 0, 10).unwrap(), 0);
}

#[test]
fn records_through_a_sequence_number_are_those_events() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = ledger_at(dir.path(), "a", 500);
    let all: Vec<(u64, ladder_events::Event)> =
        ledger.events(1).map(|e| e.unwrap()).map(|e| (e.seq, e.event)).collect();
    for (first, last) in [(1, 1), (1, 502), (17, 300), (256, 257), (400, 10_000)] {
        let mut got = Vec::new();
        ledger
            .read_records_through(first, last, |records| {
                got.extend(
                    records.iter().map(|r| (r.seq, ladder_events::codec::decode(r.bytes).unwrap())),
                );
                Ok::<bool, ladder_log::LogError>(true)
            })
            .unwrap();
        let want: Vec<_> =
            all.iter().filter(|(s, _)| *s >= first && *s <= last.min(502)).cloned().collect();
        assert_eq!(got, want, "{first}..={last}");
    }
    // A visitor that stops early stops the reading.
    let mut calls = 0;
    ledger
        .read_records_through(1, 502, |_| {
            calls += 1;
            Ok::<bool, ladder_log::LogError>(false)
        })
        .unwrap();
    assert_eq!(calls, 1);
}

/// Tiles written from the leaf hashes and lines an append hands out (`hand_out_leaves`,
/// `Durable::take_leaves`, `LeafFile::put_tile`) are the tiles and bundles computed here from
/// the stored lines, across appends that split a tile; an append made without it hands out
/// nothing, and a tile not yet full in the ledger is not written.
#[test]
fn tiles_put_from_an_append_s_leaves_are_the_stored_events_tiles() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::open(dir.path()).unwrap();
    let text = history("put", 700);
    let lines_in: Vec<&str> = text.lines().collect();
    // Without the option, nothing is handed out.
    let staged = ledger.stage(crate::items(&lines_in[..100].join("\n")), &Default::default());
    let mut durable = staged.unwrap().commit().unwrap();
    assert_eq!(durable.take_leaves(), None);
    ledger.publish(durable).unwrap();
    // Then three appends: 100 + 300 + 302 events, tile 0 split between the first two.
    ledger.hand_out_leaves(true);
    let mut handed = ladder_log::NewLeaves::default();
    for (from, to) in [(100, 200), (200, 500), (500, 702)] {
        let staged =
            ledger.stage(crate::items(&lines_in[from..to].join("\n")), &Default::default());
        let mut durable = staged.unwrap().commit().unwrap();
        let leaves = durable.take_leaves().expect("leaves handed out");
        assert_eq!((leaves.first(), leaves.len()), (from as u64 + 1, to - from));
        assert_eq!(durable.take_leaves(), None, "handed out once");
        ledger.publish(durable).unwrap();
        if handed.is_empty() {
            handed = leaves;
        } else {
            assert!(handed.extend(leaves));
        }
    }
    let stored = stored_lines(&ledger);
    assert_eq!(stored.len(), 702);
    let file = LeafFile::open(&ledger);
    // Tile 0 began before the handed events: not 256 of them.
    let node0 = file.tile_node(&ledger, 0).unwrap().expect("tile 0 is full");
    assert!(!file.put_tile(&node0, 0, handed.hashes(), (0..156).map(|i| handed.line(i).unwrap())));
    // Tiles 1 and 2 (events 257 to 768): tile 2 is not full (702 events), so it has no stored
    // hash to key a slot with.
    handed.drop_before(257);
    assert_eq!(handed.first(), 257);
    let tile = |h: &ladder_log::NewLeaves, t: u64| {
        let skip = (t * 256 + 1 - h.first()) as usize;
        let hashes = h.hashes()[skip..(skip + 256).min(h.len())].to_vec();
        let lines: Vec<Vec<u8>> =
            (skip..(skip + 256).min(h.len())).map(|i| h.line(i).unwrap().to_vec()).collect();
        (hashes, lines)
    };
    let (hashes, lines) = tile(&handed, 1);
    let node1 = file.tile_node(&ledger, 1).unwrap().expect("tile 1 is full");
    assert!(file.put_tile(&node1, 1, &hashes, lines.iter().map(|l| l.as_slice())));
    assert_eq!(file.tile_node(&ledger, 2).unwrap(), None);
    // Keyed with another tile's stored hash, a slot is written but never handed out.
    let (hashes, lines) = tile(&handed, 1);
    let other = tempfile::tempdir().unwrap();
    {
        let mut copy = Ledger::open(other.path()).unwrap();
        append_ok(&mut copy, &text, AppendOptions::default());
        let wrong = LeafFile::open(&copy);
        assert!(wrong.put_tile(&node0, 1, &hashes, lines.iter().map(|l| l.as_slice())));
        assert_eq!(wrong.tile(&copy, 1).unwrap(), None);
        assert_eq!(wrong.bundle(&copy, 1).unwrap(), None);
    }
    assert_eq!(file.tile(&ledger, 1).unwrap(), Some(expected_tile(&stored, 1)));
    assert_eq!(file.bundle(&ledger, 1).unwrap(), Some(expected_bundle(&stored, 1)));
    // Tile 0, never put, is not handed out until filled from the events.
    assert_eq!(file.tile(&ledger, 0).unwrap(), None);
    assert_eq!(file.fill(&ledger, 0, 8).unwrap(), 2);
    assert_eq!(file.tile(&ledger, 0).unwrap(), Some(expected_tile(&stored, 0)));
    // Handed lines are the stored lines.
    handed.drop_before(600);
    assert_eq!(handed.line(0).unwrap(), stored[599].as_bytes());
    handed.drop_before(10_000);
    assert!(handed.is_empty());
}
