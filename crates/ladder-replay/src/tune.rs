//! Searching an algorithm's constants for the lowest log loss (`ladder tune`, docs/outputs.md).
//!
//! A coordinate search: one constant at a time, the others held, in rounds until a round improves
//! nothing. Every step proposes a *batch* of configurations, which the caller evaluates in one
//! pass over the history (a sweep), so the cost is counted in passes, not configurations.
//! - A continuous constant is searched on a log scale (or a linear one when its range is a short
//!   interval, like TGR's `p` in [0, 1]): five points across a bracket around the current value,
//!   then a bracket around the best of them 2.5 times narrower, until it is narrower than 1% of
//!   the value (a batched golden-section search: each pass keeps the best point and its
//!   neighbours' interval).
//! - A period takes its candidates from [`PERIODS`]; a word-valued constant takes every word.
//! - `home` is searched on a linear scale from 0 (no advantage) to [`home_span`]; `revert` over
//!   [`REVERTS`] and `revert_after` over [`REVERT_AFTERS`], each in one pass (a finer search of
//!   them would cost a pass per step for a constant whose effect is small and flat: see
//!   docs/real-ladders.md).
//! - TTT's `debut_offset` (with `debut=field`) is searched on a linear scale from 0 to
//!   [`DEBUT_SPAN`] skill units, and only when `debut=field` is set ([`default_search_for`]).
//! - The search starts from the best of several points ([`starts`]: the given one, and every
//!   continuous constant low, then high), evaluated together in the first pass, so a poor
//!   starting value does not trap it.
//! - [`edge_warnings`] names every chosen constant that sits on an edge of its search range that
//!   is not an end of the constant's own range: the best value may lie beyond it.
//! - How far the search goes is a [`Plan`] ([`plan`]): the same for every algorithm but `ttt`,
//!   whose every configuration costs a convergence of the whole history day by day, where the
//!   brackets start narrower, stop wider, the rounds are two and the configurations are
//!   budgeted (docs/algorithms/ttt.md, "Tuning").
//!
//! Pure: the evaluation is the caller's closure, so the search is tested without a ledger.

use ladder_projector::{math, ParamKind, ParamSpec};
use std::collections::HashMap;

/// Rating periods a `period` constant is searched over.
pub const PERIODS: [&str; 11] =
    ["game", "1d", "2d", "3d", "5d", "1w", "10d", "2w", "3w", "4w", "8w"];

/// Points per batch along a continuous constant.
const POINTS: usize = 5;
/// How much narrower each bracket is than the last.
const SHRINK: f64 = 2.5;
/// Rounds over all the constants at most.
const ROUNDS: usize = 4;
/// A round that improves the log loss by less than this ends the search.
const MIN_GAIN: f64 = 1e-7;

/// Fractions a `revert` constant is searched over: none, small ones, FiveThirtyEight's third,
/// half and three quarters.
pub const REVERTS: [&str; 7] = ["0", "0.05", "0.1", "0.2", "0.333", "0.5", "0.75"];

/// Durations a `revert_after` constant is searched over: a month to a year.
pub const REVERT_AFTERS: [&str; 5] = ["30d", "60d", "90d", "180d", "365d"];

/// The constants searched by default for each algorithm: those a ladder's data decides (the
/// seeds' fixed points and the starting values are left alone).
/// Each algorithm's [`ladder_projector::Algorithm::TUNED`], through the registry.
pub fn default_keys(algorithm: &str) -> &'static [&'static str] {
    crate::registry::tuned(algorithm)
}

/// The constants `ladder tune` searches by default (docs/outputs.md): the algorithm's own
/// ([`default_keys`]), then every one of `home` (only when the history has home seats),
/// `margin`, `revert`, `revert_after` and `period` that the algorithm has and its own list
/// leaves out.
pub fn default_search(algorithm: &str, specs: &[ParamSpec], has_home: bool) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = default_keys(algorithm).to_vec();
    for key in ["home", "margin", "revert", "revert_after", "period"] {
        if key == "home" && !has_home {
            continue;
        }
        if let Some(spec) = specs.iter().find(|s| s.key == key) {
            if !keys.contains(&spec.key) {
                keys.push(spec.key);
            }
        }
    }
    keys
}

/// The top of TTT's `debut_offset` search range, in skill units (`beta = 1` fixes the unit):
/// four performance deviations below the field, beyond the one to two and a half units that
/// the newcomers' first-match forecasts on the whole ATP history seemed to call for
/// (docs/real-ladders.md, "A newcomer's prior relative to the field").
pub const DEBUT_SPAN: f64 = 4.0;

/// [`default_search`], plus the constants that matter only when a switch of the configuration
/// being tuned turns them on (`value` reads a constant's current value, as written): TTT's
/// `debut_offset` when `debut=field` (docs/algorithms/ttt.md, "Debut"). Off, they change nothing,
/// so searching them would spend configurations on equal replays.
pub fn default_search_for(
    algorithm: &str,
    specs: &[ParamSpec],
    has_home: bool,
    value: &dyn Fn(&str) -> String,
) -> Vec<&'static str> {
    let mut keys = default_search(algorithm, specs, has_home);
    if value("debut") == "field" {
        if let Some(spec) = specs.iter().find(|s| s.key == "debut_offset") {
            if !keys.contains(&spec.key) {
                keys.push(spec.key);
            }
        }
    }
    keys
}

/// The top of `home`'s search range, on the algorithm's own scale: 400 rating points (odds of
/// 10 to 1 between equals) where ratings are Elo-like, 10 skill units for Weng-Lin (more than
/// twice its default beta, the spread of one performance).
pub fn home_span(algorithm: &str) -> f64 {
    if algorithm == "weng-lin" {
        10.0
    } else {
        400.0
    }
}

/// How one constant is searched.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    /// A positive number, searched on a log scale within `[lo, hi]`.
    Log {
        /// The constant.
        key: &'static str,
        /// Lowest value tried.
        lo: f64,
        /// Highest value tried.
        hi: f64,
    },
    /// A number in a short interval, searched on a linear scale.
    Linear {
        /// The constant.
        key: &'static str,
        /// Lowest value.
        lo: f64,
        /// Highest value.
        hi: f64,
    },
    /// Every value of a list.
    Choices {
        /// The constant.
        key: &'static str,
        /// The values, as written.
        values: Vec<String>,
    },
}

impl Axis {
    /// The constant's key.
    pub fn key(&self) -> &'static str {
        match self {
            Axis::Log { key, .. } | Axis::Linear { key, .. } | Axis::Choices { key, .. } => key,
        }
    }

    /// How it is searched, in a few words.
    pub fn describe(&self) -> String {
        match self {
            Axis::Log { key, lo, hi } => format!("{key} (log scale, {} to {})", fmt(*lo), fmt(*hi)),
            Axis::Linear { key, lo, hi } => format!("{key} ({} to {})", fmt(*lo), fmt(*hi)),
            Axis::Choices { key, values } => format!("{key} ({})", values.join(", ")),
        }
    }
}

/// Why a constant cannot be searched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// The algorithm has no such constant.
    #[error("{algorithm} has no constant {key:?}; `--set help=1` lists them")]
    UnknownKey {
        /// The algorithm.
        algorithm: String,
        /// The key asked for.
        key: String,
    },
    /// Nothing to search.
    #[error("no constant of {0} to search; name some with --param")]
    Nothing(String),
}

/// The search axis of each key of `specs` named in `keys`, starting from `start` (the current
/// value of each, as written).
pub fn axes(
    algorithm: &str,
    specs: &[ParamSpec],
    keys: &[String],
    start: &dyn Fn(&str) -> String,
) -> Result<Vec<Axis>, TuneError> {
    let mut out = Vec::new();
    for key in keys {
        let spec = specs.iter().find(|s| s.key == key).ok_or_else(|| TuneError::UnknownKey {
            algorithm: algorithm.to_string(),
            key: key.clone(),
        })?;
        out.push(match spec.kind {
            _ if spec.key == "home" => {
                Axis::Linear { key: spec.key, lo: 0.0, hi: home_span(algorithm) }
            }
            _ if spec.key == "debut_offset" => {
                Axis::Linear { key: spec.key, lo: 0.0, hi: DEBUT_SPAN }
            }
            _ if spec.key == "revert" => Axis::Choices {
                key: spec.key,
                values: REVERTS.iter().map(|p| p.to_string()).collect(),
            },
            _ if spec.key == "revert_after" => Axis::Choices {
                key: spec.key,
                values: REVERT_AFTERS.iter().map(|p| p.to_string()).collect(),
            },
            ParamKind::Number { min, max, .. }
                if min.is_finite() && max.is_finite() && max - min <= 1.0 =>
            {
                Axis::Linear { key: spec.key, lo: min, hi: max }
            }
            ParamKind::Number { min, max, .. } => {
                let x: f64 = start(spec.key).parse().unwrap_or(1.0);
                let x = if x > 0.0 { x } else { 1.0 };
                Axis::Log {
                    key: spec.key,
                    lo: (x / 1000.0).max(if min > 0.0 { min } else { 1e-9 }),
                    hi: (x * 1000.0).min(if max.is_finite() { max } else { f64::MAX }),
                }
            }
            ParamKind::Choice(words) => Axis::Choices {
                key: spec.key,
                values: words.iter().map(|w| w.to_string()).collect(),
            },
            ParamKind::Period => Axis::Choices {
                key: spec.key,
                values: PERIODS.iter().map(|p| p.to_string()).collect(),
            },
            ParamKind::Duration => Axis::Choices {
                key: spec.key,
                values: ["1h", "6h", "1d", "2d", "1w"].iter().map(|p| p.to_string()).collect(),
            },
        });
    }
    if out.is_empty() {
        return Err(TuneError::Nothing(algorithm.to_string()));
    }
    Ok(out)
}

/// A number written with four significant digits, shortest form (`5.9`, `0.0123`, `1200`).
pub fn fmt(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    // The decimal exponent by comparison (not log10, which rounds 1000 to 2.999... on some
    // platforms): 10^e <= |x| < 10^(e+1).
    let (a, mut e) = (x.abs(), 0i32);
    while math::powi(10.0, e + 1) <= a {
        e += 1;
    }
    while math::powi(10.0, e) > a {
        e -= 1;
    }
    let digits = 3 - e;
    let scale = math::powi(10.0, digits);
    let r = (x * scale).round() / scale;
    let text = format!("{r}");
    // `{}` of a rounded f64 can still show binary noise (0.30000000000000004); shortest of the two.
    let alt = format!("{:.*}", digits.max(0) as usize, r);
    let alt = if alt.contains('.') {
        alt.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        alt
    };
    if alt.len() < text.len() {
        alt
    } else {
        text
    }
}

/// A point of the search: one value per searched key, as written.
pub type Point = Vec<(&'static str, String)>;

/// What evaluates a batch of points: their losses, in order.
pub type Evaluate<'a, E> = dyn FnMut(&[Point]) -> Result<Vec<f64>, E> + 'a;

/// What the search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The best point.
    pub best: Point,
    /// Its log loss.
    pub loss: f64,
    /// Distinct configurations evaluated.
    pub evaluations: usize,
    /// Batches (passes over the history).
    pub passes: usize,
    /// The search stopped because its next batch would have gone past [`Plan::budget`].
    pub exhausted: bool,
}

/// How far a search goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Rounds over all the constants at most.
    pub rounds: usize,
    /// Half-width, on a log scale, of a continuous constant's first bracket in the first round
    /// (ln 8: from an eighth of the value to eight times it).
    pub first_half: f64,
    /// The same in later rounds, when the search is already near a minimum.
    pub later_half: f64,
    /// A constant's pass ends when its log-scale bracket's half-width falls below this (0.01:
    /// about 1% of the value).
    pub tolerance: f64,
    /// At most this many distinct configurations: the search stops before a batch that would
    /// go past it ([`Found::exhausted`]). `None`: no bound.
    pub budget: Option<usize>,
    /// Leave `revert_after` alone while `revert` is 0 (every `revert_after` then replays the
    /// same), instead of spending a batch on it.
    pub skip_idle_revert_after: bool,
    /// A constant on a linear scale stops narrowing when its bracket's half-width falls below
    /// this fraction of its range (0.002).
    pub linear_tolerance: f64,
}

impl Plan {
    /// The search of every algorithm but `ttt`: brackets from x/8 to 8x narrowed to 1%, four
    /// rounds, no budget.
    pub fn standard() -> Plan {
        let first = math::ln(8.0);
        Plan {
            rounds: ROUNDS,
            first_half: first,
            later_half: first,
            tolerance: 0.01,
            budget: None,
            skip_idle_revert_after: false,
            linear_tolerance: 0.002,
        }
    }
}

/// Configurations `tune` evaluates at most for `ttt` by default (`--budget` changes it).
pub const TTT_BUDGET: usize = 60;

/// The search plan of `algorithm`. For `ttt` a configuration is a convergence of the history
/// day by day (tens of CPU-seconds on a large history, docs/algorithms/ttt.md, "Tuning"), so
/// its search is shorter: brackets from x/4 to 4x in the first round and a 2.5 times narrower
/// one around the best in the second, each narrowed until its half-width is below 0.05 (points
/// about 4.5% apart: TTT's log loss is flat at that scale), a linear one (`debut_offset`) until
/// its half-width is below 1.25% of its range (0.05 skill units), two rounds, `revert_after`
/// skipped while `revert` is 0, and at most [`TTT_BUDGET`] configurations.
pub fn plan(algorithm: &str) -> Plan {
    if algorithm == "ttt" {
        let first = math::ln(4.0);
        Plan {
            rounds: 2,
            first_half: first,
            later_half: first / SHRINK,
            tolerance: 0.05,
            budget: Some(TTT_BUDGET),
            skip_idle_revert_after: true,
            linear_tolerance: 0.0125,
        }
    } else {
        Plan::standard()
    }
}

/// The points a search starts from: `start`, then `start` with every continuous constant low (a
/// tenth of its value on a log scale, a quarter of its range on a linear one), then high (ten
/// times, three quarters), each clamped to its range. Words and periods keep their value.
pub fn starts(axes: &[Axis], start: &Point) -> Vec<Point> {
    let mut out = vec![start.clone()];
    for high in [false, true] {
        let point: Point = start
            .iter()
            .map(|(k, v)| {
                let moved = axes.iter().find(|a| a.key() == *k).and_then(|a| match a {
                    Axis::Log { lo, hi, .. } => {
                        let x: f64 = v.parse().ok()?;
                        Some(fmt((if high { x * 10.0 } else { x / 10.0 }).clamp(*lo, *hi)))
                    }
                    Axis::Linear { lo, hi, .. } => {
                        Some(fmt(lo + (hi - lo) * if high { 0.75 } else { 0.25 }))
                    }
                    Axis::Choices { .. } => None,
                });
                (*k, moved.unwrap_or_else(|| v.clone()))
            })
            .collect();
        if !out.contains(&point) {
            out.push(point);
        }
    }
    out
}

/// A warning for every constant of `best` that sits on an edge of its search range (within the
/// search's last step) where that edge is not an end of the constant's own range in `specs`: the
/// lowest log loss may lie beyond it. `home` at 0 is such an edge too (no advantage found).
pub fn edge_warnings(axes: &[Axis], specs: &[ParamSpec], best: &Point) -> Vec<String> {
    let mut out = Vec::new();
    for axis in axes {
        let (key, lo, hi, log) = match axis {
            Axis::Log { key, lo, hi } => (*key, *lo, *hi, true),
            Axis::Linear { key, lo, hi } => (*key, *lo, *hi, false),
            Axis::Choices { .. } => continue,
        };
        let Some(x) = best.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.parse::<f64>().ok())
        else {
            continue;
        };
        let (own_min, own_max) = match specs.iter().find(|s| s.key == key).map(|s| s.kind) {
            Some(ParamKind::Number { min, max, .. }) => (min, max),
            _ => (f64::NEG_INFINITY, f64::INFINITY),
        };
        let near = |edge: f64| {
            if log {
                (math::ln(x) - math::ln(edge)).abs() <= 0.011
            } else {
                (x - edge).abs() <= (hi - lo) * 0.003
            }
        };
        let range = format!("{} to {}", fmt(lo), fmt(hi));
        if near(lo) && lo > own_min {
            out.push(format!(
                "{key}={} sits on the lower edge of its search range ({range}): the best value may \
                 be lower; try --set {key}=... with a smaller value and --param {key}",
                fmt(x)
            ));
        } else if near(hi) && hi < own_max {
            out.push(format!(
                "{key}={} sits on the upper edge of its search range ({range}): the best value may \
                 be higher; try --set {key}=... with a larger value and --param {key}",
                fmt(x)
            ));
        }
    }
    out
}

/// Searches from `start` for the point of lowest loss. `eval` gets a batch of points and returns
/// their losses in order (a non-finite or missing loss counts as +infinity); `on_pass` is called
/// after each batch with the best loss so far.
pub fn search<E>(
    axes: &[Axis],
    start: Point,
    eval: &mut Evaluate<'_, E>,
    on_pass: &mut dyn FnMut(usize, f64),
) -> Result<Found, E> {
    search_from(axes, vec![start], eval, on_pass)
}

/// [`search`] from the best of several starting points (evaluated together in the first pass;
/// the first of equal losses wins). `starts` must not be empty.
pub fn search_from<E>(
    axes: &[Axis],
    starts: Vec<Point>,
    eval: &mut Evaluate<'_, E>,
    on_pass: &mut dyn FnMut(usize, f64),
) -> Result<Found, E> {
    search_planned(axes, starts, Plan::standard(), eval, on_pass)
}

/// [`search_from`] as far as `plan` says. A batch that would take the distinct configurations
/// past the plan's budget is not evaluated: the search ends there with the best point so far
/// and [`Found::exhausted`] set (the starting points are always evaluated).
pub fn search_planned<E>(
    axes: &[Axis],
    starts: Vec<Point>,
    plan: Plan,
    eval: &mut Evaluate<'_, E>,
    on_pass: &mut dyn FnMut(usize, f64),
) -> Result<Found, E> {
    let mut seen: HashMap<Point, f64> = HashMap::new();
    let mut passes = 0;
    let mut exhausted = false;
    let mut run = |batch: Vec<Point>, seen: &mut HashMap<Point, f64>| -> Result<bool, E> {
        let mut fresh: Vec<Point> = Vec::new();
        for p in batch {
            if !seen.contains_key(&p) && !fresh.contains(&p) {
                fresh.push(p);
            }
        }
        if fresh.is_empty() {
            return Ok(true);
        }
        if !seen.is_empty() && plan.budget.is_some_and(|b| seen.len() + fresh.len() > b) {
            return Ok(false);
        }
        let losses = eval(&fresh)?;
        for (i, p) in fresh.into_iter().enumerate() {
            let l = losses.get(i).copied().filter(|l| l.is_finite()).unwrap_or(f64::INFINITY);
            seen.insert(p, l);
        }
        passes += 1;
        let best = seen.values().copied().fold(f64::INFINITY, f64::min);
        on_pass(passes, best);
        Ok(true)
    };
    run(starts.clone(), &mut seen)?;
    let mut current = starts[0].clone();
    let mut loss = seen[&current];
    for p in &starts[1..] {
        if seen[p] < loss {
            loss = seen[p];
            current = p.clone();
        }
    }
    let with = |p: &Point, key: &str, v: String| -> Point {
        p.iter().map(|(k, x)| (*k, if *k == key { v.clone() } else { x.clone() })).collect()
    };
    'rounds: for round in 0..plan.rounds {
        let before = loss;
        for axis in axes {
            let key = axis.key();
            let value = |p: &Point| p.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
            if plan.skip_idle_revert_after
                && key == "revert_after"
                && current.iter().any(|(k, v)| *k == "revert" && v.parse::<f64>() == Ok(0.0))
            {
                continue;
            }
            match axis {
                Axis::Choices { values, .. } => {
                    let batch: Vec<Point> =
                        values.iter().map(|v| with(&current, key, v.clone())).collect();
                    if !run(batch.clone(), &mut seen)? {
                        exhausted = true;
                        break 'rounds;
                    }
                    for p in batch {
                        if seen[&p] < loss {
                            loss = seen[&p];
                            current = p;
                        }
                    }
                }
                Axis::Log { lo, hi, .. } | Axis::Linear { lo, hi, .. } => {
                    let log = matches!(axis, Axis::Log { .. });
                    let (to, from) = (
                        move |x: f64| if log { math::ln(x) } else { x },
                        move |u: f64| if log { math::exp(u) } else { u },
                    );
                    let (ulo, uhi) = (to(*lo), to(*hi));
                    let x: f64 = value(&current).and_then(|v| v.parse().ok()).unwrap_or(1.0);
                    let mut u = to(x.clamp(*lo, *hi));
                    let first = if round == 0 { plan.first_half } else { plan.later_half };
                    let mut half = if log { first } else { (uhi - ulo) / 2.0 };
                    let tolerance =
                        if log { plan.tolerance } else { (uhi - ulo) * plan.linear_tolerance };
                    while half > tolerance {
                        let batch: Vec<Point> = (0..POINTS)
                            .map(|i| {
                                let t = -1.0 + 2.0 * i as f64 / (POINTS - 1) as f64;
                                let v = from((u + t * half).clamp(ulo, uhi));
                                with(&current, key, fmt(v))
                            })
                            .collect();
                        if !run(batch.clone(), &mut seen)? {
                            exhausted = true;
                            break 'rounds;
                        }
                        for p in batch {
                            if seen[&p] < loss {
                                loss = seen[&p];
                                current = p;
                            }
                        }
                        let x: f64 = value(&current).and_then(|v| v.parse().ok()).unwrap_or(x);
                        u = to(x);
                        half /= SHRINK;
                    }
                }
            }
        }
        if before - loss < MIN_GAIN {
            break;
        }
    }
    Ok(Found { best: current, loss, evaluations: seen.len(), passes, exhausted })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_significant_digits() {
        assert_eq!(fmt(5.91234), "5.912");
        assert_eq!(fmt(0.0123456), "0.01235");
        assert_eq!(fmt(1234567.0), "1235000");
        assert_eq!(fmt(0.3), "0.3");
        assert_eq!(fmt(20.0), "20");
        // Exact powers of ten keep their own exponent.
        assert_eq!(fmt(1000.0), "1000");
        assert_eq!(fmt(0.001), "0.001");
    }

    #[test]
    fn finds_the_minimum_of_a_bowl_and_a_choice() {
        // loss = (ln x - ln 7)^2 + [w != "b"] * 0.5: the minimum is x = 7, w = b.
        let axes = vec![
            Axis::Log { key: "x", lo: 0.001, hi: 1000.0 },
            Axis::Choices { key: "w", values: vec!["a".into(), "b".into(), "c".into()] },
        ];
        let start: Point = vec![("x", "1".into()), ("w", "a".into())];
        let f = |p: &Point| {
            let x: f64 = p[0].1.parse().unwrap();
            math::powi(math::ln(x) - math::ln(7.0), 2) + if p[1].1 == "b" { 0.0 } else { 0.5 }
        };
        let mut calls = 0;
        let found = search::<()>(
            &axes,
            start,
            &mut |batch| {
                calls += 1;
                Ok(batch.iter().map(f).collect())
            },
            &mut |_, _| {},
        )
        .unwrap();
        let x: f64 = found.best[0].1.parse().unwrap();
        assert!((x / 7.0 - 1.0).abs() < 0.02, "{found:?}");
        assert_eq!(found.best[1].1, "b");
        assert!(found.loss < 1e-3);
        assert_eq!(found.passes, calls);
    }

    #[test]
    fn a_bad_start_is_left_for_a_better_one() {
        // loss = |ln x - ln 500|, flat (and so a trap for a local search) below x = 1.
        let axes = vec![Axis::Log { key: "x", lo: 0.001, hi: 1000.0 }];
        let f = |p: &Point| {
            let x: f64 = p[0].1.parse().unwrap();
            if x < 1.0 {
                10.0
            } else {
                (math::ln(x) - math::ln(500.0)).abs()
            }
        };
        let start: Point = vec![("x", "0.1".into())];
        let from = starts(&axes, &start);
        assert_eq!(from, vec![start.clone(), vec![("x", "0.01".into())], vec![("x", "1".into())]]);
        let found =
            search_from::<()>(&axes, from, &mut |b| Ok(b.iter().map(f).collect()), &mut |_, _| {})
                .unwrap();
        let x: f64 = found.best[0].1.parse().unwrap();
        assert!((x / 500.0 - 1.0).abs() < 0.02, "{found:?}");
    }

    #[test]
    fn edges_of_the_search_range_are_named_but_not_ends_of_the_constants_range() {
        use ladder_projector::ParamSpec;
        let spec = |key, kind| ParamSpec { key, kind, default: "1", doc: "", warn_below: None };
        let specs = [
            spec("tau", ParamKind::above(0.0)),
            spec("p", ParamKind::between(0.0, 1.0)),
            spec("home", ParamKind::any()),
        ];
        let axes = vec![
            Axis::Log { key: "tau", lo: 0.0005, hi: 500.0 },
            Axis::Linear { key: "p", lo: 0.0, hi: 1.0 },
            Axis::Linear { key: "home", lo: 0.0, hi: 400.0 },
        ];
        let at = |tau: &str, p: &str, home: &str| -> Point {
            vec![("tau", tau.into()), ("p", p.into()), ("home", home.into())]
        };
        // tau at the bottom of its search range (not of its own range, tau > 0); p at 1 is the
        // end of p's own range; home inside.
        let w = edge_warnings(&axes, &specs, &at("0.0005", "1", "120"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("tau=0.0005 sits on the lower edge"), "{w:?}");
        let w = edge_warnings(&axes, &specs, &at("0.5", "0.3", "400"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("home=400 sits on the upper edge"), "{w:?}");
        assert!(edge_warnings(&axes, &specs, &at("0.5", "0", "75")).is_empty());
    }

    #[test]
    fn the_default_search_adds_home_only_with_home_seats() {
        let specs = crate::registry::params("elo").unwrap();
        assert_eq!(default_search("elo", specs, false), ["k", "margin", "revert", "revert_after"]);
        assert_eq!(
            default_search("elo", specs, true),
            ["k", "home", "margin", "revert", "revert_after"]
        );
        let specs = crate::registry::params("glicko2").unwrap();
        assert_eq!(
            default_search("glicko2", specs, true),
            ["tau", "period", "home", "revert", "revert_after"]
        );
        let specs = crate::registry::params("zonestats").unwrap();
        assert_eq!(default_search("zonestats", specs, true), ["t", "game_mult"]);
        let specs = crate::registry::params("ttt").unwrap();
        assert_eq!(
            default_search("ttt", specs, true),
            ["sigma", "gamma", "home", "revert", "revert_after"]
        );
    }

    #[test]
    fn ttts_debut_offset_is_searched_only_with_debut_field_on_a_linear_range() {
        let specs = crate::registry::params("ttt").unwrap();
        let prior = |k: &str| if k == "debut" { "prior".to_string() } else { String::new() };
        let field = |k: &str| if k == "debut" { "field".to_string() } else { String::new() };
        assert_eq!(
            default_search_for("ttt", specs, false, &prior),
            ["sigma", "gamma", "revert", "revert_after"]
        );
        assert_eq!(
            default_search_for("ttt", specs, false, &field),
            ["sigma", "gamma", "revert", "revert_after", "debut_offset"]
        );
        let keys = vec!["debut_offset".to_string()];
        let got = axes("ttt", specs, &keys, &|_| "0".to_string()).unwrap();
        assert_eq!(got, [Axis::Linear { key: "debut_offset", lo: 0.0, hi: DEBUT_SPAN }]);
        // A bowl with its minimum at 1.9 on [0, 4]: TTT's plan lands within its tolerance (0.05
        // skill units) in fewer configurations than the standard plan's 0.008.
        let start: Point = vec![("debut_offset", "0".into())];
        let run = |plan: Plan| {
            search_planned::<()>(
                &got,
                starts(&got, &start),
                plan,
                &mut |b| {
                    Ok(b.iter()
                        .map(|p| math::powi(p[0].1.parse::<f64>().unwrap() - 1.9, 2))
                        .collect())
                },
                &mut |_, _| {},
            )
            .unwrap()
        };
        let (standard, ttt) = (run(Plan::standard()), run(plan("ttt")));
        let at = |f: &Found| f.best[0].1.parse::<f64>().unwrap();
        assert!((at(&ttt) - 1.9).abs() <= 0.05, "{:?}", ttt.best);
        assert!((at(&standard) - 1.9).abs() <= 0.008, "{:?}", standard.best);
        assert!(
            ttt.evaluations < standard.evaluations,
            "{} {}",
            ttt.evaluations,
            standard.evaluations
        );
    }

    #[test]
    fn ttts_plan_finds_a_bowls_minimum_in_fewer_configurations_than_the_standard_one() {
        // loss = (ln x - ln 0.7)^2 + (ln y - ln 0.02)^2, from x = 1, y = 0.03 (TTT's sigma and
        // gamma near where ladder's ATP ledgers put them).
        let axes = vec![
            Axis::Log { key: "x", lo: 1e-3, hi: 1e3 },
            Axis::Log { key: "y", lo: 3e-5, hi: 30.0 },
        ];
        let start: Point = vec![("x", "1".into()), ("y", "0.03".into())];
        let f = |p: &Point| {
            let (x, y): (f64, f64) = (p[0].1.parse().unwrap(), p[1].1.parse().unwrap());
            math::powi(math::ln(x) - math::ln(0.7), 2) + math::powi(math::ln(y) - math::ln(0.02), 2)
        };
        let run = |plan: Plan| {
            search_planned::<()>(
                &axes,
                starts(&axes, &start),
                plan,
                &mut |b| Ok(b.iter().map(f).collect()),
                &mut |_, _| {},
            )
            .unwrap()
        };
        let (standard, ttt) = (run(Plan::standard()), run(plan("ttt")));
        for found in [&standard, &ttt] {
            let x: f64 = found.best[0].1.parse().unwrap();
            let y: f64 = found.best[1].1.parse().unwrap();
            // Within the last bracket's spacing: 1% for the standard plan, 4.5% for TTT's.
            assert!((math::ln(x / 0.7)).abs() < 0.045, "{found:?}");
            assert!((math::ln(y / 0.02)).abs() < 0.045, "{found:?}");
            assert!(!found.exhausted);
        }
        assert!(ttt.evaluations <= TTT_BUDGET, "{ttt:?}");
        // 49 against 97 configurations as written.
        assert!(ttt.evaluations * 3 < standard.evaluations * 2, "{ttt:?} {standard:?}");
    }

    #[test]
    fn a_budget_stops_the_search_before_a_batch_would_pass_it() {
        let axes = vec![
            Axis::Log { key: "x", lo: 1e-3, hi: 1e3 },
            Axis::Log { key: "y", lo: 1e-3, hi: 1e3 },
        ];
        let start: Point = vec![("x", "1".into()), ("y", "1".into())];
        let f = |p: &Point| {
            let (x, y): (f64, f64) = (p[0].1.parse().unwrap(), p[1].1.parse().unwrap());
            math::powi(math::ln(x) - math::ln(7.0), 2) + math::powi(math::ln(y) - math::ln(0.2), 2)
        };
        let plan = Plan { budget: Some(12), ..Plan::standard() };
        let mut evaluated = 0;
        let found = search_planned::<()>(
            &axes,
            starts(&axes, &start),
            plan,
            &mut |b| {
                evaluated += b.len();
                Ok(b.iter().map(f).collect())
            },
            &mut |_, _| {},
        )
        .unwrap();
        assert!(found.exhausted);
        assert_eq!(found.evaluations, evaluated);
        // Three starting points, then batches of at most five new points: 3 + 4 + 4 = 11, and the
        // next batch would reach 15.
        assert!(evaluated <= 12 && evaluated > 12 - 5, "{evaluated}");
        // The best point so far, with its loss.
        assert_eq!(found.loss, f(&found.best));
    }

    #[test]
    fn revert_after_is_skipped_while_revert_is_zero_when_the_plan_says_so() {
        // revert_after changes nothing at revert = 0, where the minimum is.
        let axes = vec![
            Axis::Choices {
                key: "revert",
                values: REVERTS.iter().map(|v| v.to_string()).collect(),
            },
            Axis::Choices {
                key: "revert_after",
                values: REVERT_AFTERS.iter().map(|v| v.to_string()).collect(),
            },
        ];
        let start: Point = vec![("revert", "0".into()), ("revert_after", "90d".into())];
        let f = |p: &Point| p[0].1.parse::<f64>().unwrap();
        let run = |plan: Plan| {
            search_planned::<()>(
                &axes,
                vec![start.clone()],
                plan,
                &mut |b| Ok(b.iter().map(f).collect()),
                &mut |_, _| {},
            )
            .unwrap()
        };
        let (standard, ttt) = (run(Plan::standard()), run(plan("ttt")));
        assert_eq!(standard.best, start);
        assert_eq!(ttt.best, start);
        assert_eq!(standard.evaluations, REVERTS.len() + REVERT_AFTERS.len() - 1);
        assert_eq!(ttt.evaluations, REVERTS.len());
    }

    #[test]
    fn a_linear_axis_stays_in_its_range() {
        // The minimum is at the top of [0, 1].
        let axes = vec![Axis::Linear { key: "p", lo: 0.0, hi: 1.0 }];
        let found = search::<()>(
            &axes,
            vec![("p", "0.5".into())],
            &mut |batch| Ok(batch.iter().map(|p| -p[0].1.parse::<f64>().unwrap()).collect()),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(found.best[0].1, "1");
    }
}
