//! `ladder_projector::math`'s `exp` and `ln` against the `libm` crate they replaced and the
//! platform's C maths library (`f64::exp`, `f64::ln`), on 4,096 arguments of the kinds the
//! projectors pass (exp of -20 to 20; ln of 0.5 to 2 and of 0.001 to 1,000).
//!
//! Ids `math/<function>/<implementation>`, throughput in calls. After criterion's report the bench
//! times the three again, interleaved, and prints the best of `LADDER_BENCH_RUNS` (default 15) in
//! ns per call with the ratio to the platform's library.
//!
//! `cargo bench -p ladder-bench --bench math` (add `-- --warm-up-time 1 --measurement-time 3`).

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A function under test, by name.
type Case = (&'static str, fn(f64) -> f64);

#[allow(clippy::disallowed_methods)] // the platform's library, measured on purpose
fn platform_exp(x: f64) -> f64 {
    x.exp()
}

#[allow(clippy::disallowed_methods)] // the platform's library, measured on purpose
fn platform_ln(x: f64) -> f64 {
    x.ln()
}

fn arguments(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    // A fixed low-discrepancy walk (golden-ratio steps), so every run reads the same arguments.
    let mut u = 0.5_f64;
    (0..4096)
        .map(|_| {
            u = (u + 0.618_033_988_749_895) % 1.0;
            if log {
                ladder_projector::math::exp(
                    ladder_projector::math::ln(lo)
                        + u * (ladder_projector::math::ln(hi) - ladder_projector::math::ln(lo)),
                )
            } else {
                lo + u * (hi - lo)
            }
        })
        .collect()
}

fn sum(f: fn(f64) -> f64, xs: &[f64]) -> f64 {
    xs.iter().map(|&x| f(black_box(x))).sum()
}

fn groups() -> Vec<(&'static str, Vec<f64>, [Case; 3])> {
    let mut ln_args = arguments(0.5, 2.0, false);
    ln_args.extend(arguments(0.001, 1000.0, true));
    vec![
        (
            "exp",
            arguments(-20.0, 20.0, false),
            [
                ("ladder", ladder_projector::math::exp),
                ("libm", libm::exp),
                ("platform", platform_exp),
            ],
        ),
        (
            "ln",
            ln_args,
            [
                ("ladder", ladder_projector::math::ln),
                ("libm", libm::log),
                ("platform", platform_ln),
            ],
        ),
    ]
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    for (name, xs, cases) in groups() {
        let mut g = c.benchmark_group(format!("math/{name}"));
        g.throughput(Throughput::Elements(xs.len() as u64));
        for (id, f) in cases {
            g.bench_function(id, |b| b.iter(|| sum(f, &xs)));
        }
        g.finish();
    }
    c.final_summary();

    let runs: usize =
        std::env::var("LADDER_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(15);
    println!("\ninterleaved, best of {runs}, ns per call (ratio to the platform's library):");
    for (name, xs, cases) in groups() {
        let mut best = [Duration::MAX; 3];
        for _ in 0..runs {
            for (i, (_, f)) in cases.iter().enumerate() {
                let t = Instant::now();
                for _ in 0..64 {
                    black_box(sum(*f, &xs));
                }
                best[i] = best[i].min(t.elapsed());
            }
        }
        let per = |d: Duration| d.as_secs_f64() * 1e9 / (64.0 * xs.len() as f64);
        let platform = per(best[2]);
        for (i, (id, _)) in cases.iter().enumerate() {
            println!(
                "{name:>4} {id:>9}: {:6.2} ns ({:.2}x)",
                per(best[i]),
                per(best[i]) / platform
            );
        }
    }
}
