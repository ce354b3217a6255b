//! Replay speed: from the sled ledger versus folding the same events in memory, and several
//! configurations in one pass versus one (issue "Replay, snapshots, diff and the audit").
//!
//! `cargo bench -p ladder-cli --bench replay` (LADDER_BENCH_MATCHES=N to change the size, default
//! 1,000,000 two-player matches among 100,000 players; LADDER_BENCH_RUNS=R runs, default 5).
//! Prints the median of the runs for each figure. Timing is wall-clock around whole passes.
// std's maths as the peer's side of a benchmark, not ladder's ratings.
#![allow(clippy::disallowed_methods)]

use ladder_cli::ledger_history;
use ladder_events::{Body, Event, Prior, Seat, Timestamp, NANOS_PER_SECOND};
use ladder_log::{AppendOptions, Ledger};
use ladder_projector::{voided_ids, Feeder, Projector};
use ladder_replay::{registry, replay, replay_parallel, Options, Until};
use ladder_sim::SplitMix64;
use std::time::Instant;

fn ladder(players: u64, matches: u64) -> Vec<Event> {
    // SplitMix64, so the ladder is the same on every run.
    let mut rng = SplitMix64(7);
    let start = Timestamp::parse("2020-01-01").unwrap().0;
    let name = |i: u64| format!("p{i}");
    let skill: Vec<f64> = (0..players).map(|_| (rng.below(1000) as f64 - 500.0) / 250.0).collect();
    let mut events: Vec<Event> = (0..players)
        .map(|i| Event {
            at: Timestamp(start),
            id: None,
            body: Body::PlayerJoined { player: name(i), prior: Prior::default() },
        })
        .collect();
    for m in 0..matches {
        let a = rng.below(players);
        let mut b = rng.below(players - 1);
        if b >= a {
            b += 1;
        }
        let p = 1.0 / (1.0 + (skill[b as usize] - skill[a as usize]).exp());
        let win = (rng.below(1 << 20) as f64) < p * (1u64 << 20) as f64;
        let seat = |i: u64, s: f64| Seat {
            player: name(i),
            score: s,
            team: None,
            seconds: None,
            home: false,
        };
        events.push(Event {
            at: Timestamp(start + (m as i64 + 1) * 30 * NANOS_PER_SECOND),
            id: Some(format!("m{m}")),
            body: Body::MatchResult {
                seats: vec![seat(a, f64::from(u8::from(win))), seat(b, f64::from(u8::from(!win)))],
            },
        });
    }
    events
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn timed(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn configs(algo: &str, n: usize) -> Vec<ladder_projector::Config> {
    let key = match algo {
        "elo" => ("k", 10.0, 4.0),
        "glicko2" => ("tau", 0.3, 0.1),
        _ => ("sc", 10.0, 5.0),
    };
    (0..n)
        .map(|i| {
            let v = key.1 + key.2 * i as f64;
            registry::config(algo, &[(key.0.to_string(), v.to_string())]).unwrap()
        })
        .collect()
}

fn main() {
    let matches: u64 = std::env::var("LADDER_BENCH_MATCHES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let runs: usize =
        std::env::var("LADDER_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let players = 100_000.min(matches.max(2));
    let events = ladder(players, matches);
    let n = events.len() as f64;
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::open(dir.path().join("bench.db")).unwrap();
    let t = Instant::now();
    ledger.append(events.iter().cloned().map(Ok), &AppendOptions::default()).unwrap();
    let import = t.elapsed().as_secs_f64();
    println!("ladder: {players} players, {matches} matches, {} events; import {:.2} s ({:.0} events/s)\n", events.len(), import, n / import);
    println!("| algorithm | in memory (s) | from sled (s) | sled / memory speed | 1 config from sled (s) | 8 configs in one pass (s) | 8 / 1 |");
    println!("|---|---|---|---|---|---|---|");
    let history = ledger_history(&ledger);
    let voided = voided_ids(&events);
    for algo in ["elo", "tgr", "glicko2"] {
        let mem = timed(runs, || {
            let mut p = registry::build(configs(algo, 1).remove(0)).unwrap();
            let mut feeder = Feeder::new();
            for (i, e) in events.iter().enumerate() {
                feeder
                    .feed(i as u64 + 1, e, &|id| voided.contains(id), &mut [&mut p], None)
                    .unwrap();
            }
            std::hint::black_box(p.standings().len());
        });
        // What `ladder replay` does: one configuration sequentially, several on every core.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let run = |k: usize| {
            let mut ps: Vec<_> =
                configs(algo, k).into_iter().map(|c| registry::build(c).unwrap()).collect();
            let through = if k == 1 {
                let mut refs: Vec<&mut dyn Projector> =
                    ps.iter_mut().map(|p| p as &mut dyn Projector).collect();
                replay(&history, &mut refs, Options::default(), &mut |_| {}).unwrap().through
            } else {
                let mut refs: Vec<&mut (dyn Projector + Send)> =
                    ps.iter_mut().map(|p| p as &mut (dyn Projector + Send)).collect();
                replay_parallel(&history, &mut refs, Until::Head, None, cores).unwrap().through
            };
            std::hint::black_box(through);
        };
        let one = timed(runs, || run(1));
        let eight = timed(runs, || run(8));
        println!(
            "| {algo} | {mem:.3} | {one:.3} | {:.2} | {one:.3} | {eight:.3} | {:.2} |",
            mem / one,
            eight / one
        );
    }
}
