//! What got in a new user's way on their second five minutes (issue 28): a sweep stopped by one
//! configuration, help printed as an error, names that were almost right, an older season, the
//! WTA's files.

use crate::support::{fixture, Env, Run};

fn hint(r: &Run) -> &str {
    r.stderr
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint:\n{}", r.stderr))
}

/// The football results of 2014-2018 the README imports, in a fresh ledger.
fn football() -> Env {
    let e = Env::new();
    let csv = fixture("football/results-2014-2018.csv");
    e.ok(&[
        "import",
        "--auto-join",
        "--columns",
        "at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score",
        csv.to_str().unwrap(),
    ]);
    e
}

#[test]
fn a_sweep_ranks_the_configurations_that_run_and_marks_the_one_that_fails() {
    let e = football();
    // p = 0.35 drives TGR's V to infinity at event 955 on this history (replay says so and exits
    // 1); the other three configurations run.
    let alone = e.run(&["replay", "--algo", "tgr", "--set", "p=0.35"], b"");
    assert_eq!(alone.code, 1, "{}", alone.stderr);
    assert!(alone.stderr.contains("event 955: V is not finite"), "{}", alone.stderr);
    let r = e.run(&["sweep", "--algo", "tgr", "--grid", "sc=5,20", "--grid", "p=0.35,0.9"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows: Vec<&str> = r.stdout.lines().skip_while(|l| !l.starts_with("rank")).skip(1).collect();
    assert_eq!(rows.len(), 4, "{}", r.stdout);
    for (row, rank) in rows[..2].iter().zip(["1", "2"]) {
        assert!(row.trim_start().starts_with(rank) && row.contains("0.9"), "{row}");
    }
    for row in &rows[2..] {
        assert!(
            row.contains("0.35") && row.contains("failed: event 955: V is not finite"),
            "{row}"
        );
    }
    assert!(r.stderr.contains("2 of 4 configurations failed"), "{}", r.stderr);
    // The ranked ones score exactly as they do alone.
    let json = e.ok(&[
        "sweep",
        "--algo",
        "tgr",
        "--grid",
        "sc=5,20",
        "--grid",
        "p=0.35,0.9",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let results = v["results"].as_array().unwrap();
    let good = e.ok(&[
        "sweep", "--algo", "tgr", "--grid", "sc=5,20", "--grid", "p=0.9", "--format", "json",
    ]);
    let good: serde_json::Value = serde_json::from_str(&good).unwrap();
    assert_eq!(results[..2], good["results"].as_array().unwrap()[..]);
    for failed in &results[2..] {
        assert!(failed["prediction"].is_null(), "{failed}");
        assert!(failed["failed"].as_str().unwrap().starts_with("event 955: V is not finite"));
    }
    // When every configuration fails, the sweep fails with the reason.
    let all = e.run(&["sweep", "--algo", "tgr", "--grid", "p=0.35,0.3"], b"");
    assert!(all.code == 1 && all.stderr.contains("V is not finite"), "{}", all.stderr);
}

#[test]
fn a_glicko2_configuration_whose_ratings_run_apart_fails_alone_naming_the_player() {
    // The 30M scale ladder's failure in small (docs/algorithms/glicko2.md, "When a configuration
    // fails"): once a player's rating is some 6,400 points from every opponent's, every E rounds
    // to exactly 0 or 1 in binary64 and v = 1 / Σ g^2 E (1 - E) is infinite. There a player's
    // volatility ran away under tau = 1; here initial_rating = 15000 puts bob, who joins without a
    // prior, 13,500 points above alice's 1500 (g(phi) of RD 50 is 0.99: 76 > 37), and his one game
    // of the week is against her. (Below every opponent E is tiny but not 0: only E = 1 rounds.)
    let e = Env::new();
    let events = b"{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"alice\",\"rating\":1500,\"rd\":50}
{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"bob\"}
{\"type\":\"PlayerJoined\",\"at\":\"2026-03-01T09:00:00Z\",\"player\":\"carol\"}
{\"type\":\"MatchResult\",\"at\":\"2026-03-02T12:00:00Z\",\"seats\":[{\"player\":\"alice\",\"score\":0},{\"player\":\"bob\",\"score\":1}]}
{\"type\":\"MatchResult\",\"at\":\"2026-03-20T12:00:00Z\",\"seats\":[{\"player\":\"carol\",\"score\":1},{\"player\":\"alice\",\"score\":0}]}
";
    let file = e.file("apart.jsonl", events);
    e.ok(&["import", file.to_str().unwrap()]);
    let far = ["--set", "initial_rd=50", "--set", "period=1w"];
    // Alone: the event, the quantity and the player by name, with the rating that is too far.
    let mut args = vec!["replay", "--algo", "glicko2", "--set", "initial_rating=15000"];
    args.extend(far);
    let alone = e.run(&args, b"");
    assert_eq!(alone.code, 1, "{}", alone.stderr);
    let reason = alone.stderr.lines().next().unwrap().strip_prefix("error: ").unwrap().to_string();
    assert!(
        reason.starts_with(
            "event 5: v is not finite (player #1 (\"bob\"): every E rounded to 0 or 1"
        ) && reason.contains("rating at the period's start is 15000.0"),
        "{reason}"
    );
    // In a sweep: that configuration fails with the same reason, the other is ranked, in one pass.
    let mut args = vec!["sweep", "--algo", "glicko2", "--grid", "initial_rating=1500,15000"];
    args.extend(far);
    args.extend(["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&e.ok(&args)).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    assert_eq!(results[0]["config"]["initial_rating"], 1500.0, "{v}");
    assert!(results[0]["prediction"]["log_loss"].is_number(), "{v}");
    assert_eq!(results[1]["config"]["initial_rating"], 15000.0, "{v}");
    assert_eq!(results[1]["failed"], reason.as_str(), "{v}");
}

#[test]
fn set_help_prints_the_constants_and_exits_0() {
    let e = Env::new();
    for algo in ["elo", "tgr", "glicko2"] {
        let r = e.run(&["replay", "--algo", algo, "--set", "help=1"], b"");
        assert_eq!(r.code, 0, "{algo}: {}", r.stderr);
        assert!(r.stderr.is_empty(), "{algo}: {}", r.stderr);
        assert!(r.stdout.starts_with(&format!("constants of {algo}:\n")), "{}", r.stdout);
        assert!(r.stdout.contains("initial_rating = "), "{}", r.stdout);
    }
    // Every command that takes --set: sweep and tune parse theirs apart.
    for args in [
        &["sweep", "--algo", "tgr", "--set", "help=1", "--grid", "sc=1,2"][..],
        &["tune", "--algo", "tgr", "--set", "help=1"][..],
        &["leaderboard", "--algo", "tgr", "--set", "help=1"][..],
    ] {
        let r = e.run(args, b"");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(r.stdout.starts_with("constants of tgr:\n"), "{args:?}: {}", r.stdout);
    }
    let r = e.run(&["replay", "--algo", "elo", "--set", "k=0"], b"");
    assert_eq!(r.code, 2, "an out-of-range value is still a usage error: {}", r.stderr);
}

/// A few rows of a WTA match file (Jeff Sackmann's tennis_wta layout, the same columns as
/// tennis_atp's), written by hand: the 2024 Doha final and semi-finals.
const WTA: &str = "tourney_id,tourney_name,surface,draw_size,tourney_level,tourney_date,match_num,winner_id,winner_seed,winner_entry,winner_name,winner_hand,winner_ht,winner_ioc,winner_age,loser_id,loser_seed,loser_entry,loser_name,loser_hand,loser_ht,loser_ioc,loser_age,score,best_of,round,minutes,w_ace,w_df,w_svpt,w_1stIn,w_1stWon,w_2ndWon,w_SvGms,w_bpSaved,w_bpFaced,l_ace,l_df,l_svpt,l_1stIn,l_1stWon,l_2ndWon,l_SvGms,l_bpSaved,l_bpFaced,winner_rank,winner_rank_points,loser_rank,loser_rank_points
2024-1034,Doha,Hard,56,P,20240212,300,216347,1,,Iga Swiatek,R,176,POL,22.7,214544,4,,Elena Rybakina,R,184,KAZ,24.6,7-6(8) 6-2,3,F,,,,,,,,,,,,,,,,,,,,,1,10000,4,6000
2024-1034,Doha,Hard,56,P,20240212,298,214544,4,,Elena Rybakina,R,184,KAZ,24.6,211148,,,Anastasia Pavlyuchenkova,R,177,RUS,32.6,6-0 6-7(4) 6-4,3,SF,,,,,,,,,,,,,,,,,,,,,4,6000,30,1500
2024-1034,Doha,Hard,56,P,20240212,297,216347,1,,Iga Swiatek,R,176,POL,22.7,221012,,,Karolina Pliskova,R,186,CZE,31.8,6-7(5) 6-4 6-1,3,SF,,,,,,,,,,,,,,,,,,,,,1,10000,78,900
";

#[test]
fn the_tennis_preset_reads_wta_files_and_its_help_says_so() {
    let e = Env::new();
    let help = e.ok(&["import", "--help"]);
    assert!(help.contains("WTA"), "{help}");
    let wta = e.file("wta_matches_2024.csv", WTA.as_bytes());
    let out = e.ok(&["import", "--auto-join", "--preset", "tennis", wta.to_str().unwrap()]);
    assert!(out.contains("appended 7 events"), "{out}");
    // Semi-finals before the final (rounds in playing order), the final last.
    let log = e.ok(&["log", "--format", "jsonl"]);
    let last = log.lines().last().unwrap();
    assert!(
        last.contains("\"Iga Swiatek\"") && last.contains("\"Elena Rybakina\""),
        "the final is the last event: {last}"
    );
}

#[test]
fn a_name_that_is_almost_right_suggests_the_close_names() {
    let e = Env::new();
    let wta = e.file("wta.csv", WTA.as_bytes());
    e.ok(&["import", "--auto-join", "--preset", "tennis", wta.to_str().unwrap()]);
    for (asked, meant) in [
        ("Swiatek", "\"Iga Swiatek\""),
        ("rybakina", "\"Elena Rybakina\""),
        ("Karolina Pliskowa", "\"Karolina Pliskova\""),
    ] {
        for cmd in ["history", "plot"] {
            let r = e.run(&[cmd, "--algo", "elo", "--player", asked], b"");
            assert_eq!(r.code, 1, "{cmd} {asked}: {}", r.stderr);
            assert!(r.stderr.contains("never appears in this history"), "{}", r.stderr);
            assert!(hint(&r).starts_with(&format!("did you mean {meant}?")), "{}", r.stderr);
        }
    }
    // `pair` looks names up the same way.
    let r = e.run(&["pair", "swiatek", "--waiting", "Elena Rybakina"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(hint(&r).starts_with("did you mean \"Iga Swiatek\"?"), "{}", r.stderr);
    // No close name: the hint names a command that does list every player.
    let r = e.run(&["history", "--algo", "elo", "--player", "Federer"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(hint(&r).contains("`ladder replay --algo elo` lists every player"), "{}", r.stderr);
    let listed = e.ok(&["replay", "--algo", "elo"]);
    for name in ["Iga Swiatek", "Elena Rybakina", "Karolina Pliskova", "Anastasia Pavlyuchenkova"] {
        assert!(listed.contains(name), "{listed}");
    }
}

#[test]
fn an_older_season_is_named_as_older_than_the_ledger_not_as_unsorted() {
    let e = Env::new();
    let line = |at: &str, p: &str| {
        format!("{{\"type\":\"PlayerJoined\",\"at\":\"{at}\",\"player\":\"{p}\"}}\n")
    };
    let newer =
        e.file("2024.jsonl", (line("2024-01-05", "a") + &line("2024-02-01", "b")).as_bytes());
    let older =
        e.file("2023.jsonl", (line("2023-01-05", "c") + &line("2023-02-01", "d")).as_bytes());
    e.ok(&["import", newer.to_str().unwrap()]);
    let r = e.run(&["import", older.to_str().unwrap()], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("2023.jsonl:1: rule time-order: `at` 2023-01-05T00:00:00Z is before the ledger's last stored event (seq 2, at 2024-02-01T00:00:00Z)"),
        "{}",
        r.stderr
    );
    let h = hint(&r);
    assert!(
        h.contains("the file is older than the ledger's last event") && !h.contains("sort"),
        "{h}"
    );
    // A file out of order within itself is told to sort, and which line it is out of order with.
    let unsorted =
        e.file("mixed.jsonl", (line("2025-03-01", "e") + &line("2025-02-01", "f")).as_bytes());
    let r = e.run(&["import", unsorted.to_str().unwrap()], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("mixed.jsonl:2: rule time-order: `at` 2025-02-01T00:00:00Z is before the previous event, at 2025-03-01T00:00:00Z (the earlier event is at ")
            && r.stderr.contains("mixed.jsonl:1)\nnothing was imported"),
        "{}",
        r.stderr
    );
    assert!(hint(&r).contains("sort the file by `at`"), "{}", r.stderr);
}

#[test]
fn a_plot_names_its_algorithm_and_constants_and_a_band_only_where_there_is_one() {
    let e = football();
    let elo = e.ok(&["plot", "--algo", "elo", "--set", "k=32", "--player", "England"]);
    assert!(elo.contains("<title>elo ratings over time</title>"), "{elo}");
    assert!(elo.contains(">elo k=32.0 initial_rating=1500.0</text>"), "{elo}");
    assert!(!elo.contains("RD"), "Elo keeps no RD: {elo}");
    let glicko = e.ok(&["plot", "--algo", "glicko", "--player", "England"]);
    assert!(glicko.contains("<title>glicko ratings over time (bands: ±2 RD)</title>"), "{glicko}");
    assert!(glicko.contains(">glicko c=6.0 period=5d"), "{glicko}");
    // Weng-Lin's band is two sigma, and says so.
    let wl = e.ok(&["plot", "--algo", "weng-lin", "--player", "England"]);
    assert!(wl.contains("<title>weng-lin ratings over time (bands: ±2 sigma)</title>"), "{wl}");
    assert!(!wl.contains("RD"), "Weng-Lin keeps no RD: {wl}");
}
