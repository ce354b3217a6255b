//! The command-line habits a user expects: `--format json` on every command that prints data
//! (each output parsed here, and the commands checked against each other), errors on stderr with a
//! `hint:` of what to do next, the documented exit codes, and no colour off a terminal.

use crate::support::{fixture, run_in, Env};
use std::process::{Command, Stdio};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("not one JSON value ({e}):\n{text}"))
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines().map(json).collect()
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|p| p["player"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_command_that_prints_data_speaks_json() {
    let e = Env::new();
    let club = fixture("club.jsonl");
    let club = club.to_str().unwrap();
    let import = json(&e.ok(&["import", "--format", "json", club]));
    assert_eq!(import["appended"], 79, "fixtures/club.jsonl has 79 lines, all new");
    assert_eq!(import["duplicates"], 0);

    // append: the new event and the head it made, one past the import's.
    let late = [
        "append",
        "match",
        "alice",
        "bob",
        "--score",
        "1-0",
        "--at",
        "2026-12-31T12:00:00Z",
        "--id",
        "late",
        "--format",
        "json",
        // The date may be more than a day after the clock that runs the test.
        "--allow-future",
    ];
    let append = json(&e.ok(&late));
    assert_eq!(append["appended"], 1);
    assert_eq!(append["event"]["id"], "late");
    assert_eq!(append["event"]["seats"][0]["player"], "alice");
    let head = append["head"].as_str().unwrap().to_string();
    assert!(head.starts_with("80:"), "{head}");
    // The same append again is a duplicate, and says so in JSON too.
    let again = json(&e.ok(&late));
    assert_eq!((again["appended"].as_u64(), again["duplicates"].as_u64()), (Some(0), Some(1)));

    // verify and log agree with append on the head and the count.
    let verify = json(&e.ok(&["verify", "--format", "json"]));
    assert_eq!(verify["ok"], true);
    assert_eq!(verify["head"], head.as_str());
    let log = json_lines(&e.ok(&["log", "--format", "json"]));
    assert_eq!(log.len(), 80);
    assert_eq!(format!("{}:{}", log[79]["seq"], log[79]["hash"].as_str().unwrap()), head);

    // replay and leaderboard: the same players (every one, with the rules off), the leaderboard
    // ranked by rating.
    let replay = json(&e.ok(&["replay", "--algo", "elo", "--format", "json"]));
    let everyone = ["--min-games", "0", "--active-within", "all"];
    let board = json(
        &e.ok(&[&["leaderboard", "--algo", "elo", "--format", "json"][..], &everyone].concat()),
    );
    assert_eq!(board["through"], 80);
    let mut ranked = names(&board["ranked"]);
    assert_eq!(ranked.len(), replay["players"].as_array().unwrap().len());
    ranked.sort();
    assert_eq!(ranked, names(&replay["players"]), "the replay lists players by name");
    let ratings: Vec<f64> =
        board["ranked"].as_array().unwrap().iter().map(|r| r["rating"].as_f64().unwrap()).collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
    assert_eq!(board["left_out"]["inactive"], 0);
    assert!(board["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["last_played"].is_string() || r["games"] == 0));

    // diff of a configuration with itself: nobody moves.
    let diff = json(&e.ok(&["diff", "elo:k=20", "elo:k=20", "--format", "json"]));
    assert_eq!(diff["summary"]["rank_changed"], 0, "{diff}");
    assert_eq!(diff["summary"]["rating_changed"], 0, "{diff}");

    // explain, history, pair, sweep: each one JSON value naming what it was asked about.
    let explain = json(&e.ok(&["explain", "--algo", "elo", "--event", "80", "--format", "json"]));
    assert_eq!(explain["seq"], 80);
    // history: JSON Lines, one per event naming alice; the last is where the replay leaves her.
    let history =
        json_lines(&e.ok(&["history", "--algo", "elo", "--player", "alice", "--format", "json"]));
    assert_eq!(history[0]["type"], "PlayerJoined");
    assert_eq!(history.last().unwrap()["seq"], 80);
    let alice = replay["players"].as_array().unwrap().iter().find(|p| p["player"] == "alice");
    assert_eq!(history.last().unwrap()["rating"], alice.unwrap()["rating"]);
    let pair = json(&e.ok(&["pair", "alice", "--waiting", "bob,carol", "--format", "json"]));
    assert_eq!(names(&pair["candidates"]), ["bob", "carol"]);
    let sweep = json(&e.ok(&["sweep", "--algo", "elo", "--grid", "k=16,32", "--format", "json"]));
    assert_eq!(sweep["results"].as_array().unwrap().len(), 2);

    // perf: the Arimaa README's example, 20 wins against 1000 under p4, rounds to 1746.
    let games = "+1000\n".repeat(20);
    let perf = e.run(&["perf", "--variant", "p4", "--format", "json"], games.as_bytes());
    assert_eq!(perf.code, 0, "{}", perf.stderr);
    let perf = json(&perf.stdout);
    assert_eq!((perf["rounded"].as_i64(), perf["games"].as_u64()), (Some(1746), Some(20)));
    let rating = perf["rating"].as_f64().unwrap();
    assert_eq!((rating + 0.5).floor(), 1746.0, "rounded is the rating rounded halves up");
    // p1 with only wins has no finite rating: null, the reason, and exit 1.
    let none = e.run(&["perf", "--variant", "p1", "--format", "json"], games.as_bytes());
    assert_eq!(none.code, 1);
    let none = json(&none.stdout);
    assert!(none["rating"].is_null() && none["error"].is_string(), "{none}");
}

/// Runs the binary and returns (exit code, stderr), checking the error went to stderr alone.
fn fails(e: &Env, args: &[&str], stdin: &[u8]) -> (i32, String) {
    let r = e.run(args, stdin);
    assert!(r.stdout.is_empty(), "ladder {args:?} printed on stdout:\n{}", r.stdout);
    assert!(r.stderr.starts_with("error: "), "ladder {args:?}:\n{}", r.stderr);
    (r.code, r.stderr)
}

fn hint(stderr: &str) -> &str {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint:\n{stderr}"))
}

#[test]
fn common_mistakes_get_an_error_on_stderr_and_a_hint() {
    let e = Env::new();
    // No ledger yet: a usage error pointing at import and the demo.
    let (code, err) = fails(&e, &["replay", "--algo", "tgr"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("there is no ledger at"), "{err}");
    assert!(hint(&err).contains("ladder import") && hint(&err).contains("ladder demo"), "{err}");
    assert!(!e.ledger().exists(), "reading never creates a ledger");

    // A bad line: refused (exit 1) with file, line and rule; the hint names --skip-invalid.
    let bad = e.file(
        "bad.jsonl",
        b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"alice\"}\n{\"type\":\"PlayerJoined\",\n",
    );
    let (code, err) = fails(&e, &["import", bad.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("bad.jsonl:2: rule syntax"), "{err}");
    assert!(hint(&err).contains("--skip-invalid"), "{err}");

    // A player who never joined: the hint is --auto-join.
    let nojoin = e.file(
        "nojoin.jsonl",
        br#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}
"#,
    );
    let (code, err) = fails(&e, &["import", nojoin.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("rule joined-first"), "{err}");
    assert!(hint(&err).contains("--auto-join"), "{err}");
    e.ok(&["import", "--auto-join", nojoin.to_str().unwrap()]);

    // An unknown constant: a usage error listing the valid keys, the hint where they are explained.
    let (code, err) = fails(&e, &["replay", "--algo", "tgr", "--set", "scc=30"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("`scc`") && err.contains("sc = a number >= 0"), "{err}");
    assert!(hint(&err).contains("docs/algorithms/tgr.md"), "{err}");
    // An unknown algorithm: a usage error listing every registered one.
    let (code, err) = fails(&e, &["replay", "--algo", "trueskill"], b"");
    assert_eq!(code, 2);
    for algo in ladder_replay::registry::ALGORITHMS {
        assert!(err.contains(algo), "{algo} missing: {err}");
    }

    // A name that is not in the history.
    let (code, err) = fails(&e, &["history", "--algo", "elo", "--player", "Alice"], b"");
    assert_eq!(code, 1);
    assert!(hint(&err).contains("did you mean \"alice\"?"), "{err}");
    let (_, err) = fails(&e, &["history", "--algo", "elo", "--player", "zoe"], b"");
    assert!(hint(&err).contains("`ladder replay --algo elo` lists every player"), "{err}");

    // A file that is not there.
    let (code, err) = fails(&e, &["import", "no-such-file.jsonl"], b"");
    assert_eq!(code, 1);
    assert!(hint(&err).contains("check the path"), "{err}");

    // A directory of the user's own files as the ledger: refused for writing (exit 2), nothing
    // written there, and read as no ledger.
    let own = e.dir.path().join("own");
    std::fs::create_dir(&own).unwrap();
    std::fs::write(own.join("results.csv"), "a,b\n").unwrap();
    let r = run_in(e.dir.path(), &own, &["import", "--auto-join", nojoin.to_str().unwrap()], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("holding other files (results.csv, ...) and no ledger"),
        "{}",
        r.stderr
    );
    assert!(hint(&r.stderr).contains("a path that does not exist yet"), "{}", r.stderr);
    let r = run_in(e.dir.path(), &own, &["verify"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("there is no ledger at"), "{}", r.stderr);
    let left: Vec<_> = std::fs::read_dir(&own).unwrap().map(|x| x.unwrap().file_name()).collect();
    assert_eq!(left, ["results.csv"]);

    // An unknown flag is clap's usage error: exit 2.
    let r = e.run(&["replay", "--algo", "tgr", "--sett", "sc=1"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn a_ledger_held_by_another_process_is_named_with_a_hint() {
    let e = Env::new();
    let teams = fixture("teams.jsonl");
    e.ok(&["import", "--auto-join", teams.to_str().unwrap()]);
    // This test process holds the ledger open; the binary is another process.
    let held = ladder_log::Ledger::open(e.ledger()).unwrap();
    let (code, err) = fails(&e, &["verify"], b"");
    assert_eq!(code, 1);
    assert!(err.contains("in use by another process"), "{err}");
    assert!(hint(&err).contains("wait for the other `ladder` command"), "{err}");
    assert!(hint(&err).contains("waits up to 0.5 s"), "{err}");
    drop(held);
    e.ok(&["verify"]);
}

#[test]
fn no_colour_off_a_terminal_even_without_no_color() {
    // support::run_in sets NO_COLOR; here it is unset, and stdout and stderr are pipes.
    for args in [&["--help"][..], &["replay", "--help"], &["replay", "--sett"], &["nosuchcommand"]]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_ladder"))
            .args(args)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let all = [out.stdout, out.stderr].concat();
        assert!(!all.is_empty(), "{args:?}");
        assert!(!all.contains(&0x1b), "ANSI escape in `ladder {args:?}`");
    }
}

#[test]
fn the_import_summary_names_only_what_happened() {
    let e = Env::new();
    // Row 3 is dropped by --skip, row 4 has no loser: two joins (a, b) and one match are appended.
    let csv = e.file("g.csv", b"d;w;l\n2020-01-01;a;b\n2020-01-02;zed;b\n2020-01-03;a;\n");
    let out = e.ok(&[
        "import",
        "--auto-join",
        "--skip-invalid",
        "--skip",
        "w=^z",
        "--delimiter",
        ";",
        "--columns",
        "at=d,winner=w,loser=l",
        csv.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].starts_with("skipped ")
            && lines[0].ends_with(r#"g.csv:4: rule player-name: column "l" (loser) is empty"#),
        "{out}"
    );
    assert_eq!(
        lines[1],
        "appended 3 events, including 2 joins added by --auto-join; 1 invalid line skipped (listed above)"
    );
    assert_eq!(lines[2], "rows dropped by --skip: 1");
    assert!(lines[3].starts_with("head 3:"), "{out}");
}
