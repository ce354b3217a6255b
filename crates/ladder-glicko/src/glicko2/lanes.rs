//! Several Glicko-2 configurations folded together: one pass, one roster lookup and one run of
//! cache lines per player for all of them.
//!
//! A sweep replays the same history under K configurations that differ only in their constants
//! (`tau`, `sigma`, `rd_max`, ...), not in how time is cut. Folded as K separate projectors, each
//! game reads K player records and K period slots from K places in memory, and with 100,000
//! players those reads miss the cache: the profile of an 8-configuration sweep showed a quarter of
//! its time waiting on them (docs/PERFORMANCE.md, "Sweeps"). [`Glicko2Lanes`] keeps the K
//! configurations' records of one player side by side (structure of arrays: record `p * K + l` is
//! player `p` in lane `l`), and likewise the K slots of one period slot, so the K lanes of a
//! game cost one prefetch of adjacent lines instead of K scattered misses. Which players sit in
//! the open period, their idle marks and game counts depend only on the history and the shared
//! clock, so the period's slots and games are bookkept once for all lanes.
//!
//! The arithmetic is the projector's own: the rating-period engine's `entry` and `add_game` and
//! the Glicko-2 rule's steps ([`Rule::start`], [`Rule::rate`], [`Rule::idle`],
//! [`Rule::expectation`]), applied lane by lane in the order a single projector applies them, so
//! every lane ends bit-identical to a [`Glicko2`] fed the same steps (tests in ladder-replay check
//! the snapshots and digests). Lanes must share `period` and `idle`; [`Glicko2Lanes::new`] gives
//! the projectors back otherwise.

use super::{Glicko2, Glicko2Rule, Glicko2State, Start, Values};
use crate::clock::{Clock, Cursor};
use crate::periods::{add_game, entry, Games, Pair, PeriodState, Record, Rule, Slot, NO_SLOT};
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, Home, Input, Period, PlayerId, ProjectError, ProjectErrorKind, SeatIn, Step,
};

/// A player's record in one lane.
type PlayerState = Record<Values>;

/// The record of a player who has not joined (the engine's).
const UNJOINED: PlayerState =
    Record { values: Glicko2Rule::UNJOINED, since: 0, games: 0, slot: NO_SLOT };

/// K Glicko-2 projectors with the same clock, folded as one (see the module documentation).
///
/// Invariants: `players.len()` and `slots.len()` are multiples of K; the shared fields of a
/// player's K records (`since`, `games`, `slot`, joined or not) are equal; after an error the
/// lanes are left as they were before the step, except that an error closing a period of whole
/// durations leaves that period open (as [`Glicko2`] does).
#[derive(Debug)]
pub struct Glicko2Lanes {
    /// The projectors whose states the lanes hold; their own states stay empty until
    /// [`Glicko2Lanes::into_projectors`] writes the lanes back.
    lanes: Vec<Glicko2>,
    clock: Clock,
    cursor: Cursor,
    /// `players[p * K + l]`: player `p` in lane `l`.
    players: Vec<PlayerState>,
    /// `slots[s * K + l]`: slot `s` of the open period in lane `l`.
    slots: Vec<Slot<Start>>,
    /// The open period's games over slot numbers `s` (the same in every lane), kept as the
    /// engine keeps them (its `Games`: a larger match as its seats).
    games: Games,
    open: Option<i64>,
    last_match: Option<Timestamp>,
    /// Scratch: a closing period's results, `out[s * K + l]`.
    out: Vec<Values>,
    seat_slots: Vec<u32>,
}

impl Glicko2Lanes {
    /// Lanes for `projectors`, which must be fresh (nothing applied yet) and share `period` and
    /// `idle`; otherwise they are given back unchanged. Lane `l` is `projectors[l]`.
    pub fn new(projectors: Vec<Glicko2>) -> Result<Glicko2Lanes, Vec<Glicko2>> {
        let Some(clock) = projectors.first().map(|p| p.common.clock) else {
            return Err(projectors);
        };
        let fresh = |p: &Glicko2| p.state == Glicko2State::default();
        if !projectors.iter().all(|p| fresh(p) && p.common.clock == clock) {
            return Err(projectors);
        }
        Ok(Glicko2Lanes {
            lanes: projectors,
            clock,
            cursor: Cursor::default(),
            players: Vec::new(),
            slots: Vec::new(),
            games: Games::default(),
            open: None,
            last_match: None,
            out: Vec::new(),
            seat_slots: Vec::new(),
        })
    }

    /// How many configurations are folded together.
    pub fn len(&self) -> usize {
        self.lanes.len()
    }

    /// Whether there are no lanes (never: [`Glicko2Lanes::new`] refuses an empty list).
    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// The projectors, each holding its lane's state: the same state as if it had been fed the
    /// steps alone.
    pub fn into_projectors(self) -> Vec<Glicko2> {
        let k = self.lanes.len();
        let mut lanes = self.lanes;
        for (l, p) in lanes.iter_mut().enumerate() {
            p.state = PeriodState {
                players: self.players.iter().skip(l).step_by(k).copied().collect(),
                open: self.open,
                last_match: self.last_match,
                slots: self.slots.iter().skip(l).step_by(k).copied().collect(),
                games: self.games.clone(),
            };
        }
        lanes
    }

    /// Reads the K records of `player` into the cache ahead of use (see
    /// [`ladder_projector::Projector::prefetch`]): the lines of one player are adjacent.
    #[inline]
    pub fn prefetch(&self, player: PlayerId) {
        let k = self.lanes.len();
        let start = player.index() * k;
        if let Some(records) = self.players.get(start..start + k) {
            // One hint per 64-byte line the records span (40-byte records).
            let mut byte = 0;
            let size = std::mem::size_of::<PlayerState>();
            while byte < k * size {
                ladder_projector::prefetch(&records[byte / size]);
                byte += 64;
            }
            ladder_projector::prefetch(&records[k - 1]);
        }
    }

    /// Reads the K slots of `player` in the open period into the cache, if it has one there.
    /// Reading the slot number waits on the player's record, so drivers call this a few steps
    /// after [`Glicko2Lanes::prefetch`] brought the record in.
    #[inline]
    pub fn prefetch_slots(&self, player: PlayerId) {
        let k = self.lanes.len();
        let Some(slot) = self.players.get(player.index() * k).map(|p| p.slot) else {
            return;
        };
        let start = slot as usize * k;
        if let Some(slots) = self.slots.get(start..start + k) {
            let size = std::mem::size_of::<Slot<Start>>();
            let mut byte = 0;
            while byte < k * size {
                ladder_projector::prefetch(&slots[byte / size]);
                byte += 64;
            }
            ladder_projector::prefetch(&slots[k - 1]);
        }
    }

    /// Closes the open period if `at` lies in a later one: what [`Glicko2`]'s `apply` does first
    /// for a step at `at`. A failure is an error at `seq`, with the period left open.
    pub fn advance(&mut self, seq: u64, at: Timestamp) -> Result<i64, ProjectError> {
        let now = self.cursor.index(&self.clock, at);
        if let Some(open) = self.open {
            if now > open {
                self.close(seq)?;
            }
        }
        Ok(now)
    }

    /// Every lane's expectation that `a` beats `b` in a game at `at`, from the state just before
    /// it, into `out[l]` (the value [`ladder_projector::Projector::expectation`] of lane `l`'s
    /// projector gives). Closes a period that `at` ends first ([`Glicko2Lanes::advance`]), as
    /// applying the step would: a projector computes that closing on the side for its
    /// expectation, with the same values.
    pub fn expectations(
        &mut self,
        seq: u64,
        a: PlayerId,
        b: PlayerId,
        at: Timestamp,
        home: Home,
        out: &mut Vec<f64>,
    ) -> Result<(), ProjectError> {
        self.advance(seq, at)?;
        out.clear();
        for l in 0..self.lanes.len() {
            let (mu_a, phi_a) = self.entering(l, a, at);
            let edge = home.edge(self.lanes[l].common.home);
            let mu_a = if edge == 0.0 { mu_a } else { Glicko2Rule::shift_location(mu_a, edge) };
            out.push(Glicko2Rule::expectation((mu_a, phi_a), self.entering(l, b, at)));
        }
        Ok(())
    }

    /// Folds one step into every lane (traces are not kept here: `explain` uses the projector).
    pub fn apply(&mut self, step: &Step<'_>) -> Result<(), ProjectError> {
        let now = self.advance(step.seq, step.at)?;
        match step.input {
            Input::Joined { player, prior } => self.joined(step, player, prior),
            Input::Match { seats } => self.matched(step, now, seats),
            Input::Tick | Input::Timeout { .. } => Ok(()),
        }
    }

    /// `(mu, phi)` with which `player` enters a game at `at` in lane `l`, once the period before
    /// `at` is closed ([`Glicko2`]'s `entering` without the closing on the side).
    fn entering(&self, l: usize, player: PlayerId, at: Timestamp) -> (f64, f64) {
        let lane = &self.lanes[l];
        let k = self.lanes.len();
        let joined = self.players.get(player.index() * k + l).filter(|p| joined(p));
        let Some(p) = joined else {
            return lane.rule.scaled(lane.common.initial_rating, lane.common.initial_rd);
        };
        if let Period::Every(_) = self.clock.period {
            if p.slot != NO_SLOT && Some(self.clock.index(at)) <= self.open {
                let slot = &self.slots[p.slot as usize * k + l];
                let (location, deviation2) = Glicko2Rule::position(&slot.start);
                return (location, deviation2.sqrt());
            }
        }
        // A slot of a period before `at`'s cannot be left: `advance` closed it.
        let now = self.clock.index(at);
        let idle = self.clock.idle_since(p.since, at, now);
        // revert, as the projector's `entering` applies it to a game at `at`.
        if lane.common.revert_due::<Glicko2Rule>(p.since, p.games, at, now) {
            let values = Glicko2Rule::revert(
                &p.values,
                lane.common.revert.fraction,
                lane.common.initial_rating,
            );
            return lane.rule.idle(&values, idle);
        }
        lane.rule.idle(&p.values, idle)
    }

    /// The idle mark of the open period's players once it closes ([`Glicko2`]'s).
    fn since_closing(&self) -> i64 {
        match self.clock.period {
            Period::Every(_) => self.open.map_or(0, |k| k + 1),
            Period::Game => self.last_match.map_or(0, |at| at.0),
        }
    }

    /// Closes the open period in every lane: each lane's slots rated by the rule as the engine
    /// rates them, all lanes computed before any is written, so a failure changes nothing. The error
    /// reported is the lowest lane's first, the one K separate projectors folded in lane order
    /// would stop at.
    fn close(&mut self, seq: u64) -> Result<(), ProjectError> {
        let k = self.lanes.len();
        let since = self.since_closing();
        self.out.clear();
        self.out.resize(self.slots.len(), Values::default());
        let mut failed: Option<(usize, ProjectErrorKind)> = None;
        // Slot by slot, the K lanes of a slot being adjacent; every lane still rates its own
        // slots in slot order.
        for (lanes, out) in self.slots.chunks_exact(k).zip(self.out.chunks_exact_mut(k)) {
            for (l, (slot, out)) in lanes.iter().zip(out).enumerate() {
                if failed.as_ref().is_some_and(|(first, _)| *first <= l) {
                    continue;
                }
                match self.lanes[l].rule.rate(slot) {
                    Ok(rated) => *out = rated,
                    Err(kind) => failed = Some((l, kind)),
                }
            }
        }
        if let Some((_, kind)) = failed {
            return Err(ProjectError::new(seq, kind));
        }
        // The players' records are written back in slot order: those of the slot AHEAD on
        // are fetched meanwhile, as they are scattered over the whole roster.
        const AHEAD: usize = 8;
        let slots = self.slots.len() / k;
        for s in 0..slots {
            if s + AHEAD < slots {
                self.prefetch(PlayerId(self.slots[(s + AHEAD) * k].player));
            }
            let base = self.slots[s * k].player as usize * k;
            let records = &mut self.players[base..base + k];
            for (p, values) in records.iter_mut().zip(&self.out[s * k..(s + 1) * k]) {
                p.values = *values;
                p.since = since;
                p.slot = NO_SLOT;
            }
        }
        self.slots.clear();
        self.games.clear();
        self.open = None;
        Ok(())
    }

    /// The slot of `player` in the open period, creating its K lanes with each lane's values at
    /// the period's start (`entry`).
    #[inline]
    fn touch(&mut self, player: u32, at: Timestamp, now: i64) -> u32 {
        let k = self.lanes.len();
        let base = player as usize * k;
        let slot = self.players[base].slot;
        if slot != NO_SLOT {
            return slot;
        }
        let index = (self.slots.len() / k) as u32;
        for l in 0..k {
            let p = &mut self.players[base + l];
            let lane = &self.lanes[l];
            self.slots.push(entry(&lane.rule, &lane.common, p, player, at, now));
            p.slot = index;
        }
        index
    }

    fn joined(&mut self, step: &Step<'_>, id: PlayerId, prior: Prior) -> Result<(), ProjectError> {
        let k = self.lanes.len();
        let base = id.index() * k;
        if base >= self.players.len() {
            self.players.resize(base + k, UNJOINED);
        }
        if joined(&self.players[base]) {
            return Ok(());
        }
        // Every lane is checked before any is written, in lane order.
        let mut joining = Vec::with_capacity(k);
        for lane in &self.lanes {
            joining.push(lane.common.join_values(&lane.rule, step.seq, &prior)?.3);
        }
        let since = self.clock.mark(step.at, false);
        for (l, values) in joining.into_iter().enumerate() {
            self.players[base + l] = Record { values, since, games: 0, slot: NO_SLOT };
        }
        Ok(())
    }

    /// Adds one game `pair` (between slots `a` and `b`) in every lane (`add_game` on lane `l`'s
    /// slots, with lane `l`'s `home`).
    #[inline]
    fn add_game(&mut self, pair: Pair) {
        let k = self.lanes.len() as u32;
        for l in 0..k {
            let lane = Pair { a: pair.a * k + l, b: pair.b * k + l, ..pair };
            add_game::<Glicko2Rule>(&mut self.slots, lane, self.lanes[l as usize].common.home);
        }
    }

    fn matched(&mut self, step: &Step<'_>, now: i64, seats: &[SeatIn]) -> Result<(), ProjectError> {
        let k = self.lanes.len();
        check_seats(step.seq, seats, |id| {
            self.players.get(id.index() * k).filter(|p| joined(p)).map(|p| p.games)
        })?;
        let before = self.last_match;
        self.last_match = Some(step.at);
        let mut seat_slots = std::mem::take(&mut self.seat_slots);
        seat_slots.clear();
        for seat in seats {
            seat_slots.push(self.touch(seat.player.0, step.at, now));
            let base = seat.player.index() * k;
            self.players[base..base + k].iter_mut().for_each(|p| p.games += 1);
        }
        // docs/events.md: every pair of seats on different sides is one game, in seat order.
        for (i, x) in seats.iter().enumerate() {
            for (j, y) in seats.iter().enumerate().skip(i + 1) {
                if x.side != y.side {
                    self.add_game(Pair::of(seat_slots[i], seat_slots[j], x, y));
                }
            }
        }
        self.games.push_match(seats, &seat_slots);
        self.seat_slots = seat_slots;
        match self.clock.period {
            Period::Every(_) => {
                self.open = Some(now);
                Ok(())
            }
            Period::Game => {
                let result = self.close(step.seq);
                if result.is_err() {
                    // As [`Glicko2`]: the failed match leaves no trace in any lane.
                    for slot in &self.slots {
                        self.players[slot.player as usize * k..][..k]
                            .iter_mut()
                            .for_each(|p| p.slot = NO_SLOT);
                    }
                    for seat in seats {
                        let base = seat.player.index() * k;
                        self.players[base..base + k].iter_mut().for_each(|p| p.games -= 1);
                    }
                    self.slots.clear();
                    self.games.clear();
                    self.last_match = before;
                }
                result
            }
        }
    }
}

/// Whether a lane's record is a joined player's (the rule's test).
#[inline]
fn joined(p: &PlayerState) -> bool {
    Glicko2Rule::is_joined(&p.values)
}
