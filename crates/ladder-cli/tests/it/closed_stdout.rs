//! A closed standard output (`ladder log | head`, `ladder append ... | true`) ends every command
//! quietly with exit 0, never a panic (exit 101), and what the command did before printing
//! (storing an event) stands. docs/outputs.md promises it.

use crate::support::{fixture, Env};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `ladder --ledger <env's ledger> ARGS` with `stdin` and a standard output whose reading
/// end is closed before the process starts, so its first write fails with a broken pipe.
fn run_closed(e: &Env, args: &[&str], stdin: &[u8]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ladder"))
        .current_dir(e.dir.path())
        .arg("--ledger")
        .arg(e.ledger())
        .args(args)
        .env_remove("LADDER_LEDGER")
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may finish before reading its input.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn every_command_that_prints_exits_0_quietly_on_a_closed_stdout() {
    let e = Env::new();
    let club = fixture("club.jsonl");
    let club = club.to_str().unwrap();
    // The import itself prints its report into the closed pipe; the ledger still holds it.
    let (code, stderr) = run_closed(&e, &["import", club], b"");
    assert_eq!((code, stderr.as_str()), (0, ""), "import");
    let log = e.ok(&["log", "--format", "jsonl"]);
    assert_eq!(
        log.lines().count(),
        std::fs::read_to_string(fixture("club.jsonl")).unwrap().lines().count()
    );

    let lines = e.ok(&["rep", "+1000", "1", "=1200", "1", "-1500", "1"]);
    let bash = "bash";
    let commands: Vec<(Vec<&str>, &[u8])> = vec![
        (vec!["log"], b""),
        (vec!["log", "--format", "jsonl"], b""),
        (vec!["verify"], b""),
        (vec!["verify", "--format", "json"], b""),
        (vec!["replay", "--algo", "glicko2"], b""),
        (vec!["replay", "--algo", "elo", "--format", "json"], b""),
        (vec!["leaderboard", "--algo", "tgr"], b""),
        (vec!["sweep", "--algo", "elo", "--grid", "k=16,32"], b""),
        (vec!["diff", "elo:k=10", "elo:k=40"], b""),
        (vec!["explain", "--algo", "elo", "--event", "12"], b""),
        (vec!["history", "--algo", "elo", "--player", "alice"], b""),
        (vec!["pair", "alice", "--waiting", "bob,carol"], b""),
        (vec!["plot", "--algo", "glicko2", "--player", "alice"], b""),
        (vec!["rep", "+1000", "20"], b""),
        (vec!["perf", "--variant", "p1"], lines.as_bytes()),
        (vec!["sim", "--players", "40", "--matches", "400", "--seed", "5"], b""),
        (vec!["completions", bash], b""),
        (vec!["demo"], b""),
        (vec!["--help"], b""),
        (vec!["log", "--help"], b""),
        (vec!["--version"], b""),
        (vec!["prove", "--event", "12"], b""),
        (vec!["prove", "--from", "3", "--to", "12", "--format", "json"], b""),
        (vec!["checkpoint", "--origin", "example.org/club"], b""),
        (vec!["upgrade"], b""),
    ];
    for (args, stdin) in commands {
        let (code, stderr) = run_closed(&e, &args, stdin);
        assert_eq!(code, 0, "ladder {args:?} on a closed stdout: {stderr}");
        assert_eq!(stderr, "", "ladder {args:?} on a closed stdout is quiet");
    }
}

#[test]
fn an_append_into_a_closed_stdout_is_stored_and_exits_0() {
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01T09:00:00Z", "join", "alice"]);
    e.ok(&["append", "--at", "2026-03-01T09:00:00Z", "join", "bob"]);
    let (code, stderr) =
        run_closed(&e, &["append", "match", "alice", "bob", "--score", "1-0"], b"");
    assert_eq!((code, stderr.as_str()), (0, ""));
    let log = e.ok(&["log", "--format", "jsonl"]);
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(log.lines().last().unwrap().contains(r#""type":"MatchResult""#), "{log}");
    // The JSON report, the same.
    let (code, stderr) = run_closed(
        &e,
        &["append", "--format", "json", "match", "bob", "alice", "--score", "1-0"],
        b"",
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(e.ok(&["log", "--format", "jsonl"]).lines().count(), 4);
}

#[test]
fn a_failed_verification_keeps_exit_1_on_a_closed_stdout() {
    // Nothing to verify against: an expected head the ledger does not hold fails with exit 1,
    // whether or not the report can be written.
    let e = Env::new();
    e.ok(&["append", "--at", "2026-03-01T09:00:00Z", "join", "alice"]);
    let head = format!("9:{}", "0".repeat(64));
    let (code, _) = run_closed(&e, &["verify", "--format", "json", "--expect-head", &head], b"");
    assert_eq!(code, 1);
}
