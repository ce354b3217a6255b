//! Benchmark inputs and peers: a seeded synthetic ladder of two-seat games, the projectors of
//! ladder driven over it, and the same games through the skillratings crate's own per-game
//! functions on a dense `Vec` of ratings, so both sides can be timed in one process.
//!
//! Design decisions:
//! - **The input is generated, not shipped.** SplitMix64 ([`ladder_sim::SplitMix64`]) from a fixed
//!   seed gives the same games on every machine: players drawn uniformly, 47.5% first-seat wins,
//!   47.5% second-seat wins, 5% draws, one game every `span / games` from a fixed start, every
//!   player joined at the start.
//! - **Peers run like-for-like.** skillratings rates one game per call with no rating periods and
//!   no idle growth; its `Vec` of ratings is the smallest state a per-game rating can have. Our
//!   projectors do strictly more (periods, idle growth, game counts, checks); the comparison is per
//!   game on the same games in the same order.
//! - **No timing here.** This crate only builds inputs and runs folds; `benches/projectors.rs`
//!   times them with criterion and prints the ratios.
#![deny(missing_docs)]

use ladder_events::{Prior, Timestamp, NANOS_PER_DAY};
use ladder_projector::{outcome, Input, PlayerId, Projector, SeatIn, Step};
use ladder_sim::SplitMix64;
use skillratings::elo::{EloConfig, EloRating};
use skillratings::glicko::{GlickoConfig, GlickoRating};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// 2026-01-01T00:00:00Z in nanoseconds: where every benchmark ladder starts.
pub const START: i64 = 20_454 * NANOS_PER_DAY;

/// A number in `0..n` from the top 32 bits of the next output (Lemire's multiply-shift).
fn below(rng: &mut SplitMix64, n: u32) -> u32 {
    (((rng.next_u64() >> 32) * u64::from(n)) >> 32) as u32
}

/// A synthetic ladder: `players` joined at [`START`], then two-seat games in time order.
#[derive(Clone, Debug)]
pub struct Ladder {
    /// Number of players, ids `0..players`.
    pub players: u32,
    /// Each game's instant and its two seats (sides 0 and 1).
    pub games: Vec<(Timestamp, [SeatIn; 2])>,
}

impl Ladder {
    /// `games` games among `players` players spread evenly over `days` days, from `seed`.
    pub fn new(players: u32, games: usize, days: i64, seed: u64) -> Ladder {
        assert!(players >= 2, "a ladder needs two players");
        let mut rng = SplitMix64(seed);
        let gap = (days * NANOS_PER_DAY) / games.max(1) as i64;
        let games = (0..games)
            .map(|i| {
                let a = below(&mut rng, players);
                let mut b = below(&mut rng, players - 1);
                if b >= a {
                    b += 1;
                }
                let roll = below(&mut rng, 1000);
                let (sa, sb) = match roll {
                    0..475 => (1.0, 0.0),
                    475..950 => (0.0, 1.0),
                    _ => (0.5, 0.5),
                };
                let seat = |p: u32, score: f64, side: u32| SeatIn {
                    player: PlayerId(p),
                    score,
                    side,
                    seconds: None,
                    home: false,
                };
                let at = Timestamp(START + (i as i64 + 1) * gap);
                (at, [seat(a, sa, 0), seat(b, sb, 1)])
            })
            .collect();
        Ladder { players, games }
    }

    /// The benchmark ladder of the Glicko issue: 1,000,000 games among 100,000 players over a
    /// year.
    pub fn million() -> Ladder {
        Ladder::new(100_000, 1_000_000, 365, 0x1AD_DE12)
    }

    /// `projector` with every player joined at [`START`] without a prior (steps 1..=players).
    pub fn joined<P: Projector>(&self, mut projector: P) -> P {
        for id in 0..self.players {
            let step = Step {
                seq: u64::from(id) + 1,
                at: Timestamp(START),
                input: Input::Joined { player: PlayerId(id), prior: Prior::default() },
            };
            projector.apply(&step, None).expect("a join cannot fail");
        }
        projector
    }

    /// Folds every game into `projector` (joined by [`Ladder::joined`]), untraced.
    pub fn replay<P: Projector>(&self, mut projector: P) -> P {
        let first = u64::from(self.players) + 1;
        for (i, (at, seats)) in self.games.iter().enumerate() {
            let step = Step { seq: first + i as u64, at: *at, input: Input::Match { seats } };
            projector.apply(std::hint::black_box(&step), None).expect("benchmark games are finite");
        }
        projector
    }

    /// The games as [`Game`]s, for the skillratings peers.
    pub fn pairs(&self) -> Vec<Game> {
        self.games
            .iter()
            .map(|(_, [a, b])| Game { a: a.player.0, b: b.player.0, s: outcome(a.score, b.score) })
            .collect()
    }
}

/// A two-seat game over dense player ids: `a` against `b`, `s` being a's result (1, 0.5, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The first seat's player.
    pub a: u32,
    /// The second seat's player.
    pub b: u32,
    /// The first seat's result.
    pub s: f64,
}

/// `games` among `players` through skillratings' `glicko::glicko` (with its `c`; 0: no decay).
pub fn skillratings_glicko(players: usize, games: &[Game], c: f64) -> Vec<GlickoRating> {
    let config = GlickoConfig { c };
    fold(players, games, GlickoRating::new(), |a, b, o| {
        skillratings::glicko::glicko(a, b, o, &config)
    })
}

/// `games` through skillratings' `glicko2::glicko2` with tau 0.5 and epsilon 1e-6.
pub fn skillratings_glicko2(players: usize, games: &[Game]) -> Vec<Glicko2Rating> {
    let config = Glicko2Config::new();
    fold(players, games, Glicko2Rating::new(), |a, b, o| {
        skillratings::glicko2::glicko2(a, b, o, &config)
    })
}

/// `games` through skillratings' `elo::elo` with this `k`.
pub fn skillratings_elo(players: usize, games: &[Game], k: f64) -> Vec<EloRating> {
    let config = EloConfig { k };
    fold(players, games, EloRating::new(), |a, b, o| skillratings::elo::elo(a, b, o, &config))
}

/// skillratings' per-game function over `games` on a dense `Vec` of ratings.
fn fold<R: Copy>(
    players: usize,
    games: &[Game],
    start: R,
    rate: impl Fn(&R, &R, &Outcomes) -> (R, R),
) -> Vec<R> {
    let mut ratings = vec![start; players];
    for g in games {
        let outcome = if g.s == 1.0 {
            Outcomes::WIN
        } else if g.s == 0.0 {
            Outcomes::LOSS
        } else {
            Outcomes::DRAW
        };
        let (i, j) = (g.a as usize, g.b as usize);
        let (x, y) = rate(&ratings[i], &ratings[j], std::hint::black_box(&outcome));
        ratings[i] = x;
        ratings[j] = y;
    }
    ratings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_is_seeded_and_well_formed() {
        let (x, y) = (Ladder::new(10, 1000, 10, 7), Ladder::new(10, 1000, 10, 7));
        assert_eq!(format!("{:?}", x.games), format!("{:?}", y.games));
        assert!(x.games.windows(2).all(|w| w[0].0 < w[1].0), "games in time order");
        for (_, [a, b]) in &x.games {
            assert_ne!(a.player, b.player);
            assert!(a.player.0 < 10 && b.player.0 < 10);
            assert_eq!(a.score + b.score, 1.0);
        }
        let draws = x.games.iter().filter(|(_, [a, _])| a.score == 0.5).count();
        assert!((20..=80).contains(&draws), "about 5% draws, got {draws} of 1000");
    }

    #[test]
    fn our_glicko_and_skillratings_agree_on_the_bench_ladder_with_c_zero() {
        // One game per period, no idle growth (c = 0): the two compute the same thing, so the
        // benchmark compares equal work. Ratings to 1e-9.
        let ladder = Ladder::new(50, 2_000, 2_000, 11);
        let sets = ladder_projector::Config::parse_assignments("c=0,period=game").unwrap();
        use ladder_projector::Algorithm;
        let ours = ladder.replay(ladder.joined(ladder_glicko::Glicko::configure(&sets).unwrap()));
        let theirs = skillratings_glicko(50, &ladder.pairs(), 0.0);
        for s in ours.standings() {
            let t = theirs[s.player.index()];
            assert!((s.rating - t.rating).abs() < 1e-9, "{s:?} vs {t:?}");
            assert!((s.rd.unwrap() - t.deviation).abs() < 1e-9, "{s:?} vs {t:?}");
        }
    }
}
