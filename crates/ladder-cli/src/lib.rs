//! The library half of the `ladder` command: the ledger seen as a replay's history.
//!
//! `ladder-replay` reads a [`History`] and stores checkpoints in a [`CheckpointStore`], so it
//! needs no sled; this adapter gives it the ledger. It lives here, at the edge, because it joins
//! the log crate to the replay crate, and benchmarks use it to replay from a real sled ledger.
#![deny(missing_docs)]

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_replay::checkpoint::{CheckpointStore, Entry};
use ladder_replay::{History, HistoryEvent, ReplayError};

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
    fn list(&self, prefix: &[u8]) -> Result<Vec<Entry>, ReplayError> {
        self.0.checkpoints(prefix).map_err(|e| ReplayError::History(Box::new(e)))
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), ReplayError> {
        self.0.put_checkpoint(key, value).map_err(|e| ReplayError::History(Box::new(e)))
    }
}
