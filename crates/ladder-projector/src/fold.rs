//! Folding a whole in-memory history into a projector: the reference driver used by tests and by
//! small replays. It interns names, turns seats into [`SeatIn`]s with their sides, and drops every
//! MatchResult that a later MatchVoided annuls (docs/events.md: a replay through the head treats a
//! voided match as never played). The streaming driver over the ledger lives in the replay crate;
//! this one exists so projectors can be tested with no disk.

use crate::{Input, ProjectError, Projector, Roster, SeatIn, Standing, Step, Trace};
use ladder_events::codec::SeatView;
use ladder_events::{Body, Event, Seat};
use std::collections::HashSet;

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

/// The ids of every match voided somewhere in `events`.
pub fn voided_ids(events: &[Event]) -> HashSet<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::MatchVoided { match_id, .. } => Some(match_id.clone()),
            _ => None,
        })
        .collect()
}

/// Folds a whole history (sequence numbers from 1) into one projector, checks that its end settles
/// ([`Projector::settle`]) and returns the roster.
pub fn fold_all(events: &[Event], projector: &mut dyn Projector) -> Result<Roster, ProjectError> {
    let voided = voided_ids(events);
    let mut feeder = Feeder::new();
    for (i, event) in events.iter().enumerate() {
        feeder.feed(
            i as u64 + 1,
            event,
            &|id| voided.contains(id),
            &mut [&mut *projector],
            None,
        )?;
    }
    projector.settle(events.len() as u64)?;
    Ok(feeder.roster)
}

/// Parses a JSON Lines history, folds it into `projector` and renders [`standings_table`]: what
/// every projector's fixture snapshot test stores. The error names the bad line.
pub fn fixture_table(jsonl: &str, projector: &mut dyn Projector) -> Result<String, String> {
    let events = jsonl
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            ladder_events::json::parse_line(l).map_err(|v| format!("line {}: {v}", i + 1))
        })
        .collect::<Result<Vec<Event>, String>>()?;
    let roster = fold_all(&events, projector).map_err(|e| e.to_string())?;
    Ok(standings_table(projector, &roster, &projector.standings()))
}

/// A fixed-width table of standings sorted by player name (bytes), numbers to 6 decimals: the
/// form projector snapshot tests store, readable in a review and immune to last-digit noise.
pub fn standings_table(
    projector: &dyn Projector,
    roster: &Roster,
    standings: &[Standing],
) -> String {
    let mut rows: Vec<&Standing> = standings.iter().collect();
    rows.sort_by(|a, b| roster.name(a.player).as_bytes().cmp(roster.name(b.player).as_bytes()));
    let width = rows.iter().map(|s| roster.name(s.player).len()).max().unwrap_or(6).max(6);
    let mut out = format!("{}\n", projector.config());
    for w in &projector.config().warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push_str(&format!(
        "{:<width$} {:>16} {:>12} {:>10} {:>6}",
        "player", "rating", "rd", "volatility", "games"
    ));
    out.push_str("  display\n");
    for s in rows {
        let opt = |x: Option<f64>, w: usize, d: usize| {
            x.map_or(format!("{:>w$}", "-"), |v| format!("{v:>w$.d$}"))
        };
        out.push_str(&format!(
            "{:<width$} {:>16.6} {} {} {:>6}",
            roster.name(s.player),
            s.rating,
            opt(s.rd, 12, 6),
            opt(s.volatility, 10, 6),
            s.games
        ));
        match s.display {
            None => {}
            Some(d) if d.provisional => out.push_str("  provisional"),
            Some(d) => out.push_str(&format!("  {:.2}%", d.glixare.unwrap_or(f64::NAN))),
        }
        out.push('\n');
    }
    out
}
