//! The folded form beside a ledger (docs/spec.md, "The folded form") is a cache: replays give the
//! same output whether it is missing, built, current, damaged, cut, claims another head or cannot
//! be written, and `verify` removes one that does not hold the chain's events.

use crate::support::{fixture, Env};

/// The outputs that read the history: replays of several algorithms, through `--until`, a
/// sweep and a leaderboard.
fn outputs(e: &Env) -> Vec<String> {
    let runs: [&[&str]; 7] = [
        &["replay", "--algo", "elo", "--format", "json"],
        &["replay", "--algo", "glicko2", "--format", "json", "--score"],
        &["replay", "--algo", "tgr", "--format", "json"],
        &["replay", "--algo", "glicko", "--format", "json", "--until", "30"],
        &["replay", "--algo", "elo", "--format", "json", "--until", "2026-03-05T00:00:00Z"],
        &["sweep", "--algo", "glicko2", "--grid", "tau=0.3,0.9", "--format", "json"],
        &["leaderboard", "--algo", "elo"],
    ];
    runs.iter().map(|args| e.ok(args)).collect()
}

fn folded(e: &Env) -> std::path::PathBuf {
    e.ledger().join(ladder_log::FOLDED_FILE)
}

/// A change made to the folded form's bytes.
type Harm = fn(&mut Vec<u8>);

#[test]
fn replays_are_the_same_whatever_state_the_folded_form_is_in() {
    let e = Env::new();
    // The club fixture: joins, matches, a void, ticks.
    e.ok(&["import", fixture("club.jsonl").to_str().unwrap()]);
    // First from the stored events: a directory where the folded form goes cannot be replaced,
    // so every replay reads the events (and leaves no temporary file).
    std::fs::create_dir_all(folded(&e).join("in-the-way")).unwrap();
    let from_events = outputs(&e);
    assert!(folded(&e).is_dir());
    std::fs::remove_dir_all(folded(&e)).unwrap();
    // Built by the first replay, then read as it is.
    assert_eq!(outputs(&e), from_events, "building the folded form");
    let good = std::fs::read(folded(&e)).unwrap();
    assert_eq!(outputs(&e), from_events, "reading the folded form");
    let harms: [(&str, Harm); 4] = [
        ("a flipped byte in its records", |b| b[120] ^= 0x08),
        ("cut short", |b| b.truncate(b.len() - 7)),
        ("another head", |b| b[20] ^= 0xff),
        ("emptied", Vec::clear),
    ];
    for (what, harm) in harms {
        let mut bytes = good.clone();
        harm(&mut bytes);
        std::fs::write(folded(&e), &bytes).unwrap();
        assert_eq!(outputs(&e), from_events, "{what}");
        assert_eq!(std::fs::read(folded(&e)).unwrap(), good, "{what}: rebuilt the same");
    }
    // verify says nothing of a folded form that matches the chain.
    let r = e.run(&["verify"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("folded"), "{}", r.stderr);
    // A folded form edited with its checksum made right is whole and bound to the head, so a
    // replay would read it: verify derives it again, finds it, and removes it. The edit turns
    // the first match (c1: bob 1, carol 0) around: its record is the short two-seat one of
    // ladder_events::folded (tag 6, the instant, players 1 and 2 in order of first appearance,
    // then the flags, 0 for scores 1 and 0), and flags 1 make it 0 and 1.
    let mut bytes = good.clone();
    let c1 = std::fs::read_to_string(fixture("club.jsonl")).unwrap();
    let c1 = c1.lines().find(|l| l.contains(r#""id":"c1""#)).unwrap();
    let c1 = ladder_events::json::parse_line(c1).unwrap();
    let mut record = vec![6u8];
    record.extend_from_slice(&c1.at.0.to_le_bytes());
    record.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 0]);
    let at = bytes[104..].windows(record.len()).position(|w| w == record).unwrap() + 104;
    bytes[at + record.len() - 1] = 1;
    let mut sum = blake3::Hasher::new();
    sum.update(&bytes[104..]);
    sum.update(&bytes[..72]);
    let sum = *sum.finalize().as_bytes();
    bytes[72..104].copy_from_slice(&sum);
    std::fs::write(folded(&e), &bytes).unwrap();
    let r = e.run(&["verify"], b"");
    assert_eq!(r.code, 0, "the ledger itself is intact: {}", r.stderr);
    assert!(r.stderr.contains("does not match the chain"), "{}", r.stderr);
    assert!(!folded(&e).exists());
    assert_eq!(outputs(&e), from_events, "after verify removed it");
}

/// Every file in the ledger directory (recursively): its name, the blake3 of its bytes, and its
/// modification and change times, to show that a command wrote nothing.
fn files(dir: &std::path::Path) -> Vec<(String, String, std::time::SystemTime, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                dirs.push(path);
            } else {
                let bytes = blake3::hash(&std::fs::read(&path).unwrap()).to_hex().to_string();
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, bytes, meta.modified().unwrap(), meta.ctime(), meta.ctime_nsec()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A replay, a leaderboard or a sweep through the head of a ledger closed cleanly, with its folded form
/// current, reads the head file and the folded form and opens nothing else (docs/spec.md, "Replays that open
/// nothing"): not a byte or a time of any file in the ledger changes, and the output is the one
/// the ledger opened gives (a replay `--until` an instant past the last event opens it, and
/// writes: sled's open and close).
#[test]
fn replays_through_the_head_of_a_sealed_ledger_write_nothing_to_it() {
    let e = Env::new();
    e.ok(&["import", fixture("club.jsonl").to_str().unwrap()]);
    // The first replay builds the folded form (and opens the ledger to do it).
    let elo = e.ok(&["replay", "--algo", "elo", "--format", "json"]);
    let before = files(&e.ledger());
    let head: serde_json::Value = serde_json::from_str(&elo).unwrap();
    let through = head["through"].to_string();
    let past = (head["through"].as_u64().unwrap() + 5).to_string();
    let runs: [&[&str]; 6] = [
        &["replay", "--algo", "elo", "--format", "json"],
        &["replay", "--algo", "glicko2", "--format", "json", "--score"],
        &["replay", "--algo", "tgr", "--format", "json", "--config", "p=0.9", "--config", "p=0.5"],
        &["leaderboard", "--algo", "elo"],
        &["sweep", "--algo", "glicko2", "--grid", "tau=0.3,0.9", "--format", "json"],
        &["sweep", "--algo", "elo", "--grid", "k=16,32", "--format", "json"],
    ];
    let sealed: Vec<String> = runs.iter().map(|args| e.ok(args)).collect();
    let elo_args = ["replay", "--algo", "elo", "--format", "json", "--until"];
    assert_eq!(e.ok(&[&elo_args[..], &[through.as_str()]].concat()), elo, "--until the head");
    assert_eq!(e.ok(&[&elo_args[..], &[past.as_str()]].concat()), elo, "--until past the head");
    assert_eq!(files(&e.ledger()), before, "a replay through the head wrote to the ledger");
    assert_eq!(sealed[0], elo);
    // The same commands with the ledger opened: an instant after every event reaches the head
    // too, and opens the ledger.
    let opened: Vec<String> = runs
        .iter()
        .map(|args| e.ok(&[&args[..], &["--until", "2100-01-01T00:00:00Z"]].concat()))
        .collect();
    assert_ne!(files(&e.ledger()), before, "opening the ledger writes: the comparison can fail");
    assert_eq!(opened, sealed);
}
