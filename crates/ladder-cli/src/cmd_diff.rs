//! `ladder diff`: two replays of one history side by side.

use crate::cli::EventsArg;
use crate::source::{ledger_history, open_for_read};
use crate::UsageError;
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_projector::{Config, Projector};
use ladder_replay::diff::{diff, Diff, Side};
use ladder_replay::{registry, replay, Options, Snapshot, Until};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder diff tgr:p=0.9 tgr:p=0.35            two settings of one algorithm
  ladder diff glicko2 elo:k=32                two algorithms (compare ranks: scales differ)
  ladder diff before.json after.json          two saved `ladder replay --format json` snapshots
  ladder diff tgr:sc=20 tgr:sc=30 --top 10 --format json

A side is ALGO or ALGO:KEY=VALUE,... (replayed now, both in one pass), or a JSON file saved by
`ladder replay --format json`. Players are sorted by the size of their rating change; ranks are
by rating, best first.";

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// For people.
    Table,
    /// One JSON object: the two sides, the summary, and every player.
    Json,
}

/// Arguments of `diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Side A: ALGO[:KEY=VALUE,...] or a saved snapshot file.
    pub a: String,
    /// Side B: ALGO[:KEY=VALUE,...] or a saved snapshot file.
    pub b: String,
    /// Replay both sides through this sequence number or instant.
    #[arg(long, value_name = "SEQ|INSTANT")]
    pub until: Option<String>,
    /// List only the N players who moved most (the summary counts everyone).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: DiffFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

/// A side to compute, or one already read from a file.
enum Spec {
    Replay(Config),
    File(Side),
}

fn spec_of(text: &str) -> anyhow::Result<Spec> {
    let path = Path::new(text);
    if path.is_file() {
        let body = std::fs::read_to_string(path).with_context(|| format!("cannot read {text}"))?;
        return Ok(Spec::File(Side::from_json(text, &body).with_context(|| text.to_string())?));
    }
    let (algo, sets) = text.split_once(':').unwrap_or((text, ""));
    let sets = Config::parse_assignments(sets).map_err(|e| UsageError(format!("{text}: {e}")))?;
    let config = registry::config(algo, &sets).map_err(|e| {
        UsageError(format!("{text:?} is neither a file nor ALGO[:KEY=VALUE,...]: {e}"))
    })?;
    for w in &config.warnings {
        eprintln!("warning: {w}");
    }
    Ok(Spec::Replay(config))
}

pub fn run(ledger_path: &Path, args: DiffArgs) -> anyhow::Result<ExitCode> {
    let specs = [spec_of(&args.a)?, spec_of(&args.b)?];
    let until = match &args.until {
        Some(t) => Until::parse(t).map_err(|e| UsageError(format!("--until: {e}")))?,
        None => Until::Head,
    };
    // Replay every side that needs it, all in one pass.
    let configs: Vec<Config> = specs
        .iter()
        .filter_map(|s| match s {
            Spec::Replay(c) => Some(c.clone()),
            Spec::File(_) => None,
        })
        .collect();
    let mut computed: Vec<Side> = Vec::new();
    if !configs.is_empty() {
        let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
        let mut projectors =
            configs.into_iter().map(registry::build).collect::<Result<Vec<_>, _>>()?;
        let mut refs: Vec<&mut dyn Projector> =
            projectors.iter_mut().map(|p| p as &mut dyn Projector).collect();
        let r = replay(
            &ledger_history(&ledger),
            &mut refs,
            Options { until, ..Options::default() },
            &mut |_| {},
        )?;
        computed = projectors
            .iter()
            .map(|p| Side::of(&Snapshot::capture(p, &r.roster, r.through, &r.head)))
            .collect();
    }
    let mut computed = computed.into_iter();
    let mut sides = specs.into_iter().map(|s| match s {
        Spec::File(side) => side,
        Spec::Replay(_) => computed.next().expect("one side per replayed configuration"),
    });
    let (a, b) = (sides.next().expect("side A"), sides.next().expect("side B"));
    if a.head != b.head {
        eprintln!(
            "warning: the sides come from different histories (A through {} {}, B through {} {})",
            a.through, a.head, b.through, b.head
        );
    }
    print(&diff(&a, &b), args.top.unwrap_or(usize::MAX), args.format)?;
    Ok(ExitCode::SUCCESS)
}

fn print(d: &Diff, top: usize, format: DiffFormat) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    match format {
        DiffFormat::Json => {
            let side = |s: &Option<(f64, Option<f64>, usize)>| {
                s.map(|(rating, rd, rank)| serde_json::json!({"rating": rating, "rd": rd, "rank": rank}))
            };
            let rows: Vec<_> = d
                .rows
                .iter()
                .take(top)
                .map(|r| {
                    serde_json::json!({
                        "player": r.player, "a": side(&r.a), "b": side(&r.b),
                        "change": r.change(), "rank_change": r.rank_change(),
                    })
                })
                .collect();
            let v = serde_json::json!({
                "a": {"label": d.a.0, "through": d.a.1, "head": d.a.2},
                "b": {"label": d.b.0, "through": d.b.1, "head": d.b.2},
                "summary": {
                    "compared": d.compared, "rating_changed": d.rating_changed,
                    "rank_changed": d.rank_changed, "rank_correlation": d.rank_correlation,
                },
                "players": rows,
            });
            writeln!(out, "{v}")?;
        }
        DiffFormat::Table => {
            writeln!(out, "A: {} (through {})", d.a.0, d.a.1)?;
            writeln!(out, "B: {} (through {})", d.b.0, d.b.1)?;
            writeln!(
                out,
                "{} players compared: {} changed rating, {} changed rank; rank correlation (Spearman) {}\n",
                d.compared,
                d.rating_changed,
                d.rank_changed,
                d.rank_correlation.map_or("-".into(), |r| format!("{r:.4}"))
            )?;
            let width =
                d.rows.iter().take(top).map(|r| r.player.chars().count()).max().unwrap_or(6).max(6);
            writeln!(
                out,
                "{:<width$}  {:>9} {:>7} {:>5}  {:>9} {:>7} {:>5}  {:>9} {:>6}",
                "player",
                "rating A",
                "rd A",
                "rank",
                "rating B",
                "rd B",
                "rank",
                "change",
                "places"
            )?;
            let cell = |s: &Option<(f64, Option<f64>, usize)>| match s {
                Some((r, rd, k)) => {
                    format!("{r:>9.1} {:>7} {k:>5}", rd.map_or("-".into(), |x| format!("{x:.1}")))
                }
                None => format!("{:>9} {:>7} {:>5}", "-", "-", "-"),
            };
            for r in d.rows.iter().take(top) {
                writeln!(
                    out,
                    "{:<width$}  {}  {}  {:>9} {:>6}",
                    r.player,
                    cell(&r.a),
                    cell(&r.b),
                    r.change().map_or("-".into(), |c| format!("{c:+.1}")),
                    r.rank_change().map_or("-".into(), |c| format!("{c:+}"))
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
