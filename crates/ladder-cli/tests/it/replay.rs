//! Replays through the real binary and a real ledger.

use crate::support::{fixture, Env};

fn replay_json(e: &Env, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["replay", "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(e.ok(&all).trim()).unwrap()
}

fn player<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["players"].as_array().unwrap().iter().find(|p| p["player"] == name).unwrap()
}

#[test]
fn glickmans_examples_through_the_ledger() {
    // fixtures/glickman.jsonl: priors on PlayerJoined, the three games inside one day.
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    // Glicko-1 (seed 001's worked example): 1464.1064627569112 / 151.39890244796933.
    let g = replay_json(&e, &["--algo", "glicko"]);
    let p = player(&g, "player");
    assert!((p["rating"].as_f64().unwrap() - 1464.1064627569112).abs() < 1e-9);
    assert!((p["rd"].as_f64().unwrap() - 151.39890244796933).abs() < 1e-9);
    // Glicko-2 (seed 002) with tau 0.5, sigma 0.06.
    let g2 = replay_json(&e, &["--algo", "glicko2", "--set", "tau=0.5", "--set", "sigma=0.06"]);
    let p = player(&g2, "player");
    assert!((p["rating"].as_f64().unwrap() - 1464.0506705393013).abs() < 1e-9);
    assert!((p["rd"].as_f64().unwrap() - 151.51652412385727).abs() < 1e-9);
    assert!((p["volatility"].as_f64().unwrap() - 0.059995984286488495).abs() < 1e-12);
    // The output names the history it came from.
    let head = e.ok(&["verify"]);
    assert!(head.contains(&format!("{}:{}", g["through"], g["head"].as_str().unwrap())), "{head}");
}

#[test]
fn replay_output_is_deterministic_and_echoes_every_constant() {
    let e = Env::new();
    e.ok(&["import", fixture("club.jsonl").to_str().unwrap()]);
    for algo in ["tgr", "glicko", "glicko2", "zonestats", "elo"] {
        let a = e.ok(&["replay", "--algo", algo, "--format", "json"]);
        let b = e.ok(&["replay", "--algo", algo, "--format", "json"]);
        assert_eq!(a, b, "{algo}");
        let v: serde_json::Value = serde_json::from_str(a.trim()).unwrap();
        // The digest is blake3 of the compact JSON without the digest.
        let digest = v["digest"].as_str().unwrap().to_string();
        let without = a.trim().replace(&format!(",\"digest\":\"{digest}\""), "");
        assert_eq!(blake3::hash(without.as_bytes()).to_hex().as_str(), digest, "{algo}");
        // Players sorted by name, 8 of them.
        let names: Vec<&str> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["player"].as_str().unwrap())
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), 8);
        // --until equals a ledger holding only that prefix.
        let text = std::fs::read_to_string(fixture("club.jsonl")).unwrap();
        let prefix: String = text.lines().take(30).map(|l| format!("{l}\n")).collect();
        let p = Env::new();
        p.run(&["import", "-"], prefix.as_bytes());
        let cut = e.ok(&["replay", "--algo", algo, "--format", "json", "--until", "30"]);
        assert_eq!(cut, p.ok(&["replay", "--algo", algo, "--format", "json"]), "{algo}");
    }
}

#[test]
fn refused_constants_list_the_valid_keys() {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    let r = e.run(&["replay", "--algo", "glicko2", "--set", "tau=-1"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`tau` must be a number > 0"), "{}", r.stderr);
    let r = e.run(&["replay", "--algo", "tgr", "--set", "q=1"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("sc = a number >= 0"), "{}", r.stderr);
    let r = e.run(&["replay", "--algo", "tgr", "--set", "p=0.35"], b"");
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("warning: tgr: p=0.35 is below"), "{}", r.stderr);
}
