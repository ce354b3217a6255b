//! Integration tests of ladder-elo: hand calculations, skillratings, properties, fixtures.
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use ladder_elo::{Elo, ALGORITHM, PARAMS};
use ladder_events::{Prior, Timestamp, NANOS_PER_DAY};
use ladder_projector::{
    fold_all, standings_table, Algorithm, Config, ConfigError, Input, PlayerId, ProjectErrorKind,
    Projector, SeatIn, Step, Trace, TraceEntry,
};
use proptest::prelude::*;
use skillratings::elo::{elo, EloConfig, EloRating};
use skillratings::Outcomes;

mod fivethirtyeight;
mod home;

fn projector(sets: &str) -> Elo {
    Elo::configure(&Config::parse_assignments(sets).unwrap()).unwrap()
}

fn join(p: &mut Elo, id: u32, rating: Option<f64>) {
    let prior = Prior { rating, rd: Some(80.0), volatility: Some(0.1) };
    let step =
        Step { seq: 1, at: Timestamp(0), input: Input::Joined { player: PlayerId(id), prior } };
    p.apply(&step, None).unwrap();
}

fn play(
    p: &mut Elo,
    seats: &[(u32, f64, u32)],
    trace: Option<&mut Trace>,
) -> Result<(), ladder_projector::ProjectError> {
    let seats: Vec<SeatIn> = seats
        .iter()
        .map(|&(id, score, side)| SeatIn {
            player: PlayerId(id),
            score,
            side,
            seconds: None,
            home: false,
        })
        .collect();
    p.apply(
        &Step { seq: 7, at: Timestamp(NANOS_PER_DAY), input: Input::Match { seats: &seats } },
        trace,
    )
}

fn rating(p: &Elo, id: u32) -> f64 {
    p.standings().into_iter().find(|s| s.player == PlayerId(id)).unwrap().rating
}

#[track_caller]
fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want}");
}

#[test]
fn hand_calculations() {
    // Equal ratings, a win with K = 20: E = 1/2, so +-20 * (1 - 1/2) = +-10.
    let mut p = projector("");
    join(&mut p, 0, None);
    join(&mut p, 1, None);
    play(&mut p, &[(0, 1.0, 0), (1, 0.0, 1)], None).unwrap();
    assert_eq!(rating(&p, 0), 1510.0);
    assert_eq!(rating(&p, 1), 1490.0);
    // 1600 against 1200 (400 points: odds 10 to 1, E = 10/11), a draw with K = 32:
    // 32 * (0.5 - 10/11) = -13.0909..., and the opponent gains the same.
    let mut p = projector("k=32");
    join(&mut p, 0, Some(1600.0));
    join(&mut p, 1, Some(1200.0));
    play(&mut p, &[(0, 3.0, 0), (1, 3.0, 1)], None).unwrap();
    close(rating(&p, 0), 1600.0 + 32.0 * (0.5 - 10.0 / 11.0), 1e-12);
    close(rating(&p, 1), 1200.0 - 32.0 * (0.5 - 10.0 / 11.0), 1e-12);
    // The prior's rd and volatility are not Elo's quantities; the standing has none.
    let s = &p.standings()[0];
    assert_eq!((s.rd, s.volatility, s.games), (None, None, 1));
}

#[test]
fn multi_seat_matches_sum_every_pair_from_pre_match_ratings() {
    let mut p = projector("k=16");
    for (i, r) in [1500.0, 1600.0, 1400.0, 1550.0].into_iter().enumerate() {
        join(&mut p, i as u32, Some(r));
    }
    // Seats 0 and 3 are one side; 1 and 2 are sides alone. Scores: 0:5, 1:7, 2:5, 3:1.
    let mut trace = Trace::new();
    play(&mut p, &[(0, 5.0, 0), (1, 7.0, 1), (2, 5.0, 2), (3, 1.0, 0)], Some(&mut trace)).unwrap();
    let e = |a: f64, b: f64| 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
    // Pairs: 0-1 (0 loses), 0-2 (draw), 1-2 (1 wins), 1-3 (1 wins), 2-3 (2 wins); 0-3 team-mates.
    let d01 = 16.0 * (0.0 - e(1500.0, 1600.0));
    let d02 = 16.0 * (0.5 - e(1500.0, 1400.0));
    let d12 = 16.0 * (1.0 - e(1600.0, 1400.0));
    let d13 = 16.0 * (1.0 - e(1600.0, 1550.0));
    let d23 = 16.0 * (1.0 - e(1400.0, 1550.0));
    close(rating(&p, 0), 1500.0 + d01 + d02, 1e-9);
    close(rating(&p, 1), 1600.0 - d01 + d12 + d13, 1e-9);
    close(rating(&p, 2), 1400.0 - d02 - d12 + d23, 1e-9);
    close(rating(&p, 3), 1550.0 - d13 - d23, 1e-9);
    let total: f64 = (0..4).map(|i| rating(&p, i)).sum();
    close(total, 6050.0, 1e-9);
    assert!(matches!(&trace.entries[0], TraceEntry::Section(s) if s.starts_with("elo match")));
    let pairs = trace
        .entries
        .iter()
        .filter(|e| matches!(e, TraceEntry::Quantity { name, .. } if name == "E"))
        .count();
    // Five pairs, each traced for both of its seats.
    assert_eq!(pairs, 10);
}

#[test]
fn matches_skillratings_game_by_game() {
    // SplitMix64, so the cases are the same on every run.
    let mut rng = ladder_sim::SplitMix64(0x05EE_DE10);
    let mut next = move || rng.next_u64();
    let n = 50u32;
    let mut p = projector("k=24");
    for i in 0..n {
        join(&mut p, i, Some(1000.0 + (next() % 1500) as f64));
    }
    let config = EloConfig { k: 24.0 };
    for _ in 0..10_000 {
        let a = (next() % u64::from(n)) as u32;
        let b = (a + 1 + (next() % u64::from(n - 1)) as u32) % n;
        let (s, outcome) = [(1.0, Outcomes::WIN), (0.5, Outcomes::DRAW), (0.0, Outcomes::LOSS)]
            [(next() % 3) as usize];
        let (ra, rb) = (EloRating { rating: rating(&p, a) }, EloRating { rating: rating(&p, b) });
        let (wa, wb) = elo(&ra, &rb, &outcome, &config);
        play(&mut p, &[(a, s, 0), (b, 1.0 - s, 1)], None).unwrap();
        close(rating(&p, a), wa.rating, 1e-9);
        close(rating(&p, b), wb.rating, 1e-9);
        close(
            p.expectation(PlayerId(a), PlayerId(b), Timestamp(0)),
            skillratings::elo::expected_score(&wa, &wb).0,
            1e-12,
        );
    }
}

#[test]
fn config_keys_defaults_and_ranges() {
    let keys: Vec<_> = PARAMS.iter().map(|s| (s.key, s.default)).collect();
    let want = [("k", "20"), ("initial_rating", "1500"), ("home", "0"), ("margin", "none")];
    assert_eq!(keys, [&want[..], &[("revert", "0"), ("revert_after", "90d")]].concat());
    assert_eq!(ladder_elo::DEFAULT_K.to_string(), PARAMS[0].default);
    // K = q RD^2 at RD = 59: the Glicko-equivalent deviation of the default.
    let q = std::f64::consts::LN_10 / 400.0;
    assert!((q * 59.0 * 59.0 - 20.0).abs() < 0.1);
    for bad in ["k=0", "k=-3", "k=inf"] {
        let sets = Config::parse_assignments(bad).unwrap();
        assert!(matches!(Elo::configure(&sets), Err(ConfigError::BadValue { .. })), "{bad}");
    }
    let glicko_like = Config::new("glicko", PARAMS, &[]).unwrap();
    assert!(matches!(Elo::new(glicko_like), Err(ConfigError::Inconsistent { .. })));
    let _ = ALGORITHM;
}

#[test]
fn overflow_is_a_typed_error_that_changes_nothing() {
    let mut p = projector("k=1e308");
    join(&mut p, 0, Some(1.7e308));
    join(&mut p, 1, Some(1.7e308));
    let before = p.state().clone();
    let err = play(&mut p, &[(0, 1.0, 0), (1, 0.0, 1)], None).unwrap_err();
    assert!(matches!(err.kind, ProjectErrorKind::NonFinite { quantity: "r'", .. }), "{err}");
    assert_eq!(err.seq, 7);
    assert_eq!(*p.state(), before);
    let err = play(&mut p, &[(0, 1.0, 0), (9, 0.0, 1)], None).unwrap_err();
    assert_eq!(err.kind, ProjectErrorKind::UnknownPlayer(9));
}

proptest! {
    #[test]
    fn ratings_stay_finite(
        k in prop_oneof![1e-3..100.0f64, 100.0..1e300f64],
        ratings in proptest::collection::vec(prop_oneof![-1e4..1e4f64, -1e300..1e300f64], 2..6),
        games in proptest::collection::vec((0usize..6, 0usize..6, prop_oneof![Just(0.0), Just(0.5), Just(1.0), -1e300..1e300f64]), 1..30),
    ) {
        let mut p = projector(&format!("k={k}"));
        for (i, &r) in ratings.iter().enumerate() {
            join(&mut p, i as u32, Some(r));
        }
        for (a, b, s) in games {
            let (a, b) = ((a % ratings.len()) as u32, (b % ratings.len()) as u32);
            if a == b {
                continue;
            }
            let before = p.state().clone();
            match play(&mut p, &[(a, s, 0), (b, 0.0, 1)], None) {
                Ok(()) => {}
                Err(e) => {
                    prop_assert!(matches!(e.kind, ProjectErrorKind::NonFinite { .. }), "{e}");
                    prop_assert_eq!(p.state(), &before);
                    break;
                }
            }
            for s in p.standings() {
                prop_assert!(s.rating.is_finite());
            }
        }
    }
}

proptest! {
    /// The untraced two-seat path must equal the general path (forced by a trace) bit for bit,
    /// errors included.
    #[test]
    fn two_seat_fast_path_is_the_general_path(
        k in prop_oneof![1e-3..100.0f64, 100.0..1e300f64],
        ratings in proptest::collection::vec(prop_oneof![-1e4..1e4f64, -1e300..1e300f64], 2..6),
        games in proptest::collection::vec((0usize..6, 0usize..6, prop_oneof![Just(0.0), Just(0.5), Just(1.0)]), 1..30),
    ) {
        let (mut fast, mut general) = (projector(&format!("k={k}")), projector(&format!("k={k}")));
        for (i, &r) in ratings.iter().enumerate() {
            join(&mut fast, i as u32, Some(r));
            join(&mut general, i as u32, Some(r));
        }
        for (a, b, s) in games {
            let (a, b) = ((a % ratings.len()) as u32, (b % ratings.len()) as u32);
            if a == b {
                continue;
            }
            let x = play(&mut fast, &[(a, s, 0), (b, 1.0 - s, 1)], None);
            let y = play(&mut general, &[(a, s, 0), (b, 1.0 - s, 1)], Some(&mut Trace::new()));
            prop_assert_eq!(x, y);
            prop_assert_eq!(fast.state(), general.state());
        }
    }
}

#[test]
fn fixtures() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let events: Vec<_> =
            text.lines().map(|l| ladder_events::json::parse_line(l).unwrap()).collect();
        let mut out = String::new();
        for sets in ["", "k=32"] {
            let mut p = projector(sets);
            let roster = fold_all(&events, &mut p).expect("fixture replays");
            out.push_str(&standings_table(&p, &roster, &p.standings()));
            out.push('\n');
        }
        insta::assert_snapshot!(out);
    });
}
