//! `ladder plot`: players' ratings over time with their RD band, as SVG.

use crate::algo::{config_of, unknown_player, until_of, AlgoArgs};
use crate::source::{ledger_history, open_for_read};
use anyhow::Context;
use clap::Args;
use ladder_plot::{rating_chart, Series};
use ladder_projector::Projector;
use ladder_replay::{registry, replay, Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder plot --algo tgr --player alice --player bob --output ratings.svg
  ladder plot --algo glicko2 --player 'Roger Federer' --player 'Rafael Nadal' > big2.svg

One line per player: the rating after each event that names them (the last at an instant), with a
band of two RDs on either side for algorithms that keep an RD. The title names the algorithm,
and the line under it every constant used. Open the SVG in any browser.";

/// Arguments of `plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// A player to draw (repeatable).
    #[arg(long = "player", required = true)]
    pub players: Vec<String>,
    /// Write the SVG here (default: standard output).
    #[arg(long, value_name = "FILE.svg")]
    pub output: Option<PathBuf>,
}

pub fn run(ledger_path: &Path, args: PlotArgs) -> anyhow::Result<ExitCode> {
    let config = config_of(&args.algo)?;
    let heading = format!("{} ratings over time", config.algorithm);
    let constants = config.to_string();
    let until = until_of(&args.algo)?;
    let ledger = open_for_read(ledger_path, args.algo.events.events.as_deref())?;
    let mut projector = registry::build(config)?;
    // A whole-history algorithm draws its smoothed curve once the replay ends (band: two sigma).
    let whole_history = projector.curve(ladder_projector::PlayerId(0)).is_some();
    let mut series: Vec<Series> =
        args.players.iter().map(|p| Series { name: p.clone(), points: Vec::new() }).collect();
    let replayed = replay(
        &ledger_history(&ledger),
        &mut [&mut projector],
        Options { until, ..Options::default() },
        &mut |s| {
            if whole_history {
                return;
            }
            for (i, name) in args.players.iter().enumerate() {
                if !s.event.players().any(|p| p == name) {
                    continue;
                }
                let Some(id) = s.roster.get(name) else { continue };
                if let Some(me) = s.projectors[0].standing(id) {
                    series[i].points.push((s.event.at.0, me.rating, me.spread()));
                }
            }
        },
    )?;
    for (i, name) in args.players.iter().enumerate() {
        let Some(id) = replayed.roster.get(name) else {
            return Err(unknown_player(name, &replayed.roster).into());
        };
        if whole_history {
            series[i].points = projector
                .curve(id)
                .unwrap_or_default()
                .into_iter()
                .map(|(at, st)| (at.0, st.rating, st.spread()))
                .collect();
        }
    }
    // The band is named by the field it comes from (RD, or Weng-Lin's and TTT's sigma).
    let band = args
        .players
        .iter()
        .filter_map(|n| replayed.roster.get(n))
        .find_map(|id| projector.standing(id).and_then(|s| s.spread_name()))
        .unwrap_or("RD");
    let svg = rating_chart(&heading, &constants, band, &series);
    match &args.output {
        Some(path) => {
            std::fs::write(path, svg)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let points: usize = series.iter().map(|s| s.points.len()).sum();
            let players = match series.len() {
                1 => "1 player".to_string(),
                n => format!("{n} players"),
            };
            eprintln!("wrote {}: {players}, {points} points; open it in a browser", path.display());
        }
        None => {
            use std::io::Write;
            crate::out::stdout().write_all(svg.as_bytes())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
