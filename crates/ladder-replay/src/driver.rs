//! The streaming replay driver.

use crate::activity::Activity;
use crate::score::{outcome, Score};
use ladder_events::{Body, Event, Timestamp};
use ladder_projector::{ConfigError, Feeder, Home, ProjectError, Projector, Roster, Trace};

/// One stored event as a replay reads it.
#[derive(Clone, Debug)]
pub struct HistoryEvent {
    /// Its sequence number.
    pub seq: u64,
    /// Its chain hash.
    pub hash: [u8; 32],
    /// The event.
    pub event: Event,
}

/// One stored event as [`History::records_from`] lends it: sequence number, chain hash and
/// encoded bytes ([`ladder_events::codec`]).
#[derive(Clone, Copy, Debug)]
pub struct RawRecord<'a> {
    /// Its sequence number.
    pub seq: u64,
    /// Its chain hash.
    pub hash: &'a [u8; 32],
    /// Its stored form.
    pub bytes: &'a [u8],
}

/// What [`History::records_from`] calls for each run of stored events (in order; a ledger lends
/// a block's worth at a time); `Ok(false)` stops the reading.
pub type VisitRecords<'v> = dyn FnMut(&[RawRecord<'_>]) -> Result<bool, ReplayError> + 'v;

/// What [`FoldedHistory::read`] calls for each segment of folded records (whole records, in
/// order); `Ok(false)` stops the reading.
pub type VisitFolded<'v> = dyn FnMut(&[u8]) -> Result<bool, ReplayError> + 'v;

/// A history's folded form ([`ladder_events::folded`]), checked by the history before it is
/// handed out: every event from sequence number 1 through the head as a folded record, players
/// numbered in order of first appearance, and the voids. [`crate::replay_parallel`] reads it
/// instead of the stored events when [`History::folded`] has one; the result is the same, bit
/// for bit.
pub trait FoldedHistory {
    /// Every void as (the voided MatchResult's sequence number, the MatchVoided's sequence
    /// number and instant), in sequence order.
    fn voids(&self) -> Vec<(u64, u64, Timestamp)>;
    /// The head it holds the events through: sequence number and chain hash.
    fn head(&self) -> (u64, [u8; 32]);
    /// Lends the records to `visit`, a segment at a time, until it returns `Ok(false)`.
    fn read(&mut self, visit: &mut VisitFolded<'_>) -> Result<(), ReplayError>;
    /// The chain hash of the stored event at `seq` (where a replay stopped by `--until` ends).
    fn hash_at(&self, seq: u64) -> Result<[u8; 32], ReplayError>;

    /// How many players the records name, if known: a hint the replay sizes its roster by,
    /// never trusted beyond that (0, the default, sizes nothing).
    fn players(&self) -> usize {
        0
    }
}

/// What a replay reads. Implemented over the ledger by the CLI, and in memory by tests.
pub trait History {
    /// Events from sequence number `from` on, in order.
    fn events_from(
        &self,
        from: u64,
    ) -> Box<dyn Iterator<Item = Result<HistoryEvent, ReplayError>> + '_>;
    /// Where the MatchResult with this id was voided, if it was: the MatchVoided's sequence number
    /// and instant.
    fn voided_at(&self, match_id: &str) -> Option<(u64, Timestamp)>;
    /// The last sequence number (0 when empty).
    fn head_seq(&self) -> u64;
    /// Every void as (the MatchVoided's sequence number, the voided MatchResult's sequence number),
    /// for checking that a checkpoint is still valid.
    fn voids(&self) -> Vec<(u64, u64)>;

    /// The history's folded form through its head, when it has one it has checked (a ledger
    /// builds it on first use: docs/spec.md, "The folded form"); `None` (the default) when not,
    /// and a replay reads [`History::records_from`] instead.
    fn folded(&self) -> Option<Box<dyn FoldedHistory + '_>> {
        None
    }

    /// The stored form of every event from sequence number `from` on, in order, lent to `visit`
    /// in runs ([`RawRecord`]s) until it returns `Ok(false)`. A history that holds the bytes lends
    /// them, so a fast replay reads events in place ([`ladder_events::codec::view`]) instead of
    /// decoding owned ones, and sees a run at once (to overlap the cache misses of its names).
    /// The default encodes what [`History::events_from`] yields, 64 events a run.
    fn records_from(&self, from: u64, visit: &mut VisitRecords<'_>) -> Result<(), ReplayError> {
        const RUN: usize = 64;
        let mut events = self.events_from(from);
        loop {
            let mut run: Vec<(u64, [u8; 32], Vec<u8>)> = Vec::with_capacity(RUN);
            let mut failed = None;
            for item in events.by_ref().take(RUN) {
                match item {
                    Ok(h) => run.push((h.seq, h.hash, ladder_events::codec::encode(&h.event))),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let records: Vec<RawRecord<'_>> =
                run.iter().map(|(seq, hash, bytes)| RawRecord { seq: *seq, hash, bytes }).collect();
            let go_on = records.is_empty() || visit(&records)?;
            if let Some(e) = failed {
                return Err(e);
            }
            if records.len() < RUN || !go_on {
                return Ok(());
            }
        }
    }
}

/// How far a replay goes (`--until`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Until {
    /// Through the last stored event.
    #[default]
    Head,
    /// Through this sequence number.
    Seq(u64),
    /// Through every event at or before this instant.
    Instant(Timestamp),
}

impl Until {
    /// Parses `SEQ` (digits) or an instant (RFC 3339 or a date).
    pub fn parse(text: &str) -> Result<Until, String> {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse().map(Until::Seq).map_err(|e| format!("{text:?}: {e}"));
        }
        Timestamp::parse(text)
            .map(Until::Instant)
            .map_err(|e| format!("{e}; or give a sequence number"))
    }

    /// True when an event at (`seq`, `at`) is inside the replay.
    pub fn includes(self, seq: u64, at: Timestamp) -> bool {
        match self {
            Until::Head => true,
            Until::Seq(n) => seq <= n,
            Until::Instant(t) => at <= t,
        }
    }
}

/// Why a replay failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// `--algo` names no algorithm.
    #[error("unknown algorithm {0:?}; algorithms: {list}", list = crate::registry::ALGORITHMS.join(", "))]
    UnknownAlgorithm(String),
    /// The constants were refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A projector's arithmetic failed at an event.
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// A checkpoint's state could not be restored.
    #[error(transparent)]
    Checkpoint(#[from] crate::registry::StateError),
    /// Reading the history failed.
    #[error("reading the history: {0}")]
    History(Box<dyn std::error::Error + Send + Sync>),
    /// A stored event's bytes do not decode.
    #[error("reading the history: the event at seq {seq} does not decode")]
    Decode {
        /// Its sequence number.
        seq: u64,
        /// Why.
        #[source]
        source: ladder_events::codec::DecodeError,
    },
}

/// What `on_step` sees after each applied event.
pub struct Stepped<'a, 'p> {
    /// The event's sequence number.
    pub seq: u64,
    /// The event.
    pub event: &'a Event,
    /// Every name seen so far.
    pub roster: &'a Roster,
    /// The projectors, in the order given, with the event applied.
    pub projectors: &'a [&'p mut dyn Projector],
    /// Who last played when, with the event applied.
    pub activity: &'a Activity,
}

/// How a replay runs.
#[derive(Debug, Default)]
pub struct Options<'t> {
    /// How far.
    pub until: Until,
    /// The sequence number whose audit trace is wanted, and where to write it.
    pub trace: Option<(u64, &'t mut Trace)>,
    /// Score predictions (`--score`), skipping this many two-seat matches first (`--warmup`).
    pub warmup: Option<u64>,
    /// Start after a checkpoint instead of at event 1: its sequence number, chain hash and names.
    /// The projectors must hold the checkpoint's state.
    pub resume: Option<(u64, [u8; 32], Roster)>,
}

/// What a replay reached.
#[derive(Debug)]
pub struct Replayed {
    /// Prediction scores, one per projector, when [`Options::warmup`] asked for them.
    pub scores: Vec<Score>,
    /// Names of every player seen.
    pub roster: Roster,
    /// The last sequence number applied (0 for none).
    pub through: u64,
    /// The chain hash of event `through` (zeros for none).
    pub head: [u8; 32],
    /// When each player last played, and the instant of event `through`: of the events this
    /// replay read (after a checkpoint, only those after it).
    pub activity: Activity,
}

/// Folds the history into every projector, decoding each event once, and checks that each settles
/// at the end ([`Projector::settle`]: a rating period that cannot close is an error naming the last
/// event, not a period left out). `on_step` is called after each applied event (for progress, and
/// for `ladder history` which reads the projectors).
pub fn replay(
    history: &dyn History,
    projectors: &mut [&mut dyn Projector],
    options: Options<'_>,
    on_step: &mut dyn FnMut(Stepped<'_, '_>),
) -> Result<Replayed, ReplayError> {
    let Options { until, trace: mut trace_at, warmup, resume } = options;
    let (mut through, mut head, mut feeder) = match resume {
        Some((seq, hash, roster)) => (seq, hash, Feeder::with_roster(roster)),
        None => (0, [0u8; 32], Feeder::new()),
    };
    let mut scores: Vec<Score> = match warmup {
        Some(n) => projectors.iter().map(|_| Score::new(n)).collect(),
        None => Vec::new(),
    };
    let is_voided =
        |id: &str| history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at));
    let mut activity = Activity::new();
    for item in history.events_from(through + 1) {
        let h = item?;
        if !until.includes(h.seq, h.event.at) {
            break;
        }
        if !scores.is_empty() {
            score_before(&h.event, &feeder.roster, &is_voided, projectors, &mut scores);
        }
        let trace = match &mut trace_at {
            Some((seq, t)) if *seq == h.seq => Some(&mut **t),
            _ => None,
        };
        feeder.feed(h.seq, &h.event, &is_voided, projectors, trace)?;
        through = h.seq;
        head = h.hash;
        activity.event(h.event.at);
        if let Body::MatchResult { seats } = &h.event.body {
            if !h.event.id.as_deref().is_some_and(is_voided) {
                for seat in seats {
                    if let Some(id) = feeder.roster.get(&seat.player) {
                        activity.played(id, h.event.at);
                    }
                }
            }
        }
        on_step(Stepped {
            seq: h.seq,
            event: &h.event,
            roster: &feeder.roster,
            projectors,
            activity: &activity,
        });
    }
    for p in projectors.iter() {
        p.settle(through, None)?;
    }
    Ok(Replayed { scores, roster: feeder.roster, through, head, activity })
}

/// Predicts a two-seat, not voided MatchResult from the ratings just before it.
fn score_before(
    event: &Event,
    roster: &Roster,
    is_voided: &dyn Fn(&str) -> bool,
    projectors: &[&mut dyn Projector],
    scores: &mut [Score],
) {
    let Body::MatchResult { seats } = &event.body else { return };
    let [a, b] = seats.as_slice() else { return };
    if event.id.as_deref().is_some_and(is_voided) {
        return;
    }
    let (Some(ia), Some(ib)) = (roster.get(&a.player), roster.get(&b.player)) else { return };
    let y = outcome(a.score, b.score);
    let home = match (a.home, b.home) {
        (true, false) => Home::First,
        (false, true) => Home::Second,
        _ => Home::Neither,
    };
    for (p, s) in projectors.iter().zip(scores.iter_mut()) {
        s.record(p.expectation_at(ia, ib, event.at, home), y);
    }
}
