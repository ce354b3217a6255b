//! The incremental update: a converged history extended by new games and converged again ends
//! where a full recompute of the whole history ends (to 1e-6 after convergence), in the model
//! and through the projector as `serve`'s warm folds read it.

use ladder_events::{Prior, Timestamp, NANOS_PER_DAY};
use ladder_projector::{Algorithm, Input, PlayerId, Projector, SeatIn, Step};
use ladder_ttt::gauss::G;
use ladder_ttt::{Model, ModelParams, Ttt};
use proptest::prelude::*;

/// A game: time step from the previous game (0 = the same batch), the teams (players by index),
/// and which team won (the others' order is their written order).
type Game = (u8, Vec<Vec<u32>>, usize);

fn game(players: u32) -> impl Strategy<Value = Game> {
    (0u8..4, 2usize..4, 1usize..3).prop_flat_map(move |(dt, teams, size)| {
        let seats = teams * size;
        (
            Just(dt),
            proptest::sample::subsequence((0..players).collect::<Vec<_>>(), seats)
                .prop_shuffle()
                .prop_map(move |ps| ps.chunks(size).map(<[u32]>::to_vec).collect()),
            0..teams,
        )
    })
}

fn push(model: &mut Model, games: &[Game], mut time: f64, tag0: usize) -> f64 {
    for (k, (dt, teams, winner)) in games.iter().enumerate() {
        time += f64::from(*dt) * 0.5;
        let results: Vec<f64> = (0..teams.len())
            .map(|i| if i == *winner { teams.len() as f64 } else { (teams.len() - i) as f64 - 1.5 })
            .collect();
        let view: Vec<(&[u32], f64)> =
            teams.iter().zip(&results).map(|(t, r)| (t.as_slice(), *r)).collect();
        model.push_game(time, (tag0 + k) as u64, &view).expect("finite");
    }
    time
}

fn fresh(players: u32) -> Model {
    let mut m = Model::new(ModelParams { beta: 1.0, gamma: 0.1, p_draw: 0.0, home: 0.0 });
    for p in 0..players {
        m.set_prior(p, G::new(0.0, 3.0 + f64::from(p % 3)));
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn extending_a_converged_history_ends_where_a_full_recompute_ends(
        games in proptest::collection::vec(game(7), 2..40),
        cut in 0.0f64..1.0,
    ) {
        let k = ((games.len() as f64 * cut) as usize).clamp(1, games.len() - 1);
        let mut full = fresh(7);
        push(&mut full, &games, 0.0, 0);
        full.converge(1e-12, 100_000).expect("finite");

        // The first k games converged alone, then the rest folded in and converged from there.
        let mut whole = fresh(7);
        push(&mut whole, &games, 0.0, 0);
        let mut step = fresh(7);
        let first_rest = {
            let mut t = 0.0;
            for g in &games[..=k] { t += f64::from(g.0) * 0.5; }
            t
        };
        step.extend_before(&whole, first_rest).expect("finite");
        step.converge(1e-12, 100_000).expect("finite");
        step.extend_before(&whole, f64::INFINITY).expect("finite");
        step.converge(1e-12, 100_000).expect("finite");

        // The same, re-smoothing only the batches the new games reach.
        let mut local = fresh(7);
        local.extend_before(&whole, first_rest).expect("finite");
        local.converge(1e-12, 100_000).expect("finite");
        let first = local.batches();
        local.extend_before(&whole, f64::INFINITY).expect("finite");
        local.converge_from(first, 1e-12, 100_000).expect("finite");

        prop_assert_eq!(step.games(), games.len());
        prop_assert_eq!(local.games(), games.len());
        for p in 0..7 {
            let (a, b, c) = (full.curve(p), step.curve(p), local.curve(p));
            prop_assert_eq!(a.len(), c.len());
            for ((ta, x), (tc, z)) in a.iter().zip(&c) {
                prop_assert_eq!(ta, tc);
                prop_assert!((x.mu - z.mu).abs() < 1e-6, "local: player {} at {}: {} vs {}", p, ta, x.mu, z.mu);
                prop_assert!((x.sigma - z.sigma).abs() < 1e-6);
            }
            prop_assert_eq!(a.len(), b.len());
            for ((ta, x), (tb, y)) in a.iter().zip(&b) {
                prop_assert_eq!(ta, tb);
                prop_assert!((x.mu - y.mu).abs() < 1e-6, "player {} at {}: {} vs {}", p, ta, x.mu, y.mu);
                prop_assert!((x.sigma - y.sigma).abs() < 1e-6);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// What a scored replay does: the history grown one batch at a time, each time re-smoothing
    /// only what the new batch reaches, ends where a full recompute ends.
    #[test]
    fn re_smoothing_batch_by_batch_ends_where_a_full_recompute_ends(
        games in proptest::collection::vec(game(7), 2..40),
    ) {
        let mut whole = fresh(7);
        let end = push(&mut whole, &games, 0.0, 0);
        let mut full = whole.clone();
        full.converge(1e-12, 100_000).expect("finite");

        let mut local = fresh(7);
        let mut time = 0.0;
        for g in &games {
            time += f64::from(g.0) * 0.5;
            let first = local.batches();
            local.extend_before(&whole, time).expect("finite");
            local.converge_from(first, 1e-12, 100_000).expect("finite");
        }
        let first = local.batches();
        local.extend_before(&whole, end + 1.0).expect("finite");
        local.converge_from(first, 1e-12, 100_000).expect("finite");

        prop_assert_eq!(local.games(), games.len());
        for p in 0..7 {
            let (a, c) = (full.curve(p), local.curve(p));
            prop_assert_eq!(a.len(), c.len());
            for ((ta, x), (tc, z)) in a.iter().zip(&c) {
                prop_assert_eq!(ta, tc);
                prop_assert!((x.mu - z.mu).abs() < 1e-6, "player {} at {}: {} vs {}", p, ta, x.mu, z.mu);
                prop_assert!((x.sigma - z.sigma).abs() < 1e-6);
            }
        }
    }
}

/// The steps of a history of `games` between `players` players: every player joins first, then
/// each game `dt` half days after the previous (0: the same instant, so the same batch), the
/// winning team scoring highest. Steps are (sequence number, instant, input seats).
fn steps(players: u32, games: &[Game]) -> Vec<(u64, Timestamp, Option<Vec<SeatIn>>)> {
    let start = 1_767_225_600_000_000_000i64; // 2026-01-01T00:00:00Z
    let mut out: Vec<_> =
        (0..players).map(|p| (u64::from(p) + 1, Timestamp(start), None)).collect();
    let mut at = start;
    for (dt, teams, winner) in games {
        at += i64::from(*dt) * NANOS_PER_DAY / 2;
        let mut seats = Vec::new();
        for (k, team) in teams.iter().enumerate() {
            let score =
                if k == *winner { teams.len() as f64 } else { (teams.len() - k) as f64 - 1.5 };
            for &p in team {
                seats.push(SeatIn {
                    player: PlayerId(p),
                    score,
                    side: k as u32,
                    seconds: None,
                    home: false,
                });
            }
        }
        out.push((out.len() as u64 + 1, Timestamp(at), Some(seats)));
    }
    out
}

fn apply(p: &mut Ttt, steps: &[(u64, Timestamp, Option<Vec<SeatIn>>)]) {
    for (seq, at, seats) in steps {
        let input = match seats {
            None => Input::Joined { player: PlayerId(*seq as u32 - 1), prior: Prior::default() },
            Some(seats) => Input::Match { seats },
        };
        p.apply(&Step { seq: *seq, at: *at, input }, None).expect("applies");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// What `serve`'s warm fold does ([`Projector::set_incremental`]): a history folded in random
    /// chunks (a chunk may end inside a batch, so the last batch grows), read after each chunk,
    /// each reading extending the previous converged estimate, ends where a full recompute of the
    /// whole history ends: every player's rating and sigma, and every point of every smoothed
    /// curve, to 1e-6. With and without `revert` (absences of a day or more, `revert_after=1d`),
    /// and with debutants entering at the field's mean (`debut=field`, a window of two days).
    #[test]
    fn a_history_read_in_chunks_incrementally_ends_where_a_full_recompute_ends(
        games in proptest::collection::vec(game(7), 2..40),
        chunks in proptest::collection::vec(1usize..9, 1..12),
        revert in prop_oneof![Just("0"), Just("0.35"), Just("1")],
        debut in prop_oneof![Just("prior"), Just("field")],
        toward_field in proptest::bool::ANY,
    ) {
        let revert_to = if toward_field { "field" } else { "mu" };
        let sets: Vec<(String, String)> = [
            ("epsilon", "1e-12"), ("iterations", "100000"), ("gamma", "0.2"),
            ("revert", revert), ("revert_after", "1d"), ("revert_to", revert_to),
            ("debut", debut), ("debut_offset", "0.7"), ("debut_window", "2d"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let all = steps(7, &games);
        let mut full = Ttt::configure(&sets).expect("valid");
        apply(&mut full, &all);
        full.settle(all.len() as u64, None).expect("converges");

        let mut warm = Ttt::configure(&sets).expect("valid");
        warm.set_incremental(true);
        let mut done = 0;
        for size in chunks.iter().cycle() {
            if done == all.len() {
                break;
            }
            let end = (done + size).min(all.len());
            apply(&mut warm, &all[done..end]);
            warm.settle(end as u64, None).expect("converges");
            done = end;
        }

        let (a, b) = (full.standings(), warm.standings());
        prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            prop_assert_eq!(x.games, y.games);
            prop_assert!((x.rating - y.rating).abs() < 1e-6, "{:?} vs {:?}", x, y);
            prop_assert!((x.sigma.unwrap() - y.sigma.unwrap()).abs() < 1e-6, "{:?} vs {:?}", x, y);
        }
        for p in 0..7 {
            let (ca, cb) = (full.curve(PlayerId(p)).unwrap(), warm.curve(PlayerId(p)).unwrap());
            prop_assert_eq!(ca.len(), cb.len());
            for ((ta, x), (tb, y)) in ca.iter().zip(&cb) {
                prop_assert_eq!(ta, tb);
                prop_assert!((x.rating - y.rating).abs() < 1e-6, "player {} at {}", p, ta);
                prop_assert!((x.sigma.unwrap() - y.sigma.unwrap()).abs() < 1e-6);
            }
        }
    }
}
