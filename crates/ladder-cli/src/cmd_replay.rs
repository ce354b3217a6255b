//! `ladder replay` and `ladder leaderboard`: fold the history through one algorithm.

use crate::algo::{
    config_of, configs_of, replay_configs, replay_configs_predicting, tune_hint, until_of,
    worse_than_guessing, Activity, AlgoArgs,
};
use crate::source::ledger_history;
use crate::source::open_for_read;
use crate::UsageError;
use clap::{Args, ValueEnum};
use ladder_projector::ParamValue;
use ladder_replay::checkpoint::replay_checkpointed;
use ladder_replay::{leaderboard, left_out_line, BoardRules, PredictFrom, Row, Snapshot, Until};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const REPLAY_EXAMPLES: &str = "Examples:
  ladder replay --algo tgr                          standings under TGR's defaults
  ladder replay --algo tgr --set sc=30 --set p=0.9  other constants
  ladder replay --algo glicko2 --until 2018-06-14   the ratings as they stood then
  ladder replay --algo elo --until 500 --format json
  ladder replay --algo glicko --format yaml > glicko.snap.yaml   a reviewable snapshot
  ladder replay --algo tgr --set help=1             list the constants, their ranges and defaults
  ladder replay --algo tgr --config p=0.9 --config p=0.35 --format json   two settings, one pass
  ladder replay --algo glicko2 --score --warmup 1000                      how well it predicts";

pub const LEADERBOARD_EXAMPLES: &str = "Examples:
  ladder leaderboard --algo tgr                      ranked by GLIXARE, established players only
  ladder leaderboard --algo glicko2 --top 20
  ladder leaderboard --algo elo --min-games 30 --active-within 52w
  ladder leaderboard --algo elo --active-within all --min-games 0   everyone who ever played
  ladder leaderboard --algo glicko --set provisional_rd=80 --format json

Listed: players not provisional (RD at most provisional_rd), with at least --min-games games
(default 10) and a game within --active-within of the last event (default 365d). The players
left out are counted by reason on the last line.";

/// Output formats of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// For people.
    Table,
    /// The replay JSON object of `docs/outputs.md` (with a blake3 digest).
    Json,
    /// The same content as YAML: what snapshot tests store.
    Yaml,
}

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReplayFormat,
    /// Another configuration of the same algorithm, replayed in the same pass (repeatable): the
    /// `--set` values, then these. With --format json, one object per line, in the order given.
    #[arg(long = "config", value_name = "K=V,...")]
    pub configs: Vec<String>,
    /// Score how well each configuration predicts the two-seat matches (docs/outputs.md).
    #[arg(long)]
    pub score: bool,
    /// With --score: leave the first N two-seat matches out of the scores.
    #[arg(long, value_name = "N", requires = "score")]
    pub warmup: Option<u64>,
    /// With --score: predict each match from the ratings just before it (`event`, the default)
    /// or from those before its UTC day, the day's joins applied (`day`: every algorithm as
    /// TrueSkill Through Time predicts). The ratings are the same either way.
    #[arg(long, value_name = "event|day", requires = "score", value_parser = PredictFrom::NAMES)]
    pub predict_from: Option<String>,
    /// Resume from the latest valid checkpoint of this configuration stored in the ledger, and
    /// store one at the end, so the next replay reads only new events (same answer either way).
    #[arg(long, conflicts_with_all = ["configs", "score"])]
    pub checkpoint: bool,
}

/// Output formats of `leaderboard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoardFormat {
    /// For people.
    Table,
    /// `{"algorithm", "config", "through", "head", "rules", "ranked": [...], "left_out": {...}}`.
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
    /// Leave out players with fewer rated games than this.
    #[arg(long, value_name = "N", default_value_t = ladder_replay::DEFAULT_MIN_GAMES)]
    pub min_games: u64,
    /// Leave out players with no game within this duration (`N` + s, m, h, d or w) of the
    /// history's last event; `all` keeps everyone.
    #[arg(long, value_name = "DURATION|all", default_value = ladder_replay::DEFAULT_ACTIVE_WITHIN)]
    pub active_within: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: BoardFormat,
}

fn run_checkpointed(ledger_path: &Path, args: &ReplayArgs) -> anyhow::Result<Snapshot> {
    if args.algo.events.events.is_some() {
        return Err(UsageError(
            "--checkpoint stores state in a ledger; it does not apply to --events".into(),
        )
        .into());
    }
    let until = until_of(&args.algo)?;
    if matches!(until, Until::Instant(_)) {
        return Err(
            UsageError("--checkpoint needs --until SEQ (or none), not an instant".into()).into()
        );
    }
    let config = config_of(&args.algo)?;
    let ledger = open_for_read(ledger_path, None)?;
    let history = ledger_history(&ledger);
    let (p, r, used) = replay_checkpointed(&history, &history, config, until)?;
    match used.resumed_from {
        Some(seq) => eprintln!(
            "resumed from the checkpoint at event {seq}; read {} new events",
            r.through - seq
        ),
        None => eprintln!("no usable checkpoint: replayed from event 1"),
    }
    if let Some(seq) = used.saved_at {
        eprintln!("stored a checkpoint at event {seq}");
    }
    Ok(Snapshot::capture(&p, &r.roster, r.through, &r.head))
}

pub fn run_replay(ledger_path: &Path, args: ReplayArgs) -> anyhow::Result<ExitCode> {
    if args.checkpoint {
        let snap = run_checkpointed(ledger_path, &args)?;
        let mut out = crate::out::stdout();
        match args.format {
            ReplayFormat::Json => writeln!(out, "{}", snap.to_json())?,
            ReplayFormat::Yaml => write!(out, "{}", snap.to_yaml())?,
            ReplayFormat::Table => write!(out, "{}", snap.to_table())?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    let configs = configs_of(&args.algo, &args.configs)?;
    let n = configs.len();
    let warmup = args.score.then_some(args.warmup.unwrap_or(0));
    let predict =
        args.predict_from.as_deref().and_then(PredictFrom::parse).unwrap_or(PredictFrom::Event);
    // The standings and scores are printed, never who played when.
    let run = replay_configs_predicting(
        ledger_path,
        &args.algo,
        configs,
        warmup,
        predict,
        Activity::LeftOut,
    )?;
    let mut out = crate::out::stdout();
    for i in 0..n {
        let snap = match args.format {
            ReplayFormat::Json => {
                // The snapshot's JSON, written without building the snapshot.
                run.write_json(i, &mut out)?;
                continue;
            }
            ReplayFormat::Yaml => {
                if n > 1 {
                    writeln!(out, "---")?;
                }
                let snap = run.snapshot(i);
                write!(out, "{}", snap.to_yaml())?;
                snap
            }
            ReplayFormat::Table => {
                if i > 0 {
                    writeln!(out)?;
                }
                let snap = run.snapshot(i);
                write!(out, "{}", snap.to_table())?;
                snap
            }
        };
        if i + 1 == n {
            // The process exits next: its 100,000 rows are not freed one by one first.
            std::mem::forget(snap);
        }
    }
    out.flush()?;
    for (i, score) in run.replayed.scores.iter().enumerate() {
        let label =
            if n > 1 { format!("configuration {}", i + 1) } else { "this configuration".into() };
        if let Some(w) = worse_than_guessing(&args.algo.algo, &label, score) {
            eprintln!("{w}");
        }
    }
    run.exit();
    Ok(ExitCode::SUCCESS)
}

/// The leaderboard rules of `args`.
pub fn board_rules(args: &LeaderboardArgs) -> anyhow::Result<BoardRules> {
    let active_within = match args.active_within.as_str() {
        "all" => None,
        d => Some(ladder_projector::parse_duration(d).ok_or_else(|| {
            UsageError(format!(
                "--active-within: {d:?} is not a duration (N followed by s, m, h, d or w, like \
                 365d or 52w) or `all`"
            ))
        })?),
    };
    Ok(BoardRules { min_games: args.min_games, active_within, top: args.top })
}

/// Why a leaderboard is empty when every player with enough recent games is provisional (their
/// RD above the algorithm's `provisional_rd`), and the command that lists some of them: the RD
/// of an algorithm with idle growth (TGR's `sc`, Glicko's `c`) stays above `provisional_rd` at a
/// ladder's rate of play. `None` when that is not the cause.
fn provisional_cause(
    projector: &dyn ladder_projector::Projector,
    r: &ladder_replay::Replayed,
    rules: &BoardRules,
    board: &ladder_replay::Leaderboard,
    algo: &AlgoArgs,
) -> Option<String> {
    let limit = board.provisional_rd?;
    if board.left_out.provisional == 0 {
        return None;
    }
    let now = r.activity.last_event();
    let mut rds: Vec<f64> = projector
        .standings()
        .iter()
        .filter(|s| s.games >= rules.min_games)
        .filter(|s| match (rules.active_within, now, r.activity.last_played(s.player)) {
            (None, _, _) => true,
            (Some(w), Some(now), Some(last)) => now.0.saturating_sub(last.0) <= w,
            _ => false,
        })
        .filter_map(|s| s.rd.filter(|&rd| rd > limit))
        .collect();
    if rds.is_empty() {
        return None;
    }
    rds.sort_by(f64::total_cmp);
    let listed = rds.len().min(10);
    let bound = (rds[listed - 1].ceil() + 1.0).max(limit + 1.0);
    let growth = match algo.algo.as_str() {
        "tgr" => "TGR's RD grows by sc^2 in RD^2 every day without a battle (sc=20: 400)",
        "glicko" => "Glicko's RD grows by c^2 in RD^2 every rating period without a game",
        "glicko2" => "Glicko-2's RD grows with the volatility every rating period without a game",
        _ => "RD grows while a player does not play",
    };
    let mut command = format!("ladder leaderboard --algo {}", algo.algo);
    for set in &algo.sets {
        command.push_str(&format!(" --set {set}"));
    }
    Some(format!(
        "warning: the leaderboard is empty: all {} players with enough recent games are \
         provisional, with RD above provisional_rd = {limit} (the lowest is {:.1}): at this \
         ladder's rate of play, RD never falls below provisional_rd ({growth}). \
         `{command} --set provisional_rd={bound}` lists the {listed} with the lowest RD; a \
         smaller idle growth lowers every RD, and {}",
        rds.len(),
        rds[0],
        tune_hint(&algo.algo),
    ))
}

pub fn run_leaderboard(ledger_path: &Path, args: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let rules = board_rules(&args)?;
    // Scored as it replays (every two-seat match, no warm-up), to warn when these constants
    // predict worse than guessing; the score costs one expectation per match.
    let run = replay_configs(ledger_path, &args.algo, vec![config_of(&args.algo)?], Some(0))?;
    let mut snap = run.snapshot(0);
    snap.prediction = None;
    let r = &run.replayed;
    let board = leaderboard(&run.projectors[0], &r.roster, &r.activity, &rules);
    let mut warnings: Vec<String> = r
        .scores
        .first()
        .and_then(|s| worse_than_guessing(&args.algo.algo, "this configuration", s))
        .into_iter()
        .collect();
    // No match rated through this point: the history is what is empty, not the rules' fault.
    let played =
        ladder_projector::Projector::standings(&run.projectors[0]).iter().any(|s| s.games > 0);
    let nothing = format!(
        "no match has been played through event {}{}",
        r.through,
        if args.algo.until.is_some() { " (the history at --until)" } else { "" }
    );
    if board.ranked.is_empty() && !played {
        warnings.push(format!("warning: the leaderboard is empty because {nothing}"));
    } else if board.ranked.is_empty() {
        let provisional = provisional_cause(&run.projectors[0], r, &rules, &board, &args.algo);
        warnings.push(provisional.unwrap_or_else(|| format!(
            "warning: the leaderboard is empty: nobody meets its rules (the `left out` line counts why); --min-games and --active-within loosen them, and {}",
            tune_hint(&args.algo.algo)
        )));
    }
    let mut out = crate::out::stdout();
    let key = |row: &Row| match row.standing.display.and_then(|d| d.glixare) {
        Some(g) if board.key == "glixare" => format!("{g:.2}%"),
        _ => format!("{:.1}", row.standing.rating),
    };
    let day = |t: Option<ladder_events::Timestamp>| {
        t.map_or("-".to_string(), |t| t.to_datetime().format("%Y-%m-%d").to_string())
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
            let ranked: Vec<_> = board.ranked.iter().map(ladder_replay::Ranked::to_json).collect();
            let l = &board.left_out;
            let v = serde_json::json!({
                "algorithm": snap.algorithm, "config": config, "through": snap.through,
                "head": snap.head,
                "rules": {
                    "min_games": rules.min_games, "active_within": args.active_within,
                    "top": rules.top, "provisional_rd": board.provisional_rd,
                },
                "ranked": ranked,
                "left_out": {
                    "inactive": l.inactive, "few_games": l.few_games,
                    "provisional": l.provisional, "below_top": l.below_top,
                },
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
            let width =
                board.ranked.iter().map(|r| r.row.player.chars().count()).max().unwrap_or(6).max(6);
            writeln!(
                out,
                "{:>5}  {:<width$}  {:>11}  {:>6}  last game",
                "rank", "player", board.key, "games"
            )?;
            for r in &board.ranked {
                let pad = width + r.row.player.len() - r.row.player.chars().count();
                writeln!(
                    out,
                    "{:>5}  {:<pad$}  {:>11}  {:>6}  {}",
                    r.rank,
                    r.row.player,
                    key(&r.row),
                    r.row.standing.games,
                    day(r.last_played)
                )?;
            }
            if board.ranked.is_empty() && !played {
                writeln!(out, "    -  {nothing}")?;
            } else if board.ranked.is_empty() {
                writeln!(out, "    -  nobody meets the rules below")?;
            }
            if let Some(line) = left_out_line(&board, &rules) {
                writeln!(out, "\n{line}")?;
            }
        }
    }
    out.flush()?;
    for w in warnings {
        eprintln!("{w}");
    }
    Ok(ExitCode::SUCCESS)
}
