//! Differential tests against the skillratings crate (an independent implementation).
//!
//! skillratings applies Glicko's c once per call and caps only that decay at 350, and never caps
//! Glicko-2's phi*: so Glicko-1 is compared with c = 0 and RDs at most 300, where neither the
//! growth nor a cap can differ, and every case is one rating period that everyone joins and plays
//! in (t = 0, docs/spec.md).

use crate::common::*;
use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{Algorithm, Projector};
use skillratings::glicko::{glicko_rating_period, GlickoConfig, GlickoRating};
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

const CASES: usize = 10_000;
const DAY: i64 = 20_000;

/// One random period: player 0 against `m` opponents, each once, with a random result.
struct Case {
    ratings: Vec<f64>,
    rds: Vec<f64>,
    volatilities: Vec<f64>,
    /// Player 0's result against opponent j + 1.
    results: Vec<f64>,
}

fn case(rng: &mut SplitMix64) -> Case {
    let m = 1 + rng.below(10) as usize;
    let n = m + 1;
    Case {
        ratings: (0..n).map(|_| range(rng, 800.0, 2800.0)).collect(),
        rds: (0..n).map(|_| range(rng, 20.0, 300.0)).collect(),
        volatilities: (0..n).map(|_| range(rng, 0.02, 0.12)).collect(),
        results: (0..m).map(|_| [0.0, 0.5, 1.0][rng.below(3) as usize]).collect(),
    }
}

fn outcome(s: f64) -> Outcomes {
    match s {
        1.0 => Outcomes::WIN,
        0.0 => Outcomes::LOSS,
        _ => Outcomes::DRAW,
    }
}

fn play<P: Projector>(p: P, c: &Case, with_volatility: bool) -> Run<P> {
    let mut run = Run::new(p);
    for i in 0..c.ratings.len() {
        let v = with_volatility.then_some(c.volatilities[i]);
        run.join(i as u32, at(DAY, 60), prior(c.ratings[i], c.rds[i], v));
    }
    for (j, &s) in c.results.iter().enumerate() {
        run.play(at(DAY, 120 + j as i64), &[(0, s), (j as u32 + 1, 1.0 - s)]).unwrap();
    }
    run
}

#[test]
fn glicko1_matches_skillratings_on_random_periods() {
    let mut rng = SplitMix64(0x5EED_0001);
    let config = GlickoConfig { c: 0.0 };
    let mut compared = 0;
    for _ in 0..CASES {
        let c = case(&mut rng);
        let p = Glicko::new(crate::common::config("glicko", glicko::PARAMS, "c=0")).unwrap();
        let run = play(p, &c, false);
        let standings = run.p.standings();
        let rating = |i: usize| GlickoRating { rating: c.ratings[i], deviation: c.rds[i] };
        let results: Vec<_> =
            c.results.iter().enumerate().map(|(j, &s)| (rating(j + 1), outcome(s))).collect();
        let want = glicko_rating_period(&rating(0), &results, &config);
        close(standings[0].rating, want.rating, 1e-9);
        close(standings[0].rd.unwrap(), want.deviation, 1e-9);
        for (j, &s) in c.results.iter().enumerate() {
            let want =
                glicko_rating_period(&rating(j + 1), &[(rating(0), outcome(1.0 - s))], &config);
            close(standings[j + 1].rating, want.rating, 1e-9);
            close(standings[j + 1].rd.unwrap(), want.deviation, 1e-9);
            compared += 1;
        }
    }
    assert!(compared >= CASES);
}

#[test]
fn glicko2_matches_skillratings_on_random_periods() {
    let mut rng = SplitMix64(0x5EED_0002);
    for _ in 0..CASES {
        let c = case(&mut rng);
        let tau = range(&mut rng, 0.3, 1.2);
        let sets = format!("tau={tau}");
        let p = Glicko2::new(crate::common::config("glicko2", glicko2::PARAMS, &sets)).unwrap();
        let run = play(p, &c, true);
        let standings = run.p.standings();
        let config = Glicko2Config { tau, convergence_tolerance: 1e-6 };
        let rating = |i: usize| Glicko2Rating {
            rating: c.ratings[i],
            deviation: c.rds[i],
            volatility: c.volatilities[i],
        };
        let results: Vec<_> =
            c.results.iter().enumerate().map(|(j, &s)| (rating(j + 1), outcome(s))).collect();
        let want = glicko2_rating_period(&rating(0), &results, &config);
        close(standings[0].rating, want.rating, 1e-9);
        close(standings[0].rd.unwrap(), want.deviation, 1e-9);
        close(standings[0].volatility.unwrap(), want.volatility, 1e-9);
        for (j, &s) in c.results.iter().enumerate() {
            let want =
                glicko2_rating_period(&rating(j + 1), &[(rating(0), outcome(1.0 - s))], &config);
            close(standings[j + 1].rating, want.rating, 1e-9);
            close(standings[j + 1].rd.unwrap(), want.deviation, 1e-9);
            close(standings[j + 1].volatility.unwrap(), want.volatility, 1e-9);
        }
    }
}

/// period=game with every game at one instant (no idle time) is skillratings' per-game `glicko`
/// (c = 0) and `glicko2` functions: each game is compared from the same values before it
/// (chaining 2000 games through both would compare accumulated rounding instead).
#[test]
fn period_game_matches_skillratings_game_by_game() {
    let mut rng = SplitMix64(0x5EED_0003);
    let n = 30;
    let mut g1 =
        Run::new(Glicko::new(config("glicko", glicko::PARAMS, "c=0,period=game")).unwrap());
    let mut g2 = Run::new(Glicko2::new(config("glicko2", glicko2::PARAMS, "period=game")).unwrap());
    for i in 0..n {
        let (r, rd) = (range(&mut rng, 1000.0, 2200.0), range(&mut rng, 40.0, 300.0));
        g1.join(i as u32, at(DAY, 0), prior(r, rd, None));
        g2.join(i as u32, at(DAY, 0), prior(r, rd, Some(range(&mut rng, 0.03, 0.09))));
    }
    for _ in 0..2000 {
        let a = rng.below(n as u64) as usize;
        let b = (a + 1 + rng.below(n as u64 - 1) as usize) % n;
        let s = [0.0, 0.5, 1.0][rng.below(3) as usize];
        let (s1, s2) = (g1.p.standings(), g2.p.standings());
        let one = |i: usize| GlickoRating { rating: s1[i].rating, deviation: s1[i].rd.unwrap() };
        let two = |i: usize| Glicko2Rating {
            rating: s2[i].rating,
            deviation: s2[i].rd.unwrap(),
            volatility: s2[i].volatility.unwrap(),
        };
        let (want1a, want1b) =
            skillratings::glicko::glicko(&one(a), &one(b), &outcome(s), &GlickoConfig { c: 0.0 });
        let (want2a, want2b) =
            skillratings::glicko2::glicko2(&two(a), &two(b), &outcome(s), &Glicko2Config::new());
        g1.play(at(DAY, 0), &[(a as u32, s), (b as u32, 1.0 - s)]).unwrap();
        g2.play(at(DAY, 0), &[(a as u32, s), (b as u32, 1.0 - s)]).unwrap();
        let (s1, s2) = (g1.p.standings(), g2.p.standings());
        for (i, w1, w2) in [(a, want1a, want2a), (b, want1b, want2b)] {
            close(s1[i].rating, w1.rating, 1e-9);
            close(s1[i].rd.unwrap(), w1.deviation, 1e-9);
            close(s2[i].rating, w2.rating, 1e-9);
            close(s2[i].rd.unwrap(), w2.deviation, 1e-9);
            close(s2[i].volatility.unwrap(), w2.volatility, 1e-9);
        }
    }
}
