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
    let at = bytes[96..].windows(record.len()).position(|w| w == record).unwrap() + 96;
    bytes[at + record.len() - 1] = 1;
    let mut sum = blake3::Hasher::new();
    sum.update(&bytes[96..]);
    sum.update(&bytes[..64]);
    let sum = *sum.finalize().as_bytes();
    bytes[64..96].copy_from_slice(&sum);
    std::fs::write(folded(&e), &bytes).unwrap();
    let r = e.run(&["verify"], b"");
    assert_eq!(r.code, 0, "the ledger itself is intact: {}", r.stderr);
    assert!(r.stderr.contains("does not match the chain"), "{}", r.stderr);
    assert!(!folded(&e).exists());
    assert_eq!(outputs(&e), from_events, "after verify removed it");
}
