//! Opening the history a command reads: the ledger, or an exported JSON Lines file.

use crate::Hinted;
use anyhow::Context;
use ladder_import::jsonl::JsonLines;
use ladder_log::{AppendError, AppendOptions, Ledger};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// Opens the ledger for writing, creating it if needed.
pub fn open_for_write(path: &Path) -> anyhow::Result<Ledger> {
    Ledger::open(path).with_context(|| format!("cannot open the ledger {}", path.display()))
}

/// Opens the history to read: `--events FILE` loaded into memory, or the existing ledger at `path`.
pub fn open_for_read(path: &Path, events: Option<&Path>) -> anyhow::Result<Ledger> {
    if let Some(file) = events {
        let name = file.display().to_string();
        let f = File::open(file).with_context(|| format!("cannot read {name}"))?;
        let mut ledger = Ledger::memory();
        let items = JsonLines::new(BufReader::new(f), &name);
        let mut origins = Vec::new();
        let result = ledger.append(
            items.map(|(origin, item)| {
                origins.push(origin);
                item
            }),
            &AppendOptions::default(),
        );
        return match result {
            Ok(_) => Ok(ledger),
            Err(AppendError::Refused { index, violation }) => {
                let at = origins.get(index).map_or(name.clone(), |o| o.to_string());
                Err(Hinted::refused(
                    format!("{at}: {violation}"),
                    "the file given to --events must be a whole valid history, as `ladder import` into an empty ledger would accept it",
                )
                .into())
            }
            Err(e) => Err(e).context(format!("cannot load {name}")),
        };
    }
    match Ledger::open_existing(path) {
        // A command that reads never creates a ledger (nothing is written at `path`).
        Err(ladder_log::LogError::NoLedger { .. }) => Err(Hinted::usage(
            format!("there is no ledger at {}", path.display()),
            "import events first (`ladder import --auto-join FILE`), point --ledger (or LADDER_LEDGER) at one, or read an exported file with --events FILE.jsonl; `ladder demo` shows every step on built-in data",
        )
        .into()),
        other => other.with_context(|| format!("cannot open the ledger {}", path.display())),
    }
}

pub use ladder_cli::{ledger_history, LedgerHistory};
