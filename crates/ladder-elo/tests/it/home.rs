//! Home advantage and margin of victory: hand calculations and an independent implementation of
//! FiveThirtyEight's published Elo update ("How Our NFL Predictions Work", and the nfl-elo code
//! published with it), written here from its description, against the projector.

use super::{close, join, projector, rating};
use ladder_elo::Elo;
use ladder_events::{Timestamp, NANOS_PER_DAY};
use ladder_projector::{Home, Input, PlayerId, Projector, SeatIn, Step};
use proptest::prelude::*;

/// Plays `(player, score, home)` seats, each a side of its own.
fn play_home(p: &mut Elo, seats: &[(u32, f64, bool)]) {
    let seats: Vec<SeatIn> = seats
        .iter()
        .enumerate()
        .map(|(side, &(id, score, home))| SeatIn {
            player: PlayerId(id),
            score,
            side: side as u32,
            seconds: None,
            home,
        })
        .collect();
    let step = Step { seq: 9, at: Timestamp(NANOS_PER_DAY), input: Input::Match { seats: &seats } };
    p.apply(&step, None).unwrap();
}

#[test]
fn home_by_hand() {
    // Both at 1500, a at home with home=100, a wins, K = 20:
    // E_a = 1 / (1 + 10^((1500 - (1500 + 100)) / 400)) = 1 / (1 + 10^-0.25)
    //     = 1 / (1 + 0.5623413251903491) = 0.6400649998028851
    // a: 1500 + 20 (1 - 0.6400649998) = 1507.198700003942; b loses the same.
    let mut p = projector("home=100");
    join(&mut p, 0, None);
    join(&mut p, 1, None);
    close(
        p.expectation_at(PlayerId(0), PlayerId(1), Timestamp(0), Home::First),
        0.64006499980,
        1e-10,
    );
    close(
        p.expectation_at(PlayerId(1), PlayerId(0), Timestamp(0), Home::Second),
        1.0 - 0.64006499980,
        1e-10,
    );
    close(p.expectation(PlayerId(0), PlayerId(1), Timestamp(0)), 0.5, 0.0);
    play_home(&mut p, &[(0, 1.0, true), (1, 0.0, false)]);
    close(rating(&p, 0), 1507.198700003942, 1e-9);
    close(rating(&p, 1), 1492.801299996058, 1e-9);
    // The same game with the home seat written second: the same change for the same player.
    let mut q = projector("home=100");
    join(&mut q, 0, None);
    join(&mut q, 1, None);
    play_home(&mut q, &[(1, 0.0, false), (0, 1.0, true)]);
    close(rating(&q, 0), 1507.198700003942, 1e-9);
    // On neutral ground the constant changes nothing: E = 1/2, +-10.
    let mut n = projector("home=100");
    join(&mut n, 0, None);
    join(&mut n, 1, None);
    play_home(&mut n, &[(0, 1.0, false), (1, 0.0, false)]);
    close(rating(&n, 0), 1510.0, 1e-12);
}

#[test]
fn margin_by_hand() {
    // FiveThirtyEight's multiplier, both at 1500, home=65 for a, a wins 24-10, K = 20:
    // d = (1500 + 65) - 1500 = 65 (the winner's rating minus the loser's, home included)
    // mult = ln(14 + 1) 2.2 / (0.001 * 65 + 2.2) = 2.70805020110221 * 2.2 / 2.265 = 2.630335736169917
    // E_a = 1 / (1 + 10^(-65/400)) = 0.5924662305843318
    // a: +20 * 2.630335736169917 * (1 - 0.5924662305843318) = +21.439012747801257
    let mut p = projector("home=65,margin=log");
    join(&mut p, 0, None);
    join(&mut p, 1, None);
    play_home(&mut p, &[(0, 24.0, true), (1, 10.0, false)]);
    close(rating(&p, 0), 1521.4390127478013, 1e-9);
    close(rating(&p, 1), 1478.5609872521987, 1e-9);
    // The away side wins 24-10: d = 1500 - 1565 = -65, so the multiplier is larger (an upset):
    // mult = ln(15) 2.2 / (2.2 - 0.065) = 2.790496694344198; a: 20 mult (0 - E_a) = -33.0655011591229
    let mut q = projector("home=65,margin=log");
    join(&mut q, 0, None);
    join(&mut q, 1, None);
    play_home(&mut q, &[(0, 10.0, true), (1, 24.0, false)]);
    close(rating(&q, 0), 1500.0 - 33.0655011591229, 1e-9);
    close(rating(&q, 1), 1500.0 + 33.0655011591229, 1e-9);
    // A draw takes ln(2) (ladder's reading: margin at least 1, no correlation term):
    // both 1500 on neutral ground, so E = 1/2 and nobody moves.
    let mut r = projector("margin=log,k=20");
    join(&mut r, 0, Some(1600.0));
    join(&mut r, 1, None);
    play_home(&mut r, &[(0, 3.0, false), (1, 3.0, false)]);
    // E_0 = 1 / (1 + 10^(-100/400)) = 0.6400649998028851; change 20 ln 2 (0.5 - E_0)
    close(rating(&r, 0), 1600.0 + 20.0 * std::f64::consts::LN_2 * (0.5 - 0.6400649998028851), 1e-9);
}

/// FiveThirtyEight's update, as their published nfl-elo code writes it, for a game between a
/// home team and an away team: `elo_diff = home + hfa - away`, the multiplier
/// `ln(max(|pd|, 1) + 1) * 2.2 / (elo_diff_winner * 0.001 + 2.2)`, `shift = k * mult * (result -
/// p_home)`; on a tie it follows ladder's reading, `ln 2` (their code takes `2.2 ln 2`: see
/// `a_tie_is_where_they_differ` in fivethirtyeight.rs).
fn fivethirtyeight(home: f64, away: f64, hfa: f64, k: f64, pd: f64) -> (f64, f64) {
    let elo_diff = home + hfa - away;
    let p_home = 1.0 / (10f64.powf(-elo_diff / 400.0) + 1.0);
    let result = if pd > 0.0 {
        1.0
    } else if pd < 0.0 {
        0.0
    } else {
        0.5
    };
    let mult = if result == 0.5 {
        (pd.abs().max(1.0) + 1.0).ln()
    } else {
        let winner_diff = if result == 1.0 { elo_diff } else { -elo_diff };
        (pd.abs().max(1.0) + 1.0).ln() * (2.2 / (winner_diff * 0.001 + 2.2))
    };
    let shift = k * mult * (result - p_home);
    (home + shift, away - shift)
}

proptest! {
    #[test]
    fn margin_and_home_match_fivethirtyeights_update(
        home in 1000.0..2000.0f64,
        away in 1000.0..2000.0f64,
        hfa in 0.0..120.0f64,
        k in 5.0..40.0f64,
        home_pts in 0u32..50,
        away_pts in 0u32..50,
        home_first in any::<bool>(),
    ) {
        let mut p = projector(&format!("home={hfa},k={k},margin=log"));
        join(&mut p, 0, Some(home));
        join(&mut p, 1, Some(away));
        let (h, a) = (f64::from(home_pts), f64::from(away_pts));
        if home_first {
            play_home(&mut p, &[(0, h, true), (1, a, false)]);
        } else {
            play_home(&mut p, &[(1, a, false), (0, h, true)]);
        }
        let (want_h, want_a) = fivethirtyeight(home, away, hfa, k, h - a);
        prop_assert!((rating(&p, 0) - want_h).abs() < 1e-9, "{} vs {}", rating(&p, 0), want_h);
        prop_assert!((rating(&p, 1) - want_a).abs() < 1e-9, "{} vs {}", rating(&p, 1), want_a);
    }
}

/// Plays a two-seat game at `day` (days from the epoch), the first seat winning.
fn win_at(p: &mut Elo, winner: u32, loser: u32, day: i64) {
    let seat =
        |id, score, side| SeatIn { player: PlayerId(id), score, side, seconds: None, home: false };
    let seats = [seat(winner, 1.0, 0), seat(loser, 0.0, 1)];
    let step =
        Step { seq: 9, at: Timestamp(day * NANOS_PER_DAY), input: Input::Match { seats: &seats } };
    p.apply(&step, None).unwrap();
}

#[test]
fn revert_by_hand() {
    // Day 1: a beats b at 1500 each, K = 20: a 1510, b 1490.
    // Day 101 (an absence of 100 days >= revert_after = 90d), revert = 0.5: each first moves half
    // way back to 1500: a 1505, b 1495. E_a = 1 / (1 + 10^(-10/400)) = 0.5143871841659987,
    // a: 1505 + 20 (1 - E_a) = 1514.71225631668, b: 1495 - 20 (1 - E_a) = 1485.28774368332.
    let mut p = projector("revert=0.5,revert_after=90d");
    join(&mut p, 0, None);
    join(&mut p, 1, None);
    win_at(&mut p, 0, 1, 1);
    close(rating(&p, 0), 1510.0, 1e-12);
    // The prediction of the next game already sees the reverted ratings.
    close(
        p.expectation_at(PlayerId(0), PlayerId(1), Timestamp(101 * NANOS_PER_DAY), Home::Neither),
        0.5143871841659987,
        1e-12,
    );
    close(
        p.expectation_at(PlayerId(0), PlayerId(1), Timestamp(2 * NANOS_PER_DAY), Home::Neither),
        1.0 / (1.0 + 10f64.powf(-20.0 / 400.0)),
        1e-12,
    );
    win_at(&mut p, 0, 1, 101);
    close(rating(&p, 0), 1514.71225631668, 1e-9);
    close(rating(&p, 1), 1485.28774368332, 1e-9);
    // 89 days later: no reversion.
    let (a, b) = (rating(&p, 0), rating(&p, 1));
    win_at(&mut p, 0, 1, 190);
    let e = 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
    close(rating(&p, 0), a + 20.0 * (1.0 - e), 1e-9);
}

proptest! {
    /// Elo with regression to the mean, written plainly: a list of ratings and last-game days.
    #[test]
    fn revert_matches_a_plain_implementation(
        games in proptest::collection::vec((0u32..5, 1u32..5, 0i64..200, any::<bool>()), 1..60),
        fraction in 0.0..1.0f64,
        after_days in 1i64..120,
    ) {
        let mut p = projector(&format!("revert={fraction},revert_after={after_days}d"));
        let mut rating = [1500.0f64; 5];
        let mut last: [Option<i64>; 5] = [None; 5];
        for i in 0..5 {
            join(&mut p, i, None);
        }
        let mut day = 0;
        for (a, d, gap, a_wins) in games {
            let b = (a + d) % 5;
            day += gap;
            let (w, l) = if a_wins { (a, b) } else { (b, a) };
            win_at(&mut p, w, l, day);
            for x in [w, l] {
                let x = x as usize;
                if last[x].is_some_and(|t| day - t >= after_days) {
                    rating[x] += fraction * (1500.0 - rating[x]);
                }
                last[x] = Some(day);
            }
            let e = 1.0 / (1.0 + 10f64.powf((rating[l as usize] - rating[w as usize]) / 400.0));
            rating[w as usize] += 20.0 * (1.0 - e);
            rating[l as usize] -= 20.0 * (1.0 - e);
        }
        for (i, &r) in rating.iter().enumerate() {
            prop_assert!((super::rating(&p, i as u32) - r).abs() < 1e-8, "{} {} {}", i, super::rating(&p, i as u32), r);
        }
    }
}
