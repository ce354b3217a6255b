//! `explain --format json` carries every quantity as a number, so a script can re-derive the
//! result: for each algorithm this test recomputes the explained player's new rating from the
//! JSON alone, with the published formulas written out here (Glickman's "The Glicko system" and
//! "Example of the Glicko-2 system", the TGR paper's UpdatePlayer, the ZoneStats equations 1 to 6,
//! Elo's logistic expectation, the performance equation), and compares it with the rating the
//! same JSON reports after the event.
//!
//! The history is fixtures/glickman.jsonl: `player` (1500/200) beats opp1400 (event 5), then
//! loses to opp1550 (event 6) and opp1700 (event 7), all on 2026-03-01.
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use crate::support::{fixture, Env};
use serde_json::Value;
use std::f64::consts::PI;

fn explain(e: &Env, args: &[&str]) -> Value {
    let out = e.ok(&[&["explain", "--format", "json"], args].concat());
    serde_json::from_str(out.trim()).unwrap()
}

fn glickman() -> Env {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    e
}

/// The trace entries of `player`, in order.
fn entries_of<'a>(trace: &'a Value, player: &str) -> Vec<&'a Value> {
    trace.as_array().unwrap().iter().filter(|q| q["player"] == player).collect()
}

/// The first quantity `name` among `entries`.
fn q(entries: &[&Value], name: &str) -> f64 {
    entries.iter().find(|q| q["name"] == name).unwrap_or_else(|| panic!("no {name}"))["value"]
        .as_f64()
        .unwrap()
}

/// The games among `entries`: for each `opponent` entry, the quantities up to the next one.
fn games<'a>(entries: &[&'a Value]) -> Vec<(String, Vec<&'a Value>)> {
    let mut out: Vec<(String, Vec<&Value>)> = Vec::new();
    for e in entries {
        if let Some(o) = e["opponent"].as_str() {
            out.push((o.to_string(), Vec::new()));
        } else if let Some((_, g)) = out.last_mut() {
            g.push(e);
        }
    }
    out
}

/// The rating the JSON reports for `player` after the event.
fn after(v: &Value, player: &str) -> f64 {
    v["explained"]["players"].as_array().unwrap().iter().find(|p| p["player"] == player).unwrap()
        ["after"]["rating"]
        .as_f64()
        .unwrap()
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
}

#[test]
fn glicko_period_rederived_from_the_json() {
    let e = glickman();
    // Event 5 is inside the period; nothing after the period yet, so it is open at the head.
    let v = explain(&e, &["--algo", "glicko", "--event", "5", "--player", "player"]);
    let period = &v["period"];
    assert_eq!(period["open_at_head"], true);
    assert_eq!(period["closes_at"], Value::Null);
    let me = entries_of(&period["trace"], "player");
    let (r, rd) = (q(&me, "r"), q(&me, "RD*"));
    let qq = 10f64.ln() / 400.0;
    let (mut info, mut gain) = (0.0, 0.0);
    let played = games(&me);
    let names: Vec<&str> = played.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["opp1400", "opp1550", "opp1700"], "every game of the period, by name");
    for (_, g) in &played {
        let (r_j, rd_j, s) = (q(g, "r_j"), q(g, "RD_j"), q(g, "s_j"));
        let g_j = 1.0 / (1.0 + 3.0 * qq * qq * rd_j * rd_j / (PI * PI)).sqrt();
        let e_j = 1.0 / (1.0 + 10f64.powf(-g_j * (r - r_j) / 400.0));
        info += g_j * g_j * e_j * (1.0 - e_j);
        gain += g_j * (s - e_j);
    }
    let d2 = 1.0 / (qq * qq * info);
    let rd_new = 1.0 / (1.0 / (rd * rd) + 1.0 / d2).sqrt();
    let r_new = r + qq * rd_new * rd_new * gain;
    close(r_new, q(&me, "r'"), 1e-12);
    close(rd_new, q(&me, "RD'"), 1e-12);
    // At the head the standings show the open period computed as if it closed: the same r'.
    let head = explain(&e, &["--algo", "glicko", "--event", "7", "--player", "player"]);
    close(r_new, after(&head, "player"), 1e-12);
    // Glickman's worked example: r' = 1464.06, RD' = 151.52 (he rounds q and g).
    close(r_new, 1464.06, 1e-4);
    close(rd_new, 151.52, 1e-3);
    // The winner of event 5 loses rating over the period, and the flag says why.
    let flags = v["explained"]["flags"].as_array().unwrap();
    let f = flags.iter().find(|f| f["flag"] == "winner-lost-rating").expect("flagged");
    assert!(f["why"].as_str().unwrap().contains("other games of the period"), "{f}");
}

#[test]
fn glicko_period_closing_later_is_named_and_anyone_in_it_can_be_asked() {
    let e = glickman();
    // The first event eleven days later closes 2026-03-01's period (the default period is 5d).
    e.ok(&["append", "--at", "2026-03-12T08:00:00Z", "join", "late"]);
    let v = explain(&e, &["--algo", "glicko", "--event", "5", "--player", "opp1700"]);
    assert_eq!(v["period"]["closes_at"], 8);
    assert_eq!(v["period"]["final"], false);
    let them = entries_of(&v["period"]["trace"], "opp1700");
    assert_eq!(games(&them).len(), 1);
    assert_eq!(games(&them)[0].0, "player");
    // At the closing event the numbers are final.
    let at8 = explain(&e, &["--algo", "glicko", "--event", "8", "--player", "player"]);
    assert!(at8["explained"]["trace"]
        .as_array()
        .unwrap()
        .iter()
        .any(|q| q["player"] == "player" && q["name"] == "r'"));
    let text = e.ok(&["explain", "--algo", "glicko", "--event", "5"]);
    assert!(text.contains("when the period closes: at event 8"), "{text}");
    assert!(text.contains("final only from event 8 on"), "{text}");
    // Someone with no game at the event or in its period is refused, naming the rule.
    let r = e.run(&["explain", "--algo", "glicko", "--event", "5", "--player", "late"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("does not name \"late\""), "{}", r.stderr);
}

#[test]
fn glicko2_period_rederived_from_the_json() {
    let e = glickman();
    let v = explain(&e, &["--algo", "glicko2", "--event", "7", "--player", "player"]);
    let me = entries_of(&v["period"]["trace"], "player");
    let (mu, phi, sigma, tau) = (q(&me, "mu"), q(&me, "phi"), q(&me, "sigma"), q(&me, "tau"));
    let (mut info, mut gain) = (0.0, 0.0);
    for (_, g) in games(&me) {
        let (mu_j, phi_j, s) = (q(&g, "mu_j"), q(&g, "phi_j"), q(&g, "s_j"));
        let g_j = 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
        let e_j = 1.0 / (1.0 + (-g_j * (mu - mu_j)).exp());
        info += g_j * g_j * e_j * (1.0 - e_j);
        gain += g_j * (s - e_j);
    }
    let v_ = 1.0 / info;
    let delta = v_ * gain;
    // Glickman's step 5, the Illinois algorithm, to epsilon = 1e-6 (the default).
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v_ - ex) / (2.0 * (phi * phi + v_ + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v_ {
        (delta * delta - phi * phi - v_).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut fa, mut fb) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > 1e-6 {
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
    }
    let sigma_new = (big_a / 2.0).exp();
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v_).sqrt();
    let mu_new = mu + phi_new * phi_new * gain;
    let r_new = 173.7178 * mu_new + 1500.0;
    close(r_new, q(&me, "r'"), 1e-9);
    close(r_new, after(&v, "player"), 1e-9);
    close(173.7178 * phi_new, q(&me, "RD'"), 1e-9);
    // Glickman's example: r' = 1464.06, RD' = 151.52, sigma' = 0.05999.
    close(r_new, 1464.06, 1e-4);
    close(173.7178 * phi_new, 151.52, 1e-3);
    close(sigma_new, 0.05999, 1e-4);
}

#[test]
fn tgr_update_rederived_from_the_json_both_orders() {
    let e = glickman();
    for order in ["as-written", "simultaneous"] {
        let set = format!("p=0.35,order={order}");
        let v = explain(&e, &["--algo", "tgr", "--set", &set, "--event", "6"]);
        for who in ["player", "opp1550"] {
            let me = entries_of(&v["explained"]["trace"], who);
            let (p, sc, qq, pi) = (q(&me, "P"), q(&me, "SC"), q(&me, "Q"), q(&me, "PI"));
            #[allow(clippy::approx_constant)] // the seed's own rounding of pi, on purpose
            let seed_pi = 3.14159265359;
            assert_eq!(pi, seed_pi, "the seed's PI");
            let (r1, rd1, t1) =
                (q(&me, "Player1.Rating"), q(&me, "Player1.RD"), q(&me, "Player1.Time"));
            let (r2, rd2) = (q(&me, "Player2.Rating"), q(&me, "Player2.RD"));
            let (time, win) = (q(&me, "Time"), q(&me, "Win"));
            // The seed's UpdatePlayer, line by line.
            let prd = (rd1 * rd1 + (time - t1) * sc * sc).sqrt().min(350.0);
            let pg = 1.0 / (1.0 + 3.0 * qq * qq * rd2 * rd2 / (pi * pi)).sqrt();
            let pe = 1.0 / (1.0 + 10f64.powf(-pg * (r1 - r2) / 400.0));
            let g = 1.0 / (1.0 + 3.0 * qq * qq * (rd1 * rd1 + rd2 * rd2) / (pi * pi)).sqrt();
            let win_prob = 1.0 / (1.0 + 10f64.powf(-g * (r1 - r2) / 400.0));
            let xd = (win - win_prob).abs();
            let pmerit = 1.0 - (1.0 - p) * xd * (1.0 + 2.0 * xd);
            let v_ = 1.0 / (pg * pg * pe * (1.0 - pe) * qq * qq);
            let rating =
                r1 + qq * pg * (win - pe) * (2.0 * pmerit - 1.0) / (1.0 / (prd * prd) + 1.0 / v_);
            let rd = 1.0 / (1.0 / (prd * prd) + 1.0 / v_).sqrt();
            close(rating, q(&me, "Rating"), 1e-12);
            close(rd, q(&me, "RD"), 1e-12);
            close(rating, after(&v, who), 1e-12);
        }
        // The second update sees the winner... as the order says.
        let opp = entries_of(&v["explained"]["trace"], "opp1550");
        let first = entries_of(&v["explained"]["trace"], "player");
        let seen = q(&opp, "Player2.Rating");
        match order {
            "as-written" => assert_eq!(seen, q(&first, "Rating")),
            _ => assert_eq!(seen, q(&first, "Player1.Rating")),
        }
    }
}

#[test]
fn elo_rederived_from_the_json() {
    let e = glickman();
    let v = explain(&e, &["--algo", "elo", "--event", "6"]);
    for who in ["player", "opp1550"] {
        let me = entries_of(&v["explained"]["trace"], who);
        let (r, k) = (q(&me, "r"), q(&me, "K"));
        let mut r_new = r;
        for (_, g) in games(&me) {
            let (r_j, s) = (q(&g, "r_j"), q(&g, "s"));
            r_new += k * (s - 1.0 / (1.0 + 10f64.powf((r_j - r) / 400.0)));
        }
        close(r_new, after(&v, who), 1e-12);
    }
}

#[test]
fn zonestats_rederived_from_the_json() {
    let e = glickman();
    let v = explain(&e, &["--algo", "zonestats", "--event", "6"]);
    let trace = &v["explained"]["trace"];
    let shared: Vec<&Value> =
        trace.as_array().unwrap().iter().filter(|q| q["player"].is_null()).collect();
    let (t, mult, max_len) =
        (q(&shared, "T"), q(&shared, "GAME_MULT"), q(&shared, "MAX_GAME_LENGTH"));
    let (a, b) = (entries_of(trace, "player"), entries_of(trace, "opp1550"));
    let (ra, rb) = (q(&a, "rating"), q(&b, "rating"));
    let (ta, tb) = (q(&a, "time_in_game"), q(&b, "time_in_game"));
    // Event 6: opp1550 (seat 2) beat player (seat 1). Equations 1 to 6, from player's side.
    let predicted = 1.0 / (1.0 + ((rb - ra) / t).exp());
    let indiv = (0.0 - predicted) * mult * max_len.min(ta).min(tb);
    let highest = indiv.abs();
    let time_in_game = ta; // both players were in the whole game
    let scale = (time_in_game * mult / highest).min(1.0);
    close(ra + indiv * scale, after(&v, "player"), 1e-12);
    close(rb - indiv * scale, after(&v, "opp1550"), 1e-12);
}

#[test]
fn performance_rederived_from_the_json() {
    let e = glickman();
    let v = explain(&e, &["--algo", "performance", "--event", "7", "--player", "player"]);
    let me = entries_of(&v["explained"]["trace"], "player");
    let n = me.iter().filter(|q| q["name"].as_str().is_some_and(|s| s.starts_with("w_"))).count();
    assert!(n >= 3, "every game and fictitious game is listed");
    let terms: Vec<(f64, f64, f64)> = (1..=n)
        .map(|i| (q(&me, &format!("w_{i}")), q(&me, &format!("r_{i}")), q(&me, &format!("k_{i}"))))
        .collect();
    // The performance equation: Σ k_i (w_i - W(r_i - RP)) = 0 with W(d) = 1 / (1 + 10^(d/400)),
    // solved here by plain bisection (W falls in r_i - RP, so the sum rises with RP).
    let sum = |rp: f64| -> f64 {
        terms.iter().map(|(w, r, k)| k * (w - 1.0 / (1.0 + 10f64.powf((r - rp) / 400.0)))).sum()
    };
    let (mut lo, mut hi) = (-10_000.0, 10_000.0);
    assert!(sum(lo) > 0.0 && sum(hi) < 0.0, "a root between");
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if sum(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    close((lo + hi) / 2.0, q(&me, "RP"), 1e-9);
    close((lo + hi) / 2.0, after(&v, "player"), 1e-9);
}

#[test]
fn vs_shows_the_same_players_change_under_other_constants_for_every_algorithm() {
    let e = glickman();
    for (algo, vs) in [
        ("tgr", "p=0.9"),
        ("glicko", "c=60"),
        ("glicko2", "tau=0.3"),
        ("elo", "k=32"),
        ("zonestats", "t=200"),
        ("performance", "variant=p2"),
    ] {
        let v = explain(&e, &["--algo", algo, "--event", "6", "--vs", vs]);
        let other = &v["vs"][0];
        assert!(other["config"].as_str().unwrap().contains(vs), "{algo}: {other}");
        let names = |x: &Value| -> Vec<String> {
            x["players"].as_array().unwrap().iter().map(|p| p["player"].to_string()).collect()
        };
        assert_eq!(names(other), names(&v["explained"]), "{algo}");
        assert!(other["players"][0]["change"].is_f64(), "{algo}: {other}");
    }
}

#[test]
fn the_table_tells_the_arithmetic_first_and_the_proof_after() {
    // Issue 28, item 8: about 30 lines of inclusion proof used to stand before the arithmetic.
    let e = glickman();
    for algo in ["tgr", "glicko2", "elo"] {
        let text = e.ok(&["explain", "--algo", algo, "--event", "5"]);
        let at = |what: &str| text.find(what).unwrap_or_else(|| panic!("{what}:\n{text}"));
        assert!(at("event 5 as stored:") < at("\nunder "), "{text}");
        assert!(at("\nunder ") < at("player "), "{text}");
        // Every line of the arithmetic (the standings table, the trace, the flags) comes before
        // the chain and the proof, which close the page.
        assert!(at("player ") < at("\nchain:"), "{text}");
        assert!(at("\nchain:") < at("inclusion (RFC 6962"), "{text}");
        assert!(text.trim_end().ends_with("--pubkey KEY"), "{text}");
        assert!(text.contains("(SHA-256 of 0x00 and the line above)"), "{text}");
    }
}

/// `player`'s rating in `ladder replay --until UNTIL --format json` under `sets`.
fn rating_until(e: &Env, algo: &str, sets: &str, until: u64) -> f64 {
    let out = e.ok(&[
        "replay",
        "--algo",
        algo,
        "--set",
        sets,
        "--until",
        &until.to_string(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    crate::support::entry(&v["players"], "player", "player")["rating"].as_f64().unwrap()
}

#[test]
fn a_periods_whole_change_and_this_games_effect_are_told_apart_and_agree_with_replay_until() {
    // glickman.jsonl's three games of `player` share one day; a game of two others the next day
    // (event 8) closes that day's period under period=1d.
    let e = glickman();
    let later = e.file(
        "later.jsonl",
        b"{\"type\":\"MatchResult\",\"at\":\"2026-03-02T10:00:00Z\",\"id\":\"g4\",\"seats\":[{\"player\":\"opp1400\",\"score\":1},{\"player\":\"opp1550\",\"score\":0}]}\n",
    );
    e.ok(&["import", later.to_str().unwrap()]);
    let sets = "period=1d";
    for algo in ["glicko", "glicko2"] {
        // The period's start: no game of `player` yet (the prior they joined with).
        let start = rating_until(&e, algo, sets, 4);
        // Its close: every game of the period, before the event that closes it.
        let end = rating_until(&e, algo, sets, 7);
        for seq in 5..=7u64 {
            let v = explain(&e, &["--algo", algo, "--set", sets, "--event", &seq.to_string()]);
            let period = &v["period"];
            assert_eq!(period["closes_at"], 8, "{algo} {seq}: {period}");
            let c = crate::support::entry(&period["changes"], "player", "player");
            let game = &c["this_game"];
            let whole = &c["whole_period"];
            let label = game["label"].as_str().unwrap();
            assert!(label.starts_with("this game's effect"), "{label}");
            assert!(label.contains(&format!("replay --until {})", seq - 1)), "{label}");
            assert!(label.contains(&format!("replay --until {seq})")), "{label}");
            let label = whole["label"].as_str().unwrap();
            assert!(label.starts_with("the whole period's change"), "{label}");
            assert!(label.contains("close at event 8") && label.contains("replay --until 7"));
            // This game: the period closed without it and with it, as replay gives them.
            let (without, with) =
                (game["without"].as_f64().unwrap(), game["with"].as_f64().unwrap());
            close(without, rating_until(&e, algo, sets, seq - 1), 1e-12);
            close(with, rating_until(&e, algo, sets, seq), 1e-12);
            close(game["change"].as_f64().unwrap(), with - without, 1e-12);
            // The table's before and after are the same two numbers.
            let me = crate::support::entry(&v["explained"]["players"], "player", "player");
            close(me["before"]["rating"].as_f64().unwrap(), without, 1e-12);
            close(me["after"]["rating"].as_f64().unwrap(), with, 1e-12);
            // The whole period: from its start to its close, whichever game is explained.
            close(whole["start"].as_f64().unwrap(), start, 1e-9);
            close(whole["end"].as_f64().unwrap(), end, 1e-9);
            close(whole["change"].as_f64().unwrap(), end - start, 1e-9);
            // The table view says the same, labelled, arithmetic first and the proof after.
            let text =
                e.ok(&["explain", "--algo", algo, "--set", sets, "--event", &seq.to_string()]);
            let told = text.find("two changes, told apart:").unwrap_or_else(|| panic!("{text}"));
            assert!(text.contains("this game    = this game's effect"), "{text}");
            assert!(text.contains("whole period = the whole period's change"), "{text}");
            assert!(told < text.find("inclusion (RFC 6962").unwrap(), "{text}");
            let row = format!(
                "whole period {:>10} -> {:>10}",
                format!("{start:.2}"),
                format!("{end:.2}")
            );
            assert!(text.contains(&row), "{row} missing from {text}");
        }
    }
}
