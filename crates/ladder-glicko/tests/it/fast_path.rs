//! The untraced two-seat fast path (`period=game` computed directly, periodic matches pushed
//! without the general loops) must give bit-identical states to the general path, which a trace
//! forces. Both projectors, both kinds of period, draws, idle gaps, and multi-seat matches mixed in.

use crate::common::{at, config, Run};
use ladder_events::Prior;
use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{Algorithm, Projector, Trace};
use proptest::prelude::*;

/// One match: seat players (distinct), a's result, and days/seconds since the previous match.
#[derive(Clone, Debug)]
struct Game {
    a: u32,
    b: u32,
    third: Option<u32>,
    s: f64,
    days: i64,
    seconds: i64,
}

fn games() -> impl Strategy<Value = Vec<Game>> {
    let game = (
        0u32..12,
        1u32..12,
        prop::option::weighted(0.1, 0u32..12),
        0usize..3,
        0i64..5,
        0i64..86_400,
    )
        .prop_map(|(a, d, third, s, days, seconds)| Game {
            a,
            b: (a + d) % 12,
            third: third.filter(|&t| t != a && t != (a + d) % 12),
            s: [1.0, 0.5, 0.0][s],
            days,
            seconds,
        });
    prop::collection::vec(game, 1..80)
}

/// Replays `games` once untraced and once with a trace on every step; the states must be equal
/// bit for bit after every step (`PartialEq` on f64 fields, and the debug form for NaN safety).
fn same<P: Projector + Clone>(fresh: P, state: impl Fn(&P) -> String, games: &[Game]) {
    let (mut fast, mut general) = (Run::new(fresh.clone()), Run::new(fresh));
    for id in 0..12 {
        fast.join(id, at(20_000, i64::from(id)), Prior::default());
        general.join(id, at(20_000, i64::from(id)), Prior::default());
    }
    let mut day = 20_000;
    for g in games {
        day += g.days;
        let when = at(day, g.seconds.max(60));
        let mut seats = vec![(g.a, g.s), (g.b, 1.0 - g.s)];
        if let Some(t) = g.third {
            seats.push((t, 0.5));
        }
        let x = fast.play(when, &seats);
        let mut trace = Trace::new();
        let y = general.play_traced(when, &seats, Some(&mut trace));
        assert_eq!(x, y);
        assert_eq!(state(&fast.p), state(&general.p));
    }
    let (x, y) = (fast.p.standings(), general.p.standings());
    assert_eq!(format!("{x:?}"), format!("{y:?}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn glicko_fast_path_is_the_general_path(games in games()) {
        for sets in ["period=game", "period=game,idle=6h", "period=1d", "period=7d,c=50"] {
            let p = Glicko::new(config(glicko::ALGORITHM, glicko::PARAMS, sets)).unwrap();
            same(p, |p| format!("{:?}", p.state()), &games);
        }
    }

    #[test]
    fn glicko2_fast_path_is_the_general_path(games in games()) {
        for sets in ["period=game", "period=game,idle=6h,tau=1.2", "period=1d", "period=7d,tau=0.3"] {
            let p = Glicko2::new(config(glicko2::ALGORITHM, glicko2::PARAMS, sets)).unwrap();
            same(p, |p| format!("{:?}", p.state()), &games);
        }
    }
}
