//! What the projector's weight floor changes: a synthetic ladder of long careers replayed with
//! the floor (`Performance::new`) and without it (`Performance::exact`).
//! `docs/algorithms/performance.md` quotes the differences printed here.

use ladder_events::{Prior, Timestamp};
use ladder_performance::{kept_games, Performance, WEIGHT_FLOOR};
use ladder_projector::{Algorithm, Config, Input, PlayerId, Projector, SeatIn, Step};

/// A small linear congruential generator: the ladder is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PLAYERS: u32 = 5;
const MATCHES: usize = 3000;

fn replay(mut p: Performance) -> Vec<f64> {
    for id in 0..PLAYERS {
        let input = Input::Joined { player: PlayerId(id), prior: Prior::default() };
        p.apply(&Step { seq: 0, at: Timestamp(0), input }, None).unwrap();
    }
    let strength = [0u64, 15, 30, 45, 60];
    let mut rng = Lcg(2026);
    for seq in 0..MATCHES {
        let a = rng.below(u64::from(PLAYERS)) as u32;
        let b = (a + 1 + rng.below(u64::from(PLAYERS) - 1) as u32) % PLAYERS;
        // The stronger player wins more often; one game in ten is a draw.
        let roll = rng.below(100 + strength[a as usize] + strength[b as usize]);
        let (sa, sb) = if roll < 10 {
            (0.5, 0.5)
        } else if roll < 55 + strength[a as usize] {
            (1.0, 0.0)
        } else {
            (0.0, 1.0)
        };
        let seats = [
            SeatIn { player: PlayerId(a), score: sa, side: 0, seconds: None, home: false },
            SeatIn { player: PlayerId(b), score: sb, side: 1, seconds: None, home: false },
        ];
        let step =
            Step { seq: seq as u64 + 1, at: Timestamp(0), input: Input::Match { seats: &seats } };
        p.apply(&step, None).unwrap();
    }
    p.standings().iter().map(|s| s.rating).collect()
}

fn config(variant: &str) -> Config {
    Config::new("performance", ladder_performance::PARAMS, &[("variant".into(), variant.into())])
        .unwrap()
}

#[test]
fn the_weight_floor_changes_ratings_by_less_than_a_millionth_of_a_point() {
    // Careers of about 1200 games each: longer than the 1026 games p3 and p4 keep.
    assert_eq!(kept_games(WEIGHT_FLOOR), 1026);
    for variant in ["p3", "p4", "p7", "p8"] {
        let floored = replay(Performance::new(config(variant)).unwrap());
        let exact = replay(Performance::exact(config(variant)).unwrap());
        let worst = floored.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        println!("{variant}: largest difference {worst:e} rating points; exact {exact:?}");
        assert!(worst < 1e-6, "{variant}: {worst}");
    }
}
