//! Weng-Lin end to end: replay, --score, sweep, tune, explain and leaderboard through the binary.
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use crate::support::{fixture, Env};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

/// Two new players at the defaults (mu 25, sigma 25/3, beta 25/6): alice wins, then loses.
fn two_games() -> Env {
    let lines = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"bob"}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"alice","score":1},{"player":"bob","score":0}]}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T11:00:00Z","seats":[{"player":"alice","score":0},{"player":"bob","score":1}]}"#,
    ];
    let e = Env::new();
    e.run(&["import", "-"], lines.join("\n").as_bytes());
    e
}

#[test]
fn weng_lin_replays_and_scores_two_games_as_computed_by_hand() {
    let e = two_games();
    // After game 1, by Weng & Lin's Algorithm 1 by hand: c^2 = 2 (25/3)^2 + 2 (25/6)^2 = 6250/36,
    // p = 1/2, mu_alice = 25 + (625/9) / c / 2 = 27.63523138347365, mu_bob = 22.36476861652635,
    // sigma'^2 = 625/9 (1 - (25/3 / c)^3 / 4), sigma' = 8.065506316323546 for both.
    let (mu_a, mu_b, sigma) = (27.63523138347365, 22.36476861652635, 8.065506316323546);
    // Game 2 is predicted from those: p = 1 / (1 + exp((mu_b - mu_a) / c2)),
    // c2 = sqrt(2 beta^2 + 2 sigma'^2); alice loses it.
    let beta: f64 = 25.0 / 6.0;
    let c2 = (2.0 * beta * beta + 2.0 * sigma * sigma).sqrt();
    let p2 = 1.0 / (1.0 + ((mu_b - mu_a) / c2).exp());
    let log_loss = (std::f64::consts::LN_2 - (1.0 - p2).ln()) / 2.0;
    let brier = (0.25 + p2 * p2) / 2.0;

    let text = e.ok(&["replay", "--algo", "weng-lin", "--score", "--format", "json"]);
    // The keys in the documented order: the constants in table order, then the player fields
    // (docs/outputs.md).
    let at = |key: &str| text.find(key).unwrap_or_else(|| panic!("no {key} in {text}"));
    let order = ["\"mu\":", "\"sigma\":", "\"beta\":", "\"kappa\":", "\"player\":", "\"rating\":"];
    assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
    assert!(text.contains(r#""player":"alice","rating":24."#), "{text}");
    assert!(text.contains(r#","games":2},{"player":"bob""#), "{text}");
    let v = json(&text);
    assert_eq!(v["algorithm"], "weng-lin");
    let pred = &v["prediction"];
    assert_eq!(pred["matches"], 2);
    assert!((pred["log_loss"].as_f64().unwrap() - log_loss).abs() < 1e-12, "{pred}");
    assert!((pred["brier"].as_f64().unwrap() - brier).abs() < 1e-12, "{pred}");

    // Through event 3 only, the ratings are the hand values.
    let one = json(&e.ok(&["replay", "--algo", "weng-lin", "--until", "3", "--format", "json"]));
    let (a, b) = (&one["players"][0], &one["players"][1]);
    assert!((a["rating"].as_f64().unwrap() - mu_a).abs() < 1e-9, "{a}");
    assert!((b["rating"].as_f64().unwrap() - mu_b).abs() < 1e-9, "{b}");
    assert!((a["sigma"].as_f64().unwrap() - sigma).abs() < 1e-9, "{a}");
}

#[test]
fn weng_lin_explains_every_quantity_of_a_match() {
    let e = two_games();
    let text = e.ok(&["explain", "--algo", "weng-lin", "--event", "3"]);
    for name in [
        "mu_i",
        "sigma_i^2",
        "c_iq",
        "p_iq",
        "delta_q",
        "gamma_q",
        "eta_q",
        "Omega_i",
        "Delta_i",
        "mu'",
        "sigma'",
    ] {
        assert!(text.contains(name), "explain lacks {name}:\n{text}");
    }
    let v = json(&e.ok(&["explain", "--algo", "weng-lin", "--event", "3", "--format", "json"]));
    assert!(v.to_string().contains("c_iq"), "{v}");
}

#[test]
fn weng_lin_sweeps_tunes_and_ranks() {
    let e = Env::new();
    e.ok(&["import", fixture("club.jsonl").to_str().unwrap()]);
    let sweep =
        json(&e.ok(&["sweep", "--algo", "weng-lin", "--grid", "beta=2,4,8", "--format", "json"]));
    let results = sweep["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    // Every configuration predicted the same matches, and the list is ordered by log loss.
    let losses: Vec<f64> =
        results.iter().map(|r| r["prediction"]["log_loss"].as_f64().unwrap()).collect();
    assert!(losses.windows(2).all(|w| w[0] <= w[1]), "{losses:?}");

    let tune = json(&e.ok(&["tune", "--algo", "weng-lin", "--format", "json"]));
    // Its own beta, then regression between seasons (club.jsonl has no home seat, so no home).
    assert_eq!(
        tune["searched"],
        serde_json::json!(["beta", "revert", "revert_after"]),
        "weng-lin's default search"
    );
    assert!(tune["train"]["log_loss"].as_f64().unwrap().is_finite());

    let board =
        json(&e.ok(&["leaderboard", "--algo", "weng-lin", "--min-games", "0", "--format", "json"]));
    let ranked = board["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty());
    let ratings: Vec<f64> = ranked.iter().map(|r| r["rating"].as_f64().unwrap()).collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "ranked by mu, highest first: {ratings:?}");
    // The board's rating is the replay's mu for the same player.
    let replay = json(&e.ok(&["replay", "--algo", "weng-lin", "--format", "json"]));
    let top = &ranked[0];
    let row = replay["players"].as_array().unwrap().iter().find(|p| p["player"] == top["player"]);
    assert_eq!(row.unwrap()["rating"], top["rating"]);
}

#[test]
fn weng_lin_rates_teams_and_refuses_bad_constants() {
    let e = Env::new();
    e.ok(&["import", fixture("teams.jsonl").to_str().unwrap()]);
    let v = json(&e.ok(&["replay", "--algo", "weng-lin", "--format", "json"]));
    let players = v["players"].as_array().unwrap();
    assert!(players.iter().all(|p| p["games"].as_u64().unwrap() > 0), "{v}");
    for p in players {
        let sigma = p["sigma"].as_f64().unwrap();
        assert!(sigma > 0.0 && sigma.is_finite(), "{p}");
    }
    for bad in ["beta=0", "sigma=-1", "kappa=0", "tau=1"] {
        let r = e.run(&["replay", "--algo", "weng-lin", "--set", bad], b"");
        assert_eq!(r.code, 2, "{bad}: {}", r.stderr);
    }
}
