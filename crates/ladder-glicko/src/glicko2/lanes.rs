//! Several Glicko-2 configurations folded together: one pass, one roster lookup and one run of
//! cache lines per player for all of them.
//!
//! A sweep replays the same history under K configurations that differ only in their constants
//! (`tau`, `sigma`, `rd_max`, ...), not in how time is cut. Folded as K separate projectors, each
//! game reads K player records and K period slots from K places in memory, and with 100,000
//! players those reads miss the cache: the profile of an 8-configuration sweep showed a quarter of
//! its time waiting on them (docs/PERFORMANCE.md, "Sweeps"). [`Glicko2Lanes`] keeps the K
//! configurations' values of one player in one block, and likewise the K lanes of one period
//! slot, so the K lanes of a
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
//!
//! A player's fields that do not depend on the constants (joined or not, where idle growth counts
//! from, games, the slot in the open period) are kept once per player, not once per lane; only
//! the rule's values are kept per lane. A slot of the open period likewise: its player, the
//! periods sat out before it, its games and their summed results are kept once per slot
//! ([`SlotShared`]), and each lane holds only what its constants change (6 numbers against the
//! engine's 88-byte slot), so that a game's lanes of one player span fewer cache lines
//! (docs/PERFORMANCE.md, "Sweeps").
//!
//! **Field by field within a block, four lanes at a time.** A player's block holds its lanes in
//! groups of four, each group holding its four lanes' ratings side by side, then their RDs,
//! then their volatilities ([`place`]); a slot's block likewise. So the kernels that take four
//! or eight lanes at a time (the entries, the starts, each game's sums, closing's inputs) load
//! and store whole vectors of adjacent lanes instead of gathering each lane's fields one by one,
//! while the fields of four lanes still sit in two or three adjacent cache lines, as a structure
//! per lane did (each field of all K lanes side by side, tried first, cost the 64-configuration
//! sweep more than it saved: docs/PERFORMANCE.md, "Sweeps", "Each field of four lanes side by
//! side").

//! **A lane that fails stops alone.** When a lane's arithmetic breaks down (Glicko-2's step 5
//! under some constants: docs/algorithms.md), a [`Glicko2`] of that configuration alone would stop
//! the replay at that event with that error. The lane records the same error
//! ([`Glicko2Lanes::failures`]), keeps its values as they were, and the other lanes go on: the
//! batch's result for every other configuration is still that of its own replay. Only when every
//! lane has failed does a step return an error.

use super::{
    g_of_square, idle_fields, rate_in_n, start_and_idle_fields, start_fields, Fields, Glicko2,
    Glicko2Rule, Glicko2State, RateConsts, RateIns, Start, Starts, Values,
};
use crate::clock::{Clock, Cursor};
use crate::periods::{entry, Acc, Games, Pair, PeriodState, Record, Rule, Slot, NO_SLOT};
use ladder_events::{Prior, Timestamp};
use ladder_projector::math::{self, LANES};
use ladder_projector::{check_seats, Home, Input, Period, PlayerId, ProjectError, SeatIn, Step};

/// The fields of a player's record that are the same in every lane: the engine's bookkeeping,
/// which depends on the history and the shared clock only.
#[derive(Clone, Copy, Debug)]
struct Shared {
    /// Where idle growth counts from ([`Record`]'s `since`).
    since: i64,
    /// MatchResults sat in.
    games: u32,
    /// Index into the open period's slots (of every lane), or `NO_SLOT`.
    slot: u32,
    /// Whether the player has joined.
    joined: bool,
}

/// Where a player enters a game from, the same in every lane.
#[derive(Clone, Copy, Debug)]
enum Entering {
    /// Not joined: the lane's initial values.
    Unjoined,
    /// The player's slot in the open period: their values at its start.
    Slot(u32),
    /// Their values after `idle` periods (or idle units) of growth, at period `now`; `since`
    /// and `games` say whether `revert` applies.
    Idle { idle: f64, now: i64, since: i64, games: u32 },
}

/// The fields of a slot of the open period that are the same in every lane: its player, the
/// periods sat out before it ([`Start`]'s `k`: the clock's, not the constants'), and the games'
/// count and summed results ([`Acc`]'s `m` and `score`, which each game adds the same in every
/// lane).
#[derive(Clone, Copy, Debug)]
struct SlotShared {
    player: u32,
    m: u32,
    k: f64,
    score: f64,
}

/// The fields of a slot's block in `Glicko2Lanes::slots` (lane `l`'s field `f` of slot `s` is at
/// `s * SLOT_FIELDS * width + place(SLOT_FIELDS, f, l)`): the rest of the engine's [`Slot`] (its
/// [`Start`]'s `mu`, `g`, `phi2` and `sigma`, its [`Acc`]'s `info` and `gain`), in the order a
/// game reads the first two and adds to the next two; the lane's `capped` flag (read only by
/// traces) is kept apart.
const MU: usize = 0;
/// See [`MU`].
const G: usize = 1;
/// See [`MU`].
const INFO: usize = 2;
/// See [`MU`].
const GAIN: usize = 3;
/// See [`MU`].
const PHI2: usize = 4;
/// See [`MU`].
const SIGMA: usize = 5;
/// How many fields a slot's block holds (see [`MU`]).
const SLOT_FIELDS: usize = 6;

/// The fields of a player's block in `Glicko2Lanes::values` and of a slot's results in its
/// scratch (lane `l`'s field `f` of player `p` is at `p * VALUE_FIELDS * width + place(
/// VALUE_FIELDS, f, l)`): [`Values`]' `rating`, `rd` and `volatility`.
const RATING: usize = 0;
/// See [`RATING`].
const RD: usize = 1;
/// See [`RATING`].
const VOLATILITY: usize = 2;
/// How many fields a player's block holds (see [`RATING`]).
const VALUE_FIELDS: usize = 3;

/// Where field `f` of lane `l` sits in a block of `fields` fields: the lanes are kept in groups
/// of [`LANES`] (a block holds K lanes rounded up to a multiple of four, the lanes past K
/// padding), each group holding its four lanes of every field, field after field; so four
/// adjacent lanes of a field (from a multiple of four) are one vector, and the fields of a group
/// span two or three adjacent cache lines, as a structure per lane did.
#[inline(always)]
fn place(fields: usize, f: usize, l: usize) -> usize {
    (l / LANES) * fields * LANES + f * LANES + l % LANES
}

/// Stores the first `n` of [`LANES`] lanes of one field into `dst` (which starts at the first).
#[inline(always)]
fn store(dst: &mut [f64], v: &[f64; LANES], n: usize) {
    match dst.first_chunk_mut::<LANES>() {
        Some(whole) if n == LANES => *whole = *v,
        _ => store_part(dst, v, n),
    }
}

/// [`store`] of fewer than [`LANES`] lanes. Kept out of line: inlined, the compiler merged
/// both of [`store`]'s paths into one call to `memcpy` of `n` lanes, which took 6% of a sweep's
/// samples (docs/PERFORMANCE.md, "Sweeps").
#[cold]
#[inline(never)]
fn store_part(dst: &mut [f64], v: &[f64; LANES], n: usize) {
    dst[..n].copy_from_slice(&v[..n]);
}

/// A slot of the open period made by [`Glicko2Lanes::expectations`] for the game it predicts
/// (the player's first of the period), at the place the game's [`Glicko2Lanes::touch`] would
/// make it: its block and `capped` flags are written, and it is not counted yet (`slot_shared`
/// does not hold it). The game's `touch` of `player` takes it as it is if it is that game's
/// (`seq` and `at`) and the next slot is still `index`; otherwise (another slot made there
/// first, another step) it makes the slot itself as before.
#[derive(Clone, Copy, Debug)]
struct Made {
    seq: u64,
    at: Timestamp,
    player: u32,
    index: u32,
    /// The periods sat out, the clock's ([`SlotShared`]'s `k`).
    k: f64,
}

/// The quad of lanes `l..l + 4` of block `b` of `F` fields in `blocks` (blocks of `F` fields of
/// `width` lanes each, back to back), given as `at = b * width + l` (`l` a multiple of four):
/// its `F` fields, each four lanes as one vector. One bounds check for the whole quad, where
/// slicing out each field's lanes costs two each. A quad always holds four lanes (a block's
/// lanes are rounded up to a multiple of four): past K they are padding, whose values are
/// finite and mean nothing, and a kernel's results there are dropped ([`put`]).
#[inline(always)]
fn quad<const F: usize>(blocks: &[f64], at: usize) -> &[[f64; LANES]; F] {
    let (quads, _) = blocks.as_chunks::<LANES>();
    let first = at / LANES * F;
    <&[[f64; LANES]; F]>::try_from(&quads[first..first + F]).expect("F quads")
}

/// [`quad`], to write.
#[inline(always)]
fn quad_mut<const F: usize>(blocks: &mut [f64], at: usize) -> &mut [[f64; LANES]; F] {
    let (quads, _) = blocks.as_chunks_mut::<LANES>();
    let first = at / LANES * F;
    <&mut [[f64; LANES]; F]>::try_from(&mut quads[first..first + F]).expect("F quads")
}

/// Writes the first `n` of the four lanes `v` into `dst` (the rest, padding past K, keep their
/// values).
#[inline(always)]
fn put<T: Copy>(dst: &mut [T; LANES], v: &[T; LANES], n: usize) {
    if n == LANES {
        *dst = *v;
    } else {
        put_part(dst, v, n);
    }
}

/// [`put`] of fewer than four lanes, out of line (see [`store_part`]).
#[cold]
#[inline(never)]
fn put_part<T: Copy>(dst: &mut [T; LANES], v: &[T; LANES], n: usize) {
    dst[..n].copy_from_slice(&v[..n]);
}

/// The shared fields of a player who has not joined (the engine's unjoined record's).
const ABSENT: Shared = Shared { since: 0, games: 0, slot: NO_SLOT, joined: false };

/// K Glicko-2 projectors with the same clock, folded as one (see the module documentation).
///
/// Invariants: with `width` K rounded up to a multiple of four, `values.len()` is
/// [`VALUE_FIELDS`] `width` times `shared.len()`, `slots.len()` at least [`SLOT_FIELDS`] `width`
/// times `slot_shared.len()` and `capped.len()` at least K times that (the blocks and flags past
/// those are left from closed periods and mean nothing, or are the slots `made` ahead by
/// [`Glicko2Lanes::expectations`] for the step about to be applied; slot `s` in lane `l` is `slot_shared[s]` with
/// lane `l` of each field of slot `s`'s block in `slots` and `capped[s * K + l]`:
/// [`Glicko2Lanes::slot`] puts them together); `phi_max` and `home` hold one value per lane and
/// padding up to `width`; a padding lane's values mean nothing; a
/// live lane's state is its projector's after the same steps. A failed lane's values stay as they
/// were before the step it failed at and mean nothing; its error is in `failed`. After an error
/// that every lane shares, the lanes are left as they were before the step, except that an error
/// closing a period of whole durations leaves that period open (as [`Glicko2`] does).
#[derive(Debug)]
pub struct Glicko2Lanes {
    /// The projectors whose states the lanes hold; their own states stay empty until
    /// [`Glicko2Lanes::into_projectors`] writes the lanes back.
    lanes: Vec<Glicko2>,
    clock: Clock,
    cursor: Cursor,
    /// `shared[p]`: player `p`'s fields common to every lane.
    shared: Vec<Shared>,
    /// Player `p`'s block: its values in every lane, field by field four lanes at a time (see
    /// [`RATING`] and [`place`]), so that a kernel reads a field of four lanes as one vector.
    values: Vec<f64>,
    /// `slot_shared[s]`: slot `s` of the open period, its fields common to every lane.
    slot_shared: Vec<SlotShared>,
    /// Slot `s` of the open period's block: its lanes' values field by field four lanes at a
    /// time (see [`MU`] and [`place`]).
    slots: Vec<f64>,
    /// `capped[s * K + l]`: whether idle growth reached `rd_max` at slot `s`'s start in lane `l`
    /// (past the open period's slots, left from closed periods or made ahead).
    capped: Vec<bool>,
    /// The slots [`Glicko2Lanes::expectations`] made for the game it predicted, one per seat.
    made: [Option<Made>; 2],
    /// Whether any lane reverts players after an absence (its `revert` constant): if none
    /// does, no entry asks each lane.
    reverts: bool,
    /// The open period's games over slot numbers `s` (the same in every lane), kept as the
    /// engine keeps them (its `Games`: a larger match as its seats).
    games: Games,
    open: Option<i64>,
    last_match: Option<Timestamp>,
    /// Scratch: a closing period's results, slot `s`'s block laid out as a player's in `values`.
    out: Vec<f64>,
    /// `phi_max[l]`: lane `l`'s cap on phi (its rule's), side by side for the kernels.
    phi_max: Vec<f64>,
    /// `home[l]`: lane `l`'s home advantage in rating points (its `home` constant).
    home: Vec<f64>,
    /// `rate_consts[q]`: the constants closing reads of lanes `4q` to `4q + 3` (their rules'),
    /// each field's four lanes side by side; padding lanes hold lane 0's.
    rate_consts: Vec<RateConsts<LANES>>,
    /// K rounded up to a multiple of [`LANES`]: how many lanes a block holds (see [`place`]);
    /// `phi_max` and `home` are padded to it too.
    width: usize,
    seat_slots: Vec<u32>,
    /// `failed[l]`: the error lane `l` stopped at, as its projector alone would have.
    failed: Vec<Option<ProjectError>>,
    /// How many lanes have failed.
    failures: usize,
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
        let k = projectors.len();
        let width = k.next_multiple_of(LANES);
        // The padding lanes compute on finite filler, and their results are dropped.
        let mut phi_max: Vec<f64> = projectors.iter().map(|p| p.rule.phi_max).collect();
        phi_max.resize(width, 1.0);
        let mut home: Vec<f64> = projectors.iter().map(|p| p.common.home).collect();
        home.resize(width, 0.0);
        // Padding lanes take lane 0's constants (filler).
        let rate_consts = (0..width / LANES)
            .map(|q| {
                RateConsts::of(std::array::from_fn(|i| {
                    &projectors.get(q * LANES + i).unwrap_or(&projectors[0]).rule
                }))
            })
            .collect();
        let reverts = projectors.iter().any(|p| p.common.revert.is_on());
        Ok(Glicko2Lanes {
            lanes: projectors,
            clock,
            cursor: Cursor::default(),
            shared: Vec::new(),
            values: Vec::new(),
            slot_shared: Vec::new(),
            slots: Vec::new(),
            capped: Vec::new(),
            made: [None; 2],
            reverts,
            games: Games::default(),
            open: None,
            last_match: None,
            out: Vec::new(),
            phi_max,
            home,
            rate_consts,
            width,
            seat_slots: Vec::new(),
            failed: vec![None; k],
            failures: 0,
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

    /// Each lane's error, for the lanes that have failed: the error at which a replay of that
    /// configuration alone stops.
    pub fn failures(&self) -> &[Option<ProjectError>] {
        &self.failed
    }

    /// Whether lane `l` has failed.
    #[inline]
    pub fn has_failed(&self, l: usize) -> bool {
        self.failures != 0 && self.failed.get(l).is_some_and(Option::is_some)
    }

    /// The earliest failure of any lane (the lowest lane's among those at the same event): the
    /// error K separate projectors folded in lane order would stop a replay at.
    pub fn first_failure(&self) -> Option<&ProjectError> {
        self.failed.iter().flatten().min_by_key(|e| e.seq)
    }

    /// Whether any lane has failed (one comparison: a driver's test before asking
    /// [`Glicko2Lanes::has_failed`] of each lane).
    #[inline]
    pub fn any_failed(&self) -> bool {
        self.failures != 0
    }

    /// Whether every lane has failed.
    pub fn all_failed(&self) -> bool {
        self.failures == self.lanes.len()
    }

    /// The projectors, each holding its lane's state: the same state as if it had been fed the
    /// steps alone (for a lane that failed, a state that means nothing).
    pub fn into_projectors(self) -> Vec<Glicko2> {
        let k = self.lanes.len();
        let w = self.width;
        let mut slots: Vec<Vec<Slot<Start>>> = (0..k)
            .map(|l| (0..self.slot_shared.len()).map(|s| self.slot(s, l)).collect())
            .collect();
        let mut lanes = self.lanes;
        for (l, p) in lanes.iter_mut().enumerate() {
            p.state = PeriodState {
                players: self
                    .shared
                    .iter()
                    .enumerate()
                    .map(|(player, s)| Record {
                        values: {
                            let block = &self.values[player * VALUE_FIELDS * w..];
                            Values {
                                rating: block[place(VALUE_FIELDS, RATING, l)],
                                rd: block[place(VALUE_FIELDS, RD, l)],
                                volatility: block[place(VALUE_FIELDS, VOLATILITY, l)],
                            }
                        },
                        since: s.since,
                        games: s.games,
                        slot: s.slot,
                    })
                    .collect(),
                open: self.open,
                last_match: self.last_match,
                slots: std::mem::take(&mut slots[l]),
                games: self.games.clone(),
            };
        }
        lanes
    }

    /// What [`ladder_projector::Projector::settle`] checks of each lane's projector at the end
    /// of a replay through event `seq`: that the open period can be rated (Glicko-2's steps on the
    /// side, nothing written). A lane that cannot records the error a replay of it alone ends
    /// with. For a caller that needs the lanes' scores and failures but not their states (a
    /// sweep), this and [`Glicko2Lanes::failures`] stand in for [`Glicko2Lanes::into_projectors`],
    /// which copies every lane's state out.
    pub fn settle(&mut self, seq: u64) {
        // Every lane's slots rated as closing would rate them (eight at a time, the scalar
        // `rate` only for a lane off the common path), the results left in the scratch.
        self.rate_open(seq);
    }

    /// Frees every lane's state (the players' blocks, the open period's slots, the scratch),
    /// keeping the failures: for a caller done with the lanes but for
    /// [`Glicko2Lanes::failures`] (a sweep, once [`Glicko2Lanes::settle`]d), so that the memory
    /// goes back on the caller's thread. Afterwards the lanes hold no player: settling again
    /// rates nothing, and [`Glicko2Lanes::into_projectors`] gives states that mean nothing.
    pub fn free_states(&mut self) {
        self.shared = Vec::new();
        self.values = Vec::new();
        self.slot_shared = Vec::new();
        self.slots = Vec::new();
        self.capped = Vec::new();
        self.made = [None; 2];
        self.games = Games::default();
        self.out = Vec::new();
        self.open = None;
    }

    /// Reads `player`'s shared fields into the cache ahead of use (see
    /// [`ladder_projector::Projector::prefetch`]); [`Glicko2Lanes::prefetch_slots`] then reads
    /// what the player's next game needs of their lanes.
    #[inline]
    pub fn prefetch(&self, player: PlayerId) {
        if let Some(shared) = self.shared.get(player.index()) {
            ladder_projector::prefetch(shared);
        }
    }

    /// Reads `player`'s values in every lane into the cache (their block is adjacent).
    #[inline]
    fn prefetch_values(&self, player: PlayerId) {
        let len = VALUE_FIELDS * self.width;
        if let Some(values) = self.values.get(player.index() * len..(player.index() + 1) * len) {
            prefetch_block(values);
        }
    }

    /// Reads what `player`'s next game reads of their lanes into the cache: their K slots in
    /// the open period and the slot's shared fields if they have one there, otherwise their
    /// values (from which the game's entry starts them). A game of a player with a slot does not
    /// read their values, so they are not fetched then (at 64 configurations a player's values
    /// are 12 cache lines).
    /// Reading the slot number waits on the player's shared fields, so drivers call this a few
    /// steps after [`Glicko2Lanes::prefetch`] brought them in.
    #[inline]
    pub fn prefetch_slots(&self, player: PlayerId) {
        let Some(slot) = self.shared.get(player.index()).map(|p| p.slot) else {
            return;
        };
        let Some(shared) = self.slot_shared.get(slot as usize) else {
            self.prefetch_values(player);
            return;
        };
        // What each game adds to once for every lane (its count and summed result).
        ladder_projector::prefetch(shared);
        let len = SLOT_FIELDS * self.width;
        if let Some(slots) = self.slots.get(slot as usize * len..(slot as usize + 1) * len) {
            prefetch_block(slots);
        }
    }

    /// Closes the open period if `at` lies in a later one: what [`Glicko2`]'s `apply` does first
    /// for a step at `at`. A lane that fails records its error at `seq`; the result is an error
    /// only when every lane has failed (then, if they all failed here, with the period left open).
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
    /// projector gives; NaN for a lane that has failed). Closes a period that `at` ends first
    /// ([`Glicko2Lanes::advance`]), as applying the step would: a projector computes that closing
    /// on the side for its expectation, with the same values.
    ///
    /// For step `seq` (the game predicted, applied next), it also makes the open period's slot
    /// of each joined player without one who enters from idle growth and whom no lane reverts,
    /// from the same loads of their values; that game's [`Glicko2Lanes::apply`] takes it as made
    /// if it is that step's and the next free slot is still its index, and makes it again
    /// otherwise (`Made`; docs/PERFORMANCE.md, "Sweeps"). Nothing else changes: a slot made ahead is not counted until that step is
    /// applied, and is made over by the next step that makes one.
    #[allow(clippy::needless_range_loop)] // lane i of several arrays at once
    pub fn expectations(
        &mut self,
        seq: u64,
        a: PlayerId,
        b: PlayerId,
        at: Timestamp,
        home: Home,
        out: &mut Vec<f64>,
    ) -> Result<(), ProjectError> {
        let now = self.advance(seq, at)?;
        out.clear();
        let k = self.lanes.len();
        // Where each player enters from does not depend on the constants: found once, not per
        // lane.
        let (sa, sb) = (self.entry_of(a, at, now), self.entry_of(b, at, now));
        // A player entering from idle growth (their first game of the period, the usual seat
        // with periods of days) has the slot the game will make for them made here, from the
        // same loads of their values: the game's `touch` then only counts it (see [`Made`]).
        let next = self.slot_shared.len() as u32;
        let ma = self.make_ahead(seq, a, sa, at, next);
        let mb = match (a == b, ma) {
            (true, _) => None,
            (false, None) => self.make_ahead(seq, b, sb, at, next),
            (false, Some(_)) => self.make_ahead(seq, b, sb, at, next + 1),
        };
        self.made = [ma, mb];
        if let Some(last) = mb.or(ma) {
            let slots = (last.index as usize + 1) * SLOT_FIELDS * self.width;
            if self.slots.len() < slots {
                self.slots.resize(slots, 0.0);
            }
            if self.capped.len() < (last.index as usize + 1) * k {
                self.capped.resize((last.index as usize + 1) * k, false);
            }
        }
        // Each lane's `Glicko2Rule::expectation`, E = 1 / (1 + exp(-g (mu_a - mu_b))) with g of
        // both deviations, four lanes at a time: g's square roots and divisions with no branch
        // between the lanes, the exps at once (`exp4`, the same bits).
        let mut l = 0;
        while l < k {
            let n = LANES.min(k - l);
            // A player whose slot is made here enters with the phi of `idle` (`idle_fields`'),
            // not the root of the slot's phi^2 (not always the same bits).
            let (mut mu_a, phi_a) = match ma {
                Some(m) => self.make4(l, n, m),
                None => self.entering4(l, n, a, sa, at),
            };
            let (mu_b, phi_b) = match mb {
                Some(m) => self.make4(l, n, m),
                None => self.entering4(l, n, b, sb, at),
            };
            for i in 0..n {
                let edge = home.edge(self.home[l + i]);
                if edge != 0.0 {
                    mu_a[i] = Glicko2Rule::shift_location(mu_a[i], edge);
                }
            }
            let mut x = [0.0; LANES];
            for i in 0..LANES {
                x[i] =
                    -g_of_square(phi_a[i] * phi_a[i] + phi_b[i] * phi_b[i]) * (mu_a[i] - mu_b[i]);
            }
            // The filler lanes, and a failed lane (whose values mean nothing), compute on 0 and
            // are dropped.
            x[n..].fill(0.0);
            if self.failures != 0 {
                for i in 0..n {
                    if self.has_failed(l + i) {
                        x[i] = 0.0;
                    }
                }
            }
            let e = math::exp4(x);
            // The four divisions with no branch between them; a failed lane's is dropped.
            let p = e.map(|e| 1.0 / (1.0 + e));
            if self.failures == 0 && n == LANES {
                // Four pushes of known size: with the path below merged in, the compiler called
                // `memcpy` for every quad (4% of a sweep's samples, docs/PERFORMANCE.md).
                out.extend(p);
            } else {
                self.push_part(out, &p, l, n);
            }
            l += n;
        }
        Ok(())
    }

    /// [`Glicko2Lanes::expectations`]' results of lanes `l..l + n` but for a whole quad with no
    /// lane failed: NaN for a failed lane. Out of line (see its caller).
    #[cold]
    #[inline(never)]
    fn push_part(&self, out: &mut Vec<f64>, p: &[f64; LANES], l: usize, n: usize) {
        for (i, &p) in p.iter().enumerate().take(n) {
            out.push(if self.has_failed(l + i) { f64::NAN } else { p });
        }
    }

    /// Folds one step into every lane that has not failed (traces are not kept here: `explain`
    /// uses the projector). An error only when every lane has failed.
    pub fn apply(&mut self, step: &Step<'_>) -> Result<(), ProjectError> {
        let now = self.advance(step.seq, step.at)?;
        match step.input {
            Input::Joined { player, prior } => self.join(step, player, prior),
            Input::Match { seats } => self.matched(step, now, seats),
            Input::Tick | Input::Timeout { .. } => Ok(()),
        }
    }

    /// `player`'s shared fields, if they have joined.
    #[inline]
    fn joined(&self, player: PlayerId) -> Option<Shared> {
        self.shared.get(player.index()).filter(|s| s.joined).copied()
    }

    /// Where `player` enters a game at `at` from, in every lane ([`Glicko2`]'s `entering`, the
    /// part that does not depend on the constants), once the period before `at` is closed;
    /// `now` is `at`'s period index ([`Glicko2Lanes::advance`]'s, from the cursor).
    #[inline]
    fn entry_of(&self, player: PlayerId, at: Timestamp, now: i64) -> Entering {
        let Some(p) = self.joined(player) else { return Entering::Unjoined };
        if let Period::Every(_) = self.clock.period {
            if p.slot != NO_SLOT && Some(now) <= self.open {
                return Entering::Slot(p.slot);
            }
        }
        // A slot of a period before `at`'s cannot be left: `advance` closed it.
        let idle = self.clock.idle_since(p.since, at, now);
        Entering::Idle { idle, now, since: p.since, games: p.games }
    }

    /// `(mu, phi)` with which `player` enters a game at `at` in lane `l`, from where
    /// [`Glicko2Lanes::entry_of`] found ([`Glicko2`]'s `entering` without the closing on the
    /// side).
    #[inline]
    fn entering(&self, l: usize, player: PlayerId, from: Entering, at: Timestamp) -> (f64, f64) {
        let lane = &self.lanes[l];
        let w = self.width;
        let (idle, now, since, games) = match from {
            Entering::Unjoined => {
                return lane.rule.scaled(lane.common.initial_rating, lane.common.initial_rd)
            }
            Entering::Slot(slot) => {
                // Glicko2Rule::position: (mu, phi^2).
                let block = slot as usize * SLOT_FIELDS * w;
                let (mu, phi2) = (
                    self.slots[block + place(SLOT_FIELDS, MU, l)],
                    self.slots[block + place(SLOT_FIELDS, PHI2, l)],
                );
                return (mu, phi2.sqrt());
            }
            Entering::Idle { idle, now, since, games } => (idle, now, since, games),
        };
        let values = &self.value(player.index(), l);
        // revert, as the projector's `entering` applies it to a game at `at`.
        if lane.common.revert_due::<Glicko2Rule>(since, games, at, now) {
            let values = Glicko2Rule::revert(
                values,
                lane.common.revert.fraction,
                lane.common.initial_rating,
            );
            return lane.rule.idle(&values, idle);
        }
        lane.rule.idle(values, idle)
    }

    /// Whether any lane reverts a player who last played under the idle mark `since` after
    /// `games` games, in a game at `at` of period `now`.
    #[inline]
    fn any_reverts(&self, since: i64, games: u32, at: Timestamp, now: i64) -> bool {
        self.reverts
            && self.lanes.iter().any(|g| g.common.revert_due::<Glicko2Rule>(since, games, at, now))
    }

    /// The slot of the open period that game `seq` at `at` will make for `player`, entering
    /// from `from` ([`Glicko2Lanes::entry_of`]'s), if [`Glicko2Lanes::expectations`] can make it
    /// ahead at `index`: a joined player without a slot, entering from idle growth that no lane
    /// reverts (then the slot's start and the entry come from the same values, after the same
    /// periods sat out: `touch`'s `idle_since` is the entry's).
    #[inline]
    fn make_ahead(
        &self,
        seq: u64,
        player: PlayerId,
        from: Entering,
        at: Timestamp,
        index: u32,
    ) -> Option<Made> {
        let Entering::Idle { idle, now, since, games } = from else { return None };
        let free = self.joined(player).is_some_and(|p| p.slot == NO_SLOT);
        if !free || self.any_reverts(since, games, at, now) {
            return None;
        }
        Some(Made { seq, at, player: player.0, index, k: idle })
    }

    /// Lanes `l..l + n` of the slot `made` (`n` at most [`LANES`]): each lane's
    /// `Glicko2Rule::start` written into its block as [`Glicko2Lanes::touch`] writes it, and
    /// returned, `(mu, phi)` with which the player enters the game
    /// ([`Glicko2Lanes::entering4`]'s), both from one load of the player's values
    /// ([`start_and_idle_fields`], the same bits as `start_fields` and `idle_fields`).
    #[inline(always)]
    fn make4(&mut self, l: usize, n: usize, made: Made) -> ([f64; LANES], [f64; LANES]) {
        let w = self.width;
        // Lanes past `n` (padding) compute on their own values and are dropped.
        let values = quad::<VALUE_FIELDS>(&self.values, made.player as usize * w + l);
        let lanes =
            Fields { rating: values[RATING], rd: values[RD], volatility: values[VOLATILITY] };
        let phi_max = quad::<1>(&self.phi_max, l)[0];
        let (start, phi) = start_and_idle_fields(phi_max, &lanes, made.k);
        self.put_start(made.index, l, n, &start, &lanes.volatility);
        (start.mu, phi)
    }

    /// Writes lanes `l..l + n` of slot `index`'s start (`n` at most [`LANES`]; `l` a multiple
    /// of four): its block's fields, as [`Glicko2Rule::start`] gives them with the lanes'
    /// volatilities as sigma and the sums at 0, and its `capped` flags. The one writer of a made
    /// slot's quad, for [`Glicko2Lanes::make4`] and [`Glicko2Lanes::make`].
    #[inline(always)]
    fn put_start(
        &mut self,
        index: u32,
        l: usize,
        n: usize,
        start: &Starts<LANES>,
        volatility: &[f64; LANES],
    ) {
        let (k, w) = (self.lanes.len(), self.width);
        let slot = quad_mut::<SLOT_FIELDS>(&mut self.slots, index as usize * w + l);
        put(&mut slot[MU], &start.mu, n);
        put(&mut slot[G], &start.g, n);
        put(&mut slot[PHI2], &start.phi2, n);
        put(&mut slot[SIGMA], volatility, n);
        put(&mut slot[INFO], &[0.0; LANES], n);
        put(&mut slot[GAIN], &[0.0; LANES], n);
        let at = index as usize * k + l;
        match self.capped[at..].first_chunk_mut::<LANES>() {
            Some(capped) => put(capped, &start.capped, n),
            // The slot's last lanes, the last flags of the vector.
            None => self.capped[at..at + n].copy_from_slice(&start.capped[..n]),
        }
    }

    /// `(mu, phi)` with which `player` enters a game at `at` in lanes `l..l + n` (`n` at most
    /// [`LANES`]; the rest of the four hold filler): [`Glicko2Lanes::entering`] of each, with
    /// the case found once for all of them, so that each case is a loop over adjacent lanes
    /// (its square roots and divisions IEEE 754's own, whichever unit computes them).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // lane i of several arrays at once
    fn entering4(
        &self,
        l: usize,
        n: usize,
        player: PlayerId,
        from: Entering,
        at: Timestamp,
    ) -> ([f64; LANES], [f64; LANES]) {
        let w = self.width;
        let (mut mu, mut phi) = ([0.0; LANES], [1.0; LANES]);
        match from {
            Entering::Slot(slot) => {
                // Glicko2Rule::position of each: (mu, phi^2); lanes past `n` (padding) are
                // dropped.
                let block = quad::<SLOT_FIELDS>(&self.slots, slot as usize * w + l);
                mu = block[MU];
                phi = block[PHI2].map(f64::sqrt);
            }
            Entering::Idle { idle, now, since, games }
                if !self.reverts
                    || !self.lanes[l..l + n]
                        .iter()
                        .any(|g| g.common.revert_due::<Glicko2Rule>(since, games, at, now)) =>
            {
                // Each lane's `Glicko2Rule::idle`, the same bits (`idle_fields`); lanes past `n`
                // (padding) are dropped.
                let block = quad::<VALUE_FIELDS>(&self.values, player.index() * w + l);
                let values =
                    Fields { rating: block[RATING], rd: block[RD], volatility: block[VOLATILITY] };
                (mu, phi) = idle_fields(quad::<1>(&self.phi_max, l)[0], &values, idle);
            }
            _ => {
                for i in 0..n {
                    (mu[i], phi[i]) = self.entering(l + i, player, from, at);
                }
            }
        }
        (mu, phi)
    }

    /// Player `player`'s values in lane `l`, put together from their block.
    #[inline]
    fn value(&self, player: usize, l: usize) -> Values {
        let w = self.width;
        let block = &self.values[player * VALUE_FIELDS * w..];
        Values {
            rating: block[place(VALUE_FIELDS, RATING, l)],
            rd: block[place(VALUE_FIELDS, RD, l)],
            volatility: block[place(VALUE_FIELDS, VOLATILITY, l)],
        }
    }

    /// Writes player `player`'s values in lane `l` into their block.
    #[inline]
    fn set_value(&mut self, player: usize, l: usize, values: Values) {
        let w = self.width;
        let block = &mut self.values[player * VALUE_FIELDS * w..];
        block[place(VALUE_FIELDS, RATING, l)] = values.rating;
        block[place(VALUE_FIELDS, RD, l)] = values.rd;
        block[place(VALUE_FIELDS, VOLATILITY, l)] = values.volatility;
    }

    /// Slot `s` of the open period in lane `l`, as the engine keeps it ([`Slot`]): its shared
    /// fields and the lane's put together.
    #[inline]
    fn slot(&self, s: usize, l: usize) -> Slot<Start> {
        let k = self.lanes.len();
        let w = self.width;
        let shared = &self.slot_shared[s];
        let block = &self.slots[s * SLOT_FIELDS * w..];
        let field = |f: usize| block[place(SLOT_FIELDS, f, l)];
        Slot {
            player: shared.player,
            start: Start {
                mu: field(MU),
                phi2: field(PHI2),
                sigma: field(SIGMA),
                g: field(G),
                k: shared.k,
                capped: self.capped[s * k + l],
            },
            sums: Acc { info: field(INFO), gain: field(GAIN), score: shared.score, m: shared.m },
        }
    }

    /// Empties the open period's slots (the lanes' blocks stay allocated, to be reused: only
    /// the first `slot_shared.len()` are slots) and forgets the slots made ahead (`made`).
    fn clear_slots(&mut self) {
        self.slot_shared.clear();
        self.made = [None; 2];
    }

    /// The idle mark of the open period's players once it closes ([`Glicko2`]'s).
    fn since_closing(&self) -> i64 {
        match self.clock.period {
            Period::Every(_) => self.open.map_or(0, |k| k + 1),
            Period::Game => self.last_match.map_or(0, |at| at.0),
        }
    }

    /// Records that lane `l` stopped at `error` (its first error only).
    fn fail(&mut self, l: usize, error: ProjectError) {
        if self.failed[l].is_none() {
            self.failed[l] = Some(error);
            self.failures += 1;
        }
    }

    /// Every live lane fails with `error` (an error that does not depend on the constants, such
    /// as a seat of a player who never joined), which is then returned.
    fn fail_all(&mut self, error: ProjectError) -> Result<(), ProjectError> {
        for l in 0..self.lanes.len() {
            self.fail(l, error.clone());
        }
        Err(error)
    }

    /// The error to return once every lane has failed: the earliest, lowest lane first.
    fn all_failed_error(&self) -> Result<(), ProjectError> {
        match self.first_failure() {
            Some(e) if self.all_failed() => Err(e.clone()),
            _ => Ok(()),
        }
    }

    /// Rates the open period's slots in every live lane into `out` (slot `s`'s block laid out as a
    /// player's in `values`), as the
    /// engine rates them, in slot order; a lane whose rating fails records the error at `seq`
    /// (its first) and is rated no further. Writes nothing else: [`Glicko2Lanes::close`] writes
    /// the results back, [`Glicko2Lanes::settle`] only asks which lanes fail.
    fn rate_open(&mut self, seq: u64) {
        const IN: usize = RATE * SLOT_FIELDS;
        const OUT: usize = RATE * VALUE_FIELDS;
        let k = self.lanes.len();
        let w = self.width;
        // Every live lane's result is written below before it is read (`close` reads a failed
        // lane's place in no slot), so the scratch is only grown, never cleared.
        let len = self.slot_shared.len() * VALUE_FIELDS * w;
        if self.out.len() < len {
            self.out.resize(len, 0.0);
        }
        // Slot by slot, the K lanes of a slot being adjacent; every lane still rates its own
        // slots in slot order, and stops at its first failure as its projector would.
        // The live (slot, lane) pairs are rated RATE at a time in that order (`rate_in_n`: step 5
        // in lockstep, the same bits as each lane's `rate`), a group running on into the next
        // slot when a slot has fewer live lanes left; a last group of fewer repeats its first
        // pair. A group may hold a lane's slot after the one it fails at: that result is
        // dropped, as the lane's projector would never have rated it.
        //
        // The usual case (`quick`): no lane has failed and K is a multiple of four, so the
        // pairs in slot and lane order are whole quads of adjacent lanes and the slots' blocks
        // one run of them (pairs 4q to 4q + 3 are quad q, at q * SLOT_FIELDS * LANES), as are
        // the results' in `out` (at q * VALUE_FIELDS * LANES): group `g` is the RATE / 4 quads
        // from pair g * RATE on, read (`gather_quads`) and written as vectors with no
        // pair-by-pair bookkeeping. It ends at the first failure, or where a last group of
        // four is left; the pairs after it are grouped one by one. (One call of `rate_in_n`
        // serves both: with two, the compiler left it out of line and the sweep lost more than
        // the groups saved: docs/PERFORMANCE.md, "Sweeps".)
        let mut group = [(0usize, 0usize); RATE];
        let slots = self.slot_shared.len();
        let whole = if k.is_multiple_of(LANES) { slots * k / RATE } else { 0 };
        let mut g = 0;
        let (mut s, mut l) = (0, 0);
        loop {
            let quick = g < whole && self.failures == 0;
            // What the common path reads of each (`rate_in_n`); a lane that leaves it is rated
            // by its rule's `rate` of the engine's slot, put together.
            let (consts, ins, n) = if quick {
                // Group g's pairs from (s, l) on, quad by quad: four adjacent lanes of a slot.
                let consts = consts_of_quads(&self.rate_consts, l, k);
                (consts, gather_quads(&self.slots[g * IN..][..IN]), RATE)
            } else {
                let mut n = 0;
                while n < RATE && s < slots {
                    if self.failures == 0 || self.failed[l].is_none() {
                        group[n] = (s, l);
                        n += 1;
                    }
                    l += 1;
                    if l == k {
                        (s, l) = (s + 1, 0);
                    }
                }
                if n == 0 {
                    break;
                }
                let first = group[0];
                group[n..].fill(first);
                let consts = consts_of_pairs(&self.rate_consts, &group);
                (consts, gather(&self.slots, w, &group), n)
            };
            let rated = rate_in_n(&consts, &ins);
            let common = rated.all();
            if quick && common {
                // Quad q's three fields, four lanes each, from the results' fields as vectors.
                let out = &mut self.out[g * OUT..][..OUT];
                for (q, out) in out.chunks_exact_mut(VALUE_FIELDS * LANES).enumerate() {
                    for (f, field) in
                        [(RATING, &rated.rating), (RD, &rated.rd), (VOLATILITY, &rated.volatility)]
                    {
                        out[f * LANES..][..LANES].copy_from_slice(&field[q * LANES..][..LANES]);
                    }
                }
            } else {
                if quick {
                    // A lane off the common path: the group's pairs, for the path below.
                    let (mut ps, mut pl) = (s, l);
                    for pair in &mut group {
                        *pair = (ps, pl);
                        pl += 1;
                        if pl == k {
                            (ps, pl) = (ps + 1, 0);
                        }
                    }
                }
                // Whole groups of four adjacent lanes, every result on the common path and no
                // lane failed: each field's four results stored as one vector.
                let quads = n == RATE
                    && self.failures == 0
                    && group.chunks_exact(LANES).all(|q| {
                        let (s, l) = q[0];
                        l % LANES == 0 && q[LANES - 1] == (s, l + LANES - 1)
                    })
                    && common;
                if quads {
                    for (q, quad) in group.chunks_exact(LANES).enumerate() {
                        let (s, l) = quad[0];
                        let out = &mut self.out[s * VALUE_FIELDS * w..];
                        for (f, field) in [
                            (RATING, &rated.rating),
                            (RD, &rated.rd),
                            (VOLATILITY, &rated.volatility),
                        ] {
                            let field = std::array::from_fn(|i| field[q * LANES + i]);
                            store(&mut out[place(VALUE_FIELDS, f, l)..], &field, LANES);
                        }
                    }
                }
                for (i, &(s, l)) in group.iter().enumerate().take(if quads { 0 } else { n }) {
                    if self.failed[l].is_some() {
                        continue;
                    }
                    match rated.get(i).map_or_else(|| self.lanes[l].rule.rate(&self.slot(s, l)), Ok)
                    {
                        Ok(rated) => {
                            let out = &mut self.out[s * VALUE_FIELDS * w..];
                            out[place(VALUE_FIELDS, RATING, l)] = rated.rating;
                            out[place(VALUE_FIELDS, RD, l)] = rated.rd;
                            out[place(VALUE_FIELDS, VOLATILITY, l)] = rated.volatility;
                        }
                        Err(kind) => {
                            self.failed[l] = Some(ProjectError::new(seq, kind));
                            self.failures += 1;
                        }
                    }
                }
            }
            if quick {
                g += 1;
                l += RATE;
                while l >= k {
                    (s, l) = (s + 1, l - k);
                }
            }
        }
    }

    /// Closes the open period in every live lane: each lane's slots rated by the rule as the
    /// engine rates them, in slot order. A lane whose rating fails records the error at `seq`
    /// and keeps its values; the others are written. When every lane has failed nothing is
    /// written and the period stays open.
    fn close(&mut self, seq: u64) -> Result<(), ProjectError> {
        let k = self.lanes.len();
        let since = self.since_closing();
        let before = self.failures;
        self.rate_open(seq);
        let slots = self.slot_shared.len();
        // When every lane fails here nothing is written; when every lane had failed before,
        // there is nothing to keep, but the bookkeeping goes on.
        if self.all_failed() && self.failures > before {
            return self.all_failed_error();
        }
        // The players' values are written back in slot order: those of the slot AHEAD on
        // are fetched meanwhile, as they are scattered over the whole roster.
        const AHEAD: usize = 8;
        let any_failed = self.failures != 0;
        for s in 0..slots {
            if s + AHEAD < slots {
                self.prefetch_values(PlayerId(self.slot_shared[s + AHEAD].player));
            }
            let player = self.slot_shared[s].player as usize;
            let shared = &mut self.shared[player];
            shared.since = since;
            shared.slot = NO_SLOT;
            let len = VALUE_FIELDS * self.width;
            let values = &mut self.values[player * len..(player + 1) * len];
            let out = &self.out[s * len..(s + 1) * len];
            if any_failed {
                for f in 0..VALUE_FIELDS {
                    for l in 0..k {
                        if self.failed[l].is_none() {
                            values[place(VALUE_FIELDS, f, l)] = out[place(VALUE_FIELDS, f, l)];
                        }
                    }
                }
            } else {
                values.copy_from_slice(out);
            }
        }
        self.clear_slots();
        self.games.clear();
        self.open = None;
        Ok(())
    }

    /// The slot of `player` in the open period, creating its K lanes with each lane's values at
    /// the period's start (`entry`). The periods sat out are the clock's, found once; unless a
    /// lane reverts the player, the lanes' starts are taken [`LANES`] at a time ([`start_fields`]:
    /// `Glicko2Rule::start` of each, the same bits, two lanes' divisions and square roots in
    /// one vector instruction). A slot that [`Glicko2Lanes::expectations`] made ahead for this
    /// game (step `seq`) is taken as it is ([`Made`]).
    #[inline]
    fn touch(&mut self, seq: u64, player: u32, at: Timestamp, now: i64) -> u32 {
        let shared = self.shared[player as usize];
        if shared.slot != NO_SLOT {
            return shared.slot;
        }
        let index = self.slot_shared.len() as u32;
        let made = self
            .made
            .iter()
            .flatten()
            .find(|m| (m.seq, m.at, m.player, m.index) == (seq, at, player, index));
        let periods = match made {
            Some(m) => m.k,
            None => self.make(shared, player, index, at, now),
        };
        self.slot_shared.push(SlotShared { player, m: 0, k: periods, score: 0.0 });
        self.shared[player as usize].slot = index;
        index
    }

    /// [`Glicko2Lanes::touch`]'s slot of `player` (with `shared` fields) made at `index`: its
    /// block written and its `capped` flags, not yet counted. Returns the periods sat out.
    fn make(&mut self, shared: Shared, player: u32, index: u32, at: Timestamp, now: i64) -> f64 {
        let k = self.lanes.len();
        let w = self.width;
        // The slot's block (the blocks of closed periods are reused: every field is written
        // below, the sums at 0), and its flags.
        let block = index as usize * SLOT_FIELDS * w;
        if self.slots.len() < block + SLOT_FIELDS * w {
            self.slots.resize(block + SLOT_FIELDS * w, 0.0);
        }
        if self.capped.len() < (index as usize + 1) * k {
            self.capped.resize((index as usize + 1) * k, false);
        }
        // The periods sat out are the clock's (`idle_since`), the same in every lane.
        let periods = self.clock.idle_since(shared.since, at, now);
        let reverts = self.reverts
            && self
                .lanes
                .iter()
                .any(|g| g.common.revert_due::<Glicko2Rule>(shared.since, shared.games, at, now));
        if reverts {
            for l in 0..k {
                let lane = &self.lanes[l];
                let record = Record {
                    values: self.value(player as usize, l),
                    since: shared.since,
                    games: shared.games,
                    slot: shared.slot,
                };
                let Slot { start, .. } = entry(&lane.rule, &lane.common, &record, player, at, now);
                let Start { mu, phi2, sigma, g, capped: cap, .. } = start;
                let slot = &mut self.slots[block..];
                (slot[place(SLOT_FIELDS, MU, l)], slot[place(SLOT_FIELDS, G, l)]) = (mu, g);
                (slot[place(SLOT_FIELDS, PHI2, l)], slot[place(SLOT_FIELDS, SIGMA, l)]) =
                    (phi2, sigma);
                (slot[place(SLOT_FIELDS, INFO, l)], slot[place(SLOT_FIELDS, GAIN, l)]) = (0.0, 0.0);
                self.capped[index as usize * k + l] = cap;
            }
        } else {
            let mut l = 0;
            while l < k {
                let n = LANES.min(k - l);
                // Lanes past `n` (padding) compute on their own values and are dropped.
                let values = quad::<VALUE_FIELDS>(&self.values, player as usize * w + l);
                let lanes = Fields {
                    rating: values[RATING],
                    rd: values[RD],
                    volatility: values[VOLATILITY],
                };
                let start = start_fields(quad::<1>(&self.phi_max, l)[0], &lanes, periods);
                self.put_start(index, l, n, &start, &lanes.volatility);
                l += n;
            }
        }
        periods
    }

    fn join(&mut self, step: &Step<'_>, id: PlayerId, prior: Prior) -> Result<(), ProjectError> {
        let k = self.lanes.len();
        if id.index() >= self.shared.len() {
            let from = self.shared.len();
            self.shared.resize(id.index() + 1, ABSENT);
            self.values.resize((id.index() + 1) * VALUE_FIELDS * self.width, 0.0);
            for player in from..=id.index() {
                for l in 0..k {
                    self.set_value(player, l, Glicko2Rule::UNJOINED);
                }
            }
        }
        if self.shared[id.index()].joined {
            return Ok(());
        }
        // Every lane is checked before any is written, in lane order.
        let mut joining = Vec::with_capacity(k);
        for (l, lane) in self.lanes.iter().enumerate() {
            joining.push(if self.failed[l].is_some() {
                Ok(Glicko2Rule::UNJOINED)
            } else {
                lane.common.join_values(&lane.rule, step.seq, &prior).map(|v| v.3)
            });
        }
        let live = joining.iter().enumerate().any(|(l, v)| v.is_ok() && self.failed[l].is_none());
        if !live {
            // Every lane fails here (or had failed): nothing is written.
            for (l, v) in joining.into_iter().enumerate() {
                if let Err(e) = v {
                    self.fail(l, e);
                }
            }
            return self.all_failed_error();
        }
        for (l, values) in joining.into_iter().enumerate() {
            match values {
                Ok(values) => self.set_value(id.index(), l, values),
                Err(e) => self.fail(l, e),
            }
        }
        let since = self.clock.mark(step.at, false);
        self.shared[id.index()] = Shared { since, games: 0, slot: NO_SLOT, joined: true };
        Ok(())
    }

    /// Adds one game `pair` (between slots `a` and `b`) in every lane (`add_game` on lane `l`'s
    /// slots, with lane `l`'s `home`).
    ///
    /// Four lanes at a time: the engine's `add_game` of each (Glickman's step 3 both ways, as
    /// `versus_both` computes it) with the eight exps of the four taken at once (`exp_n`, the
    /// same bits) and their eight E = 1 / (1 + e) as one run of divisions with no branch between
    /// them (IEEE 754's, whichever unit computes them), then each slot's sums added to in the
    /// engine's order.
    #[inline]
    #[allow(clippy::needless_range_loop)] // lane i of several arrays at once
    fn add_game(&mut self, pair: Pair) {
        const W: usize = LANES;
        let k = self.lanes.len();
        let w = self.width;
        let (ba, bb) = (pair.a as usize * w, pair.b as usize * w);
        let s_b = 1.0 - pair.s;
        let mut l = 0;
        while l < k {
            let n = W.min(k - l);
            // Lanes past `n` (padding) are dropped.
            let (a_mu, a_g) = {
                let a = quad::<SLOT_FIELDS>(&self.slots, ba + l);
                (a[MU], a[G])
            };
            let (b_mu, b_g) = {
                let b = quad::<SLOT_FIELDS>(&self.slots, bb + l);
                (b[MU], b[G])
            };
            let home = quad::<1>(&self.home, l)[0];
            let edge = home.map(|home| pair.h * home);
            // x[i] for a against b in lane i, x[W + i] for b against a.
            let mut x = [0.0; 2 * W];
            if edge.iter().fold(true, |all, &e| all & (e == 0.0)) {
                // No lane's edge (a game without a home seat, or no home advantage: the usual
                // case): every lane takes the unshifted locations, as the selection below
                // would, without computing the shifts' two divisions per lane.
                for i in 0..W {
                    x[i] = -b_g[i] * (a_mu[i] - b_mu[i]);
                    x[W + i] = -a_g[i] * (b_mu[i] - a_mu[i]);
                }
            } else {
                for i in 0..W {
                    // versus_both: each side against the other's location moved by the edge
                    // (Glicko2Rule::shifted's mu), selected with no branch between the lanes.
                    let shifted_b = Glicko2Rule::shift_location(b_mu[i], -edge[i]);
                    let shifted_a = Glicko2Rule::shift_location(a_mu[i], edge[i]);
                    let (b_at, a_at) =
                        if edge[i] == 0.0 { (b_mu[i], a_mu[i]) } else { (shifted_b, shifted_a) };
                    x[i] = -b_g[i] * (a_mu[i] - b_at);
                    x[W + i] = -a_g[i] * (b_mu[i] - a_at);
                }
            }
            let e = math::exp_n(x);
            let mut p = [0.0; 2 * W];
            for j in 0..2 * W {
                p[j] = 1.0 / (1.0 + e[j]);
            }
            // Acc::add's per-lane sums, its operations in its order: a's with b's g, then b's
            // with a's.
            for (block, g, p, s) in [(ba, b_g, &p[..W], pair.s), (bb, a_g, &p[W..], s_b)] {
                let slot = quad_mut::<SLOT_FIELDS>(&mut self.slots, block + l);
                let (mut info, mut gain) = (slot[INFO], slot[GAIN]);
                for i in 0..W {
                    let e = p[i];
                    info[i] += g[i] * g[i] * e * (1.0 - e);
                    gain[i] += g[i] * (s - e);
                }
                put(&mut slot[INFO], &info, n);
                put(&mut slot[GAIN], &gain, n);
            }
            l += n;
        }
        // Acc::add's count and summed result, once for every lane.
        for (slot, s) in [(pair.a, pair.s), (pair.b, 1.0 - pair.s)] {
            let shared = &mut self.slot_shared[slot as usize];
            shared.score += s;
            shared.m += 1;
        }
    }

    fn matched(&mut self, step: &Step<'_>, now: i64, seats: &[SeatIn]) -> Result<(), ProjectError> {
        if let Err(e) = check_seats(step.seq, seats, |id| self.joined(id).map(|p| p.games)) {
            return self.fail_all(e);
        }
        let before = self.last_match;
        self.last_match = Some(step.at);
        let mut seat_slots = std::mem::take(&mut self.seat_slots);
        seat_slots.clear();
        for seat in seats {
            seat_slots.push(self.touch(step.seq, seat.player.0, step.at, now));
            self.shared[seat.player.index()].games += 1;
        }
        self.made = [None; 2];
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
                    for s in 0..self.slot_shared.len() {
                        self.shared[self.slot_shared[s].player as usize].slot = NO_SLOT;
                    }
                    for seat in seats {
                        self.shared[seat.player.index()].games -= 1;
                    }
                    self.clear_slots();
                    self.games.clear();
                    self.last_match = before;
                }
                result
            }
        }
    }
}

/// How many (slot, lane) pairs closing rates at a time ([`rate_in_n`]'s width there).
const RATE: usize = 8;

/// What closing reads of a group of [`RATE`] (slot, lane) pairs (`group`, in slot and lane
/// order), from the slots' blocks of K lanes: each field four pairs at a time, four adjacent
/// lanes of one slot (every four when no lane has failed and K is a multiple of four) as one
/// vector, others lane by lane.
#[inline(always)]
fn gather(slots: &[f64], w: usize, group: &[(usize, usize); RATE]) -> RateIns<RATE> {
    let mut ins = RateIns {
        mu: [0.0; RATE],
        phi2: [0.0; RATE],
        sigma: [0.0; RATE],
        info: [0.0; RATE],
        gain: [0.0; RATE],
    };
    for (q, quad) in group.chunks_exact(LANES).enumerate() {
        let (s, l) = quad[0];
        let base = s * SLOT_FIELDS * w;
        let whole = l % LANES == 0 && quad[LANES - 1] == (s, l + LANES - 1);
        for (f, dst) in [
            (MU, &mut ins.mu),
            (PHI2, &mut ins.phi2),
            (SIGMA, &mut ins.sigma),
            (INFO, &mut ins.info),
            (GAIN, &mut ins.gain),
        ] {
            let dst = &mut dst[q * LANES..(q + 1) * LANES];
            match slots[base + place(SLOT_FIELDS, f, l)..].first_chunk::<LANES>() {
                Some(adjacent) if whole => dst.copy_from_slice(adjacent),
                _ => {
                    for (d, &(s, l)) in dst.iter_mut().zip(quad) {
                        *d = slots[s * SLOT_FIELDS * w + place(SLOT_FIELDS, f, l)];
                    }
                }
            }
        }
    }
    ins
}

/// What closing reads of [`RATE`] / 4 whole quads of (slot, lane) pairs that are adjacent in
/// the slots' blocks (`src`, from the first quad's block: quad `q`'s field `f` at `q *
/// SLOT_FIELDS * LANES + f * LANES`): [`gather`] of those pairs, each field's four lanes of a
/// quad read as one vector (`gather_quads_is_gather_of_whole_quads`).
#[inline(always)]
fn gather_quads(src: &[f64]) -> RateIns<RATE> {
    // Its length known, the indices below need no checks.
    let src = &src[..RATE * SLOT_FIELDS];
    let field = |f: usize| -> [f64; RATE] {
        std::array::from_fn(|i| src[(i / LANES) * SLOT_FIELDS * LANES + f * LANES + i % LANES])
    };
    RateIns {
        mu: field(MU),
        phi2: field(PHI2),
        sigma: field(SIGMA),
        info: field(INFO),
        gain: field(GAIN),
    }
}

/// The constants closing reads of a group of [`RATE`] (slot, lane) pairs (`group`), lane by
/// lane from `rate_consts` (a lane's quad's, its place in it).
#[inline(always)]
fn consts_of_pairs(
    rate_consts: &[RateConsts<LANES>],
    group: &[(usize, usize); RATE],
) -> RateConsts<RATE> {
    let field = |f: fn(&RateConsts<LANES>) -> &[f64; LANES]| {
        group.map(|(_, l)| f(&rate_consts[l / LANES])[l % LANES])
    };
    RateConsts {
        tau: field(|c| &c.tau),
        inv_tau2: field(|c| &c.inv_tau2),
        exp_neg_tau: field(|c| &c.exp_neg_tau),
        epsilon: field(|c| &c.epsilon),
        phi_max: field(|c| &c.phi_max),
        rd_max: field(|c| &c.rd_max),
    }
}

// A group of RATE pairs is two quads (`consts_of_quads`).
const _: () = assert!(RATE == 2 * LANES);

/// [`consts_of_pairs`] of a group that is two whole quads of adjacent lanes from lane `l` (a
/// multiple of four) of K = `k` (a multiple of four), the second quad the next slot's first
/// when the first ends the slot: the two quads' constants copied whole
/// (`consts_of_quads_is_consts_of_pairs`).
#[inline(always)]
fn consts_of_quads(rate_consts: &[RateConsts<LANES>], l: usize, k: usize) -> RateConsts<RATE> {
    let q = l / LANES;
    let next = if l + LANES == k { 0 } else { q + 1 };
    join_quads(&rate_consts[q], &rate_consts[next])
}

/// The constants of two quads of lanes side by side, `a`'s four then `b`'s.
#[inline(always)]
fn join_quads(a: &RateConsts<LANES>, b: &RateConsts<LANES>) -> RateConsts<RATE> {
    let join = |x: &[f64; LANES], y: &[f64; LANES]| -> [f64; RATE] {
        std::array::from_fn(|i| if i < LANES { x[i] } else { y[i - LANES] })
    };
    RateConsts {
        tau: join(&a.tau, &b.tau),
        inv_tau2: join(&a.inv_tau2, &b.inv_tau2),
        exp_neg_tau: join(&a.exp_neg_tau, &b.exp_neg_tau),
        epsilon: join(&a.epsilon, &b.epsilon),
        phi_max: join(&a.phi_max, &b.phi_max),
        rd_max: join(&a.rd_max, &b.rd_max),
    }
}

/// One prefetch hint per 64-byte line that `block` spans, and its last.
#[inline]
fn prefetch_block(block: &[f64]) {
    let mut i = 0;
    while i < block.len() {
        ladder_projector::prefetch(&block[i]);
        i += 64 / std::mem::size_of::<f64>();
    }
    if let Some(last) = block.last() {
        ladder_projector::prefetch(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `gather` reads every pair's fields from the pair's own place in the slots' blocks (each
    /// number there is its own index, so a wrong place shows), whatever the group's shape: four
    /// adjacent lanes of one slot (read as one vector), groups running on into the next slot,
    /// lanes left out (failed lanes), a last group whose places past its pairs repeat its first,
    /// for K from 1 to 10.
    #[test]
    fn gather_reads_each_pairs_fields_whatever_the_groups_shape() {
        const SLOTS: usize = 5;
        let mut groups = 0;
        for k in 1..=10usize {
            let w = k.next_multiple_of(LANES);
            let slots: Vec<f64> = (0..SLOTS * SLOT_FIELDS * w).map(|i| i as f64).collect();
            for gap in 0..4 {
                let pairs: Vec<(usize, usize)> = (0..SLOTS)
                    .flat_map(|s| (0..k).map(move |l| (s, l)))
                    .filter(|&(s, l)| gap == 0 || (s * k + l) % (gap + 1) != 0)
                    .collect();
                let mut shapes: Vec<[(usize, usize); RATE]> =
                    pairs.windows(RATE).map(|w| std::array::from_fn(|i| w[i])).collect();
                for n in 1..RATE.min(pairs.len()) {
                    let mut group: [(usize, usize); RATE] = [pairs[pairs.len() - n]; RATE];
                    group[..n].copy_from_slice(&pairs[pairs.len() - n..]);
                    shapes.push(group);
                }
                for group in shapes {
                    let ins = gather(&slots, w, &group);
                    for (i, &(s, l)) in group.iter().enumerate() {
                        // Lane l's place: its quad's block of four lanes, field f in it.
                        let at = |f: usize| {
                            (s * SLOT_FIELDS * w + (l / 4) * SLOT_FIELDS * 4 + f * 4 + l % 4) as f64
                        };
                        assert_eq!(
                            [ins.mu[i], ins.phi2[i], ins.sigma[i], ins.info[i], ins.gain[i]],
                            [at(MU), at(PHI2), at(SIGMA), at(INFO), at(GAIN)],
                            "K {k}, group {group:?}, pair {i}"
                        );
                    }
                    groups += 1;
                }
            }
        }
        assert!(groups > 500, "{groups} groups");
    }

    /// `gather_quads` of the blocks from group `g`'s first quad is `gather` of that group's
    /// pairs, for every K that is a multiple of four (1 to 4 quads a slot) and every whole
    /// group of the slots' pairs in slot and lane order (each number in the blocks is its own
    /// index, so a wrong place shows): the usual case of closing reads what the general one
    /// reads.
    #[test]
    fn gather_quads_is_gather_of_whole_quads() {
        const SLOTS: usize = 13;
        let mut groups = 0;
        for k in [4, 8, 12, 16] {
            let slots: Vec<f64> = (0..SLOTS * SLOT_FIELDS * k).map(|i| i as f64).collect();
            let pairs: Vec<(usize, usize)> =
                (0..SLOTS).flat_map(|s| (0..k).map(move |l| (s, l))).collect();
            for (g, group) in pairs.chunks_exact(RATE).enumerate() {
                let group: [(usize, usize); RATE] = std::array::from_fn(|i| group[i]);
                let src = &slots[g * RATE * SLOT_FIELDS..];
                let (quads, pairs) = (gather_quads(src), gather(&slots, k, &group));
                for (a, b) in [
                    (quads.mu, pairs.mu),
                    (quads.phi2, pairs.phi2),
                    (quads.sigma, pairs.sigma),
                    (quads.info, pairs.info),
                    (quads.gain, pairs.gain),
                ] {
                    assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "K {k}, group {g}");
                }
                groups += 1;
            }
        }
        assert!(groups > 50, "{groups} groups");
    }

    /// `consts_of_quads` from each whole group's first lane is `consts_of_pairs` of the group's
    /// pairs, for every K that is a multiple of four (1 to 4 quads a slot) and every whole group
    /// of 13 slots' pairs in slot and lane order (each constant a number of its own, so a wrong
    /// lane shows): the usual case of closing reads the constants the general one reads.
    #[test]
    fn consts_of_quads_is_consts_of_pairs() {
        let mut groups = 0;
        for k in [4, 8, 12, 16] {
            let rate_consts: Vec<RateConsts<LANES>> = (0..k / LANES)
                .map(|q| {
                    let lane = |f: usize| -> [f64; LANES] {
                        std::array::from_fn(|i| (f * 100 + q * LANES + i) as f64)
                    };
                    RateConsts {
                        tau: lane(0),
                        inv_tau2: lane(1),
                        exp_neg_tau: lane(2),
                        epsilon: lane(3),
                        phi_max: lane(4),
                        rd_max: lane(5),
                    }
                })
                .collect();
            let pairs: Vec<(usize, usize)> =
                (0..13).flat_map(|s| (0..k).map(move |l| (s, l))).collect();
            for group in pairs.chunks_exact(RATE) {
                let group: [(usize, usize); RATE] = std::array::from_fn(|i| group[i]);
                let (quads, pairs) = (
                    consts_of_quads(&rate_consts, group[0].1, k),
                    consts_of_pairs(&rate_consts, &group),
                );
                for (a, b) in [
                    (quads.tau, pairs.tau),
                    (quads.inv_tau2, pairs.inv_tau2),
                    (quads.exp_neg_tau, pairs.exp_neg_tau),
                    (quads.epsilon, pairs.epsilon),
                    (quads.phi_max, pairs.phi_max),
                    (quads.rd_max, pairs.rd_max),
                ] {
                    assert_eq!(a, b, "K {k}, group {group:?}");
                }
                // Each lane's own constants.
                assert_eq!(pairs.tau, group.map(|(_, l)| l as f64), "K {k}, group {group:?}");
                groups += 1;
            }
        }
        assert!(groups > 50, "{groups} groups");
    }

    /// `store` and `put` of every width from 1 to four: the first `n` lanes are written,
    /// nothing past them.
    #[test]
    fn store_and_put_take_exactly_n_lanes() {
        for n in 1..=LANES {
            let v: [f64; LANES] = std::array::from_fn(|i| 7.0 + i as f64);
            let mut dst = vec![-1.0; 2 * LANES];
            store(&mut dst, &v, n);
            let want: Vec<f64> =
                (0..2 * LANES).map(|i| if i < n { 7.0 + i as f64 } else { -1.0 }).collect();
            assert_eq!(dst, want, "store of {n}");
            let mut dst = [-1.0; LANES];
            put(&mut dst, &v, n);
            assert_eq!(dst[..], want[..LANES], "put of {n}");
        }
    }

    /// `quad` and `quad_mut` of block `b`'s lanes `l..l + 4` are the places `place` gives for
    /// each field of those lanes (each number in the blocks is its own index, so a wrong place
    /// shows), for blocks of 1, 3 and 6 fields of 4 to 12 lanes.
    #[test]
    fn quad_is_each_fields_four_lanes_in_place() {
        fn check<const F: usize>() -> usize {
            let mut quads = 0;
            for w in [4, 8, 12] {
                let mut blocks: Vec<f64> = (0..5 * F * w).map(|i| i as f64).collect();
                for b in 0..5 {
                    for l in (0..w).step_by(LANES) {
                        let want: [[f64; LANES]; F] = std::array::from_fn(|f| {
                            std::array::from_fn(|i| (b * F * w + place(F, f, l + i)) as f64)
                        });
                        assert_eq!(*quad::<F>(&blocks, b * w + l), want, "F {F}, w {w}, {b} {l}");
                        assert_eq!(*quad_mut::<F>(&mut blocks, b * w + l), want);
                        quads += 1;
                    }
                }
            }
            quads
        }
        assert_eq!(check::<1>() + check::<VALUE_FIELDS>() + check::<SLOT_FIELDS>(), 3 * 5 * 6);
    }
}
