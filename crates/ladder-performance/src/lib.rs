//! Performance ratings (the Arimaa `p*` scripts): a player's rating is the `RP` that solves
//! `k1(w1-W(r1-RP)) + ... + kN(wN-W(rN-RP)) = 0` over their games, `W(d) = 1/(1+10^(d/400))`.
//! "The Arimaa text" (or "the seed") below is the Arimaa "Performance based rating calculations"
//! README of those scripts, quoted in `docs/algorithms/performance.md`.
//!
//! Design decisions:
//! - The variants differ only in the weights `k_i` and the fictitious games they add
//!   ([`weights`]); one solver ([`solve`]) serves them all. The left side is strictly decreasing in
//!   `RP`, so a bracketing method (Illinois with forced bisection) finds the root to 1e-9 points or
//!   proves there is none ([`SolveError::OnlyWins`]): never a Newton step that can run away.
//! - The seed's tools are pure functions over strings: [`rep`] (and [`run_rep`]) builds game lines,
//!   [`parse_games`] reads them, [`perf`] rates them, [`format_perf`] / [`run_perf`] print what
//!   `ladder perf` prints. The CLI only does IO around them.
//! - [`Performance`] is the projector: after every match each seated player's rating is solved
//!   again over their own games, each opponent entering at their rating before the match. For
//!   long careers the projector leaves out games whose weight has decayed below [`WEIGHT_FLOOR`].
//! - p7 and p8 are described by the seed in words only; our reading is in [`weights`] and
//!   `docs/algorithms/performance.md`, with every other reading.
//!
//! No clock, IO or randomness.
#![deny(missing_docs)]

mod lines;
mod projector;
mod rep;
pub mod solve;
mod tool;
pub mod weights;

pub use lines::{parse_games, parse_line, Game, LineProblem, ParseError, UNNAMED};
pub use projector::{
    kept_games, Performance, PerformanceState, PlayerState, ALGORITHM, INITIAL_RATING, PARAMS,
    WEIGHT_FLOOR,
};
pub use rep::{rep, RepError, MAX_LINES};
pub use solve::{winning_expectancy, SolveError};
pub use tool::{
    format_perf, perf, round_half_up, run_perf, run_rep, PerfError, PerfResult, ToolError,
};
pub use weights::{UnknownVariant, Variant};
