//! Games calculated by hand with the ZoneStats text's equations, the arithmetic written out beside
//! each expectation. `E1` is `1 / (1 + e)`, the predicted outcome of a player rated 120 (= T) below
//! the opponent; `1 - E1` is that of the player 120 above.
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use ladder_events::{Prior, Timestamp};
use ladder_projector::{Algorithm, Input, PlayerId, Projector, SeatIn, Step, Trace, TraceEntry};
use ladder_zonestats::{rate_game, Constants, GameSeat, ZoneStats};

fn e1() -> f64 {
    1.0 / (1.0 + 1f64.exp())
}

fn seat(rating: f64, score: f64, side: u32, seconds: Option<f64>) -> GameSeat {
    GameSeat { rating, score, side, seconds }
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() < 1e-9, "{what}: got {actual}, expected {expected}");
}

/// Checks every seat's final offset.
fn check(seats: &[GameSeat], expected_final: &[f64], expected_scale: f64) {
    let g = rate_game(&Constants::default(), seats);
    close(g.scale, expected_scale, "scale");
    assert_eq!(g.seats.len(), expected_final.len());
    for (i, (s, e)) in g.seats.iter().zip(expected_final).enumerate() {
        close(s.final_offset, *e, &format!("final offset of seat {i}"));
    }
}

#[test]
fn two_players_equal_ratings() {
    // A 12 points in 1200 s, B 7 points in 1200 s, both 500.
    // SPH: A = 12 / (1/3 h) = 36, B = 7 / (1/3 h) = 21: A wins.
    // predicted_outcome = 1/(1+exp(0)) = 0.5; indiv_result = 1 - 0.5 = 0.5.
    // time = min(20, 20, 20) = 20; indiv_result * GAME_MULT * time = 0.5 * 2 * 20 = 20.
    // Highest offset 20 (tie: both 20 minutes), scale = 20 * 2 / 20 = 2, capped at 1.
    let seats = [seat(500.0, 12.0, 0, Some(1200.0)), seat(500.0, 7.0, 1, Some(1200.0))];
    check(&seats, &[20.0, -20.0], 1.0);
    let g = rate_game(&Constants::default(), &seats);
    close(g.seats[0].sph, 36.0, "SPH A");
    close(g.seats[1].sph, 21.0, "SPH B");
}

#[test]
fn two_players_upset_with_unequal_times() {
    // A rated 620 loses to B rated 500; A was in 900 s (15 min), B 1500 s (25 min).
    // SPH: A = 3 / 0.25 h = 12, B = 10 / (25/60) h = 24: B wins.
    // delta = 120, predicted_outcome(A) = 1/(1+exp(-1)) = 1 - E1.
    // indiv_result(A) = 0 - (1 - E1) = E1 - 1; time = min(20, 15, 25) = 15.
    // A: (E1 - 1) * 2 * 15 = 30 E1 - 30 = -21.93...; B: +21.93...
    // Tie on |offset|: the shorter time (A, 15 min) sets the scale: 15 * 2 / 21.93 > 1, so 1.
    let a = 30.0 * e1() - 30.0;
    check(&[seat(620.0, 3.0, 0, Some(900.0)), seat(500.0, 10.0, 1, Some(1500.0))], &[a, -a], 1.0);
}

#[test]
fn three_player_free_for_all_with_a_tie_on_sph_and_defaulted_time() {
    // cedar 30 pts / 900 s, elm 22 pts / 1500 s, fir 22 pts / 600 s, all rated 500.
    // SPH: cedar 30 / 0.25 = 120; elm 22 / (25/60) = 52.8; fir 22 / (1/6) = 132.
    // cedar-elm: cedar wins, 0.5 * 2 * min(20, 15, 25) = +15.
    // cedar-fir: cedar loses, -0.5 * 2 * min(20, 15, 10) = -10.
    // elm-fir:   elm loses,   -0.5 * 2 * min(20, 25, 10) = -10.
    // Sums: cedar 15 - 10 = 5; elm -15 - 10 = -25; fir 10 + 10 = 20.
    // Highest |offset| is elm's 25, in 25 minutes: scale = 25 * 2 / 25 = 2, capped at 1.
    check(
        &[
            seat(500.0, 30.0, 0, Some(900.0)),
            seat(500.0, 22.0, 1, Some(1500.0)),
            seat(500.0, 22.0, 2, Some(600.0)),
        ],
        &[5.0, -25.0, 20.0],
        1.0,
    );
    // No seconds anywhere: every seat was in MAX_GAME_LENGTH = 20 minutes, so SPH orders like
    // scores: 30 > 22 = 22. cedar beats both (+20 each), elm and fir tie (0.5 - 0.5 = 0).
    // Sums: cedar +40, elm -20, fir -20. Scale = 20 * 2 / 40 = 1: not below 1.
    check(
        &[seat(500.0, 30.0, 0, None), seat(500.0, 22.0, 1, None), seat(500.0, 22.0, 2, None)],
        &[40.0, -20.0, -20.0],
        1.0,
    );
}

#[test]
fn three_players_where_the_scale_down_applies() {
    // A rated 380 beats B and C rated 500 (each 10 minutes, SPH A 60, B 30, C 30).
    // A vs B: predicted_outcome(A) = 1/(1+exp(120/120)) = E1; indiv = 1 - E1;
    //         time = min(20, 10, 10) = 10; adjustment = (1 - E1) * 2 * 10 = 20 (1 - E1) = 14.62...
    // A vs C: the same, 20 (1 - E1).
    // B vs C: SPH equal, tie: 0.5 - 0.5 = 0.
    // Sums: A 40 (1 - E1) = 29.24...; B and C -20 (1 - E1) each.
    // Equation 5: highest is A, 10 minutes: scale = 10 * 2 / (40 (1 - E1)) = 0.6839... < 1.
    // Equation 6: A 40 (1 - E1) * scale = 20; B and C -10 each.
    let scale = 20.0 / (40.0 * (1.0 - e1()));
    let seats = [
        seat(380.0, 10.0, 0, Some(600.0)),
        seat(500.0, 5.0, 1, Some(600.0)),
        seat(500.0, 5.0, 2, Some(600.0)),
    ];
    check(&seats, &[20.0, -10.0, -10.0], scale);
    let g = rate_game(&Constants::default(), &seats);
    assert!(g.scaled_down());
    assert_eq!(g.highest_seat, Some(0));
    close(g.seats[0].rating_offset, 40.0 * (1.0 - e1()), "unscaled offset of A");
}

#[test]
fn six_players_three_against_three() {
    // red: ash 40 pts / 1800 s, birch 10 / 900 s, cedar 25 / no seconds (= the longest, 1800 s);
    // blue: elm 35 / 1800 s, fir 5 / 300 s, oak 20 / 1200 s. oak is rated 620, the rest 500.
    // Minutes: ash 30, birch 15, cedar 30, elm 30, fir 5, oak 20.
    // SPH: ash 80, birch 40, cedar 50, elm 70, fir 60, oak 60.
    // Team-mates are never compared: 9 pairs, red seat first.
    //   ash-elm   win   0.5        * 2 * min(20,30,30)=20 -> +20
    //   ash-fir   win   0.5        * 2 * min(20,30, 5)= 5 -> +5
    //   ash-oak   win   (1 - E1)   * 2 * min(20,30,20)=20 -> 40 (1 - E1)
    //   birch-elm loss  -0.5       * 2 * min(20,15,30)=15 -> -15
    //   birch-fir loss  -0.5       * 2 * 5                -> -5
    //   birch-oak loss  (0 - E1)   * 2 * min(20,15,20)=15 -> -30 E1
    //   cedar-elm loss  -0.5       * 2 * 20               -> -20
    //   cedar-fir loss  -0.5       * 2 * 5                -> -5
    //   cedar-oak loss  (0 - E1)   * 2 * 20               -> -40 E1
    // Sums: ash 25 + 40 (1 - E1) = 54.24...; birch -20 - 30 E1; cedar -25 - 40 E1;
    //       elm -20 + 15 + 20 = 15; fir -5 + 5 + 5 = 5; oak -40 (1 - E1) + 30 E1 + 40 E1.
    // Highest: ash, 30 minutes: scale = 30 * 2 / 54.24 = 1.106 > 1, so 1.
    let e = e1();
    let seats = [
        seat(500.0, 40.0, 0, Some(1800.0)),
        seat(500.0, 10.0, 0, Some(900.0)),
        seat(500.0, 25.0, 0, None),
        seat(500.0, 35.0, 1, Some(1800.0)),
        seat(500.0, 5.0, 1, Some(300.0)),
        seat(620.0, 20.0, 1, Some(1200.0)),
    ];
    check(
        &seats,
        &[
            25.0 + 40.0 * (1.0 - e),
            -20.0 - 30.0 * e,
            -25.0 - 40.0 * e,
            15.0,
            5.0,
            -40.0 * (1.0 - e) + 70.0 * e,
        ],
        1.0,
    );
    let g = rate_game(&Constants::default(), &seats);
    assert_eq!(g.pairs.len(), 9);
    assert!(g.seats[2].whole_game);
    close(g.seats[2].minutes, 30.0, "cedar's defaulted time");
    let sphs: Vec<f64> = g.seats.iter().map(|s| s.sph).collect();
    for (got, want) in sphs.iter().zip([80.0, 40.0, 50.0, 70.0, 60.0, 60.0]) {
        close(*got, want, "SPH");
    }
}

fn step(seq: u64, input: Input<'_>) -> Step<'_> {
    Step { seq, at: Timestamp(0), input }
}

#[test]
fn the_projector_folds_priors_teams_and_traces_the_scale_down() {
    let mut z = ZoneStats::configure(&[]).unwrap();
    let (a, b, c) = (PlayerId(0), PlayerId(1), PlayerId(2));
    let prior = Prior { rating: Some(380.0), ..Prior::default() };
    z.apply(&step(1, Input::Joined { player: a, prior }), None).unwrap();
    z.apply(&step(2, Input::Joined { player: b, prior: Prior::default() }), None).unwrap();
    z.apply(&step(3, Input::Joined { player: c, prior: Prior::default() }), None).unwrap();
    close(z.expectation(a, b, Timestamp(0)), e1(), "expectation before the game");
    // The scale-down game above, as a projector sees it.
    let seats = [
        SeatIn { player: a, score: 10.0, side: 0, seconds: Some(600.0), home: false },
        SeatIn { player: b, score: 5.0, side: 1, seconds: Some(600.0), home: false },
        SeatIn { player: c, score: 5.0, side: 2, seconds: Some(600.0), home: false },
    ];
    let mut trace = Trace::new();
    z.apply(&step(4, Input::Match { seats: &seats }), Some(&mut trace)).unwrap();
    let st = z.standings();
    close(st[0].rating, 400.0, "a: 380 + 20");
    close(st[1].rating, 490.0, "b: 500 - 10");
    close(st[2].rating, 490.0, "c: 500 - 10");
    assert!(st.iter().all(|s| s.games == 1 && s.rd.is_none() && s.display.is_none()));
    assert!(trace
        .entries
        .iter()
        .any(|e| matches!(e, TraceEntry::Flag { code: "scaled-down", .. })));
    let named = |n: &str| {
        trace
            .entries
            .iter()
            .filter(|e| matches!(e, TraceEntry::Quantity { name, .. } if name == n))
            .count()
    };
    assert_eq!(named("predicted_outcome"), 3);
    assert_eq!(named("SPH"), 3);
    assert_eq!(named("Final_rating_offset"), 3);
    assert_eq!(named("scale"), 1);
    // Ticks and timeouts change nothing.
    z.apply(&step(5, Input::Tick), None).unwrap();
    z.apply(&step(6, Input::Timeout { player: b }), None).unwrap();
    assert_eq!(z.standings(), st);
    // A player who never joined is an error naming the event.
    let ghost = [
        SeatIn { player: a, score: 1.0, side: 0, seconds: None, home: false },
        SeatIn { player: PlayerId(9), score: 0.0, side: 1, seconds: None, home: false },
    ];
    let err = z.apply(&step(7, Input::Match { seats: &ghost }), None).unwrap_err();
    assert_eq!(err.seq, 7);
}
