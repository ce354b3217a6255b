//! Writes one example of each chart, from made-up but plausible data, into the directory given as
//! the first argument: `cargo run -p ladder-plot --example gallery -- docs/img`.
// Made-up chart data: std's maths is fine here (clippy.toml forbids it only where ratings are computed).
#![allow(clippy::disallowed_methods)]

use ladder_plot::{rating_bands, sweep_heatmap, sweep_line, Series};
use std::f64::consts::LN_2;
use std::path::PathBuf;

const DAY: i64 = 86_400_000_000_000;
/// 2024-01-01T00:00:00Z.
const START: i64 = 1_704_067_200 * 1_000_000_000;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".to_owned()));

    // A bowl around k = 28 with a little deterministic roughness.
    let points: Vec<(f64, f64)> = (2..=16)
        .map(|i| {
            let k = f64::from(i) * 4.0;
            (k, 0.6405 + 0.000_025 * (k - 28.0).powi(2) + 0.0008 * (k * 0.7).sin())
        })
        .collect();
    let line = sweep_line("k", &points, &[("always 0.5", LN_2), ("Elo, best k", 0.6551)]);
    std::fs::write(dir.join("sweep-line.svg"), line)?;

    let taus = [0.3, 0.5, 0.7, 0.9, 1.1, 1.3];
    let rd_maxes = [200.0, 250.0, 300.0, 350.0, 400.0];
    let values: Vec<Vec<f64>> = rd_maxes
        .iter()
        .map(|&rd: &f64| {
            taus.iter()
                .map(|&tau: &f64| {
                    if tau > 1.2 && rd > 380.0 {
                        f64::NAN // a run that did not finish
                    } else {
                        0.632 + 0.02 * (tau - 0.6).powi(2) + 0.000_000_4 * (rd - 320.0).powi(2)
                    }
                })
                .collect()
        })
        .collect();
    let heat = sweep_heatmap("tau", &taus, "rd_max", &rd_maxes, &values);
    std::fs::write(dir.join("sweep-heatmap.svg"), heat)?;

    let player = |name: &str, skill: f64, drift: f64, rd: bool| Series {
        name: name.to_owned(),
        points: (0..40)
            .map(|w| {
                let w = f64::from(w);
                let rating =
                    1500.0 + (skill - 1500.0) * (1.0 - (-w / 8.0).exp()) + drift * (w / 5.0).sin();
                let dev = rd.then(|| 50.0 + 300.0 * (-w / 6.0).exp());
                (START + (w as i64) * 7 * DAY, rating, dev)
            })
            .collect(),
    };
    let bands = rating_bands(&[
        player("Łukasz Nowak", 1720.0, 25.0, true),
        player("Ann & Bo <team>", 1390.0, 30.0, true),
        player("Chidi (Elo, no RD)", 1580.0, 40.0, false),
    ]);
    std::fs::write(dir.join("rating-bands.svg"), bands)?;
    Ok(())
}
