//! `ladder tune`: search an algorithm's constants for the lowest log loss on the first part of the
//! history, and report them on the rest beside the defaults and Elo (docs/outputs.md).

use crate::algo::config_error;
use crate::cli::EventsArg;
use crate::source::{ledger_history, open_for_read};
use crate::{Hinted, UsageError};
use clap::{Args, ValueEnum};
use ladder_events::Body;
use ladder_projector::Config;
use ladder_replay::score::Score;
use ladder_replay::tune::{
    axes, default_search_for, edge_warnings, plan, search_planned, starts, Point,
};
use ladder_replay::{
    leaderboard, registry, replay_algos, replay_algos_scores, replay_by_day, BoardRules, History,
    PredictFrom, ReplayError, Replayed, Until,
};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder tune --algo glicko                         c and period, on the first 70% of the matches
  ladder tune --algo tgr --param sc --param p --train 0.8
  ladder tune --algo glicko2 --param tau --param period --format json
  ladder tune --algo elo --set initial_rating=1200

The first --train of the two-seat matches choose the constants (lowest log loss); the rest are held
out and scored for the chosen constants, the defaults (of the constants searched; every --set
constant held as set) and Elo at its default, from ratings carried over from the first part: the
protocol of Landfried & Mocskos (TrueSkill Through Time) and Maystre et al. (KDD 2019). Each step
of the search replays a batch of configurations in one pass, from the best of several starting
points. By default the search adds `home` (when the history has home seats), `margin`, `revert`,
`revert_after` and `period` wherever the algorithm has them. A warning (stderr, and `warnings` in
JSON) says when a chosen constant sits on an edge of its search range, when the choice does worse
than the defaults on the held-out matches, and when its leaderboard lists far fewer players than
the defaults' does. docs/real-ladders.md shows it on real ladders.";

/// Output formats of `tune`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TuneFormat {
    /// For people.
    Table,
    /// One object: `best` as `--set` strings, the split, and each configuration's held-out scores.
    Json,
}

/// Arguments of `tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The algorithm whose constants to search.
    #[arg(long, value_name = "NAME", value_parser = crate::algo::algo_names())]
    pub algo: String,
    /// A constant to search (repeatable); by default the ones a ladder's data decides (glicko: c
    /// and period; glicko2: tau and period; tgr: sc and p; elo: k and margin; zonestats: t and
    /// game_mult; weng-lin: beta; ttt: sigma and gamma), with home (when the history has home
    /// seats), revert and revert_after wherever the algorithm has them.
    #[arg(long = "param", value_name = "KEY")]
    pub params: Vec<String>,
    /// Hold the other constants at these values (repeatable), and start the search there.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// The share of the two-seat matches that choose the constants; the rest are held out.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.7)]
    pub train: f64,
    /// Leave the first N two-seat matches out of the training scores.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub warmup: u64,
    /// Predict each match from the ratings just before it (`event`, the default) or from those
    /// before its UTC day, the day's joins applied (`day`), in training and held out alike.
    #[arg(long, value_name = "event|day", value_parser = PredictFrom::NAMES)]
    pub predict_from: Option<String>,
    /// Evaluate at most N configurations (the search stops before a batch that would go past
    /// it, and says so); by default no bound, but 60 for ttt, whose every configuration is a
    /// convergence of the history day by day (docs/algorithms/ttt.md, "Tuning").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: TuneFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

/// Where the history splits: the last training event, and the two-seat matches on each side.
struct Split {
    through: u64,
    train: u64,
    held_out: u64,
    /// Whether any match has a seat at home.
    has_home: bool,
}

/// Counts the two-seat matches a score sees (not voided) and finds the event of the
/// `fraction`-th.
fn split(history: &dyn History, fraction: f64) -> anyhow::Result<Split> {
    let mut seqs = Vec::new();
    let mut has_home = false;
    let voids = !history.voids().is_empty();
    for item in history.events_from(1) {
        let h = item?;
        if let Body::MatchResult { seats } = &h.event.body {
            has_home |= seats.iter().any(|s| s.home);
            let voided =
                voids && h.event.id.as_deref().is_some_and(|id| history.voided_at(id).is_some());
            if seats.len() == 2 && !voided {
                seqs.push(h.seq);
            }
        }
    }
    let n = seqs.len() as u64;
    let train = (fraction * n as f64).floor() as u64;
    if train == 0 || train >= n {
        return Err(UsageError(format!(
            "--train {fraction} leaves no matches on one side: the history has {n} two-seat matches"
        ))
        .into());
    }
    Ok(Split { through: seqs[train as usize - 1], train, held_out: n - train, has_home })
}

/// One pass of the history through `configs`, scoring after `warmup` matches, up to `until`.
fn pass(
    history: &dyn History,
    configs: &[Config],
    until: Until,
    warmup: u64,
    predict: PredictFrom,
) -> anyhow::Result<Vec<Score>> {
    let mut projectors =
        configs.iter().cloned().map(registry::build).collect::<Result<Vec<_>, _>>()?;
    match scored(history, &mut projectors, until, warmup, predict) {
        Ok(r) => Ok(r.scores),
        Err(ReplayError::Project(e)) => Err(e.into()),
        Err(e) => Err(e.into()),
    }
}

/// A scored replay of `projectors` up to `until` after `warmup` matches, predicting as `predict`
/// says.
fn scored(
    history: &dyn History,
    projectors: &mut [registry::Algo],
    until: Until,
    warmup: u64,
    predict: PredictFrom,
) -> Result<Replayed, ReplayError> {
    match predict {
        PredictFrom::Day => replay_by_day(history, projectors, until, warmup),
        // Glicko-2 batches fold as lanes (replay_algos), one record lookup per game for all.
        PredictFrom::Event => {
            replay_algos(history, projectors, until, Some(warmup), crate::algo::threads())
        }
    }
}

/// The held-out pass: the scores of `configs` after `warmup` matches through the head, and the
/// size of each one's default leaderboard at the head.
fn held_out(
    history: &dyn History,
    configs: &[Config],
    warmup: u64,
    predict: PredictFrom,
) -> anyhow::Result<(Vec<Score>, Vec<usize>)> {
    let mut projectors =
        configs.iter().cloned().map(registry::build).collect::<Result<Vec<_>, _>>()?;
    let r = scored(history, &mut projectors, Until::Head, warmup, predict)?;
    let rules = BoardRules::default();
    let sizes =
        projectors.iter().map(|p| leaderboard(p, &r.roster, &r.activity, &rules).ranked.len());
    Ok((r.scores, sizes.collect()))
}

/// A spinner with a message, hidden unless stderr is a terminal.
fn spinner() -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::new_spinner().with_finish(indicatif::ProgressFinish::AndClear);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("the template is valid"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn scores_json(s: &Score) -> serde_json::Value {
    serde_json::json!({
        "matches": s.matches, "log_loss": s.log_loss(), "brier": s.brier(), "accuracy": s.accuracy(),
    })
}

pub fn run(ledger_path: &Path, args: TuneArgs) -> anyhow::Result<ExitCode> {
    if !(args.train > 0.0 && args.train < 1.0) {
        return Err(UsageError(format!(
            "--train {}: a fraction strictly between 0 and 1",
            args.train
        ))
        .into());
    }
    let algo = args.algo.as_str();
    let specs = registry::params(algo).map_err(|e| config_error(algo, e))?;
    let mut base: Vec<(String, String)> = Vec::new();
    for s in &args.sets {
        base.extend(Config::parse_assignments(s).map_err(|e| UsageError(format!("--set: {e}")))?);
    }
    crate::algo::help_if_asked(algo, &base)?;
    let start_config = registry::config(algo, &base).map_err(|e| config_error(algo, e))?;
    let current = |key: &str| {
        start_config
            .values
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(String::new(), |(_, v)| v.to_string())
    };
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let history = ledger_history(&ledger);
    let split = split(&history, args.train)?;
    let keys: Vec<String> = if args.params.is_empty() {
        default_search_for(algo, specs, split.has_home, &current)
            .iter()
            .map(|k| k.to_string())
            .collect()
    } else {
        args.params.clone()
    };
    let axes = axes(algo, specs, &keys, &current)
        .map_err(|e| Hinted::usage(e.to_string(), "`--set help=1` lists the constants"))?;
    let start: Point = axes.iter().map(|a| (a.key(), current(a.key()))).collect();
    let config_of = |p: &Point| -> anyhow::Result<Config> {
        let mut sets = base.clone();
        sets.extend(p.iter().map(|(k, v)| (k.to_string(), v.clone())));
        registry::config(algo, &sets).map_err(|e| config_error(algo, e).into())
    };

    let predict =
        args.predict_from.as_deref().and_then(PredictFrom::parse).unwrap_or(PredictFrom::Event);
    let bar = spinner();
    let train_until = Until::Seq(split.through);
    let mut plan = plan(algo);
    if let Some(n) = args.budget {
        plan.budget = Some(usize::try_from(n).unwrap_or(usize::MAX));
    }
    let found = search_planned(
        &axes,
        starts(&axes, &start),
        plan,
        &mut |batch: &[Point]| -> anyhow::Result<Vec<f64>> {
            let configs = batch.iter().map(config_of).collect::<anyhow::Result<Vec<_>>>()?;
            // A configuration the algorithm cannot apply (arithmetic breaks down) loses. Predicted
            // from the event before, it fails alone in the batch's one pass and the others go
            // on (their scores are those of their own replays).
            if matches!(predict, PredictFrom::Event) {
                let mut projectors =
                    configs.iter().cloned().map(registry::build).collect::<Result<Vec<_>, _>>()?;
                let each = replay_algos_scores(
                    &history,
                    &mut projectors,
                    train_until,
                    Some(args.warmup),
                    crate::algo::threads(),
                )?;
                return Ok(each
                    .failed
                    .iter()
                    .zip(&each.replayed.scores)
                    .map(|(f, s)| match f {
                        Some(_) => f64::INFINITY,
                        None => s.log_loss().unwrap_or(f64::INFINITY),
                    })
                    .collect());
            }
            // By day, the others of its batch are replayed again without it.
            match pass(&history, &configs, train_until, args.warmup, predict) {
                Ok(scores) => {
                    Ok(scores.iter().map(|s| s.log_loss().unwrap_or(f64::INFINITY)).collect())
                }
                Err(_) => Ok(configs
                    .iter()
                    .map(|c| {
                        pass(&history, std::slice::from_ref(c), train_until, args.warmup, predict)
                            .ok()
                            .and_then(|s| s[0].log_loss())
                            .unwrap_or(f64::INFINITY)
                    })
                    .collect()),
            }
        },
        &mut |passes, best| {
            bar.set_message(format!(
                "tune {algo}: pass {passes}, best training log loss {best:.6}"
            ));
            bar.tick();
        },
    )?;
    bar.finish_and_clear();
    if !found.loss.is_finite() {
        return Err(Hinted::refused(
            format!("no configuration of {algo} tried could replay the training matches"),
            "`--set` other starting values, or `--param` fewer constants",
        )
        .into());
    }

    // Held out: the best, the defaults and Elo's default, in one pass over the whole history,
    // scored after the training matches (ratings carried over from them). "The defaults" are
    // the defaults of the constants searched, with every other constant as `--set` holds it in
    // every pass of the search: so `--set epsilon=0.01 --set iterations=10` converges TTT's
    // held-out forecasts as it converged its training ones, not at the package's 1e-6 and 30
    // sweeps a day, which cost more than the whole search on the ATP history
    // (docs/real-ladders.md).
    let best = config_of(&found.best)?;
    let held_sets: Vec<(String, String)> =
        base.iter().filter(|(k, _)| !axes.iter().any(|a| a.key() == k)).cloned().collect();
    let defaults = registry::config(algo, &held_sets).map_err(|e| config_error(algo, e))?;
    let elo = registry::config("elo", &[]).map_err(|e| config_error("elo", e))?;
    // Elo, which costs next to nothing, goes with the best, so that on two threads the best and
    // the defaults (TTT's each a convergence of the history day by day) fold side by side.
    let (held, board) =
        held_out(&history, &[best.clone(), elo.clone(), defaults.clone()], split.train, predict)?;
    let (held, board) = ([held[0].clone(), held[2].clone(), held[1].clone()], [board[0], board[2]]);
    let best_sets: Vec<String> = found.best.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut warnings = edge_warnings(&axes, specs, &found.best);
    if found.exhausted {
        warnings.push(format!(
            "the search stopped at its budget of {} configurations before it converged: the \
             best so far is reported; --budget N allows more",
            plan.budget.unwrap_or(found.evaluations)
        ));
    }
    if let (Some(b), Some(d)) = (held[0].log_loss(), held[1].log_loss()) {
        if b > d {
            warnings.push(format!(
                "the chosen constants do worse than the defaults on the held-out matches (log \
                 loss {b:.6} against {d:.6}): they fit the training part only; prefer the \
                 defaults, or --param fewer constants"
            ));
        }
    }
    // A leaderboard that collapses (fewer than half the players the defaults list) is a sign of
    // constants that inflate ratings or deviations beyond use.
    if board[0] * 2 < board[1] {
        warnings.push(format!(
            "the chosen constants leave {} players on the default leaderboard, against {} with \
             the defaults",
            board[0], board[1]
        ));
    }
    let mut out = crate::out::stdout();
    match args.format {
        TuneFormat::Json => {
            let v = serde_json::json!({
                "algorithm": algo,
                "searched": axes.iter().map(|a| a.key()).collect::<Vec<_>>(),
                "best": best_sets,
                "train": {"fraction": args.train, "through": split.through, "matches": split.train,
                          "warmup": args.warmup, "log_loss": found.loss},
                "search": {"configurations": found.evaluations, "passes": found.passes},
                "held_out": {
                    "matches": split.held_out,
                    "best": scores_json(&held[0]),
                    "defaults": scores_json(&held[1]),
                    "elo_default": scores_json(&held[2]),
                },
                "leaderboard": {"best": board[0], "defaults": board[1]},
                "warnings": warnings,
            });
            writeln!(out, "{v}")?;
        }
        TuneFormat::Table => {
            writeln!(
                out,
                "tune {algo}: trained on the first {} two-seat matches (through event {}, {:.0}%), {} held out",
                split.train,
                split.through,
                args.train * 100.0,
                split.held_out
            )?;
            let searched: Vec<String> = axes.iter().map(|a| a.describe()).collect();
            writeln!(out, "searched {}", searched.join("; "))?;
            writeln!(
                out,
                "{} configurations in {} passes; best training log loss {:.6}\n",
                found.evaluations, found.passes, found.loss
            )?;
            let sets: Vec<String> = best_sets.iter().map(|s| format!("--set {s}")).collect();
            writeln!(out, "best: {}\n", sets.join(" "))?;
            writeln!(
                out,
                "held out ({} matches)  {:>10}  {:>8}  {:>8}",
                split.held_out, "log loss", "brier", "accuracy"
            )?;
            let f = |x: Option<f64>, d: usize| x.map_or("-".into(), |x| format!("{x:.d$}"));
            let width = format!("held out ({} matches)", split.held_out).len();
            for (name, s) in
                [("best", &held[0]), ("defaults", &held[1]), ("elo at its default", &held[2])]
            {
                writeln!(
                    out,
                    "{name:<width$}  {:>10}  {:>8}  {:>8}",
                    f(s.log_loss(), 6),
                    f(s.brier(), 6),
                    f(s.accuracy(), 4)
                )?;
            }
            writeln!(out, "{:<width$}  {:>10.6}", "always 0.5", std::f64::consts::LN_2)?;
            writeln!(
                out,
                "\nleaderboard at the head: {} players with the best constants, {} with the defaults",
                board[0], board[1]
            )?;
        }
    }
    // After the data, so a terminal shows them below the table they are about.
    out.flush()?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}
