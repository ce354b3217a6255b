//! The incremental update against a full recompute (docs/PERFORMANCE.md, "TrueSkill Through
//! Time"): a history of events (JSON Lines, as `ladder log --format jsonl` writes them) folded
//! whole but for its last UTC day of games and converged, then the last day appended and read
//! again two ways: extending the converged estimate and re-smoothing only where the day's games
//! reach (what `serve`'s warm folds do, [`Projector::set_incremental`]), and converging the whole
//! history again (what `ladder replay` does). Prints the CPU time of each (this thread's, from
//! `/proc/thread-self/schedstat`, so other processes on a loaded machine do not count; wall time
//! where that file is missing) and the largest difference between the two estimates.
//!
//! `cargo bench -p ladder-ttt --bench append -- EVENTS.jsonl [KEY=VALUE ...]` (the constants of
//! `--algo ttt`, e.g. the paper's `sigma=2 gamma=0.02 epsilon=0.01 iterations=10`).

use ladder_events::json::parse_line;
use ladder_events::{Body, Event, NANOS_PER_DAY};
use ladder_projector::{Algorithm, Feeder, PlayerId, Projector};
use ladder_ttt::Ttt;
use std::time::{Duration, Instant};

/// This thread's time on the CPU (wall time where the kernel does not say).
fn cpu() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(Instant::now);
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or_else(|| start.elapsed(), Duration::from_nanos)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let (c, w) = (cpu(), Instant::now());
    let out = f();
    let (c, w) = ((cpu() - c).as_secs_f64(), w.elapsed().as_secs_f64());
    eprintln!("    ({w:.3} s wall)");
    (out, c)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let Some(path) = args.first() else {
        eprintln!(
            "usage: cargo bench -p ladder-ttt --bench append -- EVENTS.jsonl [KEY=VALUE ...]"
        );
        std::process::exit(2);
    };
    let sets: Vec<(String, String)> = args[1..]
        .iter()
        .filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let mut events: Vec<Event> = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match parse_line(line) {
            Ok(e) => events.push(e),
            Err(e) => {
                eprintln!("{path}:{}: {e}", n + 1);
                std::process::exit(2);
            }
        }
    }
    // The last UTC day with a game, and where its events start.
    let day = |e: &Event| e.at.0.div_euclid(NANOS_PER_DAY);
    let Some(last) =
        events.iter().rev().find(|e| matches!(e.body, Body::MatchResult { .. })).map(day)
    else {
        eprintln!("{path}: no games");
        std::process::exit(2);
    };
    let cut = events.iter().position(|e| day(e) >= last).unwrap_or(events.len());
    let games =
        |es: &[Event]| es.iter().filter(|e| matches!(e.body, Body::MatchResult { .. })).count();
    println!(
        "ttt/append: {} events, {} games; the last day: {} events, {} games; constants {:?}",
        events.len(),
        games(&events),
        events.len() - cut,
        games(&events[cut..]),
        sets
    );

    let configure = || match Ttt::configure(&sets) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let feed = |p: &mut Ttt, feeder: &mut Feeder, from: usize, es: &[Event]| {
        for (i, e) in es.iter().enumerate() {
            let seq = (from + i) as u64 + 1;
            if let Err(err) = feeder.feed(seq, e, &|_| false, &mut [&mut *p], None) {
                eprintln!("event {seq}: {err}");
                std::process::exit(1);
            }
        }
    };

    let mut warm = configure();
    warm.set_incremental(true);
    let mut feeder = Feeder::new();
    feed(&mut warm, &mut feeder, 0, &events[..cut]);
    let (r, before) = timed(|| warm.estimate().map(|(_, r)| r));
    println!("ttt/append/converge all but the last day: {before:.3} s CPU ({r:?})");
    feed(&mut warm, &mut feeder, cut, &events[cut..]);
    let (r, incremental) = timed(|| warm.estimate().map(|(_, r)| r));
    println!("ttt/append/the last day, incremental: {incremental:.3} s CPU ({r:?})");

    let mut full = configure();
    let mut feeder2 = Feeder::new();
    feed(&mut full, &mut feeder2, 0, &events);
    let (r, whole) = timed(|| full.estimate().map(|(_, r)| r));
    println!("ttt/append/the last day, full recompute: {whole:.3} s CPU ({r:?})");

    let (mut dmu, mut dsigma) = (0.0f64, 0.0f64);
    for i in 0..full.players() {
        if let (Some(a), Some(b)) =
            (full.standing(PlayerId(i as u32)), warm.standing(PlayerId(i as u32)))
        {
            dmu = dmu.max((a.rating - b.rating).abs());
            dsigma = dsigma.max((a.sigma.unwrap_or(0.0) - b.sigma.unwrap_or(0.0)).abs());
        }
    }
    println!(
        "ttt/append: incremental {:.1}x faster; largest difference of a rating {dmu:.2e}, of a sigma {dsigma:.2e}",
        whole / incremental.max(1e-9)
    );
}
