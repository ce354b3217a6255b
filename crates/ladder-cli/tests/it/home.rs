//! Home advantage end to end on the shipped international results (fixtures/football): CSV
//! `--home a` with `neutral=COLUMN`, the canonical lines, `--score`, `explain` and `tune`.

use crate::support::{fixture, Env};

const COLUMNS: &str = "at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

fn football() -> Env {
    let e = Env::new();
    let csv = fixture("football/results-2014-2018.csv");
    let columns = format!("{COLUMNS},neutral=neutral");
    e.ok(&["import", "--auto-join", "--home", "a", "--columns", &columns, csv.to_str().unwrap()]);
    e
}

#[test]
fn csv_home_and_neutral_become_home_seats_that_export_and_import_unchanged() {
    let e = football();
    let lines = e.ok(&["log", "--format", "jsonl"]);
    let text = std::fs::read_to_string(fixture("football/results-2014-2018.csv")).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let neutral = rows.iter().filter(|r| r.ends_with(",TRUE")).count();
    assert!(neutral > 0 && neutral < rows.len());
    let matches: Vec<&str> = lines.lines().filter(|l| l.contains("MatchResult")).collect();
    assert_eq!(matches.len(), rows.len());
    let homes = matches.iter().filter(|l| l.contains(r#""home":true"#)).count();
    assert_eq!(homes, rows.len() - neutral);
    // The first row (Kuwait v Jordan in Doha) is neutral; the home seat is always the first.
    assert!(!matches[0].contains("home"), "{}", matches[0]);
    let home_line = matches.iter().find(|l| l.contains("home")).unwrap();
    let first_seat_end = home_line.find("},{").unwrap();
    assert!(home_line[..first_seat_end].ends_with(r#""home":true"#), "{home_line}");

    // Export, import into a fresh ledger: the same head (the leaf bytes are the lines).
    let head = e.ok(&["verify"]);
    let f = Env::new();
    f.run(&["import", "-"], lines.as_bytes());
    assert_eq!(f.ok(&["verify"]), head);
}

#[test]
fn home_improves_elos_predictions_and_explain_shows_the_term() {
    let e = football();
    let loss = |home: &str| {
        let v = json(&e.ok(&[
            "replay",
            "--algo",
            "elo",
            "--set",
            &format!("home={home}"),
            "--score",
            "--format",
            "json",
        ]));
        v["prediction"]["log_loss"].as_f64().unwrap()
    };
    let (neutral, home) = (loss("0"), loss("80"));
    assert!(home < neutral - 0.01, "home=80 {home} against home=0 {neutral}");
    // `home=0` is the replay from before the constant existed: it is not echoed.
    let plain = e.ok(&["replay", "--algo", "elo", "--format", "json"]);
    assert!(!plain.contains("\"home\""), "{plain}");
    let set = e.ok(&["replay", "--algo", "elo", "--set", "home=80", "--format", "json"]);
    assert!(set.contains(r#""initial_rating":1500.0,"home":80.0}"#), "{set}");

    // Explain the first match with a home seat.
    let lines = e.ok(&["log", "--format", "jsonl"]);
    let seq = lines.lines().position(|l| l.contains(r#""home":true"#)).unwrap() + 1;
    let out = e.ok(&["explain", "--event", &seq.to_string(), "--algo", "elo", "--set", "home=80"]);
    assert!(out.contains("h              = 80.0000000000"), "{out}");
    assert!(out.contains("h_j            = 0.0000000000"), "{out}");
    assert!(out.contains("1 / (1 + 10^((r_j + h_j - r - h) / 400))"), "{out}");
}

#[test]
fn tune_searches_home_and_warns_by_its_own_numbers() {
    let e = football();
    for algo in ["elo", "glicko2"] {
        let r = e.run(&["tune", "--algo", algo, "--format", "json"], b"");
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v = json(&r.stdout);
        let searched: Vec<&str> =
            v["searched"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        for key in ["home", "revert", "revert_after"] {
            assert!(searched.contains(&key), "{algo}: {searched:?}");
        }
        assert_eq!(searched.contains(&"margin"), algo == "elo", "{searched:?}");
        let warnings: Vec<&str> =
            v["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
        // Every warning is on stderr too.
        for w in &warnings {
            assert!(r.stderr.contains(&format!("warning: {w}")), "{}", r.stderr);
        }
        let held = &v["held_out"];
        let worse = held["best"]["log_loss"].as_f64() > held["defaults"]["log_loss"].as_f64();
        assert_eq!(worse, warnings.iter().any(|w| w.contains("do worse than the defaults")));
        let (best, defaults) = (
            v["leaderboard"]["best"].as_u64().unwrap(),
            v["leaderboard"]["defaults"].as_u64().unwrap(),
        );
        assert_eq!(
            best * 2 < defaults,
            warnings.iter().any(|w| w.contains("players on the default leaderboard")),
            "{v}"
        );
    }
    // Without home seats, home is not searched.
    let f = Env::new();
    f.ok(&[
        "import",
        "--auto-join",
        "--columns",
        COLUMNS,
        fixture("football/results-2014-2018.csv").to_str().unwrap(),
    ]);
    let v = json(&f.ok(&["tune", "--algo", "elo", "--format", "json"]));
    assert!(!v["searched"].as_array().unwrap().iter().any(|k| k == "home"), "{v}");
}

#[test]
fn home_options_that_cannot_apply_are_usage_errors() {
    let e = Env::new();
    let csv = e.file("r.csv", b"date,h,a,w\n2020-01-01,x,y,x\n");
    let csv = csv.to_str().unwrap();
    for (args, says) in [
        (vec!["--home", "c", "--columns", "at=date,a=h,b=a,score_a=w"], "`a` or `b`"),
        (vec!["--home", "a", "--columns", "at=date,winner=h,loser=a"], "instead of `winner`"),
        (vec!["--columns", "at=date,a=h,b=a,score_a=w,neutral=w"], "give --home"),
        (vec!["--home", "a", "--preset", "tennis"], "no home seat"),
    ] {
        let mut all = vec!["import"];
        all.extend(args);
        all.push(csv);
        let r = e.run(&all, b"");
        assert_eq!(r.code, 2, "{all:?}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{all:?}: {}", r.stderr);
    }
    // A match with home seats on two sides is refused by rule, naming both seats.
    let line = r#"{"type":"MatchResult","at":"2026-03-01T00:00:00Z","seats":[{"player":"a","score":1,"home":true},{"player":"b","score":0,"home":true}]}"#;
    let r = e.run(&["import", "--auto-join", "-"], line.as_bytes());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("rule home-one-side") && r.stderr.contains("seats[1].home"),
        "{}",
        r.stderr
    );
}

/// TGR at its defaults on four years of tour-level tennis (fixtures/tennis): every regular is
/// provisional, because RD grows by sc^2 = 400 in RD^2 every day without a battle and players
/// meet every few days at best. The warning says so and gives the command that lists some, and
/// that command does.
#[test]
fn an_empty_tgr_leaderboard_explains_its_cause_and_the_command_that_fixes_it() {
    let e = Env::new();
    let csv = fixture("tennis/atp_2006_2009_majors.csv");
    e.ok(&[
        "import",
        "--auto-join",
        "--columns",
        "at=date,winner=winner,loser=loser",
        csv.to_str().unwrap(),
    ]);
    let r = e.run(&["leaderboard", "--algo", "tgr"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("nobody meets the rules below"), "{}", r.stdout);
    assert!(
        r.stderr.contains("are provisional, with RD above provisional_rd = 100"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("RD never falls below provisional_rd"), "{}", r.stderr);
    let start = r.stderr.find("`ladder leaderboard").unwrap() + 1;
    let command = &r.stderr[start..start + r.stderr[start..].find('`').unwrap()];
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let listed = e.ok(&[&args[..], &["--format", "json"]].concat());
    let v = json(&listed);
    assert_eq!(v["ranked"].as_array().unwrap().len(), 10, "{command}: {v}");

    // Before the first match the history is what is empty, and it says that.
    let r = e.run(&["leaderboard", "--algo", "tgr", "--until", "2"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("no match has been played through event 2"), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "empty because no match has been played through event 2 (the history at --until)"
        ),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("nobody meets"), "{}", r.stdout);
}

/// docs/predict-evidence.sh (the command behind docs/real-ladders.md's table) on the slices
/// shipped in fixtures/: one row per ladder and algorithm, and on the football slice every
/// algorithm predicts the held-out matches better with home seats (and Elo's margin) than at its
/// own constants without them.
#[test]
fn the_evidence_script_runs_on_the_shipped_slices() {
    let script = fixture("../docs/predict-evidence.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(fixture("football/results-2014-2018.csv"))
        .arg(fixture("tennis/atp_matches_2019_slice.csv"))
        .env("LADDER", env!("CARGO_BIN_EXE_ladder"))
        .env_remove("LADDER_LEDGER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<Vec<&str>> =
        stdout.lines().map(|l| l.trim_matches('|').split('|').map(str::trim).collect()).collect();
    assert_eq!(rows.len(), 10, "{stdout}");
    for row in &rows {
        let (plain, full): (f64, f64) = (row[2].parse().unwrap(), row[3].parse().unwrap());
        assert!(plain > 0.0 && plain < 1.0 && full > 0.0 && full < 1.0, "{row:?}");
        if row[0] == "football" {
            assert!(full < plain, "{row:?}");
            assert!(row[4].contains("home="), "{row:?}");
        } else {
            assert!(!row[4].contains("home="), "{row:?}");
        }
    }
    let algos: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(algos[..5], ["tgr", "glicko", "glicko2", "elo", "weng-lin"]);
}

#[test]
fn append_match_puts_the_named_seat_at_home() {
    let e = Env::new();
    for p in ["lyon", "nice"] {
        e.ok(&["append", "join", p, "--at", "2026-03-01T09:00:00Z"]);
    }
    let at = ["--at", "2026-03-01T12:00:00Z"];
    e.ok(&["append", "match", "lyon", "nice", "--score", "2-1", "--home", "b", at[0], at[1]]);
    e.ok(&["append", "match", "lyon", "nice", "--score", "0-0", at[0], at[1]]);
    let log = e.ok(&["log", "--format", "jsonl"]);
    let lines: Vec<serde_json::Value> =
        log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Only the second seat is at home in the first match; the second match is on neutral ground.
    let home = |i: usize| -> Vec<bool> {
        lines[i]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["home"].as_bool().unwrap_or(false))
            .collect()
    };
    assert_eq!(home(2), [false, true], "{log}");
    assert_eq!(home(3), [false, false], "{log}");
    // A seat other than a or b is a usage error.
    let r = e.run(&["append", "match", "lyon", "nice", "--score", "1-0", "--home", "c"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
}
