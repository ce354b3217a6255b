//! The ledger as a replay's [`History`] and [`CheckpointStore`]: one adapter for every program
//! that replays a ledger (`ladder`, which fills the progress hook with its bars, and `ladder
//! serve`, which leaves it empty).

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_replay::checkpoint::{CheckpointStore, Entry};
use ladder_replay::{FoldedHistory, History, HistoryEvent, RawRecord, ReplayError};

/// What a long read reports as it goes. [`Progress::start`] is called when a read of `total`
/// events begins; the closure it returns is told how many of them have been read so far.
pub trait Progress {
    /// A read of `total` events begins: the closure to tell how far it got.
    fn start(&self, total: u64) -> Box<dyn Fn(u64)>;
}

/// The ledger, read through its head at the time of each call, with an optional progress hook.
pub struct LedgerHistory<'a> {
    /// The ledger read.
    pub ledger: &'a Ledger,
    /// Told how far a read got (none: nothing is reported).
    pub progress: Option<&'a dyn Progress>,
    /// Replays read the ledger's folded form ([`Ledger::folded`], built first when it is
    /// missing or stale) instead of its stored events: what `ladder` asks for; `ladder serve`,
    /// whose ledger takes appends while it reads, does not.
    pub folded: bool,
    /// A check of the folded form made while the ledger was opened
    /// ([`LedgerHistory::with_checked_folded`]), for the first replay to take.
    checked: std::sync::Mutex<Option<ladder_log::FoldedCheck>>,
}

impl<'a> LedgerHistory<'a> {
    /// The ledger, with no progress reported.
    pub fn new(ledger: &'a Ledger) -> LedgerHistory<'a> {
        LedgerHistory { ledger, progress: None, folded: false, checked: Default::default() }
    }

    /// The ledger, reporting progress to `progress`.
    pub fn with_progress(ledger: &'a Ledger, progress: &'a dyn Progress) -> LedgerHistory<'a> {
        LedgerHistory {
            ledger,
            progress: Some(progress),
            folded: false,
            checked: Default::default(),
        }
    }

    /// The same history, whose fast replays read the ledger's folded form (docs/spec.md, "The
    /// folded form"): the same results, bit for bit.
    pub fn with_folded(self) -> LedgerHistory<'a> {
        LedgerHistory { folded: true, ..self }
    }

    /// The same history, whose first replay takes `checked` ([`ladder_log::FoldedCheck`]: the
    /// folded form read and checked on another thread while the ledger was opened) instead of
    /// reading and checking the file again ([`Ledger::folded_with`]): the same answer, sooner.
    pub fn with_checked_folded(self, checked: ladder_log::FoldedCheck) -> LedgerHistory<'a> {
        LedgerHistory { checked: std::sync::Mutex::new(Some(checked)), ..self }
    }

    /// The closure told how far a read from `from` got (one that ignores it without a hook).
    fn tick(&self, from: u64) -> Box<dyn Fn(u64)> {
        match self.progress {
            Some(p) => p.start(self.ledger.head().seq.saturating_sub(from.saturating_sub(1))),
            None => Box::new(|_| {}),
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

/// The ledger's folded form as a replay reads it ([`Ledger::folded`]: checked, or built first).
struct LedgerFolded<'a> {
    history: &'a LedgerHistory<'a>,
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
        let tick = self.history.tick(1);
        let bytes = self.folded.records_len().max(1);
        let mut done = 0u64;
        self.folded
            .read(|segment| {
                // A segment is about 256 KB, some thousands of events: progress moves by the
                // share of the bytes read.
                done += segment.len() as u64 + 4;
                tick((u128::from(done) * u128::from(total) / u128::from(bytes)) as u64);
                visit(segment).map_err(Visit::Replay)
            })
            .map_err(|e| match e {
                Visit::Log(e) => ReplayError::History(Box::new(e)),
                Visit::Replay(e) => e,
            })
    }

    fn players(&self) -> usize {
        usize::try_from(self.folded.players()).unwrap_or(0)
    }

    fn hash_at(&self, seq: u64) -> Result<[u8; 32], ReplayError> {
        match self.history.ledger.get(seq) {
            Ok(Some(stored)) => Ok(stored.hash),
            Ok(None) => Err(ReplayError::History(format!("no stored event at seq {seq}").into())),
            Err(e) => Err(ReplayError::History(Box::new(e))),
        }
    }
}

impl History for LedgerHistory<'_> {
    fn folded(&self) -> Option<Box<dyn FoldedHistory + '_>> {
        if !self.folded {
            return None;
        }
        let checked = self.checked.lock().ok().and_then(|mut c| c.take());
        let folded = self.ledger.folded_with(checked)?;
        Some(Box::new(LedgerFolded { history: self, folded }))
    }

    fn events_from(
        &self,
        from: u64,
    ) -> Box<dyn Iterator<Item = Result<HistoryEvent, ReplayError>> + '_> {
        let tick = self.tick(from);
        Box::new(self.ledger.events(from).map(move |item| {
            let item = item
                .map(|s| HistoryEvent { seq: s.seq, hash: s.hash, event: s.event })
                .map_err(|e| ReplayError::History(Box::new(e)));
            if let Ok(h) = &item {
                if h.seq.is_multiple_of(4096) {
                    tick(h.seq + 1 - from);
                }
            }
            item
        }))
    }

    fn voided_at(&self, match_id: &str) -> Option<(u64, Timestamp)> {
        let seq = self.ledger.voided_at(match_id)?;
        let void = self.ledger.get(seq).ok().flatten()?;
        Some((seq, void.event.at))
    }

    fn head_seq(&self) -> u64 {
        self.ledger.head().seq
    }

    fn voids(&self) -> Vec<(u64, u64)> {
        self.ledger
            .voids()
            .filter_map(|(id, void)| Some((void, self.ledger.match_seq(id).ok().flatten()?)))
            .collect()
    }

    fn records_from(
        &self,
        from: u64,
        visit: &mut ladder_replay::VisitRecords<'_>,
    ) -> Result<(), ReplayError> {
        let tick = self.tick(from);
        self.ledger
            .read_records(from, |batch| {
                if let Some(last) = batch.last() {
                    tick(last.seq + 1 - from);
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
        let stored =
            self.ledger.checkpoints(prefix).map_err(|e| ReplayError::History(Box::new(e)))?;
        Ok(stored.into_iter().map(|(key, _, value)| (key, value)).collect())
    }

    fn put(&self, key: &[u8], at: (u64, [u8; 32]), value: &[u8]) -> Result<(), ReplayError> {
        let at = ladder_log::Head { seq: at.0, hash: at.1 };
        self.ledger.put_checkpoint(key, at, value).map_err(|e| ReplayError::History(Box::new(e)))
    }
}
