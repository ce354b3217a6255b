//! `--predict-from day` through the binary: `replay --score` and `tune` (docs/outputs.md).

use crate::support::{fixture, Env};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

/// a and b join on 1 March; on 2 March a beats b, c joins with a prior of 1600 and a beats c;
/// on 3 March c beats b.
const HISTORY: &str = r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a"}
{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}
{"type":"MatchResult","at":"2026-03-02T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}
{"type":"PlayerJoined","at":"2026-03-02T11:00:00Z","player":"c","rating":1600}
{"type":"MatchResult","at":"2026-03-02T12:00:00Z","seats":[{"player":"a","score":1},{"player":"c","score":0}]}
{"type":"MatchResult","at":"2026-03-03T08:00:00Z","seats":[{"player":"c","score":1},{"player":"b","score":0}]}
"#;

#[test]
fn replay_scores_a_days_matches_from_before_the_day() {
    let e = Env::new();
    e.run(&["import", "-"], HISTORY.as_bytes());
    let replay = |extra: &[&str]| {
        let mut args = vec!["replay", "--algo", "elo", "--score", "--format", "json"];
        args.extend_from_slice(extra);
        json(&e.ok(&args))
    };
    let (by_event, by_day) = (replay(&[]), replay(&["--predict-from", "day"]));
    assert_eq!(replay(&["--predict-from", "event"]), by_event);
    // By hand (K = 20), E(d) = 1 / (1 + 10^(-d/400)): on 2 March, from the state before it, a
    // (1500) v b (1500): 1/2, and a v c (who joined that day at 1600): E(-100); on 3 March c v b
    // from the ratings after both of 2 March's matches: a 1510 + 20 (1 - E(-90)), c 1600 -
    // 20 (1 - E(-90)), b 1490.
    #[allow(clippy::disallowed_methods)] // std's powf and ln: the hand calculation's oracle
    let want = {
        let e = |d: f64| 1.0 / (1.0 + 10f64.powf(-d / 400.0));
        let c = 1600.0 - 20.0 * (1.0 - e(-90.0));
        -((0.5f64).ln() + e(-100.0).ln() + e(c - 1490.0).ln()) / 3.0
    };
    let got = by_day["prediction"]["log_loss"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    assert_ne!(by_event["prediction"], by_day["prediction"]);
    // The ratings are the same either way.
    assert_eq!(by_event["players"], by_day["players"]);
}

#[test]
fn predict_from_is_a_usage_error_without_score_or_with_another_word() {
    let e = Env::new();
    e.run(&["import", "-"], HISTORY.as_bytes());
    let r = e.run(&["replay", "--algo", "elo", "--predict-from", "day"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--score"), "{}", r.stderr);
    let r = e.run(&["replay", "--algo", "elo", "--score", "--predict-from", "week"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("event") && r.stderr.contains("day"), "{}", r.stderr);
}

#[test]
fn tune_predicts_from_the_day_when_asked() {
    // A slice of a season, every match of a tournament on its first day (the tennis preset's
    // tourney_date): so a filter's day-mode scores differ from its event-mode ones.
    let e = Env::new();
    let csv = fixture("tennis/atp_matches_2019_slice.csv");
    e.ok(&["import", "--auto-join", "--preset", "tennis", csv.to_str().unwrap()]);
    let tune = |extra: &[&str]| {
        let mut args = vec!["tune", "--algo", "elo", "--param", "k", "--format", "json"];
        args.extend_from_slice(extra);
        json(&e.ok(&args))
    };
    let (by_event, by_day) = (tune(&[]), tune(&["--predict-from", "day"]));
    let held = |v: &serde_json::Value| v["held_out"]["defaults"]["log_loss"].as_f64().unwrap();
    assert_ne!(held(&by_event), held(&by_day));
    // The held-out defaults in day mode are what `replay --score --predict-from day` gives for
    // the same matches: the training matches are the warm-up.
    let train = by_day["train"]["matches"].as_u64().unwrap().to_string();
    let replay = json(&e.ok(&[
        "replay",
        "--algo",
        "elo",
        "--score",
        "--warmup",
        &train,
        "--predict-from",
        "day",
        "--format",
        "json",
    ]));
    let r = replay["prediction"]["log_loss"].as_f64().unwrap();
    assert!((r - held(&by_day)).abs() < 1e-12, "{r} vs {}", held(&by_day));
}
