//! `ladder log`: print the stored events.

use crate::cli::EventsArg;
use crate::source::open_for_read;
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_events::{json::to_line, Body};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder log                                the history as a table
  ladder log --from 100 --limit 20          events 100 to 119
  ladder log --format jsonl --output export.jsonl
                                            a backup: `ladder import` of it rebuilds the same
                                            chain; written whole or not at all
  ladder log --format json                  one JSON object per line with seq and hash";

/// Output formats of `log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// For people: sequence number, instant, type, what, chain hash prefix.
    Table,
    /// The JSON Lines event format of `docs/events.md`, for export and re-import.
    Jsonl,
    /// JSON Lines of `{"seq", "hash", "event"}`: the events with their place in the chain.
    Json,
}

/// Arguments of `log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: LogFormat,
    /// First sequence number to print.
    #[arg(long, default_value_t = 1)]
    pub from: u64,
    /// Print at most this many events.
    #[arg(long)]
    pub limit: Option<u64>,
    /// Write to FILE instead of standard output, atomically: a temporary file beside it is
    /// renamed to FILE only once every event was read and written (and synced), so a damaged
    /// ledger or a full disk leaves no partial backup. Use it for backups: a redirection (`>`)
    /// keeps whatever was printed before a failure.
    #[arg(long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub events: EventsArg,
}

fn describe(body: &Body) -> String {
    match body {
        Body::PlayerJoined { player, prior } => {
            let mut s = player.clone();
            for (k, v) in
                [("rating", prior.rating), ("rd", prior.rd), ("volatility", prior.volatility)]
            {
                if let Some(v) = v {
                    s.push_str(&format!(" {k}={v}"));
                }
            }
            s
        }
        Body::QueueTimeout { player } => player.clone(),
        Body::MidnightTick => String::new(),
        Body::MatchResult { seats } => seats
            .iter()
            .map(|s| match &s.team {
                Some(t) => format!("{} {} [{t}]", s.player, s.score),
                None => format!("{} {}", s.player, s.score),
            })
            .collect::<Vec<_>>()
            .join(" vs "),
        Body::MatchVoided { match_id, reason } => format!("voids {match_id}: {reason}"),
    }
}

/// An id cut to 16 characters for the table (the full id is in `--format jsonl`).
fn short_id(id: Option<&str>) -> String {
    match id {
        None => "-".into(),
        Some(id) if id.chars().count() <= 16 => id.into(),
        Some(id) => format!("{}…", id.chars().take(15).collect::<String>()),
    }
}

pub fn run(ledger_path: &Path, args: LogArgs) -> anyhow::Result<ExitCode> {
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let Some(path) = &args.output else {
        let mut out = std::io::BufWriter::new(crate::out::stdout());
        write_events(&ledger, &args, &mut out)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Removed on any failure (dropped unpersisted): FILE is never partial.
    let temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    let mut out = std::io::BufWriter::new(temp);
    write_events(&ledger, &args, &mut out)?;
    let temp = out.into_inner().map_err(|e| e.into_error())?;
    temp.as_file().sync_all().with_context(|| format!("syncing {}", path.display()))?;
    temp.persist(path).with_context(|| format!("writing {}", path.display()))?;
    Ok(ExitCode::SUCCESS)
}

fn write_events(
    ledger: &ladder_log::Ledger,
    args: &LogArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if args.format == LogFormat::Table {
        writeln!(
            out,
            "{:>8}  {:<24}  {:<13}  {:<16}  {:<12}  what",
            "seq", "at", "type", "id", "hash"
        )?;
    }
    let limit = args.limit.unwrap_or(u64::MAX);
    for (n, stored) in ledger.events(args.from.max(1)).enumerate() {
        if n as u64 >= limit {
            break;
        }
        let s = stored.context("reading the ledger")?;
        match args.format {
            LogFormat::Jsonl => writeln!(out, "{}", to_line(&s.event))?,
            // The event is embedded as its canonical line (the leaf bytes, verbatim: what the
            // hash covers), beside a number and 64 hex digits, which need no escaping.
            LogFormat::Json => writeln!(
                out,
                "{{\"seq\":{},\"hash\":\"{}\",\"event\":{}}}",
                s.seq,
                ladder_proof::hex(&s.hash),
                to_line(&s.event)
            )?,
            LogFormat::Table => writeln!(
                out,
                "{:>8}  {:<24}  {:<13}  {:<16}  {:<12}  {}",
                s.seq,
                s.event.at.to_string(),
                s.event.body.type_name(),
                short_id(s.event.id.as_deref()),
                &ladder_proof::hex(&s.hash[..6]),
                describe(&s.event.body)
            )?,
        }
    }
    Ok(())
}
