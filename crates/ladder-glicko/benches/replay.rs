//! Replay throughput: a synthetic ladder of 1,000,000 two-player games among 100,000 players over
//! one year (seeded SplitMix64, so every run replays the same ladder), through our projectors and,
//! in the same run, through skillratings' per-game functions over a plain `Vec` of ratings.
//!
//! Ids: `replay/<algorithm>/<mode>/1m`, throughput in games, so criterion's "time" divided by
//! 1,000,000 is the time per game. Run with
//! `cargo bench -p ladder-glicko -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ladder_events::{Prior, Timestamp, NANOS_PER_DAY};
use ladder_glicko::{Glicko, Glicko2};
use ladder_projector::{Config, Input, PlayerId, Projector, SeatIn, Step};
use skillratings::glicko::{GlickoConfig, GlickoRating};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use std::hint::black_box;

const PLAYERS: u32 = 100_000;
const GAMES: usize = 1_000_000;
const START_DAY: i64 = 20_000;

struct Game {
    at: Timestamp,
    a: u32,
    b: u32,
    /// a's result: 1, 0.5 or 0.
    s: f64,
}

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn ladder() -> Vec<Game> {
    let mut rng = Rng(0x1AD_DE12);
    let span = 365 * NANOS_PER_DAY;
    (0..GAMES)
        .map(|i| {
            let a = (rng.next() % u64::from(PLAYERS)) as u32;
            let b = (a + 1 + (rng.next() % u64::from(PLAYERS - 1)) as u32) % PLAYERS;
            let s = [1.0, 0.0, 0.5, 1.0, 0.0][(rng.next() % 5) as usize];
            // Games in time order, spread evenly over the year.
            let at = Timestamp(START_DAY * NANOS_PER_DAY + (i as i64) * (span / GAMES as i64));
            Game { at, a, b, s }
        })
        .collect()
}

/// A projector with every player joined at the start (joins are not timed).
fn joined<P: Projector>(mut p: P) -> P {
    for id in 0..PLAYERS {
        let step = Step {
            seq: u64::from(id) + 1,
            at: Timestamp(START_DAY * NANOS_PER_DAY),
            input: Input::Joined { player: PlayerId(id), prior: Prior::default() },
        };
        p.apply(&step, None).expect("join");
    }
    p
}

fn replay<P: Projector>(mut p: P, games: &[Game]) -> P {
    for (i, g) in games.iter().enumerate() {
        let seats = [
            SeatIn { player: PlayerId(g.a), score: g.s, side: 0, seconds: None },
            SeatIn { player: PlayerId(g.b), score: 1.0 - g.s, side: 1, seconds: None },
        ];
        let step = Step { seq: i as u64, at: g.at, input: Input::Match { seats: &seats } };
        p.apply(black_box(&step), None).expect("replay");
    }
    p
}

fn outcome(s: f64) -> Outcomes {
    if s == 1.0 {
        Outcomes::WIN
    } else if s == 0.0 {
        Outcomes::LOSS
    } else {
        Outcomes::DRAW
    }
}

fn sets(text: &str) -> Vec<(String, String)> {
    Config::parse_assignments(text).expect("sets")
}

fn benches(c: &mut Criterion) {
    let games = ladder();
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(GAMES as u64));
    group.sample_size(10);

    for (mode, text) in [("1d", "period=1d"), ("game", "period=game")] {
        let base = joined(Glicko::configure(&sets(text)).expect("config"));
        group.bench_function(format!("glicko/{mode}/1m"), |b| {
            b.iter_batched(|| base.clone(), |p| replay(p, &games), BatchSize::LargeInput)
        });
        let base = joined(Glicko2::configure(&sets(text)).expect("config"));
        group.bench_function(format!("glicko2/{mode}/1m"), |b| {
            b.iter_batched(|| base.clone(), |p| replay(p, &games), BatchSize::LargeInput)
        });
    }

    // skillratings' own per-game functions on a dense Vec, the same games in the same order.
    let config = GlickoConfig::new();
    group.bench_function("skillratings-glicko/game/1m", |b| {
        b.iter_batched(
            || vec![GlickoRating::new(); PLAYERS as usize],
            |mut r| {
                for g in &games {
                    let (x, y) = skillratings::glicko::glicko(
                        &r[g.a as usize],
                        &r[g.b as usize],
                        &outcome(black_box(g.s)),
                        &config,
                    );
                    r[g.a as usize] = x;
                    r[g.b as usize] = y;
                }
                r
            },
            BatchSize::LargeInput,
        )
    });
    let config = Glicko2Config::new();
    group.bench_function("skillratings-glicko2/game/1m", |b| {
        b.iter_batched(
            || vec![Glicko2Rating::new(); PLAYERS as usize],
            |mut r| {
                for g in &games {
                    let (x, y) = skillratings::glicko2::glicko2(
                        &r[g.a as usize],
                        &r[g.b as usize],
                        &outcome(black_box(g.s)),
                        &config,
                    );
                    r[g.a as usize] = x;
                    r[g.b as usize] = y;
                }
                r
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(replay_benches, benches);
criterion_main!(replay_benches);
