//! `ladder`: the command line of the ladder rating ledger.
//!
//! This crate is the edge of the program: the only one that parses arguments, reads the wall clock
//! ([`now`]: `ladder append` without `--at`, and the future-instant bound of `append` and
//! `import`) and prints. Everything it does is a thin composition of the
//! library crates: `ladder-import` reads files into events, `ladder-log` validates and stores them,
//! the projector crates fold them. Errors from libraries are typed; here they get context and are
//! printed with their chain on stderr, and the exit code follows `docs/spec.md`: 0 success, 1 refused
//! input or failed verification, 2 usage error.

// Every command prints through `out::stdout()`, so a closed pipe is a quiet exit 0, never a panic.
#![deny(clippy::print_stdout)]

#[macro_use]
mod out;
mod algo;
mod cli;
mod cmd_append;
mod cmd_check_proof;
mod cmd_checkpoint;
mod cmd_demo;
mod cmd_diff;
mod cmd_explain;
mod cmd_history;
mod cmd_import;
mod cmd_keygen;
mod cmd_log;
mod cmd_mirror;
mod cmd_pair;
mod cmd_perf;
mod cmd_plot;
mod cmd_prove;
mod cmd_publish;
mod cmd_replay;
mod cmd_serve;
mod cmd_sim;
mod cmd_sweep;
mod cmd_tune;
mod cmd_upgrade;
mod cmd_verify;
mod names;
mod signing;
mod source;

use clap::Parser;
use std::process::ExitCode;

/// A mistake in how the command was called (exit code 2), as opposed to refused input (exit 1).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// An error with a suggestion of what to do next: `main` prints `error: MESSAGE`, then
/// `hint: HINT`, and exits 2 for a usage error, 1 otherwise.
#[derive(Debug)]
pub struct Hinted {
    /// What went wrong, and where.
    pub message: String,
    /// What the user can do about it.
    pub hint: String,
    /// A mistake in how the command was called (exit 2) rather than refused input (exit 1).
    pub usage: bool,
}

impl Hinted {
    /// Refused input or a failed operation (exit 1).
    pub fn refused(message: impl Into<String>, hint: impl Into<String>) -> Hinted {
        Hinted { message: message.into(), hint: hint.into(), usage: false }
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Hinted {
        Hinted { message: message.into(), hint: hint.into(), usage: true }
    }
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Hinted {}

/// Help asked for through an argument's value (`--set help=1`), returned as
/// `anyhow::Error::msg(HelpShown(text))`: not a failure, so `main` prints it on standard output
/// and exits 0, as `--help` does.
#[derive(Debug)]
pub struct HelpShown(pub String);

impl std::fmt::Display for HelpShown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What to do about a refused event, by the rule it broke (docs/events.md lists the rules).
pub fn rule_hint(rule: ladder_events::Rule, auto_join: bool) -> &'static str {
    use ladder_events::Rule;
    match rule {
        Rule::Syntax | Rule::UnknownType | Rule::MissingField | Rule::UnknownField => {
            "each line is one JSON object with a `type` and an `at` (docs/events.md)"
        }
        Rule::Timestamp => "`at` is an RFC 3339 instant like 2026-03-01T12:00:00Z, or a date",
        Rule::TimeOrder => "events go in time order: sort the file by `at`",
        Rule::UnknownPlayer if !auto_join => "pass --auto-join to append the missing joins first",
        Rule::IdConflict => {
            "that id already names another event (`ladder log` shows it): if it is this event, \
             nothing needs doing; if the stored one is wrong, void it and append the correction \
             under a new id"
        }
        Rule::FutureInstant => {
            "`at` is more than a day after this computer's clock: check it (the year?), or pass \
             --allow-future if it is meant"
        }
        Rule::LineLength => "lines are at most 1 MiB (1,048,576 bytes): is this a JSON Lines file?",
        Rule::TooManySeats | Rule::EventTooLong => {
            "a match has at most 1,000 seats and an event's line at most 65,535 bytes: split a \
             larger match into several, or shorten its names and ids"
        }
        Rule::Unreadable => {
            "the input could not be read to its end, so nothing was stored: check the file (or \
             the disk) and run the same command again"
        }
        Rule::TickNotMidnight | Rule::TickOrder | Rule::TickRepeated => {
            "leave ticks out and pass --ticks: ladder inserts one at each date boundary"
        }
        _ => "docs/events.md lists every rule",
    }
}

/// The exit code of a failed command and the hint printed after its error, for the failures a
/// user meets most: a mistaken command line, a ledger held by another process, a missing file.
fn exit_and_hint(err: &anyhow::Error) -> (u8, Option<String>) {
    if let Some(h) = err.chain().find_map(|e| e.downcast_ref::<Hinted>()) {
        return (if h.usage { 2 } else { 1 }, Some(h.hint.clone()));
    }
    if err.chain().any(|e| e.is::<UsageError>()) {
        return (2, Some("add --help to the command for its usage and examples".into()));
    }
    let locked = err.chain().any(|e| {
        matches!(
            e.downcast_ref::<ladder_log::LogError>(),
            Some(ladder_log::LogError::Locked { .. })
        )
    });
    let no_ledger = err.chain().any(|e| {
        matches!(
            e.downcast_ref::<ladder_log::LogError>(),
            Some(ladder_log::LogError::NoLedger { .. })
        )
    });
    let foreign = err.chain().any(|e| {
        matches!(
            e.downcast_ref::<ladder_log::LogError>(),
            Some(ladder_log::LogError::NotALedgerDirectory { .. })
        )
    });
    if foreign {
        return (2, Some("give --ledger (or LADDER_LEDGER) a path that does not exist yet, such as `club.db`, or an empty directory: ladder makes the ledger there whole, with its own files only".into()));
    }
    if no_ledger {
        return (2, Some("import events first (`ladder import --auto-join FILE`), or point --ledger (or LADDER_LEDGER) at a ledger".into()));
    }
    if locked {
        return (
            1,
            Some("one process at a time may open a ledger (ladder waits up to 0.5 s for it, long enough for this process's own earlier handle to close, not for another command): wait for the other `ladder` command to finish (nothing is lost), or read an export with --events FILE.jsonl".into()),
        );
    }
    let not_found = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    });
    if not_found {
        return (1, Some("check the path (relative paths start from the current directory; `-` reads standard input where a command takes a file)".into()));
    }
    (1, None)
}

/// How far after the clock an event may be dated without `--allow-future`: one day, so that
/// every time zone's today is accepted while a mistyped year is not.
pub const FUTURE_MARGIN_NANOS: i64 = ladder_events::NANOS_PER_DAY;

/// The wall clock, read here and nowhere else (the libraries read no clock).
pub fn now() -> ladder_events::Timestamp {
    #[allow(clippy::disallowed_methods)] // the one sanctioned wall-clock read
    let now = chrono::Utc::now();
    ladder_events::Timestamp(now.timestamp_nanos_opt().expect("now is within 1677..2262"))
}

/// The latest instant an append accepts: the clock plus [`FUTURE_MARGIN_NANOS`], or no bound with
/// `--allow-future`.
pub fn not_after(
    now: ladder_events::Timestamp,
    allow_future: bool,
) -> Option<ladder_events::Timestamp> {
    (!allow_future).then(|| ladder_events::Timestamp(now.0.saturating_add(FUTURE_MARGIN_NANOS)))
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) if out::is_closed_stdout(&err) => ExitCode::SUCCESS,
        Err(err) if err.is::<HelpShown>() => {
            use std::io::Write;
            match writeln!(out::stdout(), "{err}") {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
                _ => ExitCode::SUCCESS,
            }
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            let (code, hint) = exit_and_hint(&err);
            if let Some(hint) = hint {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(code)
        }
    }
}
