//! Which state a scored replay predicts each match from (`--predict-from`, docs/outputs.md).
//!
//! By default ([`PredictFrom::Event`]) a two-seat match is predicted from the ratings just before
//! it: every earlier event applied, those of the same day included. [`PredictFrom::Day`] predicts
//! every match of a UTC day from the state before that day: the day's matches are predicted from
//! a copy of each projector taken at the day's first event, which sees only the day's
//! PlayerJoined events (a join carries no result, and a player who joins and plays on the same day
//! is predicted from their prior, as TrueSkill Through Time predicts them), while the projector
//! itself applies every event in order, so the ratings a replay ends with are those of the
//! default. This is the fair comparison with TTT, whose forecasts are by definition from the
//! games before the match's day: where a ledger stamps every match of a tournament with one day
//! (the tennis preset's `tourney_date`), a filter would otherwise see the earlier rounds and TTT
//! would not.
//!
//! TTT's own forecasts already are from the state before the day (with the day's priors), so it
//! is predicted from itself and never copied (a copy of its whole-history model per day would
//! cost more than the replay); the test `ttt_predicts_the_same_either_way` holds the two modes
//! equal for it.

use crate::activity::Activity;
use crate::driver::{History, ReplayError, Replayed, Until};
use crate::registry::Algo;
use crate::score::Score;
use ladder_events::Body;
use ladder_projector::{outcome, Feeder, Home, Projector};

/// Which state a scored replay predicts each two-seat match from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PredictFrom {
    /// The state just before the match: every earlier event applied (the default).
    #[default]
    Event,
    /// The state before the match's UTC day, with that day's PlayerJoined events applied.
    Day,
}

impl PredictFrom {
    /// Every value, as written on the command line.
    pub const NAMES: [&'static str; 2] = ["event", "day"];

    /// `event` or `day`; `None` for anything else.
    pub fn parse(text: &str) -> Option<PredictFrom> {
        match text {
            "event" => Some(PredictFrom::Event),
            "day" => Some(PredictFrom::Day),
            _ => None,
        }
    }

    /// The name as written on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            PredictFrom::Event => "event",
            PredictFrom::Day => "day",
        }
    }
}

/// A scored replay of `history` through `projectors` up to `until`, each two-seat match predicted
/// from the state before its UTC day ([`PredictFrom::Day`]), the first `warmup` of them left out
/// of the scores. Every event is applied to `projectors` in order, as [`crate::replay`] applies
/// it, so everything but the scores equals a replay's. One thread: a comparison of protocols,
/// not the fast path.
pub fn replay_by_day(
    history: &dyn History,
    projectors: &mut [Algo],
    until: Until,
    warmup: u64,
) -> Result<Replayed, ReplayError> {
    let mut feeder = Feeder::new();
    let mut scores: Vec<Score> = projectors.iter().map(|_| Score::new(warmup)).collect();
    let is_voided =
        |id: &str| history.voided_at(id).is_some_and(|(seq, at)| until.includes(seq, at));
    let mut activity = Activity::new();
    let (mut through, mut head) = (0, [0u8; 32]);
    // Each projector as it was at the current day's first event, with the day's joins applied
    // since (`None` for TTT, which forecasts from before the day itself).
    let mut before: Vec<Option<Algo>> = projectors.iter().map(|_| None).collect();
    let mut day = None;
    for item in history.events_from(1) {
        let h = item?;
        if !until.includes(h.seq, h.event.at) {
            break;
        }
        if day != Some(h.event.at.day()) {
            day = Some(h.event.at.day());
            for (copy, p) in before.iter_mut().zip(projectors.iter()) {
                *copy = (!matches!(p, Algo::Ttt(_))).then(|| p.clone());
            }
        }
        match &h.event.body {
            Body::MatchResult { seats } => {
                if let [a, b] = seats.as_slice() {
                    let voided = h.event.id.as_deref().is_some_and(is_voided);
                    let ids = (feeder.roster.get(&a.player), feeder.roster.get(&b.player));
                    if let (false, (Some(ia), Some(ib))) = (voided, ids) {
                        let y = outcome(a.score, b.score);
                        let home = match (a.home, b.home) {
                            (true, false) => Home::First,
                            (false, true) => Home::Second,
                            _ => Home::Neither,
                        };
                        for ((p, copy), s) in projectors.iter().zip(&before).zip(&mut scores) {
                            let from: &dyn Projector = copy.as_ref().map_or(p, |c| c);
                            s.record(from.expectation_at(ia, ib, h.event.at, home), y);
                        }
                    }
                }
                let mut live: Vec<&mut dyn Projector> =
                    projectors.iter_mut().map(|p| p as &mut dyn Projector).collect();
                feeder.feed(h.seq, &h.event, &is_voided, &mut live, None)?;
                if !h.event.id.as_deref().is_some_and(is_voided) {
                    for seat in seats {
                        if let Some(id) = feeder.roster.get(&seat.player) {
                            activity.played(id, h.event.at);
                        }
                    }
                }
            }
            Body::PlayerJoined { .. } => {
                let mut all: Vec<&mut dyn Projector> = projectors
                    .iter_mut()
                    .map(|p| p as &mut dyn Projector)
                    .chain(before.iter_mut().flatten().map(|p| p as &mut dyn Projector))
                    .collect();
                feeder.feed(h.seq, &h.event, &is_voided, &mut all, None)?;
            }
            _ => {
                let mut live: Vec<&mut dyn Projector> =
                    projectors.iter_mut().map(|p| p as &mut dyn Projector).collect();
                feeder.feed(h.seq, &h.event, &is_voided, &mut live, None)?;
            }
        }
        through = h.seq;
        head = h.hash;
        activity.event(h.event.at);
    }
    for p in projectors.iter() {
        p.settle(through, None)?;
    }
    Ok(Replayed { scores, roster: feeder.roster, through, head, activity })
}
