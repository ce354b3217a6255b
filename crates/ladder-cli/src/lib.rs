//! The library half of the `ladder` command: the ledger seen as a replay's history.
//!
//! `ladder-replay` reads a [`History`] and stores checkpoints in a [`CheckpointStore`], so it
//! needs no sled; this adapter gives it the ledger. It lives here, at the edge, because it joins
//! the log crate to the replay crate, and benchmarks use it to replay from a real sled ledger.
#![deny(missing_docs)]

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_replay::checkpoint::{CheckpointStore, Entry};
use ladder_replay::{FoldedHistory, History, HistoryEvent, RawRecord, ReplayError};

/// The ledger as a replay's [`History`]. Reading it ticks a progress bar on stderr, drawn only
/// when stderr is a terminal (and the replay is long enough to be worth watching).
pub struct LedgerHistory<'a>(pub &'a Ledger);

/// A spinner counting events as they stream in (an import's total is unknown until the end),
/// hidden unless stderr is a terminal.
pub fn spinner(what: &'static str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::new_spinner().with_finish(indicatif::ProgressFinish::AndClear);
    let style = indicatif::ProgressStyle::with_template("{spinner} {msg} {human_pos} events")
        .expect("the template is valid");
    bar.set_style(style);
    bar.set_message(what);
    bar
}

/// A progress bar over `total` items, hidden unless stderr is a terminal.
pub fn progress(total: u64, what: &'static str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if total < 200_000 || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total).with_finish(indicatif::ProgressFinish::AndClear);
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {human_pos}/{human_len} events, {eta} left",
    )
    .expect("the template is valid")
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what);
    bar
}

/// The ledger's folded form as a replay reads it ([`Ledger::folded`]: checked, or built first).
struct LedgerFolded<'a> {
    ledger: &'a Ledger,
    folded: ladder_log::Folded,
}

impl FoldedHistory for LedgerFolded<'_> {
    fn voids(&self) -> Vec<(u64, u64, Timestamp)> {
        self.folded.voids().iter().map(|v| (v.match_seq, v.void_seq, v.at)).collect()
    }

    fn head(&self) -> (u64, [u8; 32]) {
        let head = self.folded.head();
        (head.seq, head.hash)
    }

    fn read(&mut self, visit: &mut ladder_replay::VisitFolded<'_>) -> Result<(), ReplayError> {
        let total = self.folded.head().seq;
        let bar = progress(total, "replaying");
        let bytes = self.folded.records_len().max(1);
        let mut done = 0u64;
        self.folded
            .read(|segment| {
                // A segment is about 256 KB, some thousands of events: the bar moves by the
                // share of the bytes read.
                done += segment.len() as u64 + 4;
                bar.set_position((u128::from(done) * u128::from(total) / u128::from(bytes)) as u64);
                visit(segment).map_err(Visit::Replay)
            })
            .map_err(|e| match e {
                Visit::Log(e) => ReplayError::History(Box::new(e)),
                Visit::Replay(e) => e,
            })
    }

    fn hash_at(&self, seq: u64) -> Result<[u8; 32], ReplayError> {
        match self.ledger.get(seq) {
            Ok(Some(stored)) => Ok(stored.hash),
            Ok(None) => Err(ReplayError::History(format!("no stored event at seq {seq}").into())),
            Err(e) => Err(ReplayError::History(Box::new(e))),
        }
    }
}

/// Why [`History::records_from`] over a ledger stopped: reading the ledger, or the replay's
/// visitor.
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
        let bar = progress(self.0.head().seq.saturating_sub(from.saturating_sub(1)), "replaying");
        Box::new(self.0.events(from).map(move |item| {
            let item = item
                .map(|s| HistoryEvent { seq: s.seq, hash: s.hash, event: s.event })
                .map_err(|e| ReplayError::History(Box::new(e)));
            if let Ok(h) = &item {
                if h.seq.is_multiple_of(4096) {
                    bar.set_position(h.seq + 1 - from);
                }
            }
            item
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

    fn folded(&self) -> Option<Box<dyn FoldedHistory + '_>> {
        let folded = self.0.folded()?;
        Some(Box::new(LedgerFolded { ledger: self.0, folded }))
    }

    fn records_from(
        &self,
        from: u64,
        visit: &mut ladder_replay::VisitRecords<'_>,
    ) -> Result<(), ReplayError> {
        let bar = progress(self.0.head().seq.saturating_sub(from.saturating_sub(1)), "replaying");
        self.0
            .read_records(from, |batch| {
                if let Some(last) = batch.last() {
                    bar.set_position(last.seq + 1 - from);
                }
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

impl CheckpointStore for LedgerHistory<'_> {
    fn list(&self, prefix: &[u8]) -> Result<Vec<Entry>, ReplayError> {
        let stored = self.0.checkpoints(prefix).map_err(|e| ReplayError::History(Box::new(e)))?;
        Ok(stored.into_iter().map(|(key, _, value)| (key, value)).collect())
    }

    fn put(&self, key: &[u8], at: (u64, [u8; 32]), value: &[u8]) -> Result<(), ReplayError> {
        let at = ladder_log::Head { seq: at.0, hash: at.1 };
        self.0.put_checkpoint(key, at, value).map_err(|e| ReplayError::History(Box::new(e)))
    }
}
