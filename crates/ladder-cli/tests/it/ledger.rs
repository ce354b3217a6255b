//! Import, export, verify and append through the command line.

use crate::support::{fixture, Env};

fn head_of(verify_stdout: &str) -> String {
    // "ok: head SEQ:HASH (...)"
    verify_stdout.split_whitespace().nth(2).unwrap().to_string()
}

#[test]
fn export_then_import_gives_the_same_head() {
    let a = Env::new();
    for f in ["club.jsonl", "teams.jsonl", "glickman.jsonl"] {
        let a = Env::new();
        a.ok(&["import", fixture(f).to_str().unwrap()]);
        let head = head_of(&a.ok(&["verify"]));
        let export = a.ok(&["log", "--format", "jsonl"]);
        let b = Env::new();
        let r = b.run(&["import", "-"], export.as_bytes());
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(head_of(&b.ok(&["verify"])), head, "{f}");
        // --events reads the export without a ledger and rebuilds the same head.
        let file = b.file("export.jsonl", export.as_bytes());
        let c = Env::new();
        assert_eq!(head_of(&c.ok(&["verify", "--events", file.to_str().unwrap()])), head);
        assert!(!c.ledger().exists(), "--events must not create a ledger");
    }
    drop(a);
}

#[test]
fn reimport_is_idempotent_and_counts_duplicates() {
    // teams.jsonl: every match has an id; joins and the tick are duplicates by content.
    let e = Env::new();
    let teams = fixture("teams.jsonl");
    let first = e.ok(&["import", "--format", "json", teams.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(first.trim()).unwrap();
    assert_eq!(v["appended"], 12);
    let again = e.ok(&["import", "--format", "json", teams.to_str().unwrap()]);
    let v2: serde_json::Value = serde_json::from_str(again.trim()).unwrap();
    assert_eq!(v2["appended"], 0);
    assert_eq!(
        v2["duplicates"], 12,
        "ids, identical joins and ticked dates are all duplicates: {again}"
    );
    assert_eq!(v2["head"], v["head"]);
}

#[test]
fn events_without_ids_are_idempotent_too() {
    // club.jsonl line 38 is a QueueTimeout without an id, before the ledger's last instant: a
    // re-import matches it with the stored one (docs/events.md, duplicates) instead of refusing
    // it as out of time order, as it did before.
    let e = Env::new();
    let club = fixture("club.jsonl");
    e.ok(&["import", club.to_str().unwrap()]);
    let head = e.ok(&["verify"]);
    let again = e.ok(&["import", club.to_str().unwrap()]);
    assert!(again.starts_with("appended 0 events;"), "{again}");
    assert_eq!(e.ok(&["verify"]), head);
}

#[test]
fn csv_import_of_the_football_fixture() {
    let e = Env::new();
    let csv = fixture("football/results-2014-2018.csv");
    let cols = "at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score";
    let out = e.ok(&[
        "import",
        "--auto-join",
        "--format",
        "json",
        "--columns",
        cols,
        csv.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // 2,976 matches (fixtures/football/README.md) plus one join per team.
    let matches = v["appended"].as_u64().unwrap() - v["auto_joined"].as_u64().unwrap();
    assert_eq!(matches, 2976);
    // Importing again changes nothing: default ids hash the file name and row.
    let again = e.ok(&[
        "import",
        "--auto-join",
        "--format",
        "json",
        "--columns",
        cols,
        csv.to_str().unwrap(),
    ]);
    let v2: serde_json::Value = serde_json::from_str(again.trim()).unwrap();
    assert_eq!(v2["appended"], 0);
    assert_eq!(v2["head"], v["head"]);
}

#[test]
fn append_by_hand_and_refusals() {
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01T09:00:00Z", "join", "alice"]);
    e.ok(&[
        "append",
        "--at",
        "2026-03-01T09:00:00Z",
        "join",
        "bob",
        "--rating",
        "1700",
        "--rd",
        "80",
    ]);
    e.ok(&[
        "append",
        "--at",
        "2026-03-01T10:00:00Z",
        "--id",
        "m-1",
        "match",
        "alice",
        "bob",
        "--score",
        "1-0",
    ]);
    // An unknown player is refused, naming the rule, and --auto-join fixes it.
    let r = e.run(
        &["append", "--at", "2026-03-01T11:00:00Z", "match", "alice", "carol", "--score", "draw"],
        b"",
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("joined-first"), "{}", r.stderr);
    e.ok(&[
        "append",
        "--at",
        "2026-03-01T11:00:00Z",
        "match",
        "alice",
        "carol",
        "--score",
        "draw",
        "--auto-join",
    ]);
    e.ok(&["append", "--at", "2026-03-02", "tick"]);
    e.ok(&["append", "--at", "2026-03-02T10:00:00Z", "void", "m-1", "--reason", "wrong account"]);
    let log = e.ok(&["log", "--format", "jsonl"]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 7, "{log}");
    assert_eq!(
        lines[2],
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"m-1","seats":[{"player":"alice","score":1.0},{"player":"bob","score":0.0}]}"#
    );
    assert_eq!(lines[3], r#"{"type":"PlayerJoined","at":"2026-03-01T11:00:00Z","player":"carol"}"#);
    // A bad score is a usage error (exit 2), not refused input.
    let r = e.run(&["append", "match", "alice", "bob", "--score", "won"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn reading_a_missing_ledger_is_a_clear_error() {
    let e = Env::new();
    let r = e.run(&["log"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("there is no ledger at"), "{}", r.stderr);
    assert!(!e.ledger().exists());
}

#[test]
fn verify_expect_head_detects_a_cut() {
    let e = Env::new();
    let club = fixture("club.jsonl");
    e.ok(&["import", club.to_str().unwrap()]);
    let head = head_of(&e.ok(&["verify"]));
    e.ok(&["verify", "--expect-head", &head]);
    // A ledger holding only a prefix verifies alone, but not against the published head.
    let text = std::fs::read_to_string(&club).unwrap();
    let prefix: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
    let p = Env::new();
    p.run(&["import", "-"], prefix.as_bytes());
    p.ok(&["verify"]);
    let r = p.run(&["verify", "--expect-head", &head, "--format", "json"], b"");
    assert_eq!(r.code, 1, "{}", r.stdout);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["ok"], false);
    let r = p.run(&["verify", "--expect-head", &head], b"");
    assert_eq!(r.code, 1);
    assert!(r.stderr.starts_with("error: verification failed:"), "{}", r.stderr);
    assert!(
        r.stderr.contains("\nhint: the ledger was cut at its tail or rewritten"),
        "{}",
        r.stderr
    );
    let r = p.run(&["verify", "--expect-head", "12:nothex"], b"");
    assert_eq!(r.code, 2);
}

#[test]
fn sim_is_deterministic_and_imports_cleanly() {
    let e = Env::new();
    let a = e.ok(&["sim", "--players", "40", "--matches", "400", "--seed", "5"]);
    let b = e.ok(&["sim", "--players", "40", "--matches", "400", "--seed", "5"]);
    assert_eq!(a, b);
    assert_ne!(a, e.ok(&["sim", "--players", "40", "--matches", "400", "--seed", "6"]));
    assert_eq!(a.lines().filter(|l| l.contains("\"MatchResult\"")).count(), 400);
    // Written straight into the ledger, it is the same history: the same head as importing the file.
    let truth = e.dir.path().join("truth.jsonl");
    let r = e.run(
        &[
            "sim",
            "--players",
            "40",
            "--matches",
            "400",
            "--seed",
            "5",
            "--import",
            "--truth",
            truth.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let other = Env::new();
    other.run(&["import", "-"], a.as_bytes());
    assert_eq!(head_of(&e.ok(&["verify"])), head_of(&other.ok(&["verify"])));
    let players = std::fs::read_to_string(truth).unwrap().lines().count();
    assert_eq!(players, 40);
}

#[test]
fn tennis_preset_on_the_real_layout() {
    // fixtures/tennis: the first 400 rows of atp_matches_2019.csv; two are walkovers
    // (Doha R16 and Sofia QF), so 398 results are appended.
    let e = Env::new();
    let csv = fixture("tennis/atp_matches_2019_slice.csv");
    let out = e.ok(&[
        "import",
        "--auto-join",
        "--preset",
        "tennis",
        "--format",
        "json",
        csv.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["not_results"], 2);
    assert_eq!(v["appended"].as_u64().unwrap() - v["auto_joined"].as_u64().unwrap(), 398);
    // The Australian Open final (tourney_date 2019-01-14) comes after every other round of it.
    let log = e.ok(&["log", "--format", "jsonl"]);
    let ao: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("2019-01-14T00:00:00Z") && l.contains("MatchResult"))
        .collect();
    assert_eq!(ao.len(), 127);
    assert!(
        ao[126].contains(r#""player":"Novak Djokovic","score":1.0},{"player":"Rafael Nadal""#),
        "{}",
        ao[126]
    );
}

#[test]
fn demo_runs_every_step_on_the_embedded_ledger() {
    let e = Env::new();
    let out = e.ok(&["demo"]);
    for step in [
        "1. import",
        "2. verify",
        "3. history  269 teams, 650 draws, from 2014-01-01T00:00:00Z to 2018-12-15T00:00:00Z\n",
        "4. replay",
        "5. diff",
        "6. explain",
        "Next, on your own data",
    ] {
        assert!(out.contains(step), "the demo lacks {step:?}:\n{out}");
    }
    assert!(out.contains("appended 3245 events: 269 teams joined, 2976 matches"), "{out}");
    assert!(out.contains("yet with P = 0.35 lost"), "{out}");
    // A step shows a command only before what that command prints: `log` prints events, and the
    // demo's own count of the history is not its output (issue 28).
    assert!(!out.contains("$ ladder log"), "{out}");
    assert!(!e.ledger().exists(), "the demo leaves nothing behind");
}

#[test]
fn completions_and_help_for_every_command() {
    let e = Env::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = e.ok(&["completions", shell]);
        assert!(script.contains("replay") && script.contains("explain"), "{shell}");
    }
    let commands = [
        "import",
        "append",
        "log",
        "verify",
        "replay",
        "leaderboard",
        "diff",
        "explain",
        "history",
        "sweep",
        "plot",
        "pair",
        "rep",
        "perf",
        "sim",
        "demo",
        "completions",
    ];
    for c in commands {
        let help = e.ok(&[c, "--help"]);
        assert!(help.contains("Usage: ladder"), "{c}");
        assert!(help.contains("Example"), "`ladder {c} --help` has no example");
    }
}
