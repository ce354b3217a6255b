//! Rating periods as docs/spec.md defines them, checked against hand calculations written out here
//! and against skillratings (c = 0, so skillratings adds no growth of its own).
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use crate::common::*;
use ladder_glicko::glicko2::SCALE;
use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{
    fold_all, Algorithm, Input, ProjectErrorKind, Projector, Trace, TraceEntry,
};
use skillratings::glicko::{glicko_rating_period, GlickoConfig, GlickoRating};
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes::{DRAW, LOSS, WIN};

const D: i64 = 20_000;
const NOON: i64 = 12 * 3600;

fn g1(sets: &str) -> Run<Glicko> {
    Run::new(Glicko::new(config("glicko", glicko::PARAMS, sets)).unwrap())
}

fn g2(sets: &str) -> Run<Glicko2> {
    Run::new(Glicko2::new(config("glicko2", glicko2::PARAMS, sets)).unwrap())
}

fn gr(rating: f64, deviation: f64) -> GlickoRating {
    GlickoRating { rating, deviation }
}

#[test]
fn glicko1_rd_grows_once_per_boundary_crossed() {
    let mut run = g1("c=10");
    run.join(0, at(D, NOON), prior(1500.0, 50.0, None)); // sits out
    run.join(1, at(D, NOON), prior(1500.0, 50.0, None));
    run.join(2, at(D, NOON), prior(1500.0, 50.0, None));
    run.play(at(D, NOON + 60), &[(1, 1.0), (2, 0.0)]).unwrap();
    // 3 boundaries later player 1 plays again and enters with RD* = sqrt(RD'^2 + 10^2 * 3).
    let rd1 = run.standing(1).rd.unwrap();
    let mut trace = Trace::new();
    run.play_traced(at(D + 3, 60), &[(1, 1.0), (2, 0.0)], None).unwrap();
    run.tick(at(D + 4, 0), Some(&mut trace)).unwrap();
    assert_eq!(quantity(&trace, 1, "t", 0), 3.0);
    close(quantity(&trace, 1, "RD*", 0), (rd1 * rd1 + 100.0 * 3.0).sqrt(), 1e-12);
    // The last period is day D+3: player 0 joined on day D, 3 boundaries before it.
    close(run.standing(0).rd.unwrap(), (50.0f64 * 50.0 + 100.0 * 3.0).sqrt(), 1e-12);
    // Player 1 played in the last period: no growth after it.
    close(run.standing(1).rd.unwrap(), quantity(&trace, 1, "RD'", 0), 0.0);
}

#[test]
fn glicko1_joining_and_playing_in_one_period_gets_t_0() {
    let mut run = g1("c=50");
    run.join(0, at(D, 23 * 3600), prior(1500.0, 100.0, None));
    run.join(1, at(D - 1, 23 * 3600), prior(1600.0, 80.0, None));
    let mut trace = Trace::new();
    run.play(at(D, 23 * 3600 + 1800), &[(0, 1.0), (1, 0.0)]).unwrap();
    run.tick(at(D + 1, 0), Some(&mut trace)).unwrap();
    // Player 0 joined in this period: t = 0. Player 1 joined the day before: t = 1.
    assert_eq!(quantity(&trace, 0, "t", 0), 0.0);
    assert_eq!(quantity(&trace, 1, "t", 0), 1.0);
    let rd1 = (80.0f64 * 80.0 + 50.0 * 50.0).sqrt();
    close(quantity(&trace, 1, "RD*", 0), rd1, 1e-12);
    let c0 = GlickoConfig { c: 0.0 };
    let want0 = glicko_rating_period(&gr(1500.0, 100.0), &[(gr(1600.0, rd1), WIN)], &c0);
    let want1 = glicko_rating_period(&gr(1600.0, rd1), &[(gr(1500.0, 100.0), LOSS)], &c0);
    close(run.standing(0).rating, want0.rating, 1e-9);
    close(run.standing(0).rd.unwrap(), want0.deviation, 1e-9);
    close(run.standing(1).rating, want1.rating, 1e-9);
    close(run.standing(1).rd.unwrap(), want1.deviation, 1e-9);
}

#[test]
fn glicko1_cap_and_long_idle_flags() {
    let mut run = g1("c=100");
    run.join(0, at(D, 0), prior(1500.0, 300.0, None));
    run.join(1, at(D, 0), prior(1500.0, 50.0, None));
    run.play(at(D + 40, 0), &[(0, 1.0), (1, 0.0)]).unwrap();
    let mut trace = Trace::new();
    run.tick(at(D + 41, 0), Some(&mut trace)).unwrap();
    // sqrt(300^2 + 100^2 * 40) > 350: RD* is the cap; 40 idle periods is a long gap.
    assert_eq!(quantity(&trace, 0, "RD*", 0), 350.0);
    assert!(has_flag(&trace, 0, "rd-at-cap"));
    assert!(has_flag(&trace, 0, "long-idle-gap"));
}

#[test]
fn winner_lost_rating_is_flagged() {
    // Two wins and a loss against much weaker, well-known players: 2 of 3 is more than half, but
    // each win gains little (E near 1) and the loss costs almost a whole game.
    for glicko2 in [false, true] {
        let mut trace = Trace::new();
        let rating = if glicko2 {
            let mut run = g2("");
            for i in 0..4 {
                let r = if i == 0 { 1500.0 } else { 1000.0 };
                run.join(i, at(D, 0), prior(r, if i == 0 { 300.0 } else { 30.0 }, Some(0.06)));
            }
            for (j, s) in [(1, 1.0), (2, 1.0), (3, 0.0)] {
                run.play(at(D, 60), &[(0, s), (j, 1.0 - s)]).unwrap();
            }
            run.tick(at(D + 1, 0), Some(&mut trace)).unwrap();
            run.standing(0).rating
        } else {
            let mut run = g1("");
            for i in 0..4 {
                let r = if i == 0 { 1500.0 } else { 1000.0 };
                run.join(i, at(D, 0), prior(r, if i == 0 { 300.0 } else { 30.0 }, None));
            }
            for (j, s) in [(1, 1.0), (2, 1.0), (3, 0.0)] {
                run.play(at(D, 60), &[(0, s), (j, 1.0 - s)]).unwrap();
            }
            run.tick(at(D + 1, 0), Some(&mut trace)).unwrap();
            run.standing(0).rating
        };
        assert!(rating < 1500.0, "{rating}");
        assert!(has_flag(&trace, 0, "winner-lost-rating"), "glicko2 = {glicko2}");
    }
}

/// Glickman's Glicko-2 example: a period sat out applies step 6 only, phi <- sqrt(phi^2 + sigma^2),
/// capped at rd_max; k periods at once must equal k single steps.
fn single_steps(rd: f64, sigma: f64, k: usize, rd_max: f64) -> f64 {
    let mut phi = rd / SCALE;
    for _ in 0..k {
        phi = (phi * phi + sigma * sigma).sqrt().min(rd_max / SCALE);
    }
    phi * SCALE
}

#[test]
fn glicko2_idle_periods_at_once_equal_single_steps() {
    let mut run = g2("sigma=0.06");
    run.join(0, at(D, NOON), prior(1500.0, 100.0, Some(0.05))); // never plays
    run.join(1, at(D, NOON), prior(1500.0, 340.0, Some(0.2))); // never plays, reaches the cap
    run.join(2, at(D, NOON), prior(1500.0, 90.0, None));
    run.join(3, at(D, NOON), prior(1500.0, 90.0, None));
    run.play(at(D, NOON + 60), &[(2, 1.0), (3, 0.0)]).unwrap();
    run.join(4, at(D + 4, 0), prior(1500.0, 90.0, None));
    run.play(at(D + 10, 0), &[(3, 1.0), (4, 0.0)]).unwrap();
    // Day D+10 is the last period. Player 0 sat out D..=D+10 (the join's own period counts): 11.
    close(run.standing(0).rd.unwrap(), single_steps(100.0, 0.05, 11, 350.0), 1e-9);
    close(run.standing(1).rd.unwrap(), single_steps(340.0, 0.2, 11, 350.0), 1e-9);
    assert_eq!(run.standing(1).rd.unwrap(), 350.0);
    // Player 2 played on day D and sat out D+1..=D+10: 10 periods, from the post-period values.
    let mut trace = Trace::new();
    run.tick(at(D + 11, 0), Some(&mut trace)).unwrap();
    let s2 = run.standing(2);
    let mut after_d = g2("sigma=0.06");
    after_d.join(2, at(D, NOON), prior(1500.0, 90.0, None));
    after_d.join(3, at(D, NOON), prior(1500.0, 90.0, None));
    after_d.play(at(D, NOON + 60), &[(2, 1.0), (3, 0.0)]).unwrap();
    let base = after_d.standing(2);
    close(
        s2.rd.unwrap(),
        single_steps(base.rd.unwrap(), base.volatility.unwrap(), 10, 350.0),
        1e-9,
    );
    // Player 3 played on day D, sat out D+1..=D+9 (9 periods), played on D+10.
    let base3 = after_d.standing(3);
    assert_eq!(quantity(&trace, 3, "k", 0), 9.0);
    close(
        quantity(&trace, 3, "phi", 0) * SCALE,
        single_steps(base3.rd.unwrap(), base3.volatility.unwrap(), 9, 350.0),
        1e-9,
    );
    // Player 4 joined on day D+4 and sat out D+4..=D+9: 6 periods.
    assert_eq!(quantity(&trace, 4, "k", 0), 6.0);
    close(quantity(&trace, 4, "phi", 0) * SCALE, single_steps(90.0, 0.06, 6, 350.0), 1e-9);
}

#[test]
fn glicko2_join_and_play_in_one_period_has_no_idle_step() {
    let mut run = g2("");
    run.join(0, at(D, 23 * 3600), prior(1500.0, 200.0, Some(0.06)));
    run.join(1, at(D - 1, 23 * 3600), prior(1400.0, 30.0, Some(0.06)));
    run.play(at(D, 23 * 3600 + 60), &[(0, 1.0), (1, 0.0)]).unwrap();
    let mut trace = Trace::new();
    run.tick(at(D + 1, 0), Some(&mut trace)).unwrap();
    assert_eq!(quantity(&trace, 0, "k", 0), 0.0);
    assert_eq!(quantity(&trace, 1, "k", 0), 1.0); // sat out the day it joined
    let rd1 = single_steps(30.0, 0.06, 1, 350.0);
    let want = glicko2_rating_period(
        &Glicko2Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 },
        &[(Glicko2Rating { rating: 1400.0, deviation: rd1, volatility: 0.06 }, WIN)],
        &Glicko2Config::new(),
    );
    close(run.standing(0).rating, want.rating, 1e-9);
    close(run.standing(0).rd.unwrap(), want.deviation, 1e-9);
    close(run.standing(0).volatility.unwrap(), want.volatility, 1e-9);
}

#[test]
fn period_game_grows_fractionally_before_each_match() {
    // Joined at midnight, played at 06:00 with idle = 1d: t = 0.25.
    let mut one = g1("c=40,period=game,idle=1d");
    let mut two = g2("period=game,idle=1d");
    one.join(0, at(D, 0), prior(1500.0, 100.0, None));
    one.join(1, at(D, 0), prior(1600.0, 80.0, None));
    two.join(0, at(D, 0), prior(1500.0, 100.0, Some(0.06)));
    two.join(1, at(D, 0), prior(1600.0, 80.0, Some(0.05)));
    one.play(at(D, 6 * 3600), &[(0, 1.0), (1, 0.0)]).unwrap();
    two.play(at(D, 6 * 3600), &[(0, 1.0), (1, 0.0)]).unwrap();
    // Glicko: RD* = sqrt(RD^2 + c^2 t) = sqrt(100^2 + 1600 / 4), sqrt(80^2 + 1600 / 4).
    let (a, b) =
        (gr(1500.0, (10_000.0f64 + 400.0).sqrt()), gr(1600.0, (6_400.0f64 + 400.0).sqrt()));
    let (wa, wb) = skillratings::glicko::glicko(&a, &b, &WIN, &GlickoConfig { c: 0.0 });
    close(one.standing(0).rating, wa.rating, 1e-9);
    close(one.standing(0).rd.unwrap(), wa.deviation, 1e-9);
    close(one.standing(1).rating, wb.rating, 1e-9);
    // Glicko-2: phi^2 + t sigma^2 = (100 / 173.7178)^2 + 0.06^2 / 4.
    let grown = |rd: f64, sigma: f64| ((rd / SCALE).powi(2) + sigma * sigma / 4.0).sqrt() * SCALE;
    let a = Glicko2Rating { rating: 1500.0, deviation: grown(100.0, 0.06), volatility: 0.06 };
    let b = Glicko2Rating { rating: 1600.0, deviation: grown(80.0, 0.05), volatility: 0.05 };
    let (wa, wb) = skillratings::glicko2::glicko2(&a, &b, &WIN, &Glicko2Config::new());
    close(two.standing(0).rating, wa.rating, 1e-9);
    close(two.standing(0).rd.unwrap(), wa.deviation, 1e-9);
    close(two.standing(1).rating, wb.rating, 1e-9);
    close(two.standing(1).volatility.unwrap(), wb.volatility, 1e-9);
    // With idle = 12h the same six hours are t = 0.5.
    let mut half = g1("c=40,period=game,idle=12h");
    half.join(0, at(D, 0), prior(1500.0, 100.0, None));
    half.join(1, at(D, 0), prior(1600.0, 80.0, None));
    let mut trace = Trace::new();
    half.play_traced(at(D, 6 * 3600), &[(0, 1.0), (1, 0.0)], Some(&mut trace)).unwrap();
    assert_eq!(quantity(&trace, 0, "t", 0), 0.5);
    close(quantity(&trace, 0, "RD*", 0), (10_000.0f64 + 800.0).sqrt(), 1e-12);
    // Standings grow everyone to the last match: player 2, joined at 03:00, gets t = 3h / 12h.
    let mut three = g1("c=40,period=game,idle=12h");
    three.join(0, at(D, 0), prior(1500.0, 100.0, None));
    three.join(1, at(D, 0), prior(1600.0, 80.0, None));
    three.join(2, at(D, 3 * 3600), prior(1500.0, 60.0, None));
    three.play(at(D, 6 * 3600), &[(0, 1.0), (1, 0.0)]).unwrap();
    close(three.standing(2).rd.unwrap(), (3600.0f64 + 1600.0 / 4.0).sqrt(), 1e-12);
}

#[test]
fn opponents_enter_with_their_values_at_the_period_start() {
    let mut run = g1("c=0");
    run.join(0, at(D, 0), prior(1500.0, 100.0, None));
    run.join(1, at(D, 0), prior(1450.0, 120.0, None));
    run.join(2, at(D, 0), prior(1700.0, 60.0, None));
    run.play(at(D, 60), &[(0, 1.0), (1, 0.0)]).unwrap();
    run.play(at(D, 120), &[(1, 1.0), (2, 0.0)]).unwrap();
    run.play(at(D, 180), &[(2, 0.5), (0, 0.5)]).unwrap();
    let c0 = GlickoConfig { c: 0.0 };
    let (a, b, c) = (gr(1500.0, 100.0), gr(1450.0, 120.0), gr(1700.0, 60.0));
    let wa = glicko_rating_period(&a, &[(b, WIN), (c, DRAW)], &c0);
    let wb = glicko_rating_period(&b, &[(a, LOSS), (c, WIN)], &c0);
    let wc = glicko_rating_period(&c, &[(b, LOSS), (a, DRAW)], &c0);
    for (i, w) in [wa, wb, wc].into_iter().enumerate() {
        close(run.standing(i as u32).rating, w.rating, 1e-9);
        close(run.standing(i as u32).rd.unwrap(), w.deviation, 1e-9);
        assert_eq!(run.standing(i as u32).games, 2);
    }
}

#[test]
fn multi_seat_matches_rate_every_pair_of_sides_in_one_period() {
    use ladder_projector::{PlayerId, SeatIn};
    let mut run = g1("c=0");
    let ratings = [1500.0, 1550.0, 1450.0, 1600.0, 1520.0];
    for (i, &r) in ratings.iter().enumerate() {
        run.join(i as u32, at(D, 0), prior(r, 100.0, None));
    }
    // A free-for-all with a tie: 0 beats 1 and 2; 1 and 2 draw.
    run.play(at(D, 60), &[(0, 30.0), (1, 22.0), (2, 22.0)]).unwrap();
    // Teams: {3, 4} (side 0) against {0} (side 1); team-mates are never compared, and each
    // cross-side pair compares the seats' own scores (docs/events.md): 3 beats 0, 0 beats 4.
    let seats = [
        SeatIn { player: PlayerId(3), score: 2.0, side: 0, seconds: None, home: false },
        SeatIn { player: PlayerId(0), score: 1.0, side: 1, seconds: None, home: false },
        SeatIn { player: PlayerId(4), score: 0.0, side: 0, seconds: None, home: false },
    ];
    run.step(at(D, 120), Input::Match { seats: &seats }, None).unwrap();
    let c0 = GlickoConfig { c: 0.0 };
    let r = |i: usize| gr(ratings[i], 100.0);
    let want = [
        glicko_rating_period(&r(0), &[(r(1), WIN), (r(2), WIN), (r(3), LOSS), (r(4), WIN)], &c0),
        glicko_rating_period(&r(1), &[(r(0), LOSS), (r(2), DRAW)], &c0),
        glicko_rating_period(&r(2), &[(r(0), LOSS), (r(1), DRAW)], &c0),
        glicko_rating_period(&r(3), &[(r(0), WIN)], &c0),
        glicko_rating_period(&r(4), &[(r(0), LOSS)], &c0),
    ];
    for (i, w) in want.iter().enumerate() {
        close(run.standing(i as u32).rating, w.rating, 1e-9);
        close(run.standing(i as u32).rd.unwrap(), w.deviation, 1e-9);
    }
    assert_eq!(run.standing(0).games, 2);
    assert_eq!(run.standing(4).games, 1);
}

#[test]
fn standings_do_not_mutate_and_equal_closing_the_period() {
    let events = fixture("club.jsonl");
    let mut one = Glicko::new(config("glicko", glicko::PARAMS, "")).unwrap();
    fold_all(&events, &mut one).unwrap();
    let mut two = Glicko2::new(config("glicko2", glicko2::PARAMS, "")).unwrap();
    fold_all(&events, &mut two).unwrap();
    let (state1, state2) = (one.state().clone(), two.state().clone());
    let (side1, side2) = (one.standings(), two.standings());
    assert_eq!(one.standings(), side1);
    assert_eq!(*one.state(), state1, "standings() changed the Glicko state");
    assert_eq!(*two.state(), state2, "standings() changed the Glicko-2 state");
    // settle() computes the same close on the side, traced, and changes nothing either.
    let (mut settled1, mut settled2) = (Trace::new(), Trace::new());
    one.settle(999, Some(&mut settled1)).unwrap();
    two.settle(999, Some(&mut settled2)).unwrap();
    assert_eq!(*one.state(), state1, "settle() changed the Glicko state");
    assert_eq!(*two.state(), state2, "settle() changed the Glicko-2 state");
    // A step of the next period closes it in place: the same trace, the same standings.
    let last = events.last().unwrap().at;
    let tick = ladder_projector::Step { seq: 999, at: at(last.day() + 1, 0), input: Input::Tick };
    let (mut trace1, mut trace2) = (Trace::new(), Trace::new());
    one.apply(&tick, Some(&mut trace1)).unwrap();
    two.apply(&tick, Some(&mut trace2)).unwrap();
    assert!(matches!(&trace1.entries[0], TraceEntry::Section(s) if s.starts_with("glicko period")));
    assert!(
        matches!(&trace2.entries[0], TraceEntry::Section(s) if s.starts_with("glicko2 period"))
    );
    assert_eq!(trace1.entries, settled1.entries);
    assert_eq!(trace2.entries, settled2.entries);
    assert_eq!(one.standings(), side1);
    assert_eq!(two.standings(), side2);
    assert_ne!(*one.state(), state1);
    assert_ne!(*two.state(), state2);
}

#[test]
fn a_later_join_closes_the_period_too() {
    let mut run = g2("");
    run.join(0, at(D, 0), prior(1500.0, 200.0, None));
    run.join(1, at(D, 0), prior(1500.0, 200.0, None));
    run.play(at(D, 60), &[(0, 1.0), (1, 0.0)]).unwrap();
    let mut trace = Trace::new();
    run.step(
        at(D + 2, 0),
        Input::Joined { player: ladder_projector::PlayerId(2), prior: Default::default() },
        Some(&mut trace),
    )
    .unwrap();
    assert!(
        matches!(&trace.entries[0], TraceEntry::Section(s) if s.starts_with("glicko2 period 20000"))
    );
    assert!(trace
        .entries
        .iter()
        .any(|e| matches!(e, TraceEntry::Section(s) if s == "glicko2 PlayerJoined #2")));
}

#[test]
fn impossible_tolerances_and_overflows_are_typed_errors_that_change_nothing() {
    // epsilon far below the float spacing of ln(sigma'^2) can never be met.
    for period in ["1d", "game"] {
        let mut run = g2(&format!("epsilon=1e-300,period={period}"));
        run.join(0, at(D, 0), prior(1500.0, 200.0, Some(0.06)));
        run.join(1, at(D, 0), prior(1400.0, 30.0, Some(0.06)));
        let before = run.p.state().clone();
        let result =
            run.play(at(D, 60), &[(0, 1.0), (1, 0.0)]).and_then(|()| run.tick(at(D + 1, 0), None));
        let err = result.unwrap_err();
        assert!(matches!(err.kind, ProjectErrorKind::NoConvergence { .. }), "{err}");
        if period == "game" {
            assert_eq!(*run.p.state(), before);
            assert_eq!(err.seq, 3);
        } else {
            assert_eq!(err.seq, 4, "named the step that closes the period");
            // standings() falls back to the values before the failed period.
            assert_eq!(run.standing(0).rating, 1500.0);
        }
    }
    // Ratings 10^7 apart: every E rounds to 0 or 1 and Glicko-2's v is infinite.
    let mut run = g2("period=game");
    run.join(0, at(D, 0), prior(1e7, 50.0, None));
    run.join(1, at(D, 0), prior(0.0, 50.0, None));
    let err = run.play(at(D, 60), &[(0, 1.0), (1, 0.0)]).unwrap_err();
    assert!(matches!(err.kind, ProjectErrorKind::NonFinite { quantity: "v", .. }), "{err}");
    assert_eq!(run.standing(0).games, 0);
    // Glicko-1 needs no v: 1/d^2 = 0 leaves RD' = RD*, and the ratings stay finite.
    let mut run = g1("c=0,period=game");
    run.join(0, at(D, 0), prior(1e7, 50.0, None));
    run.join(1, at(D, 0), prior(0.0, 50.0, None));
    run.play(at(D, 60), &[(0, 1.0), (1, 0.0)]).unwrap();
    assert_eq!(run.standing(0).rating, 1e7);
    close(run.standing(0).rd.unwrap(), 50.0, 1e-12);
}

#[test]
fn expectation_uses_the_combined_deviation() {
    // docs/outputs.md: E = 1 / (1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b) / 400)).
    let mut run = g1("c=0");
    run.join(0, at(D, 0), prior(1500.0, 200.0, None));
    run.join(1, at(D, 0), prior(1400.0, 30.0, None));
    let q = std::f64::consts::LN_10 / 400.0;
    let rd: f64 = (200.0f64 * 200.0 + 30.0 * 30.0).sqrt();
    let g = 1.0 / (1.0 + 3.0 * q * q * rd * rd / (std::f64::consts::PI.powi(2))).sqrt();
    let want = 1.0 / (1.0 + 10f64.powf(-g * 100.0 / 400.0));
    close(
        run.p.expectation(ladder_projector::PlayerId(0), ladder_projector::PlayerId(1), at(D, 60)),
        want,
        1e-12,
    );
    let mut run = g2("");
    run.join(0, at(D, 0), prior(1500.0, 200.0, None));
    run.join(1, at(D, 0), prior(1400.0, 30.0, None));
    let phi = rd / SCALE;
    let g = 1.0 / (1.0 + 3.0 * phi * phi / std::f64::consts::PI.powi(2)).sqrt();
    let want = 1.0 / (1.0 + (-g * 100.0 / SCALE).exp());
    close(
        run.p.expectation(ladder_projector::PlayerId(0), ladder_projector::PlayerId(1), at(D, 60)),
        want,
        1e-12,
    );
}

/// What `explain` asks a periodic projector through the `Projector` trait: the period a match is
/// rated in, a player's rating at a period's start and after it (from the close's trace, on the
/// Glicko scale for both rules), and why a winner lost rating.
#[test]
fn explain_reads_periods_and_reasons_from_the_projector() {
    let day = ladder_events::NANOS_PER_DAY;
    assert_eq!(g1("period=1d").p.rating_period(at(D, NOON)), Some((D, day)));
    assert_eq!(g2("period=7d").p.rating_period(at(D, NOON)), Some((D.div_euclid(7), 7 * day)));
    assert_eq!(g1("period=game").p.rating_period(at(D, NOON)), None);
    assert_eq!(g2("period=game").p.rating_period(at(D, NOON)), None);

    fn change<P: Projector>(mut run: Run<P>) -> ((f64, f64), f64) {
        run.join(0, at(D, 0), prior(1600.0, 200.0, Some(0.06)));
        run.join(1, at(D, 0), prior(1400.0, 30.0, Some(0.06)));
        run.play(at(D, NOON), &[(0, 0.0), (1, 1.0)]).unwrap();
        let mut trace = Trace::new();
        run.p.settle(run.seq, Some(&mut trace)).unwrap();
        let q = |name: &str| Some(quantity(&trace, 0, name, 0));
        (run.p.period_change(&q).unwrap(), run.standing(0).rating)
    }
    for ((r, r_new), reported) in [change(g1("")), change(g2(""))] {
        close(r, 1600.0, 1e-9);
        assert!(r_new < r, "the loser's rating falls: {r} -> {r_new}");
        assert_eq!(r_new, reported, "r' is the reported rating");
    }

    let sum = |name: &str| (name == "Σ g (s-E)").then_some(-0.25);
    let why = g2("").p.flag_reason("winner-lost-rating", "alice", &sum).unwrap();
    assert!(why.starts_with("glicko2 rates the whole period at once"), "{why}");
    assert!(why.contains("over alice's games of the period is -0.250000"), "{why}");
    assert!(g1("").p.flag_reason("loser-gained-rating", "bob", &sum).unwrap().contains("glicko "));
    // Other flags keep explain's generic reason.
    assert_eq!(g1("").p.flag_reason("rd-at-cap", "alice", &sum), None);
}

/// A match of `n` lone seats (player `i` in seat `i`, scores `i % 7`, so some seats tie), every
/// player joined the day before.
fn big_match<P: Projector>(run: &mut Run<P>, n: u32) {
    for i in 0..n {
        run.join(i, at(D - 1, NOON), prior(1400.0 + f64::from(i % 13) * 20.0, 120.0, Some(0.06)));
    }
    let seats: Vec<(u32, f64)> = (0..n).map(|i| (i, f64::from(i % 7))).collect();
    run.play(at(D, NOON), &seats).unwrap();
}

/// The event size bound's promise for the rating periods: what a 1,000-seat match holds until its
/// period closes is linear in its seats (its 1,000 seats and one marker), where its pairs would be
/// 499,500 games of 24 bytes (12 MB). A two-seat match still keeps its one game.
#[test]
fn a_thousand_seat_match_keeps_its_seats_until_the_period_closes() {
    let mut one = g1("");
    let mut two = g2("");
    big_match(&mut one, 1000);
    big_match(&mut two, 1000);
    assert_eq!(one.p.state().games().kept(), 1001);
    assert_eq!(two.p.state().games().kept(), 1001);
    one.play(at(D, NOON + 60), &[(1, 1.0), (2, 0.0)]).unwrap();
    two.play(at(D, NOON + 60), &[(1, 1.0), (2, 0.0)]).unwrap();
    assert_eq!(one.p.state().games().kept(), 1002);
    assert_eq!(two.p.state().games().kept(), 1002);
    // The period closes: nothing is kept.
    one.tick(at(D + 1, 0), None).unwrap();
    two.tick(at(D + 1, 0), None).unwrap();
    assert_eq!(one.p.state().games().kept(), 0);
    assert_eq!(two.p.state().games().kept(), 0);

    // Glicko-2's lanes keep the same games, once for every lane.
    let lanes: Vec<Glicko2> = ["tau=0.3", "tau=0.9"]
        .iter()
        .map(|sets| Glicko2::new(config("glicko2", glicko2::PARAMS, sets)).unwrap())
        .collect();
    let mut lanes = ladder_glicko::Glicko2Lanes::new(lanes).unwrap();
    let mut seq = 0;
    let mut step = |lanes: &mut ladder_glicko::Glicko2Lanes, at, input| {
        seq += 1;
        lanes.apply(&ladder_projector::Step { seq, at, input }).unwrap();
    };
    for i in 0..1000 {
        let input =
            Input::Joined { player: ladder_projector::PlayerId(i), prior: Default::default() };
        step(&mut lanes, at(D - 1, NOON), input);
    }
    let seats: Vec<ladder_projector::SeatIn> = (0..1000)
        .map(|i| ladder_projector::SeatIn {
            player: ladder_projector::PlayerId(i),
            score: f64::from(i % 7),
            side: i,
            seconds: None,
            home: false,
        })
        .collect();
    step(&mut lanes, at(D, NOON), Input::Match { seats: &seats });
    for p in lanes.into_projectors() {
        assert_eq!(p.state().games().kept(), 1001);
    }
}

/// A larger match kept as its seats gives its close's trace the games a list of pairs gave: every
/// pair of seats on different sides in seat order, each with the result of comparing the scores
/// and the home sign. The games are written out here from the seats, independently of the engine.
#[test]
fn a_larger_match_kept_as_seats_traces_every_pair_in_seat_order() {
    // Seats: (player, score, side, home). Players 0 and 1 are a team; 4 is at home.
    let table: [(u32, f64, u32, bool); 5] = [
        (0, 3.0, 0, false),
        (1, 3.0, 0, false),
        (2, 5.0, 1, false),
        (3, 3.0, 2, false),
        (4, 1.0, 3, true),
    ];
    let seats: Vec<ladder_projector::SeatIn> = table
        .iter()
        .map(|&(p, score, side, home)| ladder_projector::SeatIn {
            player: ladder_projector::PlayerId(p),
            score,
            side,
            seconds: None,
            home,
        })
        .collect();
    /// The trace of the period's close after the match, five players joined the day before.
    fn close_trace<P: Projector>(p: P, seats: &[ladder_projector::SeatIn]) -> Trace {
        let mut run = Run::new(p);
        for i in 0..5 {
            run.join(i, at(D - 1, NOON), prior(1500.0 + f64::from(i) * 30.0, 90.0, None));
        }
        run.step(at(D, NOON), Input::Match { seats }, None).unwrap();
        let mut trace = Trace::new();
        run.tick(at(D + 1, 0), Some(&mut trace)).unwrap();
        trace
    }
    let traces = [
        (
            "glicko",
            close_trace(Glicko::new(config("glicko", glicko::PARAMS, "home=40")).unwrap(), &seats),
        ),
        (
            "glicko2",
            close_trace(
                Glicko2::new(config("glicko2", glicko2::PARAMS, "home=40")).unwrap(),
                &seats,
            ),
        ),
    ];
    for (algorithm, trace) in traces {
        for me in 0..5u32 {
            // The games of `me`, written out: every other seat on another side, in seat order,
            // with me's result (1 win, 0.5 draw, 0 loss by the scores) and my home advantage.
            let (_, my_score, my_side, my_home) = table[me as usize];
            let want: Vec<(u32, f64, f64)> = table
                .iter()
                .filter(|&&(_, _, side, _)| side != my_side)
                .map(|&(p, score, _, home)| {
                    let s = if my_score > score {
                        1.0
                    } else if my_score < score {
                        0.0
                    } else {
                        0.5
                    };
                    (p, s, 40.0 * (f64::from(u8::from(my_home)) - f64::from(u8::from(home))))
                })
                .collect();
            let opponents: Vec<u32> = trace
                .entries
                .iter()
                .filter_map(|e| match e {
                    TraceEntry::Opponent { player: Some(p), opponent } if p.0 == me => {
                        Some(opponent.0)
                    }
                    _ => None,
                })
                .collect();
            let got: Vec<(u32, f64, f64)> = opponents
                .iter()
                .enumerate()
                .map(|(k, &o)| (o, quantity(&trace, me, "s_j", k), quantity(&trace, me, "home", k)))
                .collect();
            assert_eq!(got, want, "{algorithm}, player {me}");
        }
    }
}

/// Glicko-2's lanes keep a slot's shared fields once and each lane's values apart; the state
/// they give back mid-period is each projector's own after the same steps, field for field:
/// the open period's slots (their starts, the `capped` flag included, and their sums), the
/// players' records and the games. The lanes differ in `rd_max`, so that one player's idle
/// growth reaches the cap in some lanes only, and in `home`, so that the games' sums differ.
#[test]
fn glicko2_lanes_give_back_each_projectors_open_period_field_for_field() {
    lanes_against_projectors(false);
}

/// As `glicko2_lanes_give_back_each_projectors_open_period_field_for_field`, with each two-seat
/// match predicted before it is applied, as a sweep's fold does: the lanes' `expectations` (the
/// first and second seat's players, the step's time, the match's `Home`), which makes the open
/// period's slot of a player entering from idle growth ahead of `apply` (the `capped` flag of
/// such a slot included), and each projector's `expectation_at`. Each lane's expectation is its
/// projector's bit for bit, and the state given back is each projector's, field for field.
#[test]
fn glicko2_lanes_predicting_each_match_give_back_each_projectors_open_period_field_for_field() {
    lanes_against_projectors(true);
}

/// The steps of the two tests above, each two-seat match predicted first when `predict`.
fn lanes_against_projectors(predict: bool) {
    let sets = ["tau=0.3", "tau=0.9,rd_max=120,initial_rd=120,home=30"];
    let fresh = || -> Vec<Glicko2> {
        sets.iter().map(|s| Glicko2::new(config("glicko2", glicko2::PARAMS, s)).unwrap()).collect()
    };
    let mut alone = fresh();
    let mut lanes = ladder_glicko::Glicko2Lanes::new(fresh()).unwrap();
    let seat = |p: u32, score: f64, home: bool| ladder_projector::SeatIn {
        player: ladder_projector::PlayerId(p),
        score,
        side: p,
        seconds: None,
        home,
    };
    let joins: Vec<(ladder_events::Timestamp, Input<'static>)> = (0..4)
        .map(|i| {
            let prior = prior(1450.0 + 40.0 * f64::from(i), 60.0 + 30.0 * f64::from(i), None);
            (at(D - 1, NOON), Input::Joined { player: ladder_projector::PlayerId(i), prior })
        })
        .collect();
    let first = [seat(0, 1.0, true), seat(1, 0.0, false)];
    let second = [seat(2, 0.5, false), seat(3, 0.5, true)];
    // Day D + 200: player 0 comes back after 200 idle days (RD grown to the cap of 120 in the
    // second lane, not to 350's in the first), plays twice in the open period.
    let third = [seat(0, 0.0, false), seat(2, 1.0, true)];
    let fourth = [seat(3, 1.0, false), seat(0, 0.0, false)];
    let mut steps = joins;
    steps.push((at(D, NOON), Input::Match { seats: &first }));
    steps.push((at(D, NOON + 60), Input::Match { seats: &second }));
    steps.push((at(D + 200, NOON), Input::Match { seats: &third }));
    steps.push((at(D + 200, NOON + 60), Input::Match { seats: &fourth }));
    let mut predicted = 0;
    for (seq, (at, input)) in steps.into_iter().enumerate() {
        let step = ladder_projector::Step { seq: seq as u64 + 1, at, input };
        if let (true, Input::Match { seats: [x, y] }) = (predict, step.input) {
            let home = ladder_projector::Home::of(x, y);
            let mut buf = Vec::new();
            lanes.expectations(step.seq, x.player, y.player, at, home, &mut buf).unwrap();
            let want: Vec<u64> = alone
                .iter()
                .map(|p| p.expectation_at(x.player, y.player, at, home).to_bits())
                .collect();
            let got: Vec<u64> = buf.iter().map(|e| e.to_bits()).collect();
            assert_eq!(got, want, "step {}: each lane's expectation, its projector's", step.seq);
            predicted += 1;
        }
        lanes.apply(&step).unwrap();
        for p in &mut alone {
            p.apply(&step, None).unwrap();
        }
    }
    let back = lanes.into_projectors();
    let mut capped = Vec::new();
    for (lane, alone) in back.iter().zip(&alone) {
        assert_eq!(lane.state(), alone.state());
        let text = format!("{:?}", alone.state());
        assert!(text.contains("slots: [Slot"), "the period is open: {text}");
        capped.push(text.contains("capped: true"));
    }
    assert_eq!(capped, [false, true], "the cap reached in the second lane only");
    assert_eq!(predicted, if predict { 4 } else { 0 });
}
