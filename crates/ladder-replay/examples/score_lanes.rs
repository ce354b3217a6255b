//! A bench binary for a sweep's scoring alone (docs/PERFORMANCE.md, branch `score8`): records
//! GAMES two-seat matches in LANES configurations at once ([`Scores::record`], what a fold
//! thread of `ladder sweep` does after each game's expectations), or with `each`, lane by lane
//! through [`Score::record`] (what a single replay's `--score` does).
//!
//! `cargo run --release -p ladder-replay --example score_lanes -- [LANES] [GAMES] [each]`
//! (defaults 32 and 2,000,000: the 64-configuration sweep's fold thread over the 1M ladder,
//! twice over). Measure it with `perf stat -e task-clock`.
//!
//! The predictions are seeded: each match a p drawn in [0.2, 0.8], each lane that p plus up to
//! 0.0002 per lane number (a sweep's lanes predict a match with nearby constants), the outcome
//! a draw one time in ten and otherwise a win with chance p. 4,096 matches are drawn and cycled.
//! Prints one lane's sums, so the work cannot be left out.

use ladder_replay::score::{Score, Scores};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let lanes: usize = args.next().map_or(Ok(32), |a| a.parse())?;
    let games: usize = args.next().map_or(Ok(2_000_000), |a| a.parse())?;
    let each = match args.next().as_deref() {
        None => false,
        Some("each") => true,
        Some(other) => {
            return Err(format!("the third argument is `each` or nothing, not {other:?}").into())
        }
    };
    if lanes == 0 {
        return Err("LANES must be at least 1".into());
    }
    let mut x = 1u64;
    let mut next = move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let matches: Vec<(Vec<f64>, f64)> = (0..4096)
        .map(|_| {
            let base = 0.2 + 0.6 * next();
            let p = (0..lanes).map(|l| base + l as f64 * 2e-4 * next()).collect();
            let u = next();
            let y = if u < 0.1 {
                0.5
            } else if u < 0.1 + 0.9 * base {
                1.0
            } else {
                0.0
            };
            (p, y)
        })
        .collect();
    let scores = if each {
        let mut scores = vec![Score::new(0); lanes];
        for (p, y) in matches.iter().cycle().take(games) {
            for (s, &p) in scores.iter_mut().zip(std::hint::black_box(p)) {
                s.record(p, *y);
            }
        }
        scores
    } else {
        let mut scores = Scores::new(&vec![0; lanes]);
        for (p, y) in matches.iter().cycle().take(games) {
            scores.record(std::hint::black_box(p), *y);
        }
        scores.into_scores()
    };
    let last = &scores[lanes - 1];
    println!(
        "lane {}: {} matches, log loss {:?}, Brier {:?}, accuracy {:?}",
        lanes - 1,
        last.matches,
        last.log_loss(),
        last.brier(),
        last.accuracy()
    );
    Ok(())
}
