//! `ladder explain`: the audit of one event — where it sits in the chain, every quantity behind
//! each player's change, what an auditor should look at, and what other constants would give.

use crate::cmd_replay::config_error;
use crate::cmd_replay::{config_of, AlgoArgs};
use crate::source::{open_for_read, LedgerHistory};
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_events::{json::to_line, Body};
use ladder_log::{hex, Ledger};
use ladder_projector::{Config, PlayerId, Projector, Roster, Standing, Trace, TraceEntry};
use ladder_replay::{registry, replay, Options, Until};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder explain --algo tgr --event 1234                   every player of event 1234
  ladder explain --algo tgr --event 1234 --player alice    one player
  ladder explain --algo tgr --set p=0.35 --event 1234 --vs p=0.9 --vs p=1
  ladder explain --algo glicko2 --event 88 --format json

The event is shown as stored with its chain hash, the previous hash, and whether the chain
verifies from the first event to the head. Flags mark what an auditor looks for: a winner who
lost rating, a negative merit weight, RD at its cap, a provisional opponent, a long idle gap.";

/// Output formats of `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// For people.
    Table,
    /// One JSON object.
    Json,
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// The sequence number of the event to explain.
    #[arg(long, value_name = "SEQ")]
    pub event: u64,
    /// Only this player (default: every player the event names).
    #[arg(long)]
    pub player: Option<String>,
    /// The same event under other constants (repeatable; each is KEY=VALUE[,KEY=VALUE...] on top
    /// of --set).
    #[arg(long, value_name = "K=V,...")]
    pub vs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ExplainFormat,
}

/// One configuration's account of the event.
pub(crate) struct Account {
    pub(crate) config: Config,
    pub(crate) before: Vec<Option<Standing>>,
    pub(crate) after: Vec<Option<Standing>>,
    pub(crate) trace: Trace,
    pub(crate) roster: Roster,
}

fn standing_of(p: &dyn Projector, roster: &Roster, name: &str) -> Option<Standing> {
    let id = roster.get(name)?;
    p.standings().into_iter().find(|s| s.player == id)
}

pub(crate) fn account(
    ledger: &Ledger,
    config: Config,
    seq: u64,
    names: &[String],
) -> anyhow::Result<Account> {
    let mut projector = registry::build(config.clone())?;
    let mut trace = Trace::new();
    let mut before: Vec<Option<Standing>> = vec![None; names.len()];
    let r = replay(
        &LedgerHistory(ledger),
        &mut [&mut projector],
        Options { until: Until::Seq(seq), trace: Some((seq, &mut trace)), ..Options::default() },
        &mut |s| {
            if s.seq + 1 == seq {
                for (b, n) in before.iter_mut().zip(names) {
                    *b = standing_of(&*s.projectors[0], s.roster, n);
                }
            }
        },
    )
    .with_context(|| format!("replaying {config} through event {seq}"))?;
    let after = names.iter().map(|n| standing_of(&projector, &r.roster, n)).collect();
    Ok(Account { config, before, after, trace, roster: r.roster })
}

/// Whether a trace entry belongs in an explanation narrowed to player `only` (every entry when
/// `None`): headings and entries of no player always, a player's quantities and flags only for
/// that player (the opponents' values they used are recorded under their own name).
fn about(entry: &TraceEntry, roster: &Roster, only: Option<&str>) -> bool {
    match (entry, only) {
        (_, None) | (TraceEntry::Section(_), _) => true,
        (TraceEntry::Quantity { player, .. } | TraceEntry::Flag { player, .. }, Some(name)) => {
            player.is_none_or(|p| roster.name(p) == name)
        }
    }
}

/// Replaces `#ID` in a section title with the player's name.
fn named(text: &str, roster: &Roster) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let digits: String = rest[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>().ok().filter(|&n| (n as usize) < roster.len()) {
            Some(n) => out.push_str(roster.name(PlayerId(n))),
            None => out.push('#'),
        }
        if digits.is_empty() {
            rest = &rest[i + 1..];
        } else {
            rest = &rest[i + 1 + digits.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// Flags the projector raised, plus a winner who lost rating or a loser who gained, which any
/// algorithm can show.
fn flags(acc: &Account, names: &[String], body: &Body) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = acc
        .trace
        .entries
        .iter()
        .filter_map(|e| match e {
            TraceEntry::Flag { player, code, message } => Some((
                player.map_or("-".to_string(), |p| acc.roster.name(p).to_string()),
                code.to_string(),
                named(message, &acc.roster),
            )),
            _ => None,
        })
        .collect();
    if let Body::MatchResult { seats } = body {
        for (i, name) in names.iter().enumerate() {
            let (Some(b), Some(a)) = (&acc.before[i], &acc.after[i]) else { continue };
            let Some(me) = seats.iter().find(|s| &s.player == name) else { continue };
            let won = seats.iter().filter(|s| &s.player != name).all(|s| me.score > s.score);
            let lost = seats.iter().filter(|s| &s.player != name).all(|s| me.score < s.score);
            let change = a.rating - b.rating;
            let code = if won && change < 0.0 {
                "winner-lost-rating"
            } else if lost && change > 0.0 {
                "loser-gained-rating"
            } else {
                continue;
            };
            if !out.iter().any(|(p, c, _)| p == name && c == code) {
                out.push((name.clone(), code.into(), format!("rating changed by {change:+.4}")));
            }
        }
    }
    out
}

fn fmt_standing(s: &Option<Standing>) -> String {
    match s {
        None => "-".into(),
        Some(s) => match s.rd {
            Some(rd) => format!("{:.2} / {:.2}", s.rating, rd),
            None => format!("{:.2}", s.rating),
        },
    }
}

pub(crate) fn change(acc: &Account, i: usize) -> Option<f64> {
    Some(
        acc.after[i].as_ref()?.rating
            - acc.before[i].as_ref().map_or(acc.after[i].as_ref()?.rating, |b| b.rating),
    )
}

pub fn run(ledger_path: &Path, args: ExplainArgs) -> anyhow::Result<ExitCode> {
    let base = config_of(&args.algo)?;
    if args.algo.until.is_some() {
        return Err(
            UsageError("explain replays through --event; --until does not apply".into()).into()
        );
    }
    let ledger = open_for_read(ledger_path, args.algo.events.events.as_deref())?;
    let head = ledger.head();
    if args.event == 0 || args.event > head.seq {
        return Err(Hinted::usage(
            format!("--event {}: the ledger holds events 1 to {}", args.event, head.seq),
            "`ladder log` lists the events with their sequence numbers",
        )
        .into());
    }
    let stored =
        ledger.get(args.event)?.with_context(|| format!("event {} is missing", args.event))?;
    let chain = ledger.verify(None);
    let mut names: Vec<String> = stored.event.players().map(str::to_string).collect();
    if let Some(p) = &args.player {
        if !names.contains(p) {
            return Err(Hinted::refused(
                format!("event {} does not name {p:?}; it names: {}", args.event, names.join(", ")),
                "leave out --player to explain every player of the event",
            )
            .into());
        }
        names = vec![p.clone()];
    }
    let only = args.player.as_deref();
    let mut configs = vec![base.clone()];
    for vs in &args.vs {
        let mut sets: Vec<(String, String)> =
            base.values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        sets.extend(Config::parse_assignments(vs).map_err(|e| UsageError(format!("--vs: {e}")))?);
        let c =
            registry::config(base.algorithm, &sets).map_err(|e| config_error(base.algorithm, e))?;
        for w in &c.warnings {
            eprintln!("warning: {w}");
        }
        configs.push(c);
    }
    let accounts: Vec<Account> = configs
        .into_iter()
        .map(|c| account(&ledger, c, args.event, &names))
        .collect::<anyhow::Result<_>>()?;
    let chain_text = match &chain {
        Ok(h) => format!("the chain verifies from event 1 through the head {h}"),
        Err(e) => format!("VERIFICATION FAILED: {e}"),
    };
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    let base = &accounts[0];
    match args.format {
        ExplainFormat::Json => {
            let standing = |s: &Option<Standing>| {
                s.as_ref().map(|s| serde_json::json!({"rating": s.rating, "rd": s.rd, "volatility": s.volatility, "games": s.games}))
            };
            let one = |acc: &Account| {
                let players: Vec<_> = names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| serde_json::json!({"player": n, "before": standing(&acc.before[i]), "after": standing(&acc.after[i]), "change": change(acc, i)}))
                    .collect();
                let trace: Vec<_> = acc
                    .trace
                    .entries
                    .iter()
                    .filter(|e| about(e, &acc.roster, only))
                    .map(|e| match e {
                        TraceEntry::Section(t) => serde_json::json!({"section": named(t, &acc.roster)}),
                        TraceEntry::Quantity { player, name, formula, value } => serde_json::json!({
                            "player": player.map(|p| acc.roster.name(p).to_string()), "name": name, "formula": formula, "value": value,
                        }),
                        TraceEntry::Flag { player, code, message } => serde_json::json!({
                            "player": player.map(|p| acc.roster.name(p).to_string()), "flag": code, "message": named(message, &acc.roster),
                        }),
                    })
                    .collect();
                let flags: Vec<_> = flags(acc, &names, &stored.event.body)
                    .into_iter()
                    .map(|(p, c, m)| serde_json::json!({"player": p, "flag": c, "message": m}))
                    .collect();
                serde_json::json!({"config": acc.config.to_string(), "players": players, "trace": trace, "flags": flags})
            };
            let v = serde_json::json!({
                "seq": stored.seq,
                "event": serde_json::from_str::<serde_json::Value>(&to_line(&stored.event))?,
                "hash": hex(&stored.hash),
                "prev_hash": hex(&stored.prev_hash),
                "chain_ok": chain.is_ok(),
                "chain": chain_text,
                "explained": one(base),
                "vs": accounts[1..].iter().map(one).collect::<Vec<_>>(),
            });
            writeln!(out, "{v}")?;
        }
        ExplainFormat::Table => {
            writeln!(out, "event {} as stored:\n  {}", stored.seq, to_line(&stored.event))?;
            writeln!(
                out,
                "chain:\n  hash      {}\n  previous  {}\n  {chain_text}\n",
                hex(&stored.hash),
                hex(&stored.prev_hash)
            )?;
            writeln!(out, "under {}\n", base.config)?;
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(6).max(6);
            writeln!(
                out,
                "{:<width$}  {:>22}  {:>22}  {:>10}",
                "player", "before", "after", "change"
            )?;
            for (i, n) in names.iter().enumerate() {
                writeln!(
                    out,
                    "{:<width$}  {:>22}  {:>22}  {:>10}",
                    n,
                    fmt_standing(&base.before[i]),
                    fmt_standing(&base.after[i]),
                    change(base, i).map_or("-".into(), |c| format!("{c:+.4}"))
                )?;
            }
            writeln!(out)?;
            if base.trace.entries.is_empty() {
                writeln!(out, "(the algorithm recorded no quantities at this event)")?;
            }
            for e in base.trace.entries.iter().filter(|e| about(e, &base.roster, only)) {
                match e {
                    TraceEntry::Section(t) => writeln!(out, "{}", named(t, &base.roster))?,
                    TraceEntry::Quantity { player, name, formula, value } => writeln!(
                        out,
                        "  {:<16} {:<12} = {:<24} {}",
                        player.map_or("", |p| base.roster.name(p)),
                        name,
                        format!("{value:.10}"),
                        formula
                    )?,
                    TraceEntry::Flag { .. } => {}
                }
            }
            let fl = flags(base, &names, &stored.event.body);
            if !fl.is_empty() {
                writeln!(out, "\nflags:")?;
                for (p, c, m) in fl {
                    writeln!(out, "  ! {c} ({p}): {m}")?;
                }
            }
            for acc in &accounts[1..] {
                writeln!(out, "\nvs {}:", acc.config)?;
                for (i, n) in names.iter().enumerate() {
                    writeln!(
                        out,
                        "  {:<width$}  after {:>22}  change {:>10}   (was {:>10})",
                        n,
                        fmt_standing(&acc.after[i]),
                        change(acc, i).map_or("-".into(), |c| format!("{c:+.4}")),
                        change(base, i).map_or("-".into(), |c| format!("{c:+.4}"))
                    )?;
                }
                for (p, c, m) in flags(acc, &names, &stored.event.body) {
                    writeln!(out, "  ! {c} ({p}): {m}")?;
                }
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
