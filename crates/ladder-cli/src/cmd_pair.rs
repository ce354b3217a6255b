//! `ladder pair`: TGR's queue (the TGR text) on the ratings of the ledger.

use crate::algo::config_error;
use crate::cli::EventsArg;
use crate::source::{ledger_history, open_for_read};
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_events::Timestamp;
use ladder_projector::{Algorithm, Config};
use ladder_replay::{replay, Options};
use ladder_tgr::{pair, Tgr, QUEUE_BAND, QUEUE_WAIT_SECONDS};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder pair alice --waiting bob,carol,dave
  ladder pair alice --waiting bob,carol --set sc=30 --format json

The opponent is the waiting player against whom alice's chance of winning (WinProb) is closest
to 50%, strictly between 15% and 85%. When nobody fits for five
minutes, the ladder records a QueueTimeout (`ladder append timeout alice`).";

/// Output formats of `pair`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PairFormat {
    /// For people.
    Table,
    /// `{"player", "opponent", "candidates": [{"player", "win_prob", "in_band"}]}`.
    Json,
}

/// Arguments of `pair`.
#[derive(Debug, Args)]
pub struct PairArgs {
    /// The player who queues.
    pub player: String,
    /// The players waiting, comma-separated, in the order they joined the queue.
    #[arg(long, value_delimiter = ',', required = true)]
    pub waiting: Vec<String>,
    /// TGR constants (repeatable), as for `replay --algo tgr`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Ratings as of this instant (midnights up to it applied); default: the last event's.
    #[arg(long, value_name = "INSTANT")]
    pub at: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: PairFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

pub fn run(ledger_path: &Path, args: PairArgs) -> anyhow::Result<ExitCode> {
    let mut sets = Vec::new();
    for s in &args.sets {
        sets.extend(Config::parse_assignments(s).map_err(|e| UsageError(format!("--set: {e}")))?);
    }
    let config = Config::new(ladder_tgr::ALGORITHM, ladder_tgr::PARAMS, &sets)
        .map_err(|e| config_error("tgr", e))?;
    let mut tgr = Tgr::new(config)?;
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let mut last_at = Timestamp(i64::MIN);
    let replayed =
        replay(&ledger_history(&ledger), &mut [&mut tgr], Options::default(), &mut |s| {
            last_at = s.event.at
        })
        .context("replaying TGR")?;
    let at = match &args.at {
        Some(text) => Timestamp::parse(text).map_err(|e| UsageError(format!("--at: {e}")))?,
        None => last_at,
    };
    let lookup = |name: &str| {
        // A name the history never holds gets the close names; one that is there has values.
        let id = replayed
            .roster
            .get(name)
            .ok_or_else(|| crate::algo::unknown_player(name, &replayed.roster))?;
        tgr.values_at(id, at).map(|v| (id, v)).ok_or_else(|| {
            Hinted::refused(
                format!("{name:?} has not joined the ladder"),
                "names are matched byte for byte; `ladder replay --algo tgr` lists every player",
            )
        })
    };
    let (_, me) = lookup(&args.player)?;
    let mut waiting = Vec::new();
    for name in &args.waiting {
        let (id, v) = lookup(name)?;
        waiting.push((id, v.rating, v.rd));
    }
    let choice = pair((me.rating, me.rd), &waiting);
    let name = |c: &ladder_tgr::Candidate| replayed.roster.name(c.player).to_string();
    let mut out = crate::out::stdout();
    match args.format {
        PairFormat::Json => {
            let cands: Vec<_> = choice
                .candidates
                .iter()
                .map(|c| serde_json::json!({"player": name(c), "win_prob": c.win_prob, "in_band": c.in_band}))
                .collect();
            let v = serde_json::json!({
                "player": args.player,
                "rating": me.rating,
                "rd": me.rd,
                "opponent": choice.opponent.as_ref().map(name),
                "candidates": cands,
            });
            writeln!(out, "{v}")?;
        }
        PairFormat::Table => {
            writeln!(
                out,
                "{} (rating {:.1}, RD {:.1}) queues; WinProb against each waiting player:",
                args.player, me.rating, me.rd
            )?;
            for c in &choice.candidates {
                let mark = if choice.opponent.is_some_and(|o| o.player == c.player) {
                    "  <- paired"
                } else {
                    ""
                };
                let band = if c.in_band { "" } else { "  (outside the band)" };
                writeln!(out, "  {:<24} {:>6.2}%{band}{mark}", name(c), 100.0 * c.win_prob)?;
            }
            match &choice.opponent {
                Some(o) => writeln!(out, "paired with {}", name(o))?,
                None => writeln!(
                    out,
                    "nobody fits (|WinProb - 50%| < {:.0}%); after {} s of waiting the ledger records a QueueTimeout",
                    100.0 * QUEUE_BAND,
                    QUEUE_WAIT_SECONDS
                )?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
