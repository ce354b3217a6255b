//! Generation speed of `ladder sim`: how fast the simulator produces events, alone and written as
//! JSON Lines, so that generating a benchmark input never dominates an import or replay benchmark.
//!
//! `cargo bench -p ladder-sim --bench sim` (criterion: `sim/generate/1m` and `sim/jsonl/1m`, 1M
//! matches among 100,000 players over a year, throughput in events). After criterion's report the
//! bench times one pass over 10M matches among 1M players (set `LADDER_SIM_BENCH_MATCHES` to
//! change the count) and prints events, matches and events per second.

use criterion::{Criterion, Throughput};
use ladder_events::json::to_line;
use ladder_sim::{simulate, SimParams};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Events, and bytes of JSON Lines when `jsonl`, of one whole simulation.
fn generate(params: &SimParams, jsonl: bool) -> (u64, u64) {
    let mut events = 0;
    let mut bytes = 0;
    for e in simulate(params).expect("valid parameters") {
        events += 1;
        if jsonl {
            bytes += to_line(black_box(&e)).len() as u64 + 1;
        } else {
            black_box(&e);
        }
    }
    (events, bytes)
}

fn main() {
    let params = SimParams::new(100_000, 1_000_000, 1);
    let (events, _) = generate(&params, false);
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let mut g = c.benchmark_group("sim");
    g.throughput(Throughput::Elements(events));
    g.bench_function("generate/1m", |b| b.iter(|| generate(black_box(&params), false)));
    g.bench_function("jsonl/1m", |b| b.iter(|| generate(black_box(&params), true)));
    g.finish();
    c.final_summary();

    let matches = std::env::var("LADDER_SIM_BENCH_MATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000u64);
    let players = (matches / 10).clamp(2, u64::from(u32::MAX)) as u32;
    let big = SimParams::new(players, matches, 1);
    for jsonl in [false, true] {
        let t = Instant::now();
        let (events, bytes) = generate(&big, jsonl);
        let s = t.elapsed().as_secs_f64();
        println!(
            "one pass, {} players, {matches} matches{}: {events} events in {s:.2} s = {:.2}M events/s, {:.2}M matches/s{}",
            big.players,
            if jsonl { ", as JSON Lines" } else { "" },
            events as f64 / s / 1e6,
            matches as f64 / s / 1e6,
            if jsonl { format!(", {:.0} MB", bytes as f64 / 1e6) } else { String::new() },
        );
    }
}
