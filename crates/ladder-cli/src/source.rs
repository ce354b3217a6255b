//! Opening the history a command reads: the ledger, or an exported JSON Lines file.

use crate::UsageError;
use anyhow::{bail, Context};
use ladder_events::Timestamp;
use ladder_import::jsonl::JsonLines;
use ladder_log::{AppendError, AppendOptions, Ledger};
use ladder_replay::checkpoint::CheckpointStore;
use ladder_replay::{History, HistoryEvent, ReplayError};
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

/// The ledger as a replay's [`History`].
pub struct LedgerHistory<'a>(pub &'a Ledger);

impl History for LedgerHistory<'_> {
    fn events_from(
        &self,
        from: u64,
    ) -> Box<dyn Iterator<Item = Result<HistoryEvent, ReplayError>> + '_> {
        Box::new(self.0.events(from).map(|item| {
            item.map(|s| HistoryEvent { seq: s.seq, hash: s.hash, event: s.event })
                .map_err(|e| ReplayError::History(Box::new(e)))
        }))
    }

    fn voided_at(&self, match_id: &str) -> Option<(u64, Timestamp)> {
        let seq = self.0.voided_at(match_id)?;
        let void = self.0.get(seq).ok().flatten()?;
        Some((seq, void.event.at))
    }

    fn head_seq(&self) -> u64 {
        self.0.head().seq
    }

    fn voids(&self) -> Vec<(u64, u64)> {
        self.0
            .voids()
            .filter_map(|(id, void)| Some((void, self.0.match_seq(id).ok().flatten()?)))
            .collect()
    }
}

impl CheckpointStore for LedgerHistory<'_> {
    fn list(&self, prefix: &[u8]) -> Result<Vec<ladder_replay::checkpoint::Entry>, ReplayError> {
        self.0.checkpoints(prefix).map_err(|e| ReplayError::History(Box::new(e)))
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), ReplayError> {
        self.0.put_checkpoint(key, value).map_err(|e| ReplayError::History(Box::new(e)))
    }
}
