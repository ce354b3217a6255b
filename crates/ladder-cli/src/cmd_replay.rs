//! `ladder replay` and `ladder leaderboard`: fold the history through one algorithm.

use crate::cli::EventsArg;
use crate::source::{open_for_read, LedgerHistory};
use crate::UsageError;
use clap::{Args, ValueEnum};
use ladder_projector::{describe_specs, Config, ParamValue, Projector};
use ladder_replay::{
    leaderboard, registry, replay, Options, ReplayError, Replayed, Row, Snapshot, Until,
};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const REPLAY_EXAMPLES: &str = "Examples:
  ladder replay --algo tgr                          standings under TGR's defaults
  ladder replay --algo tgr --set sc=30 --set p=0.9  other constants
  ladder replay --algo glicko2 --until 2018-06-14   the ratings as they stood then
  ladder replay --algo elo --until 500 --format json
  ladder replay --algo glicko --format yaml > glicko.snap.yaml   a reviewable snapshot
  ladder replay --algo tgr --set help=1             list the constants, their ranges and defaults";

pub const LEADERBOARD_EXAMPLES: &str = "Examples:
  ladder leaderboard --algo tgr              ranked by GLIXARE, provisional players listed apart
  ladder leaderboard --algo glicko2 --top 20
  ladder leaderboard --algo elo --format json";

/// Output formats of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// For people.
    Table,
    /// The contract's JSON object (with a blake3 digest).
    Json,
    /// The same content as YAML: what snapshot tests store.
    Yaml,
}

/// Which algorithm, which constants, how far.
#[derive(Debug, Args)]
pub struct AlgoArgs {
    /// The algorithm: tgr, glicko, glicko2, zonestats, elo, performance.
    #[arg(long, value_name = "NAME")]
    pub algo: String,
    /// Override a constant (repeatable); `--set help=1` lists them.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Stop after this sequence number, or after every event at or before this instant.
    #[arg(long, value_name = "SEQ|INSTANT")]
    pub until: Option<String>,
    #[command(flatten)]
    pub events: EventsArg,
}

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReplayFormat,
}

/// Output formats of `leaderboard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoardFormat {
    /// For people.
    Table,
    /// `{"algorithm", "config", "through", "head", "ranked": [...], "provisional": [...]}`.
    Json,
}

/// Arguments of `leaderboard`.
#[derive(Debug, Args)]
pub struct LeaderboardArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// Show only the first N ranked players.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: BoardFormat,
}

/// Validates the algorithm and constants, printing warnings on stderr.
pub fn config_of(args: &AlgoArgs) -> anyhow::Result<Config> {
    let mut sets = Vec::new();
    for s in &args.sets {
        sets.extend(Config::parse_assignments(s).map_err(|e| UsageError(format!("--set: {e}")))?);
    }
    if sets.iter().any(|(k, _)| k == "help") {
        let specs = registry::params(&args.algo).map_err(|e| UsageError(e.to_string()))?;
        return Err(
            UsageError(format!("constants of {}:\n{}", args.algo, describe_specs(specs))).into()
        );
    }
    let config = registry::config(&args.algo, &sets).map_err(|e| UsageError(e.to_string()))?;
    for w in &config.warnings {
        eprintln!("warning: {w}");
    }
    Ok(config)
}

/// A finished replay: the projector, and who and how far.
pub struct Replay {
    /// The projector after the replay.
    pub projector: Box<dyn Projector + Send>,
    /// Names, last sequence number and its chain hash.
    pub replayed: Replayed,
}

impl Replay {
    /// The contract's snapshot of this replay.
    pub fn snapshot(&self) -> Snapshot {
        let r = &self.replayed;
        Snapshot::capture(self.projector.as_ref(), &r.roster, r.through, &r.head)
    }
}

/// Replays the history under `args`.
pub fn replay_of(ledger_path: &Path, args: &AlgoArgs) -> anyhow::Result<Replay> {
    let config = config_of(args)?;
    let until = match &args.until {
        Some(text) => Until::parse(text).map_err(|e| UsageError(format!("--until: {e}")))?,
        None => Until::Head,
    };
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let history = LedgerHistory(&ledger);
    let mut projector = registry::build(config)?;
    let replayed = match replay(
        &history,
        &mut [projector.as_mut()],
        Options { until, ..Options::default() },
        &mut |_, _, _| {},
    ) {
        Ok(r) => r,
        Err(ReplayError::Project(e)) => {
            anyhow::bail!("{e}\nthe algorithm cannot apply this event under these constants; `ladder log --from {} --limit 1` shows it", e.seq)
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Replay { projector, replayed })
}

pub fn run_replay(ledger_path: &Path, args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let snap = replay_of(ledger_path, &args.algo)?.snapshot();
    let mut out = std::io::stdout().lock();
    match args.format {
        ReplayFormat::Json => writeln!(out, "{}", snap.to_json())?,
        ReplayFormat::Yaml => write!(out, "{}", snap.to_yaml())?,
        ReplayFormat::Table => write!(out, "{}", snap.to_table())?,
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_leaderboard(ledger_path: &Path, args: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let run = replay_of(ledger_path, &args.algo)?;
    let snap = run.snapshot();
    let board = leaderboard(run.projector.as_ref(), &run.replayed.roster);
    let top = args.top.unwrap_or(usize::MAX);
    let mut out = std::io::stdout().lock();
    let key = |r: &Row| match r.standing.display {
        Some(d) => d.glixare.map_or("provisional".to_string(), |g| format!("{g:.2}%")),
        None => format!("{:.1}", r.standing.rating),
    };
    let json_row = |rank: Option<usize>, r: &Row| {
        let mut v = serde_json::json!({
            "rank": rank, "player": r.player, "rating": r.standing.rating, "games": r.standing.games,
        });
        if let Some(rd) = r.standing.rd {
            v["rd"] = rd.into();
        }
        if let Some(d) = r.standing.display {
            v["glixare"] = d.glixare.into();
        }
        v
    };
    match args.format {
        BoardFormat::Json => {
            let config: serde_json::Map<String, serde_json::Value> = snap
                .config
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        ParamValue::Number(x) => serde_json::json!(x),
                        ParamValue::Text(t) => serde_json::json!(t),
                    };
                    (k.to_string(), v)
                })
                .collect();
            let ranked: Vec<_> =
                board.ranked.iter().take(top).map(|r| json_row(Some(r.rank), &r.row)).collect();
            let provisional: Vec<_> = board.provisional.iter().map(|r| json_row(None, r)).collect();
            let v = serde_json::json!({
                "algorithm": snap.algorithm, "config": config, "through": snap.through, "head": snap.head,
                "ranked": ranked, "provisional": provisional,
            });
            writeln!(out, "{v}")?;
        }
        BoardFormat::Table => {
            let cfg: Vec<String> = snap.config.iter().map(|(k, v)| format!("{k}={v}")).collect();
            writeln!(
                out,
                "{} {}\nthrough event {}, head {}\n",
                snap.algorithm,
                cfg.join(" "),
                snap.through,
                snap.head
            )?;
            let width = board
                .ranked
                .iter()
                .map(|r| &r.row)
                .chain(&board.provisional)
                .map(|r| r.player.chars().count())
                .max()
                .unwrap_or(6)
                .max(6);
            let what = if snap.players.iter().any(|r| r.standing.display.is_some()) {
                "glixare"
            } else {
                "rating"
            };
            writeln!(out, "{:>5}  {:<width$}  {:>11}  {:>6}", "rank", "player", what, "games")?;
            for r in board.ranked.iter().take(top) {
                writeln!(
                    out,
                    "{:>5}  {:<width$}  {:>11}  {:>6}",
                    r.rank,
                    r.row.player,
                    key(&r.row),
                    r.row.standing.games
                )?;
            }
            if !board.provisional.is_empty() {
                writeln!(out, "\nprovisional (RD above provisional_rd), by name:")?;
                for r in &board.provisional {
                    writeln!(
                        out,
                        "{:>5}  {:<width$}  {:>11}  {:>6}",
                        "-",
                        r.player,
                        format!("({:.1})", r.standing.rating),
                        r.standing.games
                    )?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
