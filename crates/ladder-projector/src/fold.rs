//! Turning events into steps: the [`Feeder`] every driver uses interns names, turns seats into
//! [`SeatIn`]s with their sides, and skips every MatchResult the driver says was voided
//! (docs/events.md: a replay through the head treats a voided match as never played). The
//! streaming driver over the ledger lives in the replay crate; the in-memory fold that tests use
//! is in `test_support`.

use crate::{Input, ProjectError, Projector, Roster, SeatIn, Step, Trace};
use ladder_events::codec::SeatView;
use ladder_events::{Body, Event, Seat};

/// Converts events into steps one at a time, reusing its seat buffer.
#[derive(Debug, Default)]
pub struct Feeder {
    /// The names seen so far.
    pub roster: Roster,
    seats: Vec<SeatIn>,
    sides: Vec<u32>,
}

impl Feeder {
    /// A feeder with an empty roster.
    pub fn new() -> Feeder {
        Feeder::default()
    }

    /// A feeder that resumes with the names of a checkpoint.
    pub fn with_roster(roster: Roster) -> Feeder {
        Feeder { roster, seats: Vec::new(), sides: Vec::new() }
    }

    /// The step projectors see for `event` (sequence number `seq`), or `None` when they skip it:
    /// a MatchVoided, or a MatchResult whose `id` satisfies `is_voided`. Interns new names.
    pub fn step(
        &mut self,
        seq: u64,
        event: &Event,
        is_voided: &dyn Fn(&str) -> bool,
    ) -> Option<Step<'_>> {
        let input = match &event.body {
            Body::PlayerJoined { player, prior } => {
                Input::Joined { player: self.roster.intern(player), prior: *prior }
            }
            Body::QueueTimeout { player } => Input::Timeout { player: self.roster.intern(player) },
            Body::MidnightTick => Input::Tick,
            Body::MatchVoided { .. } => return None,
            Body::MatchResult { seats } => {
                if event.id.as_deref().is_some_and(is_voided) {
                    return None;
                }
                self.match_input(seats.iter().map(Seat::as_view))
            }
        };
        Some(Step { seq, at: event.at, input })
    }

    /// The seats of a match as [`SeatIn`]s with their sides ([`sides_into`]).
    fn match_input<'s>(&mut self, seats: impl Iterator<Item = SeatView<'s>> + Clone) -> Input<'_> {
        sides_into(seats.clone(), &mut self.sides);
        self.seats.clear();
        for (seat, &side) in seats.zip(&self.sides) {
            self.seats.push(SeatIn {
                player: self.roster.intern(seat.player),
                score: seat.score,
                side,
                seconds: seat.seconds,
                home: seat.home,
            });
        }
        Input::Match { seats: &self.seats }
    }

    /// Applies `event` to every projector in `projectors` (see [`Feeder::step`] for what is
    /// skipped).
    pub fn feed(
        &mut self,
        seq: u64,
        event: &Event,
        is_voided: &dyn Fn(&str) -> bool,
        projectors: &mut [&mut dyn Projector],
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let Some(step) = self.step(seq, event, is_voided) else { return Ok(()) };
        for p in projectors.iter_mut() {
            p.apply(&step, trace.as_deref_mut())?;
        }
        Ok(())
    }
}

/// The side of each seat, in order, into `out`: seats of one team share a side, a seat without a
/// team is a side alone, and sides are numbered from 0 in order of first appearance (the
/// numbering of `Event::sides`, without allocating once `out` has room).
pub fn sides_into<'s>(seats: impl Iterator<Item = SeatView<'s>> + Clone, out: &mut Vec<u32>) {
    out.clear();
    let mut next = 0;
    for (i, seat) in seats.clone().enumerate() {
        let shared = seat
            .team
            .and_then(|t| seats.clone().take(i).position(|s| s.team == Some(t)).map(|j| out[j]));
        out.push(shared.unwrap_or_else(|| {
            next += 1;
            next - 1
        }));
    }
}
