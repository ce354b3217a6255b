//! TrueSkill Through Time end to end: replay, --score, history and plot through the binary, on
//! the glickman fixture (three games of a player against three opponents who join with priors).

use crate::support::{fixture, Env};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

fn glickman() -> Env {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    e
}

/// The package on the same history: `trueskillthroughtime` 1.1.0, `History([[["player"],
/// ["opp1400"]], [["player"], ["opp1550"]], [["player"], ["opp1700"]]], [[1, 0], [0, 1], [0, 1]],
/// [10/24, 11/24, 12/24], priors = {each: Player(Gaussian(rating, rd), 1.0, 0.03)},
/// gamma = 0.03).convergence()`, the last point of each learning curve.
const PACKAGE: [(&str, f64, f64); 4] = [
    ("opp1400", 1394.1566955840028, 29.388189309889157),
    ("opp1550", 1603.2529320149326, 80.72621261381381),
    ("opp1700", 1826.374162213164, 223.67123824298224),
    ("player", 1490.5243958625065, 73.55984284032806),
];

/// The standard normal distribution function by Abramowitz & Stegun 26.2.17 (error below
/// 7.5e-8): an oracle independent of ladder's `erfc`.
fn phi(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.2316419 * x.abs());
    let poly = t
        * (0.319381530
            + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
    #[allow(clippy::disallowed_methods)] // std's exp: an oracle independent of ladder's maths
    let tail = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() * poly;
    if x >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

#[test]
fn ttt_replays_the_fixture_as_the_reference_package_does() {
    let e = glickman();
    let v = json(&e.ok(&["replay", "--algo", "ttt", "--format", "json"]));
    assert_eq!(v["algorithm"], "ttt");
    assert_eq!(v["config"]["gamma"], 0.03);
    for (k, (name, mu, sigma)) in PACKAGE.iter().enumerate() {
        let p = &v["players"][k];
        assert_eq!(p["player"], *name);
        assert!((p["rating"].as_f64().unwrap() - mu).abs() < 1e-9, "{p}");
        assert!((p["sigma"].as_f64().unwrap() - sigma).abs() < 1e-9, "{p}");
    }
}

#[test]
fn ttt_scores_each_match_from_the_days_before_it() {
    let e = glickman();
    // All three games are on 1 March, so each is forecast from the priors alone: P(player beats
    // an opponent) = Phi((1500 - r) / sqrt(200^2 + rd^2 + 2 beta^2)); the player won the first
    // and lost the other two.
    let p = |r: f64, rd: f64| phi((1500.0 - r) / (200.0 * 200.0 + rd * rd + 2.0).sqrt());
    let ps = [p(1400.0, 30.0), p(1550.0, 100.0), p(1700.0, 300.0)];
    let ys = [1.0, 0.0, 0.0];
    #[allow(clippy::disallowed_methods)] // std's ln: an oracle independent of ladder's maths
    let log_loss: f64 =
        ps.iter().zip(ys).map(|(p, y)| -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())).sum::<f64>()
            / 3.0;
    let v = json(&e.ok(&["replay", "--algo", "ttt", "--score", "--format", "json"]));
    let pred = &v["prediction"];
    assert_eq!(pred["matches"], 3);
    assert!((pred["log_loss"].as_f64().unwrap() - log_loss).abs() < 1e-6, "{pred} vs {log_loss}");
    // Scoring changes nothing in the standings.
    let plain = json(&e.ok(&["replay", "--algo", "ttt", "--format", "json"]));
    assert_eq!(v["players"], plain["players"]);
}

#[test]
fn ttt_history_and_plot_show_the_smoothed_curve() {
    let e = glickman();
    let text = e.ok(&["history", "--algo", "ttt", "--player", "player", "--format", "json"]);
    let lines: Vec<serde_json::Value> = text.lines().map(json).collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0]["what"], "joined");
    assert_eq!(lines[0]["rating"], 1500.0);
    // The last point of the curve is the replay's rating; the earlier points are the smoothed
    // posteriors at those games, which the later losses pulled down from the win's high.
    let last = lines[3]["rating"].as_f64().unwrap();
    assert!((last - PACKAGE[3].1).abs() < 1e-9);
    let first = lines[1]["rating"].as_f64().unwrap();
    assert!(first < 1500.0 + 1e-9 && first > last, "{text}");
    // --until sees the history as it was: through the first game alone the player is above 1500.
    let early = json(&e.ok(&["replay", "--algo", "ttt", "--until", "5", "--format", "json"]));
    assert!(early["players"][3]["rating"].as_f64().unwrap() > 1500.0);

    let svg = e.file("curve.svg", b"");
    e.ok(&["plot", "--algo", "ttt", "--player", "player", "--output", svg.to_str().unwrap()]);
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg") || drawn.starts_with("<?xml"), "{drawn}");
}

#[test]
fn ttt_explain_shows_the_messages_of_a_match() {
    let e = glickman();
    let text = e.ok(&["explain", "--algo", "ttt", "--event", "6", "--player", "player"]);
    let value = |name: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("player") && l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no {name} in {text}"));
        line.split('=').nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap()
    };
    // The drift: the forward message is the previous batch's, its variance grown by gamma^2 t
    // over the hour between the games (t = 1/24 day).
    let (prev, fwd, drift) = (value("previous sigma"), value("forward sigma"), value("drift"));
    assert!((drift - (0.03 * 0.03) / 24.0).abs() < 1e-9, "{text}");
    assert!((fwd * fwd - (prev * prev + drift)).abs() < 1e-8, "{text}");
    // The posterior is what a replay through the event reports.
    let v = json(&e.ok(&["replay", "--algo", "ttt", "--until", "6", "--format", "json"]));
    let rating = v["players"][3]["rating"].as_f64().unwrap();
    assert!((value("posterior mu") - rating).abs() < 1e-9, "{text}");
    assert!(text.contains("iterations"), "{text}");
}

#[test]
fn ttt_tune_searches_its_constants_within_a_budget() {
    // docs/algorithms/ttt.md, "Tuning": sigma, gamma, revert and revert_after by default (no
    // home seats here), and never more configurations than the budget; stopping at it is said.
    let e = Env::new();
    let csv = fixture("tennis/atp_matches_2019_slice.csv");
    e.ok(&["import", "--auto-join", "--preset", "tennis", csv.to_str().unwrap()]);
    let r = e.run(
        &[
            "tune",
            "--algo",
            "ttt",
            "--set",
            "epsilon=0.01",
            "--set",
            "iterations=10",
            "--budget",
            "8",
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["searched"], serde_json::json!(["sigma", "gamma", "revert", "revert_after"]));
    let n = v["search"]["configurations"].as_u64().unwrap();
    // Three starting points, then sigma's first bracket of five (one of them the start).
    assert_eq!(n, 7, "{v}");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().contains("budget of 8 configurations")),
        "{warnings:?}"
    );
    assert!(r.stderr.contains("--budget N allows more"), "{}", r.stderr);
    // With debut=field (docs/algorithms/ttt.md, "Debut") debut_offset is searched too; the
    // budget of 3 is the starting points only.
    let r = e.run(
        &[
            "tune",
            "--algo",
            "ttt",
            "--set",
            "debut=field",
            "--set",
            "epsilon=0.01",
            "--set",
            "iterations=10",
            "--budget",
            "3",
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(
        v["searched"],
        serde_json::json!(["sigma", "gamma", "revert", "revert_after", "debut_offset"])
    );
    let r = e.run(&["tune", "--algo", "ttt", "--budget", "0"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn ttt_tune_holds_its_set_constants_in_the_held_out_pass() {
    // docs/outputs.md, "tune": the held-out "defaults" are the defaults of the constants searched,
    // with every other constant as `--set` holds it, so the held-out forecasts are converged as
    // the training ones were: what `replay --score` gives for that configuration with the
    // training matches as the warm-up, not what it gives at every default (1e-6, 30 sweeps).
    let e = Env::new();
    let csv = fixture("tennis/atp_matches_2019_slice.csv");
    e.ok(&["import", "--auto-join", "--preset", "tennis", csv.to_str().unwrap()]);
    let v = json(&e.ok(&[
        "tune",
        "--algo",
        "ttt",
        "--param",
        "sigma",
        "--set",
        "epsilon=0.5",
        "--set",
        "iterations=1",
        "--set",
        "sigma=2",
        "--budget",
        "3",
        "--format",
        "json",
    ]));
    let held = v["held_out"]["defaults"]["log_loss"].as_f64().unwrap();
    let train = v["train"]["matches"].as_u64().unwrap().to_string();
    let replay = |sets: &[&str]| {
        let mut args = vec!["replay", "--algo", "ttt"];
        for s in sets {
            args.extend_from_slice(&["--set", s]);
        }
        args.extend_from_slice(&["--score", "--warmup", &train, "--format", "json"]);
        json(&e.ok(&args))["prediction"]["log_loss"].as_f64().unwrap()
    };
    // sigma is searched, so its default (6) is scored, not the 2 the search started from.
    let at_set = replay(&["epsilon=0.5,iterations=1"]);
    assert!((held - at_set).abs() < 1e-12, "{held} vs {at_set}");
    assert_ne!(held, replay(&[]));
    assert_ne!(held, replay(&["epsilon=0.5,iterations=1,sigma=2"]));
}
