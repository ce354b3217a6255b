//! `ladder`: the command line of the ladder rating ledger.
//!
//! This crate is the edge of the program: the only one that parses arguments, reads the wall clock
//! (`ladder append` without `--at`) and prints. Everything it does is a thin composition of the
//! library crates: `ladder-import` reads files into events, `ladder-log` validates and stores them,
//! the projector crates fold them. Errors from libraries are typed; here they get context and are
//! printed with their chain on stderr, and the exit code follows the contract: 0 success, 1 refused
//! input or failed verification, 2 usage error.

mod cli;
mod cmd_append;
mod cmd_demo;
mod cmd_diff;
mod cmd_explain;
mod cmd_history;
mod cmd_import;
mod cmd_log;
mod cmd_pair;
mod cmd_perf;
mod cmd_plot;
mod cmd_replay;
mod cmd_sim;
mod cmd_sweep;
mod cmd_verify;
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

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                eprintln!(
                    "hint: run `ladder help` or add --help to the command for usage and examples"
                );
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
