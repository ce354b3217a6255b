//! `ladder sim`: a deterministic synthetic ladder (crate `ladder-sim`), as JSON Lines or straight
//! into the ledger.

use crate::source::open_for_write;
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::Args;
use ladder_events::{json::to_line, Timestamp};
use ladder_log::{AppendError, AppendOptions};
use ladder_sim::{simulate, SimParams};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder sim --players 200 --matches 5000 --seed 1 > sim.jsonl
  ladder sim --players 100000 --matches 1000000 --seed 7 --import      straight into the ledger
  ladder sim --players 500 --matches 20000 --seed 3 --truth truth.jsonl --draw-rate 0.1

The same parameters give the same events, byte for byte. Hidden skills drift; players join over
time and go idle; opponents come from TGR's queue (QueueTimeout when nobody fits). --truth writes
each player's hidden skill at the end, to see which algorithm recovers it best (docs/sim.md).";

/// Arguments of `sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Players who join (named p1..pN, zero-padded).
    #[arg(long)]
    pub players: u32,
    /// Matches to play.
    #[arg(long)]
    pub matches: u64,
    /// The seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Instant of the first joins (default 2020-01-01T00:00:00Z).
    #[arg(long, value_name = "INSTANT")]
    pub start: Option<String>,
    /// Span the ladder aims at, in days.
    #[arg(long)]
    pub days: Option<f64>,
    /// Chance that a game is drawn.
    #[arg(long)]
    pub draw_rate: Option<f64>,
    /// Daily drift of the hidden skills (standard deviation, rating points).
    #[arg(long)]
    pub drift_sd: Option<f64>,
    /// Write the players' hidden skills at the end as JSON Lines to this file.
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
    /// Append the ladder to the ledger instead of printing it.
    #[arg(long)]
    pub import: bool,
}

pub fn run(ledger_path: &Path, args: SimArgs) -> anyhow::Result<ExitCode> {
    let mut params = SimParams::new(args.players, args.matches, args.seed);
    if let Some(s) = &args.start {
        params.start = Timestamp::parse(s).map_err(|e| UsageError(format!("--start: {e}")))?;
    }
    if let Some(d) = args.days {
        params.days = d;
    }
    if let Some(d) = args.draw_rate {
        params.draw_rate = d;
    }
    if let Some(d) = args.drift_sd {
        params.drift_sd = d;
    }
    let mut sim = simulate(&params).map_err(|e| UsageError(e.to_string()))?;
    if args.import {
        let mut ledger = open_for_write(ledger_path)?;
        let bar = ladder_cli::spinner("simulating");
        let mut n = 0u64;
        let result = ledger.append(
            sim.by_ref().map(|e| {
                n += 1;
                if n.is_multiple_of(4096) {
                    bar.set_position(n);
                }
                Ok(e)
            }),
            &AppendOptions::default(),
        );
        drop(bar);
        match result {
            Ok(r) => eprintln!(
                "appended {} events ({} duplicates skipped); head {}",
                r.appended, r.duplicates, r.head
            ),
            Err(AppendError::Refused { index, violation }) => {
                return Err(Hinted::refused(
                    format!("simulated event {} was refused: {violation}", index + 1),
                    "the ledger already holds a different history at these instants: use an empty ledger (--ledger NEW.db) or another --start",
                )
                .into())
            }
            Err(e) => return Err(e).context("appending the simulated ladder"),
        }
    } else {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, crate::out::stdout());
        for e in sim.by_ref() {
            writeln!(out, "{}", to_line(&e))?;
        }
        out.flush()?;
    }
    if let Some(path) = &args.truth {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        );
        for t in sim.truth() {
            writeln!(f, "{}", t.to_json_line())?;
        }
        f.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
