//! The cost of TrueSkill Through Time per game per pass (docs/PERFORMANCE.md, "TrueSkill Through
//! Time"): a seeded synthetic history of two-player games (players with hidden skills that
//! drift, tournaments of many games at one instant), folded into the model (the forward pass),
//! then swept. Prints the time of the forward pass and of each sweep, per game.
//!
//! `cargo bench -p ladder-ttt --bench sweep [-- GAMES PLAYERS]` (defaults 1,000,000 and 20,000).

use ladder_ttt::gauss::G;
use ladder_ttt::{Model, ModelParams};
use std::time::Instant;

/// SplitMix64 (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA
/// 2014): a small seeded generator, so every run sees the same history.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let games = args.first().copied().unwrap_or(1_000_000);
    let players = args.get(1).copied().unwrap_or(20_000).max(2);
    let mut rng = SplitMix64(0x5EED);
    let skill: Vec<f64> = (0..players).map(|_| 4.0 * rng.unit() - 2.0).collect();
    let mut model = Model::new(ModelParams { beta: 1.0, gamma: 0.03, p_draw: 0.0, home: 0.0 });
    for p in 0..players as u32 {
        model.set_prior(p, G::new(0.0, 6.0));
    }
    let start = Instant::now();
    let (mut day, mut left_today) = (0.0, 0);
    for g in 0..games {
        if left_today == 0 {
            day += 1.0 + rng.below(7) as f64;
            left_today = 1 + rng.below(64);
        }
        left_today -= 1;
        let a = rng.below(players as u64) as u32;
        let mut b = rng.below(players as u64 - 1) as u32;
        if b >= a {
            b += 1;
        }
        let (sa, sb) = (skill[a as usize], skill[b as usize]);
        let a_wins = rng.unit() < 1.0 / (1.0 + ladder_projector::math::exp(-(sa - sb)));
        let teams: [(&[u32], f64); 2] =
            [(&[a], f64::from(u8::from(a_wins))), (&[b], f64::from(u8::from(!a_wins)))];
        model.push_game(day, g as u64, &teams).expect("finite");
    }
    model.close().expect("finite");
    let forward = start.elapsed();
    println!(
        "ttt/forward/{games} games, {players} players, {} batches: {:.3} s, {:.3} us per game",
        model.batches(),
        forward.as_secs_f64(),
        forward.as_secs_f64() * 1e6 / games as f64
    );
    for i in 1..=3 {
        let t = Instant::now();
        let step = model.sweep().expect("finite");
        let s = t.elapsed().as_secs_f64();
        println!(
            "ttt/sweep {i}: {s:.3} s, {:.3} us per game per pass (step {:.2e}, {:.2e})",
            s * 1e6 / games as f64,
            step.0,
            step.1
        );
    }
}
