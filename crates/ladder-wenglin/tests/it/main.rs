//! Weng-Lin against skillratings' `weng_lin` module (an independent implementation of the same
//! Algorithm 1) on random 1v1, two-team and multi-team matches, and by hand on one game.
// std's maths in the oracle's own arithmetic is fine here: skillratings computes with std.
#![allow(clippy::disallowed_methods)]

use ladder_events::{Prior, Timestamp};
use ladder_projector::{Algorithm, Config, Input, PlayerId, Projector, SeatIn, Step, Trace};
use ladder_wenglin::{WengLin, ALGORITHM, PARAMS};
use proptest::prelude::*;
use skillratings::weng_lin::{
    weng_lin, weng_lin_multi_team, weng_lin_two_teams, WengLinConfig, WengLinRating,
};
use skillratings::{MultiTeamOutcome, Outcomes};

const CASES: u32 = 10_000;

fn projector(sets: &[(&str, &str)]) -> WengLin {
    let sets: Vec<(String, String)> =
        sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    WengLin::new(Config::new(ALGORITHM, PARAMS, &sets).unwrap()).unwrap()
}

/// Joins one player per `(mu, sigma)` with that prior, ids 0, 1, ...
fn joined(p: &mut WengLin, players: &[(f64, f64)]) {
    for (i, &(mu, sigma)) in players.iter().enumerate() {
        let prior = Prior { rating: Some(mu), rd: Some(sigma), volatility: None };
        let input = Input::Joined { player: PlayerId(i as u32), prior };
        p.apply(&Step { seq: i as u64 + 1, at: Timestamp(0), input }, None).unwrap();
    }
}

/// Plays one match of `seats` (player id, side, score) and returns every player's `(mu, sigma)`.
fn play(p: &mut WengLin, seats: &[(u32, u32, f64)], trace: Option<&mut Trace>) -> Vec<(f64, f64)> {
    let seats: Vec<SeatIn> = seats
        .iter()
        .map(|&(player, side, score)| SeatIn {
            player: PlayerId(player),
            score,
            side,
            seconds: None,
            home: false,
        })
        .collect();
    let step = Step { seq: 1000, at: Timestamp(1), input: Input::Match { seats: &seats } };
    p.apply(&step, trace).unwrap();
    (0..p.players() as u32).map(|i| p.values(PlayerId(i)).unwrap()).collect()
}

fn rating((mu, sigma): (f64, f64)) -> WengLinRating {
    WengLinRating { rating: mu, uncertainty: sigma }
}

fn close(ours: (f64, f64), theirs: &WengLinRating, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        (ours.0 - theirs.rating).abs() <= 1e-9,
        "{what}: mu {} vs {}",
        ours.0,
        theirs.rating
    );
    prop_assert!(
        (ours.1 - theirs.uncertainty).abs() <= 1e-9,
        "{what}: sigma {} vs {}",
        ours.1,
        theirs.uncertainty
    );
    Ok(())
}

fn player() -> impl Strategy<Value = (f64, f64)> {
    (-10.0..60.0f64, 0.05..12.0f64)
}

fn beta() -> impl Strategy<Value = f64> {
    prop_oneof![Just(25.0 / 6.0), 0.5..10.0f64]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn one_against_one_matches_skillratings(
        a in player(), b in player(), result in 0..3u8, beta in beta()
    ) {
        let mut p = projector(&[("beta", &beta.to_string())]);
        joined(&mut p, &[a, b]);
        let (sa, sb) = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)][result as usize];
        let ours = play(&mut p, &[(0, 0, sa), (1, 1, sb)], None);
        let outcome = [Outcomes::WIN, Outcomes::LOSS, Outcomes::DRAW][result as usize];
        let config = WengLinConfig { beta, uncertainty_tolerance: 1e-6 };
        let (ta, tb) = weng_lin(&rating(a), &rating(b), &outcome, &config);
        close(ours[0], &ta, "a")?;
        close(ours[1], &tb, "b")?;
    }

    #[test]
    fn two_teams_match_skillratings(
        one in prop::collection::vec(player(), 1..5),
        two in prop::collection::vec(player(), 1..5),
        result in 0..3u8,
    ) {
        let mut p = projector(&[]);
        let all: Vec<(f64, f64)> = one.iter().chain(two.iter()).copied().collect();
        joined(&mut p, &all);
        let (s1, s2) = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)][result as usize];
        let seats: Vec<(u32, u32, f64)> = (0..all.len())
            .map(|i| if i < one.len() { (i as u32, 7, s1) } else { (i as u32, 3, s2) })
            .collect();
        let ours = play(&mut p, &seats, None);
        let outcome = [Outcomes::WIN, Outcomes::LOSS, Outcomes::DRAW][result as usize];
        let t1: Vec<WengLinRating> = one.iter().copied().map(rating).collect();
        let t2: Vec<WengLinRating> = two.iter().copied().map(rating).collect();
        let (n1, n2) = weng_lin_two_teams(&t1, &t2, &outcome, &WengLinConfig::new());
        for (i, t) in n1.iter().chain(n2.iter()).enumerate() {
            close(ours[i], t, &format!("player {i}"))?;
        }
    }

    #[test]
    fn free_for_all_and_multi_team_match_skillratings(
        teams in prop::collection::vec((prop::collection::vec(player(), 1..4), 0..4u8), 2..6),
    ) {
        // Each team's seats score the team's points (a lower rank number is a better place);
        // equal points are a tie of ranks.
        let mut p = projector(&[]);
        let all: Vec<(f64, f64)> = teams.iter().flat_map(|(t, _)| t.iter().copied()).collect();
        joined(&mut p, &all);
        let mut seats = Vec::new();
        for (side, (team, place)) in teams.iter().enumerate() {
            for _ in team {
                seats.push((seats.len() as u32, side as u32, 10.0 - f64::from(*place)));
            }
        }
        let ours = play(&mut p, &seats, None);
        let ratings: Vec<Vec<WengLinRating>> =
            teams.iter().map(|(t, _)| t.iter().copied().map(rating).collect()).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
            .iter()
            .zip(teams.iter())
            .map(|(r, (_, place))| (&r[..], MultiTeamOutcome::new(usize::from(*place) + 1)))
            .collect();
        let theirs = weng_lin_multi_team(&ranked, &WengLinConfig::new());
        for (i, t) in theirs.iter().flatten().enumerate() {
            close(ours[i], t, &format!("player {i}"))?;
        }
    }
}

#[test]
fn one_game_at_the_defaults_by_hand() {
    // Two new players (mu 25, sigma 25/3, beta 25/6), the first wins. By hand:
    // c^2 = 2 sigma^2 + 2 beta^2 = 2 (625/9) + 2 (625/36) = 6250/36, so c = 13.176156917368...
    // p = 1/2 (equal mu). Winner: mu' = 25 + (625/9) / c * (1 - 1/2) = 25 + 2.635231383473...
    // eta = (sigma / c)^3 p (1 - p) = (0.632455532033...)^3 / 4 = 0.063245553203...
    // sigma' = sqrt(625/9 (1 - eta)) = sqrt(65.052392...) = 8.065506316324...
    let mut p = projector(&[]);
    joined(&mut p, &[(25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0)]);
    let mut trace = Trace::new();
    let after = play(&mut p, &[(0, 0, 1.0), (1, 1, 0.0)], Some(&mut trace));
    assert!((after[0].0 - 27.635231383473).abs() < 1e-9, "{:?}", after[0]);
    assert!((after[1].0 - 22.364768616527).abs() < 1e-9, "{:?}", after[1]);
    assert!((after[0].1 - 8.065506316324).abs() < 1e-9, "{:?}", after[0]);
    assert_eq!(after[0].1, after[1].1, "a 1v1 between equals shrinks both sigmas alike");
    // The trace names every quantity of Algorithm 1.
    let text = format!("{trace:?}");
    for name in ["mu_i", "sigma_i^2", "c_iq", "p_iq", "delta_q", "eta_q", "Omega_i", "Delta_i"] {
        assert!(text.contains(name), "trace lacks {name}");
    }
    // The expectation before the game was the Bradley-Terry 1/2.
    let q = projector(&[]);
    assert_eq!(q.expectation(PlayerId(0), PlayerId(1), Timestamp(0)), 0.5);
}

#[test]
fn a_state_restores_to_the_same_projector() {
    let mut p = projector(&[]);
    joined(&mut p, &[(20.0, 5.0), (30.0, 4.0), (25.0, 8.0)]);
    play(&mut p, &[(0, 0, 2.0), (1, 1, 1.0), (2, 2, 0.0)], None);
    let again = WengLin::restore(p.config().clone(), p.state().clone()).unwrap();
    assert_eq!(again.standings(), p.standings());
    // A configuration of another algorithm is refused.
    let foreign = Config::new("elo", &[], &[]).unwrap();
    assert!(WengLin::new(foreign).is_err());
}
