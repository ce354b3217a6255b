//! Charts of sweeps and rating histories, as standalone SVG documents in `String`s.
//!
//! - [`sweep_line`]: log loss against one constant's value, with baselines and the best point.
//! - [`sweep_heatmap`]: log loss over a grid of two constants, with a colour scale.
//! - [`rating_chart`] (and [`rating_bands`], its untitled form): ratings over time, one line per
//!   player in a band of ±2 RD where the algorithm keeps an RD.
//!
//! Every function is pure: no files, no clock, no randomness. The same input gives the same bytes
//! (coordinates have two fixed decimals, colours and element order are fixed), so a chart can be
//! snapshot-tested and diffed, and the CLI decides where it goes. Output is SVG 1.1 with `xmlns`,
//! `width`, `height` and `viewBox`; caller text is escaped (markup characters as entities,
//! characters XML forbids as U+FFFD) and a NaN or infinite value is left out, never written, so no
//! input makes an invalid document. A chart with nothing to draw says "no data".
//!
//! The SVG is written by hand (`svg.rs`, a few hundred lines) rather than through a plotting
//! library: three fixed chart types do not need one, a library's output can change bytes with
//! its version, and this crate then depends only on `chrono` (for calendar ticks on the time axis).
//! Axes use "nice" ticks, 1, 2 or 5 × 10^k ([`nice_ticks`]); colours are the Okabe–Ito palette
//! ([`PALETTE`]) and viridis, both readable with the common colour-vision deficiencies.
//!
//! One example of each chart is in `docs/img/`, written by
//! `cargo run -p ladder-plot --example gallery -- docs/img`.
#![deny(missing_docs)]
// Charts, not ratings: tick spacing uses std's `log10` and `powi` (clippy.toml forbids them where
// ratings are computed, for bit-identical results across platforms). Nothing here feeds a digest.
#![allow(clippy::disallowed_methods)]

mod bands;
mod colour;
mod heatmap;
mod line;
mod svg;
mod ticks;

pub use bands::{rating_bands, rating_chart, Series};
pub use colour::PALETTE;
pub use heatmap::sweep_heatmap;
pub use line::sweep_line;
pub use ticks::{nice_ticks, Ticks};
