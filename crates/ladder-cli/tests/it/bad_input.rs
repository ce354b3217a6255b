//! Malformed inputs: each is refused with its line and rule, and the ledger is unchanged.

use crate::support::Env;

const GOOD: &str = r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice"}
{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"bob"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"m-1","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}
"#;

fn m(at: &str, seats: &str) -> String {
    format!(r#"{{"type":"MatchResult","at":"{at}","seats":{seats}}}"#)
}

/// (name, bad lines appended after a good prefix, line of the error, rule named)
fn cases() -> Vec<(&'static str, Vec<u8>, usize, &'static str)> {
    let ab = r#"[{"player":"alice","score":1},{"player":"bob","score":0}]"#;
    let t = "2026-03-01T11:00:00Z";
    let long = "x".repeat(10 * 1024);
    let line = |s: String| s.into_bytes();
    vec![
        ("bad json", line("{\"type\":".into()), 2, "syntax"),
        ("not an object", line("[1,2,3]".into()), 2, "syntax"),
        (
            "unknown type",
            line(format!(r#"{{"type":"Resign","at":"{t}","player":"bob"}}"#)),
            2,
            "unknown-type",
        ),
        ("missing type", line(format!(r#"{{"at":"{t}","player":"bob"}}"#)), 2, "missing-field"),
        (
            "missing at",
            line(r#"{"type":"QueueTimeout","player":"bob"}"#.into()),
            2,
            "missing-field",
        ),
        (
            "unknown field",
            line(format!(r#"{{"type":"QueueTimeout","at":"{t}","plyer":"bob"}}"#)),
            2,
            "unknown-field",
        ),
        (
            "field of another type",
            line(r#"{"type":"MidnightTick","at":"2026-03-02","player":"bob"}"#.to_string()),
            2,
            "unknown-field",
        ),
        (
            "bad timestamp",
            line(r#"{"type":"QueueTimeout","at":"yesterday","player":"bob"}"#.into()),
            2,
            "timestamp",
        ),
        (
            "timestamp out of range",
            line(r#"{"type":"QueueTimeout","at":"2300-01-01","player":"bob"}"#.into()),
            2,
            "timestamp",
        ),
        ("time going backwards", line(m("2026-03-01T08:00:00Z", ab)), 2, "time-order"),
        (
            "unknown player",
            line(m(t, r#"[{"player":"alice","score":1},{"player":"zed","score":0}]"#)),
            2,
            "joined-first",
        ),
        (
            "timeout of unknown player",
            line(format!(r#"{{"type":"QueueTimeout","at":"{t}","player":"zed"}}"#)),
            2,
            "joined-first",
        ),
        (
            "self-match",
            line(m(t, r#"[{"player":"alice","score":1},{"player":"alice","score":0}]"#)),
            2,
            "seat-repeated",
        ),
        ("one seat", line(m(t, r#"[{"player":"alice","score":1}]"#)), 2, "two-seats"),
        (
            "one-sided match",
            line(m(
                t,
                r#"[{"player":"alice","score":1,"team":1},{"player":"bob","score":0,"team":1}]"#,
            )),
            2,
            "two-sides",
        ),
        (
            "NaN score",
            line(m(t, r#"[{"player":"alice","score":NaN},{"player":"bob","score":0}]"#)),
            2,
            "syntax",
        ),
        (
            "infinite score",
            line(m(t, r#"[{"player":"alice","score":1e999},{"player":"bob","score":0}]"#)),
            2,
            "syntax",
        ),
        (
            "negative seconds",
            line(m(t, r#"[{"player":"alice","score":1,"seconds":-5},{"player":"bob","score":0}]"#)),
            2,
            "seconds-positive",
        ),
        (
            "zero seconds",
            line(m(t, r#"[{"player":"alice","score":1,"seconds":0},{"player":"bob","score":0}]"#)),
            2,
            "seconds-positive",
        ),
        (
            "float team",
            line(m(t, r#"[{"player":"alice","score":1,"team":1.5},{"player":"bob","score":0}]"#)),
            2,
            "syntax",
        ),
        (
            "empty name",
            line(format!(r#"{{"type":"PlayerJoined","at":"{t}","player":""}}"#)),
            2,
            "player-name",
        ),
        (
            "10 KB name",
            line(format!(r#"{{"type":"PlayerJoined","at":"{t}","player":"{long}"}}"#)),
            2,
            "player-name",
        ),
        (
            "control character in name",
            line(format!(r#"{{"type":"PlayerJoined","at":"{t}","player":"a\tb"}}"#)),
            2,
            "player-name",
        ),
        (
            "non-UTF-8",
            b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T11:00:00Z\",\"player\":\"\xff\xfe\"}"
                .to_vec(),
            2,
            "syntax",
        ),
        (
            "duplicate join",
            line(format!(r#"{{"type":"PlayerJoined","at":"{t}","player":"bob","rating":1800}}"#)),
            2,
            "join-once",
        ),
        (
            "zero rd prior",
            line(format!(r#"{{"type":"PlayerJoined","at":"{t}","player":"carol","rd":0}}"#)),
            2,
            "prior-range",
        ),
        (
            "tick not at midnight",
            line(r#"{"type":"MidnightTick","at":"2026-03-02T00:00:01Z"}"#.into()),
            2,
            "tick-at-midnight",
        ),
        (
            "tick after an event at its instant",
            line(format!(
                "{}\n{}",
                m("2026-03-02T00:00:00Z", ab),
                r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#
            )),
            3,
            "tick-first",
        ),
        (
            "id conflict",
            line(
                m(t, r#"[{"player":"alice","score":0},{"player":"bob","score":1}]"#)
                    .replace("\"seats\"", "\"id\":\"m-1\",\"seats\""),
            ),
            2,
            "id-conflict",
        ),
        (
            "void of an unknown match",
            line(format!(r#"{{"type":"MatchVoided","at":"{t}","match":"m-9","reason":"x"}}"#)),
            2,
            "void-names-match",
        ),
        (
            "void twice",
            line(format!(
                "{0}\n{0}",
                format!(r#"{{"type":"MatchVoided","at":"{t}","match":"m-1","reason":"x"}}"#)
            )),
            3,
            "void-once",
        ),
        (
            "truncated file",
            b"{\"type\":\"QueueTimeout\",\"at\":\"2026-03-01T11:00:00Z\",\"pla".to_vec(),
            2,
            "syntax",
        ),
    ]
}

#[test]
fn every_malformed_input_is_refused_with_line_and_rule() {
    let all = cases();
    assert!(all.len() >= 25);
    let env = Env::new();
    env.ok(&["import", env.file("good.jsonl", GOOD.as_bytes()).to_str().unwrap()]);
    let before_log = env.ok(&["log", "--format", "jsonl"]);
    let before_head = env.ok(&["verify"]);
    for (name, bad, line, rule) in all {
        // Line 1 is valid and new, so a refusal must also roll it back.
        let mut input =
            br#"{"type":"PlayerJoined","at":"2026-03-01T10:30:00Z","player":"dora"}"#.to_vec();
        input.push(b'\n');
        input.extend_from_slice(&bad);
        let file = env.file("bad.jsonl", &input);
        let r = env.run(&["import", file.to_str().unwrap()], b"");
        assert_eq!(r.code, 1, "{name}: expected a refusal, got {}\n{}", r.code, r.stdout);
        let at = format!("bad.jsonl:{line}: rule {rule}:");
        assert!(r.stderr.contains(&at), "{name}: stderr does not name `{at}`:\n{}", r.stderr);
        assert!(r.stderr.contains("nothing was imported"), "{name}: {}", r.stderr);
        assert_eq!(env.ok(&["log", "--format", "jsonl"]), before_log, "{name}: the ledger changed");
        assert_eq!(env.ok(&["verify"]), before_head, "{name}");
    }
}

#[test]
fn skip_invalid_reports_each_line_and_keeps_the_rest() {
    let env = Env::new();
    env.ok(&["import", env.file("good.jsonl", GOOD.as_bytes()).to_str().unwrap()]);
    let input = format!(
        "{}\n{{\"type\":\"Nope\",\"at\":\"2026-03-02\"}}\n{}\n",
        r#"{"type":"QueueTimeout","at":"2026-03-01T11:00:00Z","player":"zed"}"#,
        r#"{"type":"QueueTimeout","at":"2026-03-01T12:00:00Z","player":"bob"}"#
    );
    let file = env.file("mixed.jsonl", input.as_bytes());
    let out = env.ok(&["import", "--skip-invalid", "--format", "json", file.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["appended"], 1);
    assert_eq!(v["skipped"], 2);
    assert!(v["skipped_lines"][0]["line"].as_str().unwrap().ends_with("mixed.jsonl:1"), "{out}");
    assert_eq!(v["skipped_lines"][0]["rule"], "joined-first");
    assert!(v["skipped_lines"][1]["line"].as_str().unwrap().ends_with("mixed.jsonl:2"), "{out}");
    assert_eq!(v["skipped_lines"][1]["rule"], "unknown-type");
}

/// The event size bound through the binary: a 1,000-seat match is accepted and every algorithm
/// replays it (before the bound, 10,000 seats made `replay --algo zonestats` allocate 4 GiB and
/// abort); 1,001 seats are refused naming rule `too-many-seats` and the line, nothing stored.
#[test]
fn a_thousand_seat_match_is_the_largest_and_every_algorithm_replays_it() {
    let e = crate::support::Env::new();
    let seats = |n: usize| -> String {
        let s: Vec<String> =
            (0..n).map(|i| format!(r#"{{"player":"p{i}","score":{}}}"#, i % 5)).collect();
        s.join(",")
    };
    let line = |n: usize, id: &str| {
        format!(
            "{{\"type\":\"MatchResult\",\"at\":\"2026-03-01T12:00:00Z\",\"id\":\"{id}\",\"seats\":[{}]}}\n",
            seats(n)
        )
    };
    let ok = e.file("ok.jsonl", line(1000, "big").as_bytes());
    e.ok(&["import", "--auto-join", ok.to_str().unwrap()]);
    let too_many = e.file("many.jsonl", line(1001, "bigger").as_bytes());
    let r = e.run(&["import", "--auto-join", too_many.to_str().unwrap()], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("too-many-seats"), "{}", r.stderr);
    assert!(r.stderr.contains("many.jsonl:1: rule too-many-seats"), "{}", r.stderr);
    for algo in ["tgr", "glicko", "glicko2", "elo", "zonestats", "performance", "weng-lin"] {
        let out = e.ok(&["replay", "--algo", algo, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["through"].as_u64(), Some(1001), "{algo}");
        assert_eq!(v["players"].as_array().map(Vec::len), Some(1000), "{algo}");
    }
}
