//! `ladder sweep`: every combination of a grid of constants, replayed in one pass and ranked by
//! how well each predicts the results (docs/outputs.md's `--score`).

use crate::algo::{config_error, sealed_or_check, threads, AlgoArgs, Read};
use crate::source::{ledger_history, open_for_read};
use crate::UsageError;
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_projector::{Config, ParamValue};
use ladder_replay::score::Score;
use ladder_replay::{registry, replay_algos_scores, History, Until};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder sweep --algo elo --grid k=8,16,24,32,40
  ladder sweep --algo tgr --grid sc=10,20,30,40 --grid p=0.85,0.9,0.95,1 --warmup 1000
  ladder sweep --algo glicko2 --grid tau=0.3,0.6,0.9,1.2 --set period=1w --format json
  ladder sweep --algo tgr --grid sc=2,5,10 --grid p=0.9,1 --plot tgr.svg      a heat map

Every combination is replayed in one pass over the history (decoded once, folded on every core)
and scored on the two-seat matches after --warmup: log loss (lower is better), Brier score and
accuracy. Always predicting 0.5 scores a log loss of ln 2 = 0.6931.";

/// Output formats of `sweep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SweepFormat {
    /// For people: one line per combination, best first.
    Table,
    /// `{"algorithm", "through", "head", "results": [{"config", "prediction"}...]}`, best first.
    Json,
}

/// Arguments of `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// A constant and the values to try (repeatable; every combination is replayed).
    #[arg(long = "grid", value_name = "KEY=V1,V2,...", required = true)]
    pub grids: Vec<String>,
    /// Leave the first N two-seat matches out of the scores.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub warmup: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: SweepFormat,
    /// Also draw the results as SVG: a line for one numeric constant, a heat map for two.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,
}

/// One grid axis: a key and its values, as written.
pub type Axis = (String, Vec<String>);

/// Parses `KEY=V1,V2,...`.
fn axis(text: &str) -> Result<Axis, UsageError> {
    let (k, vs) = text
        .split_once('=')
        .ok_or_else(|| UsageError(format!("--grid {text:?}: expected KEY=V1,V2,...")))?;
    let values: Vec<String> =
        vs.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect();
    if values.is_empty() {
        return Err(UsageError(format!("--grid {text:?}: no values")));
    }
    Ok((k.trim().to_string(), values))
}

/// Every combination of the axes, as `KEY=VALUE` pairs in axis order.
pub fn combinations(axes: &[Axis]) -> Vec<Vec<(String, String)>> {
    let mut out = vec![Vec::new()];
    for (key, values) in axes {
        out = out
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((key.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    out
}

fn value_json(v: &ParamValue) -> serde_json::Value {
    match v {
        ParamValue::Number(x) => serde_json::json!(x),
        ParamValue::Text(t) => serde_json::json!(t),
    }
}

pub fn run(ledger_path: &Path, args: SweepArgs) -> anyhow::Result<ExitCode> {
    let axes = args.grids.iter().map(|g| axis(g)).collect::<Result<Vec<_>, _>>()?;
    let mut base = Vec::new();
    for s in &args.algo.sets {
        base.extend(Config::parse_assignments(s).map_err(|e| UsageError(format!("--set: {e}")))?);
    }
    crate::algo::help_if_asked(&args.algo.algo, &base)?;
    let combos = combinations(&axes);
    let mut configs = Vec::with_capacity(combos.len());
    for combo in &combos {
        let mut sets = base.clone();
        sets.extend(combo.iter().cloned());
        configs.push(
            registry::config(&args.algo.algo, &sets)
                .map_err(|e| config_error(&args.algo.algo, e))?,
        );
    }
    let mut warned = std::collections::BTreeSet::new();
    for w in configs.iter().flat_map(|c| &c.warnings) {
        if warned.insert(w.clone()) {
            eprintln!("warning: {w}");
        }
    }
    let run = scored(ledger_path, &args.algo, &configs, args.warmup)?;
    let mut order: Vec<usize> = (0..configs.len()).collect();
    let loss = |i: usize| run.scores[i].log_loss().unwrap_or(f64::INFINITY);
    // Ranked by log loss; the failed configurations after every ranked one, in grid order.
    order.sort_by(|&a, &b| {
        (run.failed[a].is_some(), loss(a))
            .partial_cmp(&(run.failed[b].is_some(), loss(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    let failed = run.failed.iter().filter(|f| f.is_some()).count();
    let keys: Vec<&str> = axes.iter().map(|(k, _)| k.as_str()).collect();
    // The plot is drawn before the table is printed, but a grid it cannot draw only says why:
    // the sweep itself has succeeded.
    let mut no_plot = None;
    if let Some(path) = &args.plot {
        match plot(&axes, &configs, &run.scores) {
            Ok(svg) => {
                std::fs::write(path, svg)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                eprintln!("wrote {}; open it in a browser", path.display());
            }
            Err(why) => {
                no_plot = Some(format!("no plot drawn ({} not written): {why}", path.display()))
            }
        }
    }
    let worse = order
        .iter()
        .filter(|&&i| run.scores[i].log_loss().is_some_and(|l| l > std::f64::consts::LN_2))
        .count();
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    match args.format {
        SweepFormat::Json => {
            let results: Vec<_> = order
                .iter()
                .map(|&i| {
                    let c: serde_json::Map<String, serde_json::Value> =
                        configs[i].echoed().iter().map(|(k, v)| (k.to_string(), value_json(v))).collect();
                    let s: &Score = &run.scores[i];
                    match &run.failed[i] {
                        Some(why) => serde_json::json!({
                            "config": c, "prediction": null, "failed": why,
                        }),
                        None => serde_json::json!({
                            "config": c,
                            "prediction": {"matches": s.matches, "log_loss": s.log_loss(), "brier": s.brier(), "accuracy": s.accuracy()},
                        }),
                    }
                })
                .collect();
            let v = serde_json::json!({
                "algorithm": configs[0].algorithm, "through": run.through,
                "head": ladder_proof::hex(&run.head), "grid": keys, "warmup": args.warmup,
                "baseline_log_loss_half": std::f64::consts::LN_2, "results": results,
            });
            writeln!(out, "{v}")?;
        }
        SweepFormat::Table => {
            writeln!(
                out,
                "{} sweep over {} combinations of {} (other constants: {}), through event {}",
                configs[0].algorithm,
                configs.len(),
                keys.join(" × "),
                configs[0]
                    .echoed()
                    .iter()
                    .filter(|(k, _)| !keys.contains(k))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                run.through
            )?;
            let scored = order.first().map_or(0, |&i| run.scores[i].matches);
            writeln!(
                out,
                "scored on {scored} two-seat matches after a warm-up of {}; always predicting 0.5 gives log loss {:.6}\n",
                args.warmup,
                std::f64::consts::LN_2
            )?;
            // Each constant's column is as wide as its longest value (at least 10).
            let widths: Vec<usize> = axes
                .iter()
                .map(|(k, _)| {
                    configs
                        .iter()
                        .filter_map(|c| c.values.iter().find(|(key, _)| key == k))
                        .map(|(_, v)| v.to_string().chars().count())
                        .chain([k.chars().count(), 10])
                        .max()
                        .unwrap_or(10)
                })
                .collect();
            write!(out, "{:>4}", "rank")?;
            for (k, w) in keys.iter().zip(&widths) {
                write!(out, "  {k:>w$}")?;
            }
            writeln!(out, "  {:>10}  {:>8}  {:>8}", "log loss", "brier", "accuracy")?;
            let f = |x: Option<f64>, d: usize| x.map_or("-".into(), |x| format!("{x:.d$}"));
            for (rank, &i) in order.iter().enumerate() {
                match run.failed[i] {
                    Some(_) => write!(out, "{:>4}", "-")?,
                    None => write!(out, "{:>4}", rank + 1)?,
                }
                for ((k, _), w) in axes.iter().zip(&widths) {
                    let v = configs[i]
                        .values
                        .iter()
                        .find(|(key, _)| key == k)
                        .map(|(_, v)| v.to_string());
                    write!(out, "  {:>w$}", v.unwrap_or_default())?;
                }
                if let Some(why) = &run.failed[i] {
                    writeln!(out, "  failed: {why}")?;
                    continue;
                }
                let s = &run.scores[i];
                writeln!(
                    out,
                    "  {:>10}  {:>8}  {:>8}",
                    f(s.log_loss(), 6),
                    f(s.brier(), 6),
                    f(s.accuracy(), 4)
                )?;
            }
        }
    }
    out.flush()?;
    if let Some(why) = no_plot {
        eprintln!("{why}");
    }
    if failed > 0 {
        eprintln!(
            "warning: {failed} of {} configurations failed (the algorithm cannot apply an event \
             under those constants; each row says where) and are listed last, unranked",
            configs.len()
        );
    }
    if worse > 0 {
        eprintln!(
            "warning: {worse} of {} configurations predict worse than always saying 0.5 (log loss above ln 2 = 0.6931); {}",
            configs.len(),
            crate::algo::tune_hint(&args.algo.algo)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Every configuration's scores, or why it failed, and the history they were replayed through.
struct Scored {
    /// One per configuration (empty for a failed one).
    scores: Vec<Score>,
    /// One per configuration: why the algorithm could not apply the history under it.
    failed: Vec<Option<String>>,
    /// The last sequence number applied.
    through: u64,
    /// The chain hash of event `through`.
    head: [u8; 32],
}

/// Replays every configuration in one pass. A configuration under which the algorithm cannot
/// apply an event (TGR with a low `p` can drive V to infinity; Glicko-2's step 5 under some
/// constants) stops alone at that event, with the reason a replay of it alone gives, and is
/// marked failed; the others fold the whole history in the same pass and are ranked. Only when
/// every configuration fails is the sweep refused, with the earliest failure's reason.
///
/// A sweep through the head of a ledger that is as this build closed it reads only its head file
/// and its folded form, and never opens sled, as `ladder replay` does (docs/spec.md, "Replays
/// that open nothing"; docs/PERFORMANCE.md, "A sweep opens nothing"): the open and the close
/// (sled's syncs and the head file's rewrite) were a sweep's fixed cost, on its critical path.
/// Anything else opens the ledger as before, the folded form checked on a second thread
/// meanwhile.
fn scored(
    ledger_path: &Path,
    args: &AlgoArgs,
    configs: &[Config],
    warmup: u64,
) -> anyhow::Result<Scored> {
    let until = crate::algo::until_of(args)?;
    let checked = match sealed_or_check(ledger_path, args, until, true)? {
        Read::Sealed(history) => return scored_in(&history, configs, until, warmup),
        Read::Open(checked) => checked,
    };
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let mut history = ledger_history(&ledger);
    if let Some(checked) = checked {
        history = history.with_checked_folded(checked);
    }
    scored_in(&history, configs, until, warmup)
}

/// [`scored`] over `history`.
fn scored_in(
    history: &dyn History,
    configs: &[Config],
    until: Until,
    warmup: u64,
) -> anyhow::Result<Scored> {
    let mut projectors =
        configs.iter().cloned().map(registry::build).collect::<Result<Vec<_>, _>>()?;
    let each = replay_algos_scores(history, &mut projectors, until, Some(warmup), threads())?;
    let r = each.replayed;
    if each.failed.iter().all(Option::is_some) {
        if let Some(e) = each.failed.iter().flatten().min_by_key(|e| e.seq) {
            return Err(crate::algo::cannot_apply(e, &r.roster).into());
        }
    }
    let failed =
        each.failed.iter().map(|f| f.as_ref().map(|e| crate::algo::named(e, &r.roster))).collect();
    let scores = r
        .scores
        .into_iter()
        .zip(&each.failed)
        .map(|(s, f)| if f.is_some() { Score::new(warmup) } else { s })
        .collect();
    Ok(Scored { scores, failed, through: r.through, head: r.head })
}

/// The number `key` holds in `config`.
fn number(config: &Config, key: &str) -> Option<f64> {
    config.values.iter().find(|(k, _)| *k == key).and_then(|(_, v)| match v {
        ParamValue::Number(x) => Some(*x),
        ParamValue::Text(_) => None,
    })
}

/// A line chart for one numeric axis, a heat map for two (configurations in `combinations` order);
/// for any other grid, why no plot can be drawn.
fn plot(axes: &[Axis], configs: &[Config], scores: &[Score]) -> Result<String, String> {
    let numeric = |key: &str| configs.iter().all(|c| number(c, key).is_some());
    let loss = |i: usize| scores[i].log_loss().unwrap_or(f64::NAN);
    match axes {
        [(k, _)] if numeric(k) => {
            let points: Vec<(f64, f64)> = (0..configs.len())
                .map(|i| (number(&configs[i], k).unwrap_or(f64::NAN), loss(i)))
                .collect();
            Ok(ladder_plot::sweep_line(k, &points, &[("always 0.5", std::f64::consts::LN_2)]))
        }
        [(kx, vx), (ky, vy)] if numeric(kx) && numeric(ky) => {
            // combinations() varies the last axis fastest: index = iy_of_x * |y| + iy.
            let xs: Vec<f64> = (0..vx.len())
                .map(|i| number(&configs[i * vy.len()], kx).unwrap_or(f64::NAN))
                .collect();
            let ys: Vec<f64> =
                (0..vy.len()).map(|j| number(&configs[j], ky).unwrap_or(f64::NAN)).collect();
            let values: Vec<Vec<f64>> = (0..vy.len())
                .map(|j| (0..vx.len()).map(|i| loss(i * vy.len() + j)).collect())
                .collect();
            Ok(ladder_plot::sweep_heatmap(kx, &xs, ky, &ys, &values))
        }
        _ => {
            let words: Vec<&str> =
                axes.iter().map(|(k, _)| k.as_str()).filter(|k| !numeric(k)).collect();
            Err(if words.is_empty() {
                format!(
                    "--plot draws one or two numeric constants (a line or a heat map); this grid has {}",
                    axes.len()
                )
            } else {
                format!(
                    "--plot draws numeric constants only, and {} takes words or durations",
                    words.join(" and ")
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_multiply() {
        let axes = vec![axis("sc=10,20").unwrap(), axis("p=0.9, 1").unwrap()];
        let c = combinations(&axes);
        assert_eq!(c.len(), 4);
        assert_eq!(
            c[1],
            vec![("sc".to_string(), "10".to_string()), ("p".to_string(), "1".to_string())]
        );
        assert!(axis("sc").is_err());
        assert!(axis("sc=").is_err());
    }
}
