//! Faults through the real binary: a history whose numbers an algorithm cannot take, and a second
//! writer. Each gets a clear message and exit code 1, and the ledger is intact afterwards.

use crate::support::Env;

/// `alice` joins with a prior of 1e6 and beats `bob` (1500): TGR's PE = 1/(1 + 10^((1500 -
/// 1e6)/400)) is 1 to the last bit of an f64, so the seed's V = 1/(PE (1 - PE) ...) divides by
/// zero at event 3. Glicko-2's v is 1/0 there too. Elo has no such division: it stays finite.
const FAR_APART: &str = r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice","rating":1e6}
{"type":"PlayerJoined","at":"2026-03-01T09:05:00Z","player":"bob"}
{"type":"MatchResult","at":"2026-03-01T12:00:00Z","id":"m-1","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}
"#;

#[test]
fn replay_reports_an_arithmetic_failure_with_the_events_sequence_number() {
    let e = Env::new();
    let file = e.file("far.jsonl", FAR_APART.as_bytes());
    e.ok(&["import", file.to_str().unwrap()]);
    for algo in ["tgr", "glicko2"] {
        let r = e.run(&["replay", "--algo", algo, "--format", "json"], b"");
        assert_eq!(r.code, 1, "{algo}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{algo}: a state was printed: {}", r.stdout);
        assert!(r.stderr.starts_with("error: event 3: "), "{algo}: {}", r.stderr);
        assert!(r.stderr.contains("is not finite"), "{algo}: {}", r.stderr);
        assert!(!r.stderr.contains("NaN"), "{}", r.stderr);
        assert!(r.stderr.contains("ladder log --from 3 --limit 1"), "{algo}: {}", r.stderr);
    }
    insta::assert_snapshot!(e.run(&["replay", "--algo", "tgr"], b"").stderr, @r"
    error: event 3: V is not finite (PE rounded to exactly 1 (ratings 1000000 vs 1500), so V divides by zero)
    the algorithm cannot apply this event under these constants
    hint: `ladder log --from 3 --limit 1` shows the event; other constants may apply it (`--set help=1` lists them)
    ");
    // The same history is fine where the arithmetic allows it, and the ledger is untouched.
    let r = e.run(&["replay", "--algo", "elo", "--format", "json"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(e.ok(&["verify"]).contains("3 events, chain intact"));
}

#[test]
fn a_second_writer_is_refused_at_once_and_nothing_is_lost() {
    let e = Env::new();
    let file = e.file("far.jsonl", FAR_APART.as_bytes());
    e.ok(&["import", file.to_str().unwrap()]);
    let more = e.file(
        "more.jsonl",
        br#"{"type":"MatchResult","at":"2026-03-02T12:00:00Z","id":"m-2","seats":[{"player":"bob","score":1},{"player":"alice","score":0}]}
"#,
    );
    // This test process holds the ledger, as a running import would.
    let held = ladder_log::Ledger::open(e.ledger()).unwrap();
    let shown = e.ledger().display().to_string();
    for args in [
        vec!["import", more.to_str().unwrap()],
        vec!["append", "--at", "2026-03-02T13:00:00Z", "match", "alice", "bob", "--score", "1-0"],
        vec!["verify"],
    ] {
        let r = e.run(&args, b"");
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("the ledger {shown} is in use by another process")),
            "{args:?}: {}",
            r.stderr
        );
    }
    drop(held);
    // Once it is free: nothing was written by the refused commands, nothing was lost, and the
    // import goes through.
    assert!(e.ok(&["verify"]).contains("3 events, chain intact"));
    e.ok(&["import", more.to_str().unwrap()]);
    assert!(e.ok(&["verify"]).contains("4 events, chain intact"));
}
