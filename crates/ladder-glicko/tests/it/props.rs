//! Property tests: whatever finite inputs arrive, the state stays finite, RD stays in
//! (0, rd_max], volatility stays positive, every iteration ends, and a failure is a typed error
//! that leaves the state as it was.

use crate::common::*;
use ladder_events::Prior;
use ladder_glicko::{Glicko, Glicko2};
use ladder_projector::{
    Algorithm, Config, Input, PlayerId, ProjectErrorKind, Projector, SeatIn, Step,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Join(Prior),
    /// Seats as (index into the joined players, score, side).
    Match(Vec<(usize, f64, u32)>),
    Tick,
}

fn wide_positive() -> impl Strategy<Value = f64> {
    prop_oneof![1e-3..1e3f64, 1e-300..1e-3f64, 1e3..1e300f64]
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![-1e4..1e4f64, -1e300..1e300f64, Just(0.0)]
}

fn op() -> impl Strategy<Value = Op> {
    let prior = (
        proptest::option::of(finite()),
        proptest::option::of(wide_positive()),
        proptest::option::of(wide_positive()),
    )
        .prop_map(|(rating, rd, volatility)| Prior { rating, rd, volatility });
    let score = prop_oneof![Just(0.0), Just(0.5), Just(1.0), finite()];
    prop_oneof![
        2 => prior.prop_map(Op::Join),
        5 => proptest::collection::vec((0usize..1000, score, 0u32..3), 2..5).prop_map(Op::Match),
        1 => Just(Op::Tick),
    ]
}

fn ladder() -> impl Strategy<Value = Vec<(i64, Op)>> {
    proptest::collection::vec((0i64..3 * 86_400, op()), 1..40)
}

fn glicko_sets() -> impl Strategy<Value = String> {
    (0.0..500.0f64, prop_oneof![Just("1h"), Just("1d"), Just("1w"), Just("game")], 1.0..1000.0f64)
        .prop_map(|(c, period, rd_max)| {
            format!("c={c},period={period},idle=1d,rd_max={rd_max},initial_rd={}", rd_max / 2.0)
        })
}

fn glicko2_sets() -> impl Strategy<Value = String> {
    (
        prop_oneof![1e-3..5.0f64, 5.0..1e6f64],
        wide_positive(),
        prop_oneof![Just(1e-12), Just(1e-6), Just(0.01), Just(1.0)],
        prop_oneof![Just("1h"), Just("1d"), Just("game")],
        1.0..1000.0f64,
    )
        .prop_map(|(tau, sigma, epsilon, period, rd_max)| {
            format!(
                "tau={tau},sigma={sigma},epsilon={epsilon},period={period},rd_max={rd_max},initial_rd={rd_max}"
            )
        })
}

/// Feeds `ops` and checks the invariants after every step; stops at the first (typed) error.
fn check<P, S>(
    mut p: P,
    rd_max: f64,
    ops: &[(i64, Op)],
    state: impl Fn(&P) -> S,
) -> Result<(), TestCaseError>
where
    P: Projector,
    S: PartialEq + std::fmt::Debug,
{
    let mut now = at(20_000, 0).0;
    let mut joined = 0u32;
    let mut seats: Vec<SeatIn> = Vec::new();
    for (seq, (gap, op)) in ops.iter().enumerate() {
        now += gap * 1_000_000_000;
        let input = match op {
            Op::Join(prior) => {
                joined += 1;
                Input::Joined { player: PlayerId(joined - 1), prior: *prior }
            }
            Op::Match(raw) => {
                if joined < 2 {
                    continue;
                }
                seats.clear();
                for &(i, score, side) in raw {
                    let player = PlayerId((i % joined as usize) as u32);
                    if seats.iter().all(|s| s.player != player) {
                        seats.push(SeatIn { player, score, side, seconds: None, home: false });
                    }
                }
                if seats.iter().all(|s| s.side == seats[0].side) {
                    continue;
                }
                Input::Match { seats: &seats }
            }
            Op::Tick => Input::Tick,
        };
        let before = state(&p);
        let step = Step { seq: seq as u64 + 1, at: ladder_events::Timestamp(now), input };
        match p.apply(&step, None) {
            Ok(()) => {}
            Err(e) => {
                prop_assert!(
                    matches!(
                        e.kind,
                        ProjectErrorKind::NonFinite { .. } | ProjectErrorKind::NoConvergence { .. }
                    ),
                    "{e}"
                );
                prop_assert_eq!(e.seq, seq as u64 + 1);
                prop_assert_eq!(state(&p), before, "a failed step changed the state");
                return Ok(());
            }
        }
        for s in p.standings() {
            prop_assert!(s.rating.is_finite(), "{s:?}");
            let rd = s.rd.unwrap();
            prop_assert!(rd > 0.0 && rd <= rd_max, "{s:?} rd_max {rd_max}");
            if let Some(v) = s.volatility {
                prop_assert!(v > 0.0 && v.is_finite(), "{s:?}");
            }
            let e = p.expectation(s.player, PlayerId(0), step.at);
            prop_assert!((0.0..=1.0).contains(&e), "{e}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn glicko_stays_finite_and_in_range(sets in glicko_sets(), ops in ladder()) {
        let config = Config::new("glicko", ladder_glicko::glicko::PARAMS, &Config::parse_assignments(&sets).unwrap()).unwrap();
        let rd_max = config.number("rd_max");
        check(Glicko::new(config).unwrap(), rd_max, &ops, |p| p.state().clone())?;
    }

    #[test]
    fn glicko2_stays_finite_and_in_range(sets in glicko2_sets(), ops in ladder()) {
        let config = Config::new("glicko2", ladder_glicko::glicko2::PARAMS, &Config::parse_assignments(&sets).unwrap()).unwrap();
        let rd_max = config.number("rd_max");
        check(Glicko2::new(config).unwrap(), rd_max, &ops, |p| p.state().clone())?;
    }
}
