//! The Arimaa text's `p*` and `ra` scripts as pure functions: `ladder perf` prints what
//! [`run_perf`] returns.

use crate::lines::{parse_games, Game, ParseError};
use crate::rep::{rep, RepError};
use crate::solve::{solve, SolveError, Term};
use crate::weights::{terms, Entry, Variant};
use std::collections::HashMap;

/// A performance rating with its stability values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerfResult {
    /// The root `RP` of the performance equation.
    pub rating: f64,
    /// How much the rating would rise after one more game, won against a new opponent rated
    /// `rating` (the Arimaa text: "how much it would change if the player was to win or lose a game
    /// against a player with the same rating"), ≥ 0.
    pub plus: f64,
    /// How much it would fall after one more game lost against such an opponent, ≥ 0.
    pub minus: f64,
    /// The Arimaa text's rating accuracy: `RA = sqrt(P1) + sqrt(P2) + .... + sqrt(PN)` "where Pi is
    /// the number of games played against player i" (fictitious games are not games played).
    pub ra: f64,
}

impl PerfResult {
    /// The rating rounded to the nearest whole number, halves up (`floor(x + 0.5)`).
    pub fn rounded(&self) -> i64 {
        round_half_up(self.rating)
    }
}

/// Rounds to the nearest whole number, halves up: 1745.5 gives 1746, -0.5 gives 0.
pub fn round_half_up(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

/// Why there is no performance rating.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PerfError {
    /// The variant's equation has no finite root (p1 with only wins or only losses, or no games).
    #[error("{variant}: {reason}")]
    NoRating {
        /// The variant.
        variant: Variant,
        /// Why (part of the message, not a separate cause, so it prints once).
        reason: SolveError,
    },
}

/// The games of an input as weighting entries, with per-opponent counts.
struct Prepared {
    entries: Vec<Entry>,
    counts: Vec<u32>,
}

fn prepare(games: &[Game]) -> Prepared {
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut counts: Vec<u32> = Vec::new();
    let entries = games
        .iter()
        .map(|g| {
            let next = ids.len() as u32;
            let opp = *ids.entry(g.opponent_name()).or_insert(next);
            if opp as usize == counts.len() {
                counts.push(0);
            }
            counts[opp as usize] += 1;
            Entry { w: g.result, r: g.rating, opp }
        })
        .collect();
    Prepared { entries, counts }
}

fn solve_entries(
    variant: Variant,
    extra: Option<Entry>,
    p: &Prepared,
    counts: &[u32],
) -> Result<f64, PerfError> {
    let (mut seen, mut out): (Vec<u32>, Vec<Term>) = (Vec::new(), Vec::new());
    terms(variant, extra.iter().chain(&p.entries), counts, 0.0, &mut seen, &mut out);
    solve(&out).map_err(|reason| PerfError::NoRating { variant, reason })
}

/// The Arimaa text's `p*` script: the performance rating of `games` (newest first) under `variant`,
/// with the +/- values and `ra`. Every game is used (no weight floor).
pub fn perf(variant: Variant, games: &[Game]) -> Result<PerfResult, PerfError> {
    let p = prepare(games);
    let rating = solve_entries(variant, None, &p, &p.counts)?;
    // The hypothetical game is the newest, against a player met for the first time.
    let fresh = p.counts.len() as u32;
    let mut counts = p.counts.clone();
    counts.push(1);
    let won = Entry { w: 1.0, r: rating, opp: fresh };
    let lost = Entry { w: 0.0, r: rating, opp: fresh };
    let plus = solve_entries(variant, Some(won), &p, &counts)? - rating;
    let minus = rating - solve_entries(variant, Some(lost), &p, &counts)?;
    let ra = p.counts.iter().map(|&n| f64::from(n).sqrt()).sum();
    Ok(PerfResult { rating, plus, minus, ra })
}

/// What `ladder perf --variant pN` prints: the rounded rating on the first line; with
/// `show_extra`, then `+/- +PLUS -MINUS` (each rounded, halves up) and `ra RA` (two decimals).
pub fn format_perf(result: &PerfResult, show_extra: bool) -> String {
    let mut out = format!("{}\n", result.rounded());
    if show_extra {
        out.push_str(&format!(
            "+/- +{} -{}\nra {:.2}\n",
            round_half_up(result.plus),
            round_half_up(result.minus),
            result.ra
        ));
    }
    out
}

/// Why a tool run failed: the CLI prints it and exits 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// A game line could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// No finite rating exists.
    #[error(transparent)]
    Perf(#[from] PerfError),
    /// `rep`'s arguments were refused.
    #[error(transparent)]
    Rep(#[from] RepError),
}

/// `ladder perf --variant pN`: reads game lines from `stdin_text` and returns what to print.
pub fn run_perf(variant: Variant, stdin_text: &str, show_extra: bool) -> Result<String, ToolError> {
    let games = parse_games(stdin_text)?;
    Ok(format_perf(&perf(variant, &games)?, show_extra))
}

/// `ladder rep ARG...`: what to print ([`rep`] with the tool's error type).
pub fn run_rep(args: &[String], stdin: &str) -> Result<String, ToolError> {
    Ok(rep(args, stdin)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_halves_up() {
        assert_eq!(round_half_up(1745.5), 1746);
        assert_eq!(round_half_up(1745.4999), 1745);
        assert_eq!(round_half_up(-0.5), 0);
        assert_eq!(round_half_up(-0.51), -1);
    }
}
