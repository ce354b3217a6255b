//! Projector replay speed against skillratings' own per-game functions, on the benchmark ladder of
//! 1,000,000 two-seat games among 100,000 players over a year (`Ladder::million`).
//!
//! Ids `replay/<algorithm>/<mode>/1m`, throughput in games, so criterion's time divided by
//! 1,000,000 is the time per game. After criterion's report, the bench times every pair again,
//! interleaved (ours, theirs, ours, theirs, ...), and prints the best of N per game and the ratio
//! ours / skillratings: interleaving keeps a busy neighbour from favouring one side.
//!
//! `cargo bench -p ladder-bench --bench projectors` (add `-- --warm-up-time 1 --measurement-time 3`
//! to shorten; `LADDER_BENCH_RUNS` sets N, default 7).

use criterion::{BatchSize, Criterion, Throughput};
use ladder_bench::{skillratings_elo, skillratings_glicko, skillratings_glicko2, Ladder};
use ladder_elo::Elo;
use ladder_glicko::{Glicko, Glicko2};
use ladder_projector::{Algorithm, Config, Projector};
use ladder_tgr::Tgr;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn sets(text: &str) -> Vec<(String, String)> {
    Config::parse_assignments(text).expect("valid assignments")
}

/// A replay of the whole ladder, timed as one unit.
type Run = Box<dyn Fn(&Ladder)>;

/// One of our configurations, joined and ready to replay.
struct Ours {
    id: &'static str,
    run: Run,
}

fn ours<P: Projector + Clone + 'static>(id: &'static str, ladder: &Ladder, fresh: P) -> Ours {
    let joined = ladder.joined(fresh);
    Ours {
        id,
        run: Box::new(move |l: &Ladder| {
            black_box(l.replay(joined.clone()));
        }),
    }
}

fn main() {
    let ladder = Ladder::million();
    let games = ladder.games.len();
    let k = ladder_elo::DEFAULT_K;
    let ours = vec![
        ours("glicko/1d", &ladder, Glicko::configure(&sets("period=1d")).expect("config")),
        ours("glicko/game", &ladder, Glicko::configure(&sets("period=game")).expect("config")),
        ours("glicko2/1d", &ladder, Glicko2::configure(&sets("period=1d")).expect("config")),
        ours("glicko2/game", &ladder, Glicko2::configure(&sets("period=game")).expect("config")),
        ours("elo", &ladder, Elo::configure(&sets("")).expect("config")),
        ours("tgr/as-written", &ladder, Tgr::configure(&sets("order=as-written")).expect("config")),
        ours(
            "tgr/simultaneous",
            &ladder,
            Tgr::configure(&sets("order=simultaneous")).expect("config"),
        ),
    ];
    // skillratings' defaults: Glicko c = 63.2 (once per call), Glicko-2 tau 0.5; Elo with our K.
    // Their games are converted to (a, b, result) once, outside the timing.
    let pairs = std::rc::Rc::new(ladder.pairs());
    let n = ladder.players as usize;
    let (p1, p2, p3) = (pairs.clone(), pairs.clone(), pairs);
    let theirs: Vec<(&str, Run)> = vec![
        (
            "skillratings-glicko",
            Box::new(move |_| drop(black_box(skillratings_glicko(n, &p1, 63.2)))),
        ),
        ("skillratings-glicko2", Box::new(move |_| drop(black_box(skillratings_glicko2(n, &p2))))),
        ("skillratings-elo", Box::new(move |_| drop(black_box(skillratings_elo(n, &p3, k))))),
    ];

    let mut c = Criterion::default().sample_size(10).configure_from_args();
    {
        let mut group = c.benchmark_group("replay");
        group.throughput(Throughput::Elements(games as u64));
        for o in &ours {
            group.bench_function(format!("{}/1m", o.id), |b| {
                b.iter_batched(|| (), |()| (o.run)(&ladder), BatchSize::PerIteration)
            });
        }
        for (id, run) in &theirs {
            group.bench_function(format!("{id}/1m"), |b| {
                b.iter_batched(|| (), |()| run(&ladder), BatchSize::PerIteration)
            });
        }
        group.finish();
    }
    c.final_summary();

    // Ratios from interleaved runs in this process: best of N per game.
    let runs = std::env::var("LADDER_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(7);
    let time = |f: &dyn Fn(&Ladder)| {
        let start = Instant::now();
        f(&ladder);
        start.elapsed()
    };
    let per_game = |d: Duration| d.as_secs_f64() * 1e9 / games as f64;
    let pairs = [
        ("glicko/1d", 0),
        ("glicko/game", 0),
        ("glicko2/1d", 1),
        ("glicko2/game", 1),
        ("elo", 2),
        ("tgr/as-written", 0),
        ("tgr/simultaneous", 0),
    ];
    println!("\nper game, best of {runs} interleaved runs (ns); ratio = ours / skillratings");
    println!("{:<18} {:>9} {:>22} {:>9} {:>6}", "ours", "ns", "skillratings", "ns", "ratio");
    for (id, peer) in pairs {
        let o = ours.iter().find(|o| o.id == id).expect("configured");
        let (peer_id, peer_run) = &theirs[peer];
        let (mut best_o, mut best_t) = (Duration::MAX, Duration::MAX);
        for _ in 0..runs {
            best_o = best_o.min(time(&*o.run));
            best_t = best_t.min(time(&**peer_run));
        }
        let (x, y) = (per_game(best_o), per_game(best_t));
        println!("{id:<18} {x:>9.1} {peer_id:>22} {y:>9.1} {:>6.2}", x / y);
    }
}
