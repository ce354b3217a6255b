//! `ladder explain`: the audit of one event — where it sits in the chain, every quantity behind
//! each player's change, what an auditor should look at, and what other constants would give.

use crate::account::{account, change, Account};
use crate::algo::{config_error, config_of, AlgoArgs};
use crate::source::{open_for_read, LedgerHistory};
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_events::{json::to_line, Body, Event, Timestamp};
use ladder_log::Ledger;
use ladder_projector::{Config, PlayerId, Projector, Roster, Standing, Trace, TraceEntry};
use ladder_proof::hex;
use ladder_proof::Proof;
use ladder_replay::{registry, replay, Options, Until};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder explain --algo tgr --event 1234                   every player of event 1234
  ladder explain --algo tgr --event 1234 --player alice    one player
  ladder explain --algo tgr --set p=0.35 --event 1234 --vs p=0.9 --vs p=1
  ladder explain --algo glicko2 --event 88 --format json

The event is shown as stored, then the rating arithmetic, then its chain hash, the previous
hash, and its inclusion proof in the tree of every event (the tree head `ladder checkpoint`
publishes now), checked here and checkable offline with `ladder check-proof`. Flags mark what
an auditor looks for: a winner who lost rating, a negative merit weight, RD at its cap, a
provisional opponent, a long idle gap.";

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

/// Whether a trace entry belongs in an explanation narrowed to the players `only` (every entry when
/// `None`): headings and entries of no player always, a player's quantities, games and flags only
/// for those players (the opponents' values they used are recorded under their own name).
fn about(entry: &TraceEntry, roster: &Roster, only: Option<&[String]>) -> bool {
    match (entry, only) {
        (_, None) | (TraceEntry::Section(_), _) => true,
        (
            TraceEntry::Quantity { player, .. }
            | TraceEntry::Flag { player, .. }
            | TraceEntry::Opponent { player, .. },
            Some(names),
        ) => player.is_none_or(|p| names.iter().any(|n| n == roster.name(p))),
    }
}

/// Whether `name` owns any entry of `trace`.
fn owns_entries(trace: &Trace, roster: &Roster, name: &str) -> bool {
    trace.entries.iter().any(|e| match e {
        TraceEntry::Quantity { player: Some(p), .. }
        | TraceEntry::Flag { player: Some(p), .. }
        | TraceEntry::Opponent { player: Some(p), .. } => roster.name(*p) == name,
        _ => false,
    })
}

/// The rating period a Glicko or Glicko-2 match waits in, and the arithmetic that rates it.
struct PeriodClose {
    /// Its index k: the period is `[k P, (k + 1) P)` from the Unix epoch.
    k: i64,
    start: Timestamp,
    end: Timestamp,
    /// The event whose arrival closes the period; `None` while it is still open at the head.
    closing: Option<(u64, Event)>,
    /// The head's sequence number (the period is computed there when still open).
    head: u64,
    /// The trace of the period's close.
    trace: Trace,
    roster: Roster,
}

/// The period of `event` when `projector` rates matches in periods (Glicko and Glicko-2 with a
/// duration `period`): its index and length in nanoseconds ([`Projector::rating_period`]).
fn period_of(projector: &dyn Projector, event: &Event) -> Option<(i64, i64)> {
    if !matches!(event.body, Body::MatchResult { .. }) {
        return None;
    }
    projector.rating_period(event.at)
}

/// Finds where period `k` of length `p` (which holds event `seq`) is computed: at the first later
/// event that the replay applies in a later period, or, when no event has come after the period
/// yet, at the head as the end of a replay computes it. Returns that computation's trace.
fn period_close(
    ledger: &Ledger,
    config: &Config,
    seq: u64,
    (k, p): (i64, i64),
) -> anyhow::Result<PeriodClose> {
    let start = Timestamp(k.saturating_mul(p));
    let end = Timestamp(k.saturating_add(1).saturating_mul(p));
    let title = format!("{} period {k}:", config.algorithm);
    let closes = |t: &Trace| {
        t.entries.iter().any(|e| matches!(e, TraceEntry::Section(s) if s.starts_with(&title)))
    };
    // Only the period's computation: from its heading to the next heading (the closing event's
    // own entries follow it).
    let only_period = |t: Trace| {
        let mut entries = t
            .entries
            .into_iter()
            .skip_while(|e| !matches!(e, TraceEntry::Section(s) if s.starts_with(&title)));
        let mut out = Trace::new();
        out.entries.extend(entries.next());
        out.entries.extend(entries.take_while(|e| !matches!(e, TraceEntry::Section(_))));
        out
    };
    let head = ledger.head().seq;
    let mut candidates = 0;
    for s in seq + 1..=head {
        let stored = ledger.get(s)?.with_context(|| format!("event {s} is missing"))?;
        if stored.event.at < end {
            continue;
        }
        // The first event at or after the period's end closes it, unless the replay does not
        // apply it (a void); then the next one does.
        let acc = account(ledger, config.clone(), s, &[])?;
        if closes(&acc.trace) {
            return Ok(PeriodClose {
                k,
                start,
                end,
                closing: Some((s, stored.event)),
                head,
                trace: only_period(acc.trace),
                roster: acc.roster,
            });
        }
        candidates += 1;
        if candidates == 16 {
            break;
        }
    }
    // Still open at the head: computed as the end of a replay computes it.
    let mut projector = registry::build(config.clone())?;
    let r = replay(
        &LedgerHistory(ledger),
        &mut [&mut projector],
        Options { until: Until::Seq(head), ..Options::default() },
        &mut |_| {},
    )
    .with_context(|| format!("replaying {config} through event {head}"))?;
    let mut trace = Trace::new();
    projector.settle(head, Some(&mut trace))?;
    if !closes(&trace) {
        anyhow::bail!("found no event that closes {} period {k}", config.algorithm);
    }
    Ok(PeriodClose {
        k,
        start,
        end,
        closing: None,
        head,
        trace: only_period(trace),
        roster: r.roster,
    })
}

/// The value of quantity `name` of `player` in `trace` (the last one recorded).
fn quantity_of(trace: &Trace, roster: &Roster, player: &str, name: &str) -> Option<f64> {
    trace.entries.iter().rev().find_map(|e| match e {
        TraceEntry::Quantity { player: Some(p), name: n, value, .. }
            if n == name && roster.name(*p) == player =>
        {
            Some(*value)
        }
        _ => None,
    })
}

/// A plain-language sentence for a flag: why it was raised, with the numbers that raised it. The
/// algorithm's own reason first ([`Projector::flag_reason`]), else the generic one of the code.
fn plain(
    projector: &dyn Projector,
    code: &str,
    player: &str,
    traces: &[(&Trace, &Roster)],
) -> String {
    let q = |name: &str| traces.iter().find_map(|(t, r)| quantity_of(t, r, player, name));
    if let Some(why) = projector.flag_reason(code, player, &q) {
        return why;
    }
    let num = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.6}"));
    match code {
        "winner-lost-rating" => format!("{player} won and the rating fell"),
        "loser-gained-rating" => format!("{player} lost and the rating rose"),
        "rd-at-cap" => format!(
            "{player}'s deviation is at rd_max, the deviation of an unrated player (a newcomer, or \
             back after a long absence), so this result moves their rating as far as a newcomer's"
        ),
        "provisional-opponent" => format!(
            "{player}'s opponent is provisional (their RD is above provisional_rd): their rating is \
             still uncertain, and a high opponent RD lowers g (PG), so the game moves {player}'s \
             rating less"
        ),
        "long-idle-gap" => format!(
            "{player} had not played for a long time: the deviation grew meanwhile, so this result \
             moves the rating more"
        ),
        "scaled-down" => format!(
            "a rating offset in this game was more than GAME_MULT = {} points per minute played: \
             every player's change was multiplied by scale = {} so that nobody moves faster",
            num(traces.iter().find_map(|(t, _)| none_quantity(t, "GAME_MULT"))),
            num(traces.iter().find_map(|(t, _)| none_quantity(t, "scale")))
        ),
        "provisional" => format!(
            "{player}'s deviation is still above provisional_rd: the rating rests on too few recent \
             games to be trusted, so it is shown as provisional and kept off the leaderboard's \
             ranking until more games bring the deviation down"
        ),
        "whole-game-time" => {
            format!("no seconds were given for {player}: the whole game's length counts")
        }
        "no-finite-rating" => format!(
            "every game of {player} has the same result, so the performance equation has no finite \
             root: the rating stays where it was"
        ),
        _ => String::new(),
    }
}

/// The value of a shared quantity (of no player).
fn none_quantity(trace: &Trace, name: &str) -> Option<f64> {
    trace.entries.iter().rev().find_map(|e| match e {
        TraceEntry::Quantity { player: None, name: n, value, .. } if n == name => Some(*value),
        _ => None,
    })
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

/// Flags the projector raised, plus a rating left provisional (TGR) and a winner who lost rating
/// or a loser who gained, which any algorithm can show.
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
    // A provisional rating (TGR: RD above provisional_rd after the event).
    for (i, name) in names.iter().enumerate() {
        let Some(a) = &acc.after[i] else { continue };
        if a.display.is_some_and(|d| d.provisional) {
            let limit = acc.config.values.iter().find(|(k, _)| *k == "provisional_rd");
            out.push((
                name.clone(),
                "provisional".into(),
                format!(
                    "RD {:.4} after the event is above provisional_rd = {}",
                    a.rd.unwrap_or(f64::NAN),
                    limit.map_or("?".to_string(), |(_, v)| v.to_string())
                ),
            ));
        }
    }
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
        Some(s) => match s.spread() {
            Some(rd) => format!("{:.2} / {:.2}", s.rating, rd),
            None => format!("{:.2}", s.rating),
        },
    }
}

/// Prints the trace entries of `trace` that concern `only` (every entry when `None`), names for ids.
fn write_trace(
    out: &mut dyn Write,
    trace: &Trace,
    roster: &Roster,
    only: Option<&[String]>,
) -> std::io::Result<()> {
    for e in trace.entries.iter().filter(|e| about(e, roster, only)) {
        match e {
            TraceEntry::Section(t) => writeln!(out, "{}", named(t, roster))?,
            TraceEntry::Opponent { player, opponent } => writeln!(
                out,
                "  {:<16} game against {}",
                player.map_or("", |p| roster.name(p)),
                roster.name(*opponent)
            )?,
            TraceEntry::Quantity { player, name, formula, value } => writeln!(
                out,
                "  {:<16} {:<14} = {:<24} {}",
                player.map_or("", |p| roster.name(p)),
                name,
                format!("{value:.10}"),
                formula
            )?,
            TraceEntry::Flag { .. } => {}
        }
    }
    Ok(())
}

/// The trace entries of `trace` that concern `only`, as JSON: every quantity a number, players and
/// opponents by name.
fn trace_json(trace: &Trace, roster: &Roster, only: Option<&[String]>) -> Vec<serde_json::Value> {
    let name = |p: &Option<PlayerId>| p.map(|p| roster.name(p).to_string());
    trace
        .entries
        .iter()
        .filter(|e| about(e, roster, only))
        .map(|e| match e {
            TraceEntry::Section(t) => serde_json::json!({"section": named(t, roster)}),
            TraceEntry::Opponent { player, opponent } => serde_json::json!({
                "player": name(player), "opponent": roster.name(*opponent),
            }),
            TraceEntry::Quantity { player, name: n, formula, value } => serde_json::json!({
                "player": name(player), "name": n, "formula": formula, "value": value,
            }),
            TraceEntry::Flag { player, code, message } => serde_json::json!({
                "player": name(player), "flag": code, "message": named(message, roster),
            }),
        })
        .collect()
}

/// The traces an account's numbers come from: its own, and the period's close when there is one.
fn traces_of<'a>(
    acc: &'a Account,
    period: Option<&'a PeriodClose>,
) -> Vec<(&'a Trace, &'a Roster)> {
    let mut v = vec![(&acc.trace, &acc.roster)];
    if let Some(pc) = period {
        v.push((&pc.trace, &pc.roster));
    }
    v
}

/// What the text view says about where a period's arithmetic happens.
fn period_sentence(seq: u64, pc: &PeriodClose) -> String {
    match &pc.closing {
        Some((s, ev)) if *s == seq => format!("period {} closes at this event", pc.k),
        Some((s, ev)) => format!(
            "this match is rated, with every other game of the period, when the period closes: at \
             event {s} (the first event after the period, at {}). The numbers below are that \
             computation; they are final only from event {s} on. Before it, `replay` shows the \
             period computed as if it closed at the event replayed to: so the table above is \
             the period without this match (before) and with it (after).",
            ev.at
        ),
        None => format!(
            "the period is still open at the head (event {}): it closes with the first event at \
             or after {}. The numbers below are the period computed as if it closed now (what \
             `replay` prints); they are final only once the period closes.",
            pc.head, pc.end
        ),
    }
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
    // The event's inclusion proof in the tree of every event: O(log n) hashes from the tree's
    // stored subtrees, checked here by the same function `ladder check-proof` runs.
    let proof = ledger.prove_inclusion(args.event, head.seq)?;
    let inclusion = Proof::Inclusion(proof.clone());
    let checked = inclusion.check();
    let seats: Vec<String> = stored.event.players().map(str::to_string).collect();
    let names: Vec<String> = match &args.player {
        Some(p) => vec![p.clone()],
        None => seats.clone(),
    };
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
    // Glicko and Glicko-2 rate a match when its period closes: find that computation.
    let period = match period_of(&accounts[0].projector, &stored.event) {
        Some(kp) => Some(period_close(&ledger, &accounts[0].config, args.event, kp)?),
        None => None,
    };
    if let Some(p) = &args.player {
        let in_period = period.as_ref().is_some_and(|pc| owns_entries(&pc.trace, &pc.roster, p));
        if !seats.contains(p)
            && !in_period
            && !owns_entries(&accounts[0].trace, &accounts[0].roster, p)
        {
            return Err(Hinted::refused(
                format!(
                    "event {} does not name {p:?} and changes nothing of theirs under {}; it \
                     names: {}",
                    args.event,
                    base.algorithm,
                    seats.join(", ")
                ),
                "leave out --player to explain every player of the event",
            )
            .into());
        }
    }
    let only = Some(&names[..]);
    let proof_text = match &checked {
        Ok(()) => "it checks: the path leads from the event's leaf hash to the root".to_string(),
        Err(e) => format!("THE PROOF FAILS: {e}"),
    };
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    let base = &accounts[0];
    // Flags of the event and (for a period) of the period's close, each with its plain reason.
    let all_flags = |acc: &Account| -> Vec<(String, String, String, String)> {
        let mut fl = flags(acc, &names, &stored.event.body);
        if let Some(pc) = period.as_ref().filter(|_| std::ptr::eq(acc, &accounts[0])) {
            for e in &pc.trace.entries {
                if let TraceEntry::Flag { player: Some(p), code, message } = e {
                    let n = pc.roster.name(*p);
                    if names.iter().any(|x| x == n)
                        && !fl.iter().any(|(a, c, _)| a == n && c == code)
                    {
                        fl.push((n.to_string(), code.to_string(), named(message, &pc.roster)));
                    }
                }
            }
        }
        // The period's result against this event's result: a winner whose period lowers them.
        if let (Some(pc), Body::MatchResult { seats }) =
            (period.as_ref().filter(|_| std::ptr::eq(acc, &accounts[0])), &stored.event.body)
        {
            for me in seats.iter().filter(|s| names.contains(&s.player)) {
                let others = || seats.iter().filter(|s| s.player != me.player);
                let won = others().all(|s| me.score > s.score);
                let lost = others().all(|s| me.score < s.score);
                let q = |n: &str| quantity_of(&pc.trace, &pc.roster, &me.player, n);
                // On the reported scale (Glicko-2 traces the period's start as mu).
                let Some((r, r_new)) = acc.projector.period_change(&q) else {
                    continue;
                };
                let code = if won && r_new < r {
                    "winner-lost-rating"
                } else if lost && r_new > r {
                    "loser-gained-rating"
                } else {
                    continue;
                };
                if !fl.iter().any(|(p, c, _)| p == &me.player && c == code) {
                    fl.push((
                        me.player.clone(),
                        code.into(),
                        format!(
                            "the period of this match moves the rating from {r:.4} to {r_new:.4}"
                        ),
                    ));
                }
            }
        }
        fl.retain(|(p, _, _)| p == "-" || names.contains(p));
        fl.into_iter()
            .map(|(p, c, m)| {
                let why = plain(
                    &acc.projector,
                    &c,
                    &p,
                    &traces_of(acc, period.as_ref().filter(|_| std::ptr::eq(acc, &accounts[0]))),
                );
                (p, c, m, why)
            })
            .collect()
    };
    match args.format {
        ExplainFormat::Json => {
            let standing = |s: &Option<Standing>| {
                s.as_ref().map(|s| {
                    s.fields()
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), serde_json::to_value(v).unwrap_or_default()))
                        .collect::<serde_json::Map<_, _>>()
                })
            };
            let one = |acc: &Account| {
                let players: Vec<_> = names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| serde_json::json!({"player": n, "before": standing(&acc.before[i]), "after": standing(&acc.after[i]), "change": change(acc, i)}))
                    .collect();
                let flags: Vec<_> = all_flags(acc)
                    .into_iter()
                    .map(|(p, c, m, why)| serde_json::json!({"player": p, "flag": c, "message": m, "why": why}))
                    .collect();
                serde_json::json!({"config": acc.config.to_string(), "players": players, "trace": trace_json(&acc.trace, &acc.roster, only), "flags": flags})
            };
            let period_json = period.as_ref().map(|pc| {
                serde_json::json!({
                    "index": pc.k,
                    "start": pc.start.to_string(),
                    "end": pc.end.to_string(),
                    "closes_at": pc.closing.as_ref().map(|(s, _)| *s),
                    "open_at_head": pc.closing.is_none(),
                    "final": pc.closing.as_ref().is_some_and(|(s, _)| *s == args.event),
                    "trace": trace_json(&pc.trace, &pc.roster, only),
                })
            });
            let v = serde_json::json!({
                "seq": stored.seq,
                "event": serde_json::from_str::<serde_json::Value>(&to_line(&stored.event))?,
                "hash": hex(&stored.hash),
                "prev_hash": hex(&stored.prev_hash),
                "inclusion": serde_json::from_str::<serde_json::Value>(&inclusion.to_json())?,
                "inclusion_ok": checked.is_ok(),
                "explained": one(base),
                "period": period_json,
                "vs": accounts[1..].iter().map(one).collect::<Vec<_>>(),
            });
            writeln!(out, "{v}")?;
        }
        ExplainFormat::Table => {
            writeln!(out, "event {} as stored:\n  {}\n", stored.seq, to_line(&stored.event))?;
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
            write_trace(&mut out, &base.trace, &base.roster, only)?;
            if let Some(pc) = &period {
                writeln!(out, "\nrating period {}: [{}, {})", pc.k, pc.start, pc.end)?;
                writeln!(out, "  {}\n", period_sentence(args.event, pc))?;
                if pc.closing.as_ref().is_none_or(|(s, _)| *s != args.event) {
                    write_trace(&mut out, &pc.trace, &pc.roster, only)?;
                }
            }
            let fl = all_flags(base);
            if !fl.is_empty() {
                writeln!(out, "\nflags:")?;
                let mut said: Vec<(String, String)> = Vec::new();
                for (p, c, m, why) in fl {
                    writeln!(out, "  ! {c} ({p}): {m}")?;
                    // One reason is enough where two flags of a player share it.
                    if !why.is_empty() && !said.iter().any(|(q, w)| *q == p && *w == why) {
                        writeln!(out, "    why: {why}")?;
                        said.push((p, why));
                    }
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
            // The proof after the arithmetic: what changed first, then where the event sits.
            writeln!(
                out,
                "\nchain:\n  hash      {}\n  previous  {}",
                hex(&stored.hash),
                hex(&stored.prev_hash)
            )?;
            writeln!(
                out,
                "inclusion (RFC 6962 with SHA-256): event {} is in the tree of the first {} events\n  \
                 root      {}   (the tree head `ladder checkpoint` publishes now)\n  \
                 leaf hash {}   (SHA-256 of 0x00 and the line above)\n  \
                 path      {} hashes, from the leaf up:",
                stored.seq,
                proof.size,
                hex(&proof.root),
                hex(&ladder_proof::leaf_hash(proof.leaf.as_bytes())),
                proof.path.len()
            )?;
            for h in &proof.path {
                writeln!(out, "    {}", hex(h))?;
            }
            writeln!(
                out,
                "  {proof_text}\n  offline: ladder prove --event {} --format json > p.json && ladder \
                 check-proof p.json --checkpoint NOTE --pubkey KEY",
                stored.seq
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
