//! The ledger as a replay's [`History`] (what ladder-cli's `LedgerHistory` is for the CLI, without
//! its progress bars: a server draws none).

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_replay::{History, HistoryEvent, RawRecord, ReplayError};

/// The ledger, read through its head at the time of each call.
pub struct LedgerHistory<'a>(pub &'a Ledger);

enum Visit {
    Log(ladder_log::LogError),
    Replay(ReplayError),
}

impl From<ladder_log::LogError> for Visit {
    fn from(e: ladder_log::LogError) -> Visit {
        Visit::Log(e)
    }
}

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

    fn records_from(
        &self,
        from: u64,
        visit: &mut ladder_replay::VisitRecords<'_>,
    ) -> Result<(), ReplayError> {
        self.0
            .read_records(from, |batch| {
                let run: Vec<RawRecord<'_>> = batch
                    .iter()
                    .map(|r| RawRecord { seq: r.seq, hash: r.hash, bytes: r.bytes })
                    .collect();
                visit(&run).map_err(Visit::Replay)
            })
            .map_err(|e| match e {
                Visit::Log(e) => ReplayError::History(Box::new(e)),
                Visit::Replay(e) => e,
            })
    }
}
