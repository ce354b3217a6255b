//! Glickman's worked examples (the Wikipedia article "Glicko system" for Glicko, Glickman's
//! "Example of the Glicko-2 system" for Glicko-2): a 1500/200 player beats 1400/30 and loses to
//! 1550/100 and 1700/300, all inside one rating period, everyone joining with their prior in that
//! period (t = 0).
//!
//! Expected values: Glicko-1 1464.1064627569112 / 151.39890244796933 and Glicko-2
//! 1464.0506705393013 / 151.51652412385727 / 0.059995984286488495 (the brief's reference values;
//! Glickman's papers print 1464 / 151.4 and 1464.06 / 151.52 / 0.05999). The trace is checked
//! against the intermediate values the seeds print, to their printed digits.

use crate::common::*;
use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{fold_all, Algorithm, Projector, Trace, TraceEntry};

const DAY: i64 = 20_513; // 2026-03-01

fn glickman_ladder<P: Projector>(p: P, volatility: Option<f64>) -> Run<P> {
    let mut run = Run::new(p);
    run.join(0, at(DAY, 9 * 3600), prior(1500.0, 200.0, volatility));
    run.join(1, at(DAY, 9 * 3600), prior(1400.0, 30.0, volatility));
    run.join(2, at(DAY, 9 * 3600), prior(1550.0, 100.0, volatility));
    run.join(3, at(DAY, 9 * 3600), prior(1700.0, 300.0, volatility));
    run.play(at(DAY, 10 * 3600), &[(0, 1.0), (1, 0.0)]).unwrap();
    run.play(at(DAY, 11 * 3600), &[(0, 0.0), (2, 1.0)]).unwrap();
    run.play(at(DAY, 12 * 3600), &[(0, 0.0), (3, 1.0)]).unwrap();
    run
}

#[test]
fn glicko1_direct() {
    // c is irrelevant: everyone joins and plays in one period, t = 0.
    for c in ["0", "34.64", "200"] {
        let p = Glicko::new(config("glicko", glicko::PARAMS, &format!("c={c}"))).unwrap();
        let mut run = glickman_ladder(p, None);
        // standings() closes the period on the side ...
        let s = run.standing(0);
        close(s.rating, 1464.1064627569112, 1e-9);
        close(s.rd.unwrap(), 151.39890244796933, 1e-9);
        assert_eq!(s.games, 3);
        // ... and so does the next period's first step, for real.
        run.tick(at(DAY + 1, 0), None).unwrap();
        let s = run.standing(0);
        close(s.rating, 1464.1064627569112, 1e-9);
        close(s.rd.unwrap(), 151.39890244796933, 1e-9);
    }
}

#[test]
fn glicko1_fixture() {
    let mut p = Glicko::new(config("glicko", glicko::PARAMS, "")).unwrap();
    let roster = fold_all(&fixture("glickman.jsonl"), &mut p).unwrap();
    let id = roster.get("player").unwrap();
    let s = p.standings().into_iter().find(|s| s.player == id).unwrap();
    close(s.rating, 1464.1064627569112, 1e-9);
    close(s.rd.unwrap(), 151.39890244796933, 1e-9);
    assert_eq!(s.games, 3);
}

#[test]
fn glicko2_direct() {
    let p = Glicko2::new(config("glicko2", glicko2::PARAMS, "tau=0.5,sigma=0.06")).unwrap();
    let mut run = glickman_ladder(p, Some(0.06));
    let s = run.standing(0);
    close(s.rating, 1464.0506705393013, 1e-9);
    close(s.rd.unwrap(), 151.51652412385727, 1e-9);
    close(s.volatility.unwrap(), 0.059995984286488495, 1e-9);
    // The next period's first step closes the period for real, to the same values.
    run.tick(at(DAY + 1, 0), None).unwrap();
    let s = run.standing(0);
    close(s.rating, 1464.0506705393013, 1e-9);
    close(s.rd.unwrap(), 151.51652412385727, 1e-9);
    close(s.volatility.unwrap(), 0.059995984286488495, 1e-9);
}

#[test]
fn glicko2_fixture() {
    let mut p = Glicko2::new(config("glicko2", glicko2::PARAMS, "tau=0.5,sigma=0.06")).unwrap();
    let roster = fold_all(&fixture("glickman.jsonl"), &mut p).unwrap();
    let id = roster.get("player").unwrap();
    let s = p.standings().into_iter().find(|s| s.player == id).unwrap();
    close(s.rating, 1464.0506705393013, 1e-9);
    close(s.rd.unwrap(), 151.51652412385727, 1e-9);
    close(s.volatility.unwrap(), 0.059995984286488495, 1e-9);
}

/// The section of the period computation is in the trace of the step that closes the period.
fn closing_trace<P: Projector>(run: &mut Run<P>) -> Trace {
    // A match's own trace only says when it will be rated.
    let mut during = Trace::new();
    run.play_traced(at(DAY, 13 * 3600), &[(1, 0.5), (2, 0.5)], Some(&mut during)).unwrap();
    assert!(
        matches!(&during.entries[..], [TraceEntry::Section(s)] if s.contains("period 20513 closes"))
    );
    let mut trace = Trace::new();
    run.tick(at(DAY + 1, 0), Some(&mut trace)).unwrap();
    assert!(
        matches!(&trace.entries[0], TraceEntry::Section(s) if s.contains("period 20513")
            && s.contains("[2026-03-01T00:00:00Z, 2026-03-02T00:00:00Z)")),
        "{:?}",
        trace.entries.first()
    );
    trace
}

#[test]
fn glicko1_trace_has_the_seed_quantities() {
    let mut run = Run::new(Glicko::new(config("glicko", glicko::PARAMS, "")).unwrap());
    run.join(0, at(DAY, 0), prior(1500.0, 200.0, None));
    run.join(1, at(DAY, 0), prior(1400.0, 30.0, None));
    run.join(2, at(DAY, 0), prior(1550.0, 100.0, None));
    run.join(3, at(DAY, 0), prior(1700.0, 300.0, None));
    run.play(at(DAY, 3600), &[(0, 1.0), (1, 0.0)]).unwrap();
    run.play(at(DAY, 7200), &[(0, 0.0), (2, 1.0)]).unwrap();
    run.play(at(DAY, 10800), &[(0, 0.0), (3, 1.0)]).unwrap();
    let mut trace = Trace::new();
    run.tick(at(DAY + 1, 0), Some(&mut trace)).unwrap();
    assert!(
        matches!(&trace.entries[0], TraceEntry::Section(s) if s.starts_with("glicko period 20513"))
    );
    // Glickman's table (the Wikipedia article "Glicko system" and Glickman's "Example of the
    // Glicko-2 system" print the same g and E): g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432,
    // 0.303.
    for (n, (g, e)) in [(0.9955, 0.639), (0.9531, 0.432), (0.7242, 0.303)].into_iter().enumerate() {
        close(quantity(&trace, 0, "g(RD_j)", n), g, 5e-5);
        close(quantity(&trace, 0, "E", n), e, 5e-4);
    }
    assert_eq!(quantity(&trace, 0, "t", 0), 0.0);
    close(quantity(&trace, 0, "RD*", 0), 200.0, 0.0);
    // Glickman's Glicko paper: d^2 = 53670.85, r' = 1464, RD' = 151.4. The paper computes d^2 from
    // E rounded to 3 digits: +-0.0005 on each E moves Σ g^2 E (1 - E) (about 0.562) by up to
    // 0.0005 (0.99*0.28 + 0.91*0.14 + 0.52*0.39) = 3e-4, i.e. 5e-4 relative: about 30 on d^2.
    close(quantity(&trace, 0, "d^2", 0), 53670.85, 30.0);
    close(quantity(&trace, 0, "r'", 0), 1464.0, 0.5);
    close(quantity(&trace, 0, "RD'", 0), 151.4, 0.05);
    // The player won 1 of 3 and lost rating: no winner-lost-rating flag; no cap, no idle gap.
    assert!(!has_flag(&trace, 0, "winner-lost-rating"));
    assert!(!has_flag(&trace, 0, "rd-at-cap"));
}

#[test]
fn glicko2_trace_follows_the_seed_table() {
    let p = Glicko2::new(config("glicko2", glicko2::PARAMS, "tau=0.5")).unwrap();
    let mut run = glickman_ladder(p, Some(0.06));
    let trace = closing_trace(&mut run);
    // Glickman's Glicko-2 example: mu = 0, phi = 1.1513; opponents' g and E as in its table.
    close(quantity(&trace, 0, "mu", 0), 0.0, 0.0);
    close(quantity(&trace, 0, "phi", 0), 1.1513, 5e-5);
    assert_eq!(quantity(&trace, 0, "k", 0), 0.0);
    for (n, (mu, phi, g, e)) in [
        (-0.5756, 0.1727, 0.9955, 0.639),
        (0.2878, 0.5756, 0.9531, 0.432),
        (1.1513, 1.7269, 0.7242, 0.303),
    ]
    .into_iter()
    .enumerate()
    {
        close(quantity(&trace, 0, "mu_j", n), mu, 5e-5);
        close(quantity(&trace, 0, "phi_j", n), phi, 5e-5);
        close(quantity(&trace, 0, "g(phi_j)", n), g, 5e-5);
        close(quantity(&trace, 0, "E", n), e, 5e-4);
    }
    // Glickman's Glicko-2 example: v = 1.7785, Delta = -0.4834, computed from E rounded to 3
    // digits, which moves 1/v by up to 3e-4 (see the Glicko-1 test above): about 1e-3 on v and on
    // Delta.
    close(quantity(&trace, 0, "v", 0), 1.7785, 1e-3);
    close(quantity(&trace, 0, "Delta", 0), -0.4834, 1e-3);
    // Glickman's Glicko-2 example, step 5: A = a = ln(0.06^2) = -5.62682, k = 1, B = -6.12682,
    // f_A = -0.00053567, f_B = 1.999675. The f values inherit the rounding of v and Delta: 1e-3
    // on v moves f(a) = e^a (Delta^2 - phi^2 - v - e^a) / (2 (phi^2 + v + e^a)^2) by about
    // 0.0036 * 1e-3 / 19.3 + 0.000536 * 2e-3 / 3.1, i.e. 5e-7.
    close(quantity(&trace, 0, "a", 0), -5.62682, 5e-6);
    assert_eq!(quantity(&trace, 0, "k", 1), 1.0);
    close(quantity(&trace, 0, "A[0]", 0), -5.62682, 5e-6);
    close(quantity(&trace, 0, "B[0]", 0), -6.12682, 5e-6);
    close(quantity(&trace, 0, "f_A[0]", 0), -0.00053567, 5e-7);
    close(quantity(&trace, 0, "f_B[0]", 0), 1.999675, 5e-6);
    // Iteration 1: A = -5.62682, B = -5.62696, f_A = -0.00026784, f_B = 0.000000015238.
    close(quantity(&trace, 0, "A[1]", 0), -5.62682, 5e-6);
    close(quantity(&trace, 0, "B[1]", 0), -5.62696, 5e-6);
    close(quantity(&trace, 0, "f_A[1]", 0), -0.00026784, 2.5e-7);
    // f(C) near the root inherits about 1e-11 from the rounded v and Delta.
    close(quantity(&trace, 0, "f_B[1]", 0), 0.000000015238, 1e-11);
    // Iteration 2: A = B = -5.62696, f_A = f_B = 0.000000015238; then |B - A| <= epsilon.
    close(quantity(&trace, 0, "A[2]", 0), -5.62696, 5e-6);
    close(quantity(&trace, 0, "B[2]", 0), -5.62696, 5e-6);
    close(quantity(&trace, 0, "f_A[2]", 0), 0.000000015238, 1e-11);
    assert_eq!(quantity(&trace, 0, "iterations", 0), 2.0);
    // sigma' = 0.05999, phi* = 1.152862, phi' = 0.8722, mu' = -0.2069, r' = 1464.06, RD' = 151.52.
    // The seed prints sigma' = e^(-5.62696/2) truncated to 0.05999 (it is 0.0599960...).
    close(quantity(&trace, 0, "sigma'", 0), 0.05999, 1e-5);
    // The seed's phi* = sqrt(1.1513^2 + 0.05999^2) starts from phi rounded to 1.1513
    // (200 / 173.7178 = 1.151292...): 8e-6 inherited.
    close(quantity(&trace, 0, "phi*", 0), 1.152862, 1e-5);
    close(quantity(&trace, 0, "phi'", 0), 0.8722, 5e-5);
    close(quantity(&trace, 0, "mu'", 0), -0.2069, 5e-5);
    // The seed converts the rounded mu' and phi' back: +-5e-5 times 173.7178 is +-0.009.
    close(quantity(&trace, 0, "r'", 0), 1464.06, 0.01);
    close(quantity(&trace, 0, "RD'", 0), 151.52, 0.01);
}
