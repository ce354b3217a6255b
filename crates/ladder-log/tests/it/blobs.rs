//! sled's blob files (docs/GUARANTEES.md, promise 3): sled 0.34 writes a log message larger than
//! a quarter of its segment (512 KiB, so about 128 KiB) to a file of its own under `blobs/`, and
//! its flush syncs only its log file, never these. A ledger makes such messages: a facts chunk is
//! up to 64 KiB, and a leaf of sled's tree (up to 16 keys) holding two or more is written whole
//! when sled rewrites it. Each commit therefore syncs every blob file not yet synced, and the
//! `blobs/` directory, before the head file names the commit.

use ladder_events::json::parse_line;
use ladder_log::{AppendOptions, Ledger};

fn blob_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("blobs"))
        .map(|d| {
            d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned())).collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Joins of `n` players with long names (the facts chunks fill up quickly), `from` on.
fn joins(from: usize, n: usize) -> Vec<Result<ladder_events::Event, ladder_events::Violation>> {
    (from..from + n)
        .map(|i| {
            parse_line(&format!(
                r#"{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"player-with-a-rather-long-name-{i:08}"}}"#
            ))
        })
        .collect()
}

/// The hole is real: appends of joins alone make sled write blob files, and every one of them
/// is synced by the commit that made it (the ledger records each file it synced).
#[test]
fn appends_make_blob_files_and_every_commit_syncs_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let mut ledger = Ledger::open(&path).unwrap();
    let mut n = 0;
    for round in 0..8 {
        let size = 2_000 + round * 1_000;
        ledger.append(joins(n, size), &AppendOptions::default()).unwrap();
        n += size;
        let on_disk = blob_files(&path);
        let synced = ledger.synced_blob_files();
        for name in &on_disk {
            assert!(synced.contains(name), "round {round}: blob {name} was not synced: {synced:?}");
        }
    }
    assert!(
        !blob_files(&path).is_empty(),
        "sled wrote no blob file: the test no longer shows the hole"
    );
}
