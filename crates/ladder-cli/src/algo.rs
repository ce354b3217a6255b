//! What several commands share: the `--algo`/`--set`/`--until` arguments, reading them into
//! configurations, replaying a history through them, and the hints for a refused constant or an
//! unknown player. Commands import this module, never one another.

use crate::cli::EventsArg;
use crate::source::{ledger_history, open_for_read};
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::Args;
use ladder_projector::{describe_specs, Config, ProjectError};
use ladder_replay::score::Score;
use ladder_replay::{registry, ReplayError, Replayed, Snapshot, Until};
use ladder_replay::{
    replay_algos_each, replay_algos_each_without_activity, replay_by_day, PredictFrom,
};
use std::path::Path;

/// The values `--algo` accepts: exactly the registry's algorithms, so that help, completions and
/// the error for an unknown name list the same ones.
pub fn algo_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(registry::ALGORITHMS.iter().copied())
}

/// Which algorithm, which constants, how far.
#[derive(Debug, Args)]
pub struct AlgoArgs {
    /// The algorithm (`--set help=1` lists its constants; docs/algorithms/ has a page for each).
    #[arg(long, value_name = "NAME", value_parser = algo_names())]
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

/// A refused `--algo` or constant, with where to read about the valid ones.
pub fn config_error(algo: &str, e: impl std::fmt::Display) -> Hinted {
    // Every algorithm of the registry has a page in docs/algorithms/.
    let hint = if registry::ALGORITHMS.contains(&algo) {
        format!(
            "`--set help=1` lists the constants of {algo}; docs/algorithms/{algo}.md explains each"
        )
    } else {
        "docs/algorithms/ has a page for each algorithm".to_string()
    };
    Hinted::usage(e.to_string(), hint)
}

/// A player name that is not in the history, with the close names (`names.rs`: other case or
/// spaces, a surname, a typo).
pub fn unknown_player(name: &str, roster: &ladder_projector::Roster) -> Hinted {
    let names = (0..roster.len()).map(|i| roster.name(ladder_projector::PlayerId(i as u32)));
    let close: Vec<String> =
        crate::names::close_names(name, names, 5).iter().map(|n| format!("{n:?}")).collect();
    let hint = if close.is_empty() {
        "names are matched byte for byte; `ladder replay --algo elo` lists every player (the \
         leaderboard only the established, active ones)"
            .into()
    } else {
        format!("did you mean {}? names are matched byte for byte", close.join(" or "))
    };
    Hinted::refused(format!("{name:?} never appears in this history"), hint)
}

/// `--set help=1` among `sets`: the constants of `algorithm`, with their ranges and defaults, as
/// help (printed on stdout by `main`, exit 0) rather than as an unknown key.
pub fn help_if_asked(algorithm: &str, sets: &[(String, String)]) -> anyhow::Result<()> {
    if sets.iter().any(|(k, _)| k == "help") {
        let specs = registry::params(algorithm).map_err(|e| config_error(algorithm, e))?;
        let help = format!("constants of {algorithm}:\n{}", describe_specs(specs));
        return Err(anyhow::Error::msg(crate::HelpShown(help)));
    }
    Ok(())
}

/// Validates the algorithm and constants, printing warnings on stderr.
pub fn config_of(args: &AlgoArgs) -> anyhow::Result<Config> {
    Ok(configs_of(args, &[])?.remove(0))
}

/// The configurations to replay: `--set` alone, or `--set` then each `--config`.
pub fn configs_of(args: &AlgoArgs, configs: &[String]) -> anyhow::Result<Vec<Config>> {
    let mut sets = Vec::new();
    for s in &args.sets {
        sets.extend(Config::parse_assignments(s).map_err(|e| UsageError(format!("--set: {e}")))?);
    }
    help_if_asked(&args.algo, &sets)?;
    let base: Vec<&str> = args.sets.iter().map(String::as_str).collect();
    let mut variants = vec![base.clone()];
    if !configs.is_empty() {
        variants.clear();
        for c in configs {
            Config::parse_assignments(c).map_err(|e| UsageError(format!("--config: {e}")))?;
            let mut v = base.clone();
            v.push(c);
            variants.push(v);
        }
    }
    let mut out = Vec::new();
    for v in variants {
        let config =
            registry::configure(&args.algo, &v).map_err(|e| config_error(&args.algo, e))?;
        for w in &config.warnings {
            eprintln!("warning: {w}");
        }
        out.push(config);
    }
    Ok(out)
}

/// A finished replay: the projectors (one per configuration), and who and how far.
pub struct Replay {
    /// The projectors after the replay.
    pub projectors: Vec<registry::Algo>,
    /// Names, last sequence number and its chain hash, scores.
    pub replayed: Replayed,
    /// The ledger it read, closing on its own thread while the caller writes the output.
    closing: Closing,
}

/// A ledger closing on its own thread (sled's last flush, and the head file rewritten with the
/// seals of sled's files, each synced: waits on the disk of several milliseconds that a replay's
/// output need not sit behind). Dropping this waits for the close to finish, so the process
/// never exits with the ledger half closed.
struct Closing(Option<std::thread::JoinHandle<()>>);

impl Closing {
    /// Closes `ledger` on a thread of its own; on the calling thread if none can be started
    /// (the refused closure, and the ledger in it, is dropped there).
    fn start(ledger: ladder_log::Ledger) -> Closing {
        Closing(
            std::thread::Builder::new()
                .name("ledger close".into())
                .spawn(move || drop(ledger))
                .ok(),
        )
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            // A panic while closing has been printed by the hook; the output is already written.
            let _ = handle.join();
        }
    }
}

impl Replay {
    /// For a command about to exit: waits for the ledger to close, and leaves the replay's
    /// memory (every configuration's players, the roster's names) for the exit to reclaim at
    /// once, instead of freeing it piece by piece first.
    pub fn exit(self) {
        let Replay { projectors, replayed, closing } = self;
        drop(closing);
        std::mem::forget(projectors);
        std::mem::forget(replayed);
    }

    /// Writes configuration `i`'s snapshot as compact JSON and a newline to `out`: the bytes of
    /// [`Replay::snapshot`]'s [`Snapshot::to_json`], without the snapshot in between
    /// ([`ladder_replay::write_replay_json`]).
    pub fn write_json(&self, i: usize, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let r = &self.replayed;
        let prediction = r.scores.get(i);
        ladder_replay::write_replay_json(
            out,
            &self.projectors[i],
            &r.roster,
            r.through,
            &r.head,
            prediction,
        )
    }

    /// The snapshot (`docs/outputs.md`) of configuration `i`.
    pub fn snapshot(&self, i: usize) -> Snapshot {
        let r = &self.replayed;
        let mut snap = Snapshot::capture(&self.projectors[i], &r.roster, r.through, &r.head);
        snap.prediction = r.scores.get(i).cloned();
        snap
    }
}

/// What to run when a configuration predicts worse than guessing or ranks nobody.
pub fn tune_hint(algo: &str) -> String {
    format!("`ladder tune --algo {algo}` searches for better constants")
}

/// The one-line warning when `score` predicts worse than always saying 0.5, if it does.
pub fn worse_than_guessing(algo: &str, label: &str, score: &Score) -> Option<String> {
    let ll = score.log_loss().filter(|&ll| ll > std::f64::consts::LN_2)?;
    Some(format!(
        "warning: {label} predicts worse than always saying 0.5 (log loss {ll:.4} > ln 2 = 0.6931); {}",
        tune_hint(algo)
    ))
}

/// Parses `--until`.
pub fn until_of(args: &AlgoArgs) -> anyhow::Result<Until> {
    Ok(match &args.until {
        Some(text) => Until::parse(text).map_err(|e| UsageError(format!("--until: {e}")))?,
        None => Until::Head,
    })
}

/// The cores to fold configurations on.
pub fn threads() -> usize {
    ladder_replay::cores()
}

/// The refusal of a replay that a projector stopped at: the event, the quantity and the player
/// (by name, from `roster`), and how to look at the event.
pub fn cannot_apply(e: &ProjectError, roster: &ladder_projector::Roster) -> Hinted {
    Hinted::refused(
        format!("{}\nthe algorithm cannot apply this event under these constants", named(e, roster)),
        format!(
            "`ladder log --from {} --limit 1` shows the event; other constants may apply it (`--set help=1` lists them)",
            e.seq
        ),
    )
}

/// `e`'s message with every `player #N` that `roster` knows written as `player #N ("name")`:
/// projectors number players, and the number means nothing to a user.
pub fn named(e: &ProjectError, roster: &ladder_projector::Roster) -> String {
    let text = e.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("player #") {
        let (before, tail) = rest.split_at(at + "player #".len());
        out.push_str(before);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let (number, after) = tail.split_at(digits);
        out.push_str(number);
        if let Ok(id) = number.parse::<u32>() {
            if (id as usize) < roster.len() {
                out.push_str(&format!(" ({:?})", roster.name(ladder_projector::PlayerId(id))));
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Replays the history once through every configuration.
pub fn replay_configs(
    ledger_path: &Path,
    args: &AlgoArgs,
    configs: Vec<Config>,
    warmup: Option<u64>,
) -> anyhow::Result<Replay> {
    replay_configs_predicting(
        ledger_path,
        args,
        configs,
        warmup,
        PredictFrom::Event,
        Activity::Noted,
    )
}

/// Whether a replay notes each player's last game ([`Replayed::activity`]): a leaderboard's
/// `--active-within` reads it, `ladder replay`'s standings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// Noted.
    Noted,
    /// Left out: only the last event's instant is kept.
    LeftOut,
}

/// [`replay_configs`], the scored matches predicted as `predict` says (`--predict-from`), each
/// player's last game noted as `activity` says.
///
/// A replay through the head of a ledger that is as this build closed it reads only its head
/// file and its folded form, and never opens sled ([`SealedHistory`]; docs/spec.md, "Replays that
/// open nothing"); anything else opens the ledger as before.
pub fn replay_configs_predicting(
    ledger_path: &Path,
    args: &AlgoArgs,
    configs: Vec<Config>,
    warmup: Option<u64>,
    predict: PredictFrom,
    activity: Activity,
) -> anyhow::Result<Replay> {
    let until = until_of(args)?;
    // `--predict-from day` reads the events themselves: it opens the ledger.
    let may_seal = !(matches!(predict, PredictFrom::Day) && warmup.is_some());
    let checked = match sealed_or_check(ledger_path, args, until, may_seal)? {
        Read::Sealed(history) => {
            let mut projectors = build_all(configs)?;
            let replayed =
                replay_history(&history, &mut projectors, until, warmup, predict, activity)?;
            drop(history);
            return Ok(Replay { projectors, replayed, closing: Closing(None) });
        }
        Read::Open(checked) => checked,
    };
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let mut history = ledger_history(&ledger);
    if let Some(checked) = checked {
        history = history.with_checked_folded(checked);
    }
    let mut projectors = build_all(configs)?;
    let replayed = replay_history(&history, &mut projectors, until, warmup, predict, activity)?;
    drop(history);
    Ok(Replay { projectors, replayed, closing: Closing::start(ledger) })
}

/// How a read of a ledger's history goes: through a sealed head ([`SealedHistory`], sled never
/// opened), or by opening the ledger, with the folded form's check when one was made.
pub(crate) enum Read {
    /// The ledger is as this build closed it and its folded form is current: read that.
    Sealed(SealedHistory),
    /// Open the ledger; the folded form's check (made on another thread meanwhile) goes to it.
    Open(Option<ladder_log::FoldedCheck>),
}

/// Reads the folded form and checks it against its checksum on another thread while the head
/// file is read (docs/PERFORMANCE.md, "The 1M replay's fixed costs"), and says whether the read
/// can go through the sealed head ([`Read::Sealed`]): only for a ledger (not `--events`), when
/// `may_seal`, and through the head (a read that stops before it needs the chain hash where it
/// stops, which only the open ledger has). What `replay`, `leaderboard` and `sweep` share.
pub(crate) fn sealed_or_check(
    ledger_path: &Path,
    args: &AlgoArgs,
    until: Until,
    may_seal: bool,
) -> anyhow::Result<Read> {
    let checking = args.events.events.is_none().then(|| {
        let dir = ledger_path.to_path_buf();
        std::thread::spawn(move || ladder_log::FoldedCheck::read(&dir))
    });
    let through_head = |head: u64| match until {
        Until::Head => true,
        Until::Seq(seq) => seq >= head,
        Until::Instant(_) => false,
    };
    let sealed = match &checking {
        Some(_) if may_seal => ladder_log::SealedHead::read(ledger_path)
            .with_context(|| format!("cannot open the ledger {}", ledger_path.display()))?
            .filter(|s| through_head(s.head().seq)),
        _ => None,
    };
    let checked = checking.and_then(|c| c.join().ok());
    match (sealed, checked) {
        (Some(sealed), Some(check)) => match sealed.folded(check) {
            Ok(folded) => Ok(Read::Sealed(SealedHistory::new(folded))),
            // Not usable as it is: the ledger opens, and the check goes to it.
            Err(check) => Ok(Read::Open(Some(*check))),
        },
        (_, checked) => Ok(Read::Open(checked)),
    }
}

/// Every configuration's projector.
fn build_all(configs: Vec<Config>) -> anyhow::Result<Vec<registry::Algo>> {
    Ok(configs.into_iter().map(registry::build).collect::<Result<Vec<_>, _>>()?)
}

/// Replays `history` through `projectors`, as `predict`, `warmup` and `activity` say.
fn replay_history(
    history: &dyn ladder_replay::History,
    projectors: &mut [registry::Algo],
    until: Until,
    warmup: Option<u64>,
    predict: PredictFrom,
    activity: Activity,
) -> anyhow::Result<Replayed> {
    let each = match activity {
        Activity::Noted => replay_algos_each,
        Activity::LeftOut => replay_algos_each_without_activity,
    };
    let result = match (predict, warmup) {
        (PredictFrom::Day, Some(warmup)) => replay_by_day(history, projectors, until, warmup),
        // Read in place once; fold on other threads while reading (every configuration, even
        // one; several Glicko-2 configurations together as lanes). Each configuration fails on
        // its own, so the roster is there to name the player of the earliest failure.
        _ => match each(history, projectors, until, warmup, threads()) {
            Ok(each) => match each.failed.iter().flatten().min_by_key(|e| e.seq) {
                Some(e) => return Err(cannot_apply(e, &each.replayed.roster).into()),
                None => Ok(each.replayed),
            },
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(r) => Ok(r),
        Err(ReplayError::Project(e)) => {
            Err(cannot_apply(&e, &ladder_projector::Roster::new()).into())
        }
        Err(e) => Err(e.into()),
    }
}

/// A ledger's history as a replay through its head reads it when the ledger is as this build
/// closed it ([`ladder_log::SealedHead`]): its folded form, checked and bound to the head its
/// head file records, with sled never opened. It holds only what such a replay reads (the
/// folded form, once); the stored events are not here, and asking for them is an error naming
/// why, never another answer.
pub(crate) struct SealedHistory {
    folded: std::sync::Mutex<Option<ladder_log::SealedFolded>>,
    head: ladder_log::Head,
    /// The voids as [`History::voids`] gives them: (the MatchVoided's seq, the match's seq).
    voids: Vec<(u64, u64)>,
}

impl SealedHistory {
    pub(crate) fn new(mut folded: ladder_log::SealedFolded) -> SealedHistory {
        let f = folded.folded();
        let voids = f.voids().iter().map(|v| (v.void_seq, v.match_seq)).collect();
        let head = f.head();
        SealedHistory { folded: std::sync::Mutex::new(Some(folded)), head, voids }
    }

    fn not_opened() -> ReplayError {
        ReplayError::History(
            "the ledger's stored events were not opened: this replay reads its folded form".into(),
        )
    }
}

impl ladder_replay::History for SealedHistory {
    fn folded(&self) -> Option<Box<dyn ladder_replay::FoldedHistory + '_>> {
        let sealed = self.folded.lock().ok()?.take()?;
        Some(Box::new(SealedRead(sealed)))
    }

    fn events_from(
        &self,
        _from: u64,
    ) -> Box<dyn Iterator<Item = Result<ladder_replay::HistoryEvent, ReplayError>> + '_> {
        Box::new(std::iter::once(Err(SealedHistory::not_opened())))
    }

    fn records_from(
        &self,
        _from: u64,
        _visit: &mut ladder_replay::VisitRecords<'_>,
    ) -> Result<(), ReplayError> {
        Err(SealedHistory::not_opened())
    }

    fn voided_at(&self, _match_id: &str) -> Option<(u64, ladder_events::Timestamp)> {
        // Asked only by a read of the stored events, which fails above.
        None
    }

    fn head_seq(&self) -> u64 {
        self.head.seq
    }

    fn voids(&self) -> Vec<(u64, u64)> {
        self.voids.clone()
    }
}

/// The folded form of a [`SealedHistory`], as the replay reads it.
struct SealedRead(ladder_log::SealedFolded);

impl ladder_replay::FoldedHistory for SealedRead {
    fn voids(&self) -> Vec<(u64, u64, ladder_events::Timestamp)> {
        self.0.voids().iter().map(|v| (v.match_seq, v.void_seq, v.at)).collect()
    }

    fn head(&self) -> (u64, [u8; 32]) {
        let head = self.0.head();
        (head.seq, head.hash)
    }

    fn read(&mut self, visit: &mut ladder_replay::VisitFolded<'_>) -> Result<(), ReplayError> {
        use ladder_explain::Progress;
        let folded = self.0.folded();
        let total = folded.head().seq;
        let tick = ladder_cli::Bars.start(total);
        let bytes = folded.records_len().max(1);
        let mut done = 0u64;
        enum Stop {
            Log(ladder_log::LogError),
            Replay(ReplayError),
        }
        impl From<ladder_log::LogError> for Stop {
            fn from(e: ladder_log::LogError) -> Stop {
                Stop::Log(e)
            }
        }
        folded
            .read(|segment| {
                done += segment.len() as u64 + 4;
                tick((u128::from(done) * u128::from(total) / u128::from(bytes)) as u64);
                visit(segment).map_err(Stop::Replay)
            })
            .map_err(|e| match e {
                Stop::Log(e) => ReplayError::History(Box::new(e)),
                Stop::Replay(e) => e,
            })
    }

    fn players(&self) -> usize {
        usize::try_from(self.0.folded_ref().players()).unwrap_or(0)
    }

    fn hash_at(&self, seq: u64) -> Result<[u8; 32], ReplayError> {
        // The CLI reads a sealed folded form only for a replay through its head.
        let head = self.0.head();
        if seq == head.seq {
            Ok(head.hash)
        } else {
            Err(SealedHistory::not_opened())
        }
    }
}
