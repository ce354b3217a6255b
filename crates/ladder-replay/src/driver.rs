//! The streaming replay driver.

use ladder_events::{Event, Timestamp};
use ladder_projector::{ConfigError, Feeder, ProjectError, Projector, Roster, Trace};

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
}

/// How far a replay goes (`--until`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// Through the last stored event.
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
    /// Reading the history failed.
    #[error("reading the history: {0}")]
    History(Box<dyn std::error::Error + Send + Sync>),
}

/// What a replay reached.
#[derive(Debug)]
pub struct Replayed {
    /// Names of every player seen.
    pub roster: Roster,
    /// The last sequence number applied (0 for none).
    pub through: u64,
    /// The chain hash of event `through` (zeros for none).
    pub head: [u8; 32],
}

/// Folds the history through `until` into every projector, decoding each event once.
/// `on_step` is called after each applied event with its sequence number (for progress and for
/// `ladder history`); `trace_at` asks for the audit trace of one sequence number.
pub fn replay(
    history: &dyn History,
    projectors: &mut [&mut dyn Projector],
    until: Until,
    mut trace_at: Option<(u64, &mut Trace)>,
    on_step: &mut dyn FnMut(u64, &Event, &Roster),
) -> Result<Replayed, ReplayError> {
    let mut feeder = Feeder::new();
    let mut through = 0;
    let mut head = [0u8; 32];
    let is_voided =
        |id: &str| history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at));
    for item in history.events_from(1) {
        let h = item?;
        if !until.includes(h.seq, h.event.at) {
            break;
        }
        let trace = match &mut trace_at {
            Some((seq, t)) if *seq == h.seq => Some(&mut **t),
            _ => None,
        };
        feeder.feed(h.seq, &h.event, &is_voided, projectors, trace)?;
        through = h.seq;
        head = h.hash;
        on_step(h.seq, &h.event, &feeder.roster);
    }
    Ok(Replayed { roster: feeder.roster, through, head })
}
