//! Opening the history a command reads: the ledger, or an exported JSON Lines file.

use crate::UsageError;
use anyhow::{bail, Context};
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
                bail!("{at}: {violation}\n(the file given to --events must be a valid history, as `ladder import` would accept it)")
            }
            Err(e) => Err(e).context(format!("cannot load {name}")),
        };
    }
    if !path.exists() {
        return Err(UsageError(format!(
            "there is no ledger at {}: import events first (`ladder import FILE`), point --ledger (or LADDER_LEDGER) at one, or read a file with --events",
            path.display()
        ))
        .into());
    }
    Ledger::open(path).with_context(|| format!("cannot open the ledger {}", path.display()))
}

pub use ladder_cli::LedgerHistory;
