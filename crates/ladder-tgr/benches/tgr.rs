//! TGR replay speed: a synthetic ladder of 1,000,000 two-seat games among 100,000 players over
//! 1,000 days (so lazy midnights are exercised), against skillratings' one-game Glicko-1 on the
//! same games in the same run.
//!
//! `cargo bench -p ladder-tgr --bench tgr` (criterion; add `-- --measurement-time 5` to shorten).
//! After criterion's report the bench prints its own best-of-N timing of both and their ratio.

use criterion::{BatchSize, Criterion, Throughput};
use ladder_events::{Prior, Timestamp, NANOS_PER_SECOND};
use ladder_projector::{Input, PlayerId, Projector, SeatIn, Step};
use ladder_tgr::{configure, Tgr};
use skillratings::glicko::{glicko, GlickoConfig, GlickoRating};
use skillratings::Outcomes;
use std::hint::black_box;
use std::time::{Duration, Instant};

const PLAYERS: u32 = 100_000;
const GAMES: usize = 1_000_000;
/// 2026-01-01T00:00:00Z.
const START: i64 = 1_767_225_600 * NANOS_PER_SECOND;
/// 1,000,000 games over 1,000 days: one every 86.4 s.
const GAP: i64 = 86_400 * NANOS_PER_SECOND / 1_000;

/// splitmix64: a seeded generator written out so the input is the same on every machine.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
}

struct Ladder {
    games: Vec<(Timestamp, [SeatIn; 2])>,
}

fn ladder() -> Ladder {
    let mut rng = SplitMix(0x001a_dde7);
    let games = (0..GAMES)
        .map(|i| {
            let a = rng.below(PLAYERS);
            let mut b = rng.below(PLAYERS - 1);
            if b >= a {
                b += 1;
            }
            // 47.5% first seat wins, 47.5% second, 5% draws
            let roll = rng.below(1000);
            let (sa, sb) = if roll < 475 {
                (1.0, 0.0)
            } else if roll < 950 {
                (0.0, 1.0)
            } else {
                (0.5, 0.5)
            };
            let seat = |p: u32, score: f64, side: u32| SeatIn {
                player: PlayerId(p),
                score,
                side,
                seconds: None,
            };
            let at = Timestamp(START + (i as i64 + 1) * GAP);
            (at, [seat(a, sa, 0), seat(b, sb, 1)])
        })
        .collect();
    Ladder { games }
}

fn joined(order: &str) -> Tgr {
    let mut tgr = Tgr::new(configure(&[("order", order)]).expect("valid")).expect("valid");
    for p in 0..PLAYERS {
        let step = Step {
            seq: u64::from(p) + 1,
            at: Timestamp(START),
            input: Input::Joined { player: PlayerId(p), prior: Prior::default() },
        };
        tgr.apply(&step, None).expect("join");
    }
    tgr
}

fn replay_tgr(mut tgr: Tgr, ladder: &Ladder) -> Tgr {
    for (i, (at, seats)) in ladder.games.iter().enumerate() {
        let step = Step { seq: i as u64, at: *at, input: Input::Match { seats } };
        tgr.apply(&step, None).expect("finite");
    }
    tgr
}

fn replay_glicko(mut ratings: Vec<GlickoRating>, ladder: &Ladder) -> Vec<GlickoRating> {
    let config = GlickoConfig { c: 0.0 };
    for (_, [a, b]) in &ladder.games {
        let outcome = if a.score > b.score {
            Outcomes::WIN
        } else if a.score < b.score {
            Outcomes::LOSS
        } else {
            Outcomes::DRAW
        };
        let (i, j) = (a.player.index(), b.player.index());
        let (ra, rb) = glicko(&ratings[i], &ratings[j], &outcome, &config);
        ratings[i] = ra;
        ratings[j] = rb;
    }
    ratings
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .expect("at least one run")
}

fn main() {
    let ladder = ladder();
    let as_written = joined("as-written");
    let simultaneous = joined("simultaneous");
    let fresh = vec![GlickoRating::new(); PLAYERS as usize];

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    {
        let mut group = c.benchmark_group("replay");
        group.throughput(Throughput::Elements(GAMES as u64));
        group.bench_function("tgr/as-written/1m", |b| {
            b.iter_batched(|| as_written.clone(), |t| replay_tgr(t, &ladder), BatchSize::LargeInput)
        });
        group.bench_function("tgr/simultaneous/1m", |b| {
            b.iter_batched(
                || simultaneous.clone(),
                |t| replay_tgr(t, &ladder),
                BatchSize::LargeInput,
            )
        });
        group.bench_function("skillratings-glicko/1m", |b| {
            b.iter_batched(|| fresh.clone(), |r| replay_glicko(r, &ladder), BatchSize::LargeInput)
        });
        group.finish();
    }
    c.final_summary();

    // The ratio in one line, from the same process: best of 5 runs each.
    let tgr = best_of(5, || replay_tgr(as_written.clone(), &ladder));
    let sim = best_of(5, || replay_tgr(simultaneous.clone(), &ladder));
    let gli = best_of(5, || replay_glicko(fresh.clone(), &ladder));
    let per = |d: Duration| d.as_nanos() as f64 / GAMES as f64;
    println!(
        "per match (best of 5): tgr as-written {:.1} ns, tgr simultaneous {:.1} ns, \
         skillratings glicko {:.1} ns; tgr/glicko = {:.2}",
        per(tgr),
        per(sim),
        per(gli),
        per(tgr) / per(gli)
    );
}
