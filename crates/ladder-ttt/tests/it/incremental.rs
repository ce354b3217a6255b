//! The incremental update: a converged history extended by new games and converged again ends
//! where a full recompute of the whole history ends (to 1e-6 after convergence).

use ladder_ttt::gauss::G;
use ladder_ttt::{Model, ModelParams};
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
