//! `ladder explain`: the audit of one event — where it sits in the chain, every quantity behind
//! each player's change, what an auditor should look at, and what other constants would give.
//! ladder-explain builds the explanation as a value ([`Explanation`]); this module reads the
//! arguments into a request and renders the value as a table or as JSON.

use crate::algo::{config_error, config_of, AlgoArgs};
use crate::source::open_for_read;
use crate::{Hinted, UsageError};
use clap::{Args, ValueEnum};
use ladder_events::json::to_line;
use ladder_explain::{change_labels, explain, vs_config, ExplainError, Explanation, Request};
use ladder_explain::{Seat, Step};
use ladder_projector::{ConfigError, Standing};
use ladder_proof::hex;
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

fn fmt_standing(s: &Option<Standing>) -> String {
    match s {
        None => "-".into(),
        Some(s) => match s.spread() {
            Some(rd) => format!("{:.2} / {:.2}", s.rating, rd),
            None => format!("{:.2}", s.rating),
        },
    }
}

fn fmt_change(c: Option<f64>) -> String {
    c.map_or("-".into(), |c| format!("{c:+.4}"))
}

/// Prints steps as the table view shows them.
fn write_steps(out: &mut dyn Write, steps: &[Step]) -> std::io::Result<()> {
    for step in steps {
        match step {
            Step::Section(t) => writeln!(out, "{t}")?,
            Step::Game { player, opponent } => {
                writeln!(out, "  {:<16} game against {opponent}", player.as_deref().unwrap_or(""))?
            }
            Step::Quantity { player, name, formula, value } => writeln!(
                out,
                "  {:<16} {:<14} = {:<24} {}",
                player.as_deref().unwrap_or(""),
                name,
                format!("{value:.10}"),
                formula
            )?,
            Step::Flag { .. } => {}
        }
    }
    Ok(())
}

/// The explanation as the table view: the event, the standings before and after, the
/// arithmetic (and the period's, with this game's effect and the whole period's told apart), the
/// flags, the other constants, then the chain and the inclusion proof.
fn write_table(out: &mut dyn Write, x: &Explanation) -> std::io::Result<()> {
    let base = &x.explained;
    writeln!(out, "event {} as stored:\n  {}\n", x.seq, to_line(&x.event))?;
    writeln!(out, "under {}\n", base.config)?;
    let width = x.names.iter().map(|n| n.chars().count()).max().unwrap_or(6).max(6);
    let mut rows = vec![["player".to_string(), "before".into(), "after".into(), "change".into()]];
    rows.extend(base.seats.iter().map(|s| {
        [s.player.clone(), fmt_standing(&s.before), fmt_standing(&s.after), fmt_change(s.change)]
    }));
    for [player, before, after, change] in rows {
        writeln!(out, "{player:<width$}  {before:>22}  {after:>22}  {change:>10}")?;
    }
    writeln!(out)?;
    if base.steps.is_empty() {
        writeln!(out, "(the algorithm recorded no quantities at this event)")?;
    }
    write_steps(out, &base.steps)?;
    if let Some(p) = &x.period {
        writeln!(out, "\nrating period {}: [{}, {})", p.index, p.start, p.end)?;
        writeln!(out, "  {}\n", p.sentence(x.seq))?;
        if !p.changes.is_empty() {
            let (game, whole) = change_labels(x.seq, p);
            writeln!(out, "  two changes, told apart:")?;
            writeln!(out, "    this game    = {game}")?;
            writeln!(out, "    whole period = {whole}")?;
            for c in &p.changes {
                writeln!(
                    out,
                    "  {:<width$}  this game    {:>10} -> {:>10}  {:>10}",
                    c.player,
                    c.without.map_or("-".into(), |r| format!("{r:.2}")),
                    format!("{:.2}", c.with),
                    fmt_change(Some(c.game()))
                )?;
                writeln!(
                    out,
                    "  {:<width$}  whole period {:>10} -> {:>10}  {:>10}",
                    "",
                    format!("{:.2}", c.start),
                    format!("{:.2}", c.end),
                    fmt_change(Some(c.period()))
                )?;
            }
            writeln!(out)?;
        }
        if !p.closes_at(x.seq) {
            write_steps(out, &p.steps)?;
        }
    }
    if !base.flags.is_empty() {
        writeln!(out, "\nflags:")?;
        let mut said: Vec<(&str, &str)> = Vec::new();
        for f in &base.flags {
            writeln!(out, "  ! {} ({}): {}", f.code, f.player, f.message)?;
            // One reason is enough where two flags of a player share it.
            if !f.why.is_empty() && !said.iter().any(|(q, w)| *q == f.player && *w == f.why) {
                writeln!(out, "    why: {}", f.why)?;
                said.push((&f.player, &f.why));
            }
        }
    }
    for told in &x.vs {
        writeln!(out, "\nvs {}:", told.config)?;
        for (s, was) in told.seats.iter().zip(&base.seats) {
            let Seat { player, after, change, .. } = s;
            writeln!(
                out,
                "  {:<width$}  after {:>22}  change {:>10}   (was {:>10})",
                player,
                fmt_standing(after),
                fmt_change(*change),
                fmt_change(was.change)
            )?;
        }
        for f in &told.flags {
            writeln!(out, "  ! {} ({}): {}", f.code, f.player, f.message)?;
        }
    }
    // The proof after the arithmetic: what changed first, then where the event sits.
    let proof = &x.inclusion;
    writeln!(out, "\nchain:\n  hash      {}\n  previous  {}", hex(&x.hash), hex(&x.prev_hash))?;
    writeln!(
        out,
        "inclusion (RFC 6962 with SHA-256): event {} is in the tree of the first {} events\n  \
         root      {}   (the tree head `ladder checkpoint` publishes now)\n  \
         leaf hash {}   (SHA-256 of 0x00 and the line above)\n  \
         path      {} hashes, from the leaf up:",
        x.seq,
        proof.size,
        hex(&proof.root),
        hex(&ladder_proof::leaf_hash(proof.leaf.as_bytes())),
        proof.path.len()
    )?;
    for h in &proof.path {
        writeln!(out, "    {}", hex(h))?;
    }
    let proof_text = match &x.inclusion_ok {
        Ok(()) => "it checks: the path leads from the event's leaf hash to the root".to_string(),
        Err(e) => format!("THE PROOF FAILS: {e}"),
    };
    writeln!(
        out,
        "  {proof_text}\n  offline: ladder prove --event {} --format json > p.json && ladder \
         check-proof p.json --checkpoint NOTE --pubkey KEY",
        x.seq
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
    let mut vs = Vec::new();
    for text in &args.vs {
        let c = vs_config(&base, text).map_err(|e| match e {
            ConfigError::Syntax(_) => anyhow::Error::from(UsageError(format!("--vs: {e}"))),
            e => config_error(base.algorithm, e).into(),
        })?;
        for w in &c.warnings {
            eprintln!("warning: {w}");
        }
        vs.push(c);
    }
    let request = Request { config: base, seq: args.event, player: args.player.clone(), vs };
    let x = match explain(&ledger, &request) {
        Ok(x) => x,
        Err(ExplainError::NoEvent { seq, head }) => {
            return Err(Hinted::usage(
                format!("--event {seq}: the ledger holds events 1 to {head}"),
                "`ladder log` lists the events with their sequence numbers",
            )
            .into())
        }
        Err(e @ ExplainError::NotNamed { .. }) => {
            return Err(Hinted::refused(
                e.to_string(),
                "leave out --player to explain every player of the event",
            )
            .into())
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    match args.format {
        ExplainFormat::Json => writeln!(out, "{}", x.to_json())?,
        ExplainFormat::Table => write_table(&mut out, &x)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
