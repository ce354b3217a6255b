//! Glicko-1, seed 001 ("Classic Glicko system"), with the rating periods of
//! `../shared/CONTRACT.md` section 3.
//!
//! A player's state is `(r, RD)` after their last rated period, and the instant of their last game
//! or join. When they next play in period `k`, step 1 grows RD over the `t` period boundaries
//! crossed since then: `RD* = min(sqrt(RD^2 + c^2 t), rd_max)`, so a player who joins and plays in
//! one period has `t = 0` and Glickman's worked example comes out exactly. Every game of the
//! period is rated from the values at the period's start (opponents enter with their RD*), and
//! step 2 runs once per player when the period closes.

use crate::clock::{check_rd, Clock, Cursor};
use crate::LONG_IDLE_PERIODS;
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, math, Config, ConfigError, Input, ParamKind, ParamSpec, Period, PlayerId,
    ProjectError, ProjectErrorKind, Projector, SeatIn, Standing, Step, Trace,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::{LN_10, PI};

/// The contract's name of the algorithm.
pub const ALGORITHM: &str = "glicko";

/// Seed 001, step 2: `q = ln(10) / 400`.
pub const Q: f64 = LN_10 / 400.0;

/// The documented default of `c`, chosen with the default `period` (5 days) by the procedure of
/// docs/real-ladders.md: on the first 70% of two real ladders (ATP tour-level tennis and
/// international football), the grid point whose log loss is nearest each ladder's best (the
/// smallest worse-of-the-two regret). The seed's own example, c = 34.64 (RD 50 back to 350 in 100
/// periods), assumes a live ladder with games every day; with periods of days it lets RD climb
/// back between weekly games (docs/algorithms/glicko.md).
pub const DEFAULT_C: f64 = 6.0;

/// The documented default of `period`, chosen with [`DEFAULT_C`].
pub const DEFAULT_PERIOD: &str = "5d";

/// The constants of `glicko` (`../shared/CONTRACT.md` section 3), with defaults and ranges.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "c",
        kind: ParamKind::at_least(0.0),
        default: "6",
        doc:
            "RD growth per idle period, RD* = min(sqrt(RD^2 + c^2 t), rd_max) (seed 001, step 1); \
              the default was chosen with period=5d on real ladders (docs/real-ladders.md)",
        warn_below: None,
    },
    ParamSpec {
        key: "period",
        kind: ParamKind::Period,
        default: DEFAULT_PERIOD,
        doc: "rating period: a duration P (periods [epoch + kP, epoch + (k+1)P)) or `game` \
              (each match rated at once)",
        warn_below: None,
    },
    ParamSpec {
        key: "idle",
        kind: ParamKind::Duration,
        default: "1d",
        doc: "with period=game, the time worth one period of growth: t = elapsed / idle",
        warn_below: None,
    },
    ParamSpec {
        key: "rd_max",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "cap on RD*, the RD of an unrated player (seed 001, step 1: min(..., 350))",
        warn_below: None,
    },
    ParamSpec {
        key: "provisional_rd",
        kind: ParamKind::above(0.0),
        default: "100",
        doc: "a player whose RD is above this is provisional: left off the leaderboard (as \
              TGR's provisional_rd; docs/algorithms explains the default)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rating",
        kind: ParamKind::any(),
        default: "1500",
        doc: "rating of a player who joins without a prior (seed 001)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rd",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "RD of a player who joins without a prior (seed 001); at most rd_max",
        warn_below: None,
    },
];

const NO_SLOT: u32 = u32::MAX;

/// One player's values. Invariant for joined players: `rating` finite, `rd` in (0, rd_max].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PlayerState {
    /// r after the last rated period (or the prior).
    rating: f64,
    /// RD after the last rated period (or the prior), before any idle growth.
    rd: f64,
    /// Where idle growth counts from ([`Clock::mark`]): the period of the last game or join, or
    /// with `period=game` its instant.
    since: i64,
    /// MatchResults sat in.
    games: u32,
    /// Index into the open period's slots, or `NO_SLOT`.
    slot: u32,
}

impl PlayerState {
    /// Whether the player joined: RD is positive for every joined player, and the
    /// record of one who has not is all zeros (so the record needs no flag of its own).
    #[inline]
    fn is_joined(&self) -> bool {
        self.rd > 0.0
    }
}

const UNJOINED: PlayerState =
    PlayerState { rating: 0.0, rd: 0.0, since: 0, games: 0, slot: NO_SLOT };

/// A player's values at the start of the open period, computed when they first play in it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Slot {
    player: u32,
    /// r at the period's start.
    rating: f64,
    /// RD*^2 (seed 001, step 1), squared as step 2 uses it.
    rd2: f64,
    /// g(RD*), what opponents see of this player (seed 001, step 2).
    g: f64,
    /// The t of RD*.
    t: f64,
    /// Whether RD* hit rd_max.
    capped: bool,
    /// The period's sums so far: each game adds to both slots as it arrives.
    sums: Acc,
}

/// One game of the open period: slot `a` against slot `b`, `s` being a's result (1, 0.5, 0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Pair {
    a: u32,
    b: u32,
    s: f64,
}

/// Everything a checkpoint must keep: the players' values and the open period's games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GlickoState {
    players: Vec<PlayerState>,
    /// The index of the open period (periodic mode), if it holds games.
    open: Option<i64>,
    /// The instant of the last MatchResult applied: its period is the last one of the replay.
    last_match: Option<Timestamp>,
    slots: Vec<Slot>,
    pairs: Vec<Pair>,
}

/// Per-slot sums of seed 001, step 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Acc {
    /// Σ g(RD_j)^2 E (1 - E)
    info: f64,
    /// Σ g(RD_j) (s_j - E)
    gain: f64,
    /// Σ s_j and the number of games m, for the `winner-lost-rating` flag.
    score: f64,
    m: u32,
}

impl Acc {
    #[inline]
    fn add(&mut self, g: f64, e: f64, s: f64) {
        self.info += g * g * e * (1.0 - e);
        self.gain += g * (s - e);
        self.score += s;
        self.m += 1;
    }
}

/// Reused buffers (not state).
#[derive(Clone, Debug, Default)]
struct Scratch {
    out: Vec<(f64, f64)>,
    seat_slots: Vec<u32>,
}

/// The constants in the form the arithmetic uses.
#[derive(Clone, Copy, Debug)]
struct Params {
    c2: f64,
    rd_max: f64,
    initial_rating: f64,
    initial_rd: f64,
    clock: Clock,
}

/// The Glicko-1 projector (`--algo glicko`).
///
/// Invariants: every joined player's rating is finite and RD is in (0, rd_max]; the state changes
/// only when a step succeeds.
#[derive(Clone, Debug)]
pub struct Glicko {
    config: Config,
    params: Params,
    state: GlickoState,
    scratch: Scratch,
    cursor: Cursor,
}

/// Seed 001, step 2: `g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)`.
#[inline]
pub fn g(rd: f64) -> f64 {
    g_of_square(rd * rd)
}

/// `3 q^2 / pi^2`, the constant of g.
const G_K: f64 = 3.0 * Q * Q / (PI * PI);

/// g of a deviation given its square `RD^2` (seed 001, step 2), so RD* need not be rooted.
#[inline]
fn g_of_square(rd2: f64) -> f64 {
    1.0 / (1.0 + G_K * rd2).sqrt()
}

/// Seed 001, step 2: `E(r, r_j, RD_j) = 1 / (1 + e^(-g(RD_j) q (r - r_j)))`, given `g(RD_j)`.
#[inline]
pub fn expected(r: f64, r_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + math::exp(-g_j * Q * (r - r_j)))
}

/// Seed 001, step 1 squared: `RD*^2 = min(RD^2 + c^2 t, rd_max^2)`, and whether the cap applied.
#[inline]
fn rd_star_squared(rd: f64, t: f64, c2: f64, rd_max: f64) -> (f64, bool) {
    // t = 0 (or c = 0) leaves RD as it is (even where c^2 overflows and 0 * inf would be NaN).
    let grown = if t == 0.0 || c2 == 0.0 { rd * rd } else { rd * rd + c2 * t };
    if grown >= rd_max * rd_max {
        (rd_max * rd_max, true)
    } else {
        (grown, false)
    }
}

/// Seed 001, step 1: `RD* = min(sqrt(RD^2 + c^2 t), rd_max)`, and whether the cap applied.
/// With `t = 0` (or `c = 0`) RD is returned unchanged, not as `sqrt(RD^2)`.
#[inline]
fn rd_star(rd: f64, t: f64, c2: f64, rd_max: f64) -> (f64, bool) {
    let grown = if t == 0.0 || c2 == 0.0 { rd } else { (rd * rd + c2 * t).sqrt() };
    if grown >= rd_max {
        (rd_max, true)
    } else {
        (grown, false)
    }
}

pub(crate) use ladder_projector::outcome;

impl Glicko {
    /// A projector with a configuration built from [`PARAMS`]. Refuses `initial_rd > rd_max`
    /// (RD is always in (0, rd_max]) and configurations of another algorithm.
    pub fn new(config: Config) -> Result<Glicko, ConfigError> {
        Glicko::from_state(config, GlickoState::default())
    }

    /// Builds the configuration from `KEY=VALUE` pairs and the projector from it.
    pub fn configure(sets: &[(String, String)]) -> Result<Glicko, ConfigError> {
        Glicko::new(Config::new(ALGORITHM, PARAMS, sets)?)
    }

    /// Resumes from a checkpointed state (see [`Glicko::state`]). The state must have been taken
    /// from a projector with the same configuration; one whose indices do not fit is refused.
    pub fn from_state(config: Config, state: GlickoState) -> Result<Glicko, ConfigError> {
        config.check(ALGORITHM, PARAMS)?;
        check_rd(ALGORITHM, &config)?;
        let params = Params {
            c2: config.number("c") * config.number("c"),
            rd_max: config.number("rd_max"),
            initial_rating: config.number("initial_rating"),
            initial_rd: config.number("initial_rd"),
            clock: Clock::from_config(&config),
        };
        let n = state.players.len();
        let slots_fit = state.slots.iter().enumerate().all(|(i, s)| {
            (s.player as usize) < n && state.players[s.player as usize].slot as usize == i
        });
        let pairs_fit = state
            .pairs
            .iter()
            .all(|p| (p.a as usize) < state.slots.len() && (p.b as usize) < state.slots.len());
        if !slots_fit || !pairs_fit {
            return Err(ConfigError::Inconsistent {
                algorithm: ALGORITHM,
                message: "the checkpoint's open period does not fit its players".into(),
            });
        }
        Ok(Glicko { config, params, state, scratch: Scratch::default(), cursor: Cursor::default() })
    }

    /// The state, for checkpoints.
    pub fn state(&self) -> &GlickoState {
        &self.state
    }

    /// Closes the open period in place, as the end of a replay does on the side in
    /// [`Projector::standings`], but reporting an arithmetic failure (as an error at step `seq`)
    /// instead of falling back. Afterwards `standings()` is unchanged.
    pub fn finish(&mut self, seq: u64, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        if self.state.open.is_some() {
            self.close(seq, trace)?;
        }
        Ok(())
    }

    fn close(&mut self, seq: u64, mut trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        if let Some(t) = trace.as_deref_mut() {
            t.section(self.params.clock.period_title(ALGORITHM, self.state.open.unwrap_or(0)));
        }
        let since = self.since_closing();
        let Scratch { out, .. } = &mut self.scratch;
        compute_period(&self.params, &self.state.slots, &self.state.pairs, out, trace)
            .map_err(|kind| ProjectError::new(seq, kind))?;
        for (slot, &(rating, rd)) in self.state.slots.iter().zip(out.iter()) {
            let p = &mut self.state.players[slot.player as usize];
            p.rating = rating;
            p.rd = rd;
            p.since = since;
            p.slot = NO_SLOT;
        }
        self.state.slots.clear();
        self.state.pairs.clear();
        self.state.open = None;
        Ok(())
    }

    /// The idle mark of every player of the open period once it closes: the period itself, or
    /// with period=game this match.
    fn since_closing(&self) -> i64 {
        match self.params.clock.period {
            Period::Every(_) => self.state.open.unwrap_or(0),
            Period::Game => self.state.last_match.map_or(0, |at| at.0),
        }
    }

    /// The slot of `player` in the open period (the step is at `at`, in period `now`), creating
    /// it with the values at the period's start.
    #[inline]
    fn touch(&mut self, player: u32, at: Timestamp, now: i64) -> u32 {
        let p = &mut self.state.players[player as usize];
        if p.slot != NO_SLOT {
            return p.slot;
        }
        let slot = entry(&self.params, p, player, at, now);
        let index = self.state.slots.len() as u32;
        p.slot = index;
        self.state.slots.push(slot);
        index
    }

    /// A two-seat match on two sides with period=game, untraced: the one-match period computed
    /// directly, without the period's buffers. The same arithmetic in the same order as
    /// [`compute_period`] ([`entry`], [`add_game`], [`rate`]), so the result is bit-identical to
    /// the general path (a test checks it).
    #[inline]
    fn match_of_two(
        &mut self,
        step: &Step<'_>,
        x: &SeatIn,
        y: &SeatIn,
    ) -> Result<(), ProjectError> {
        let (i, j) = (x.player.index(), y.player.index());
        let params = &self.params;
        let (pa, pb) = (&self.state.players[i], &self.state.players[j]);
        let (mut a, mut b) =
            (entry(params, pa, x.player.0, step.at, 0), entry(params, pb, y.player.0, step.at, 0));
        let s = outcome(x.score, y.score);
        // add_game on the two slots, without the slice: the same sums in the same order.
        let (e_ab, e_ba) = (expected(a.rating, b.rating, b.g), expected(b.rating, a.rating, a.g));
        a.sums.add(b.g, e_ab, s);
        b.sums.add(a.g, e_ba, 1.0 - s);
        let fail = |kind| ProjectError::new(step.seq, kind);
        let (ra, rda) = rate(params, &a, &a.sums).map_err(fail)?;
        let (rb, rdb) = rate(params, &b, &b.sums).map_err(fail)?;
        let since = params.clock.mark(step.at, false);
        for (k, rating, rd) in [(i, ra, rda), (j, rb, rdb)] {
            let p = &mut self.state.players[k];
            p.rating = rating;
            p.rd = rd;
            p.since = since;
            p.games += 1;
        }
        self.state.last_match = Some(step.at);
        Ok(())
    }

    fn joined(
        &mut self,
        step: &Step<'_>,
        id: PlayerId,
        prior: Prior,
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let i = id.index();
        if i >= self.state.players.len() {
            self.state.players.resize(i + 1, UNJOINED);
        }
        if self.state.players[i].is_joined() {
            // The log refuses a second join; a replay that sees one keeps the first.
            return Ok(());
        }
        let bad = |quantity, detail: &str| {
            ProjectError::new(
                step.seq,
                ProjectErrorKind::NonFinite { quantity, detail: detail.to_string() },
            )
        };
        let rating = prior.rating.unwrap_or(self.params.initial_rating);
        if !rating.is_finite() {
            return Err(bad("r", "the prior rating is not a finite number"));
        }
        let asked = prior.rd.unwrap_or(self.params.initial_rd);
        if !(asked.is_finite() && asked > 0.0) {
            return Err(bad("RD", "the prior RD is not a positive finite number"));
        }
        let rd = asked.min(self.params.rd_max);
        let since = self.params.clock.mark(step.at, false);
        self.state.players[i] = PlayerState { rating, rd, since, games: 0, slot: NO_SLOT };
        if let Some(t) = trace {
            t.section(format!("{ALGORITHM} PlayerJoined #{}", id.0));
            t.quantity(Some(id), "r", "prior.rating, else initial_rating", rating);
            t.quantity(Some(id), "RD", "min(prior.rd, else initial_rd; rd_max)", rd);
            if rd < asked {
                t.flag(
                    Some(id),
                    "rd-at-cap",
                    format!("prior RD {asked} is above rd_max and starts at {rd}"),
                );
            }
        }
        Ok(())
    }

    fn matched(
        &mut self,
        step: &Step<'_>,
        now: i64,
        seats: &[SeatIn],
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        check_seats(step.seq, seats, |id| {
            self.state.players.get(id.index()).filter(|p| p.is_joined()).map(|p| p.games)
        })?;
        if let (None, [x, y]) = (&trace, seats) {
            if x.side != y.side && x.player != y.player {
                if self.params.clock.period == Period::Game {
                    return self.match_of_two(step, x, y);
                }
                // The general path below without its loops: two slots, one game.
                let a = self.touch(x.player.0, step.at, now);
                let b = self.touch(y.player.0, step.at, now);
                self.state.players[x.player.index()].games += 1;
                self.state.players[y.player.index()].games += 1;
                let pair = Pair { a, b, s: outcome(x.score, y.score) };
                add_game(&mut self.state.slots, pair);
                self.state.pairs.push(pair);
                self.state.last_match = Some(step.at);
                self.state.open = Some(now);
                return Ok(());
            }
        }
        let before = self.state.last_match;
        self.state.last_match = Some(step.at);
        let mut seat_slots = std::mem::take(&mut self.scratch.seat_slots);
        seat_slots.clear();
        for seat in seats {
            seat_slots.push(self.touch(seat.player.0, step.at, now));
            self.state.players[seat.player.index()].games += 1;
        }
        // Contract section 1: every pair of seats on different sides is one game, in seat order.
        for (i, x) in seats.iter().enumerate() {
            for (j, y) in seats.iter().enumerate().skip(i + 1) {
                if x.side != y.side {
                    let (a, b) = (seat_slots[i], seat_slots[j]);
                    let pair = Pair { a, b, s: outcome(x.score, y.score) };
                    add_game(&mut self.state.slots, pair);
                    self.state.pairs.push(pair);
                }
            }
        }
        self.scratch.seat_slots = seat_slots;
        match self.params.clock.period {
            Period::Every(_) => {
                self.state.open = Some(now);
                if let Some(t) = trace {
                    t.section(format!(
                        "{ALGORITHM} match: rated when period {now} closes; {}",
                        self.params.clock.period_title(ALGORITHM, now)
                    ));
                }
                Ok(())
            }
            Period::Game => {
                let result = self.close(step.seq, trace);
                if result.is_err() {
                    // Undo this match so the state is as it was before the step.
                    for slot in &self.state.slots {
                        self.state.players[slot.player as usize].slot = NO_SLOT;
                    }
                    for seat in seats {
                        self.state.players[seat.player.index()].games -= 1;
                    }
                    self.state.slots.clear();
                    self.state.pairs.clear();
                    self.state.last_match = before;
                }
                result
            }
        }
    }

    /// The open period computed on the side, per slot; `None` when there is none or it fails
    /// (a failure is reported by [`Projector::settle`], which drivers call at the end).
    fn closed_on_the_side(&self) -> Option<Vec<(f64, f64)>> {
        self.close_on_the_side().ok().flatten()
    }

    /// The open period computed on the side, per slot (`None` when there is none), or why its
    /// arithmetic fails.
    fn close_on_the_side(&self) -> Result<Option<Vec<(f64, f64)>>, ProjectErrorKind> {
        if self.state.slots.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        compute_period(&self.params, &self.state.slots, &self.state.pairs, &mut out, None)?;
        Ok(Some(out))
    }

    /// `(r, RD, idle mark)` of a player once the open period is closed (using `closed` when given).
    fn settled(&self, p: &PlayerState, closed: Option<&[(f64, f64)]>) -> (f64, f64, i64) {
        match closed {
            Some(out) if p.slot != NO_SLOT => {
                let (r, rd) = out[p.slot as usize];
                (r, rd, self.since_closing())
            }
            _ => (p.rating, p.rd, p.since),
        }
    }

    /// `(r, RD*)` with which `player` would enter a game at `at`.
    fn entering(
        &self,
        player: PlayerId,
        at: Timestamp,
        closed: &mut Option<Option<Vec<(f64, f64)>>>,
    ) -> (f64, f64) {
        let params = &self.params;
        let Some(p) = self.state.players.get(player.index()).filter(|p| p.is_joined()) else {
            return (params.initial_rating, params.initial_rd);
        };
        let (r, rd, since) = match params.clock.period {
            Period::Every(_) if p.slot != NO_SLOT => {
                let slot = &self.state.slots[p.slot as usize];
                if Some(params.clock.index(at)) <= self.state.open {
                    return (slot.rating, slot.rd2.sqrt());
                }
                let side = closed.get_or_insert_with(|| self.closed_on_the_side());
                self.settled(p, side.as_deref())
            }
            _ => (p.rating, p.rd, p.since),
        };
        let t = params.clock.idle_since(since, at, params.clock.index(at));
        (r, rd_star(rd, t, params.c2, params.rd_max).0)
    }
}

/// Seed 001, step 2's sums for one game of the open period, added to both slots as it arrives:
/// each side sees the other's values at the period's start (RD*), known once both slots exist.
#[inline]
fn add_game(slots: &mut [Slot], pair: Pair) {
    let (a, b) = (slots[pair.a as usize], slots[pair.b as usize]);
    // Seed 001, step 2: E(r, r_j, RD_j), each side seeing the other's RD*.
    let e_ab = expected(a.rating, b.rating, b.g);
    let e_ba = expected(b.rating, a.rating, a.g);
    slots[pair.a as usize].sums.add(b.g, e_ab, pair.s);
    slots[pair.b as usize].sums.add(a.g, e_ba, 1.0 - pair.s);
}

/// A player's values at the start of a period (the step is at `at`, in period `now`).
#[inline]
fn entry(params: &Params, p: &PlayerState, player: u32, at: Timestamp, now: i64) -> Slot {
    // Contract section 3: t = period boundaries crossed since the last game or join, or with
    // period=game the fractional time since then in `idle` units.
    let t = params.clock.idle_since(p.since, at, now);
    // Seed 001, step 1: RD* = min(sqrt(RD^2 + c^2 t), 350)
    let (rd2, capped) = rd_star_squared(p.rd, t, params.c2, params.rd_max);
    Slot { player, rating: p.rating, rd2, g: g_of_square(rd2), t, capped, sums: Acc::default() }
}

/// Seed 001, step 2 for every slot of a period: fills `out` with `(r', RD')` per slot, or fails
/// naming the quantity. Writes nothing else.
fn compute_period(
    params: &Params,
    slots: &[Slot],
    pairs: &[Pair],
    out: &mut Vec<(f64, f64)>,
    mut trace: Option<&mut Trace>,
) -> Result<(), ProjectErrorKind> {
    out.clear();
    for (i, slot) in slots.iter().enumerate() {
        let sums = &slot.sums;
        let (r_new, rd_new) = rate(params, slot, sums)?;
        out.push((r_new, rd_new));
        if let Some(t) = trace.as_deref_mut() {
            trace_slot(t, slots, pairs, i, sums, Q * Q * sums.info, r_new, rd_new);
        }
    }
    Ok(())
}

/// Seed 001, step 2 for one player: `(r', RD')` from the values at the period's start and the
/// period's sums, or the quantity that is not finite.
#[inline]
fn rate(params: &Params, slot: &Slot, sums: &Acc) -> Result<(f64, f64), ProjectErrorKind> {
    // Seed 001, step 2: 1/d^2 = q^2 Σ g(RD_j)^2 E (1 - E)
    let inv_d2 = Q * Q * sums.info;
    // Seed 001, step 2: 1/RD'^2 = 1/RD*^2 + 1/d^2
    // (as RD*^2 / (1 + RD*^2 / d^2): one division instead of two)
    let rd_new2 = slot.rd2 / (1.0 + slot.rd2 * inv_d2);
    let rd_new = rd_new2.sqrt();
    // Seed 001, step 2: r' = r + q RD'^2 Σ g(RD_j) (s_j - E)
    let r_new = slot.rating + Q * rd_new2 * sums.gain;
    let fail = |quantity, why: &str| {
        Err(ProjectErrorKind::NonFinite {
            quantity,
            detail: format!("player #{}: {why}", slot.player),
        })
    };
    if !(rd_new.is_finite() && rd_new > 0.0) {
        return fail("RD'", "1/RD*^2 + 1/d^2 is not a positive finite number");
    }
    if !r_new.is_finite() {
        return fail("r'", "r + q RD'^2 Σ g (s - E) overflowed");
    }
    Ok((r_new, rd_new.min(params.rd_max)))
}

#[allow(clippy::too_many_arguments)]
fn trace_slot(
    t: &mut Trace,
    slots: &[Slot],
    pairs: &[Pair],
    i: usize,
    sums: &Acc,
    inv_d2: f64,
    r_new: f64,
    rd_new: f64,
) {
    let slot = &slots[i];
    let who = Some(PlayerId(slot.player));
    t.quantity(who, "r", "rating at the period's start", slot.rating);
    t.quantity(who, "t", "period boundaries (or idle units) since the last game or join", slot.t);
    t.quantity(who, "RD*", "min(sqrt(RD^2 + c^2 t), rd_max)", slot.rd2.sqrt());
    if slot.capped {
        t.flag(who, "rd-at-cap", format!("RD* reached rd_max = {}", slot.rd2.sqrt()));
    }
    if slot.t >= LONG_IDLE_PERIODS {
        t.flag(who, "long-idle-gap", format!("{} periods without a game", slot.t));
    }
    for pair in pairs {
        let (opp, s) = if pair.a as usize == i {
            (&slots[pair.b as usize], pair.s)
        } else if pair.b as usize == i {
            (&slots[pair.a as usize], 1.0 - pair.s)
        } else {
            continue;
        };
        t.opponent(who, PlayerId(opp.player));
        t.quantity(who, "r_j", "opponent's rating at the period's start", opp.rating);
        t.quantity(who, "RD_j", "opponent's RD*", opp.rd2.sqrt());
        t.quantity(who, "g(RD_j)", "1 / sqrt(1 + 3 q^2 RD_j^2 / pi^2)", opp.g);
        t.quantity(
            who,
            "E",
            "1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))",
            expected(slot.rating, opp.rating, opp.g),
        );
        t.quantity(who, "s_j", "1 win, 0.5 draw, 0 loss (scores compared)", s);
    }
    t.quantity(who, "q", "ln(10) / 400", Q);
    t.quantity(who, "Σ g^2 E (1-E)", "Σ over the games above of g(RD_j)^2 E (1 - E)", sums.info);
    t.quantity(who, "Σ g (s-E)", "Σ over the games above of g(RD_j) (s_j - E)", sums.gain);
    t.quantity(who, "d^2", "1 / (q^2 Σ g(RD_j)^2 E (1 - E))", 1.0 / inv_d2);
    t.quantity(who, "RD'", "1 / sqrt(1/RD*^2 + 1/d^2)", rd_new);
    t.quantity(who, "r'", "r + q RD'^2 Σ g(RD_j) (s_j - E)", r_new);
    if sums.score > f64::from(sums.m) / 2.0 && r_new < slot.rating {
        t.flag(
            who,
            "winner-lost-rating",
            format!("scored {} of {} but the rating fell", sums.score, sums.m),
        );
    }
}

impl Projector for Glicko {
    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(
        &mut self,
        step: &Step<'_>,
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let now = self.cursor.index(&self.params.clock, step.at);
        if let Some(open) = self.state.open {
            if now > open {
                self.close(step.seq, trace.as_deref_mut())?;
            }
        }
        match step.input {
            Input::Joined { player, prior } => self.joined(step, player, prior, trace),
            Input::Match { seats } => self.matched(step, now, seats, trace),
            Input::Tick | Input::Timeout { .. } => Ok(()),
        }
    }

    fn standings(&self) -> Vec<Standing> {
        let closed = self.closed_on_the_side();
        let params = &self.params;
        // Contract section 3: the last period is the one holding the last MatchResult; a player
        // who sat out periods up to it is reported with the growth for them.
        let horizon = self.state.last_match;
        self.state
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_joined())
            .map(|(i, p)| {
                let (rating, rd, since) = self.settled(p, closed.as_deref());
                let clock = &params.clock;
                let t = horizon.map_or(0.0, |end| clock.idle_since(since, end, clock.index(end)));
                Standing {
                    player: PlayerId(i as u32),
                    rating,
                    rd: Some(rd_star(rd, t, params.c2, params.rd_max).0),
                    volatility: None,
                    games: u64::from(p.games),
                    display: None,
                }
            })
            .collect()
    }

    /// The open period closes (seed's arithmetic included), or its failure is an error at `seq`.
    fn settle(&self, seq: u64) -> Result<(), ProjectError> {
        self.close_on_the_side().map(drop).map_err(|kind| ProjectError::new(seq, kind))
    }

    fn prefetch(&self, player: PlayerId) {
        if let Some(p) = self.state.players.get(player.index()) {
            ladder_projector::prefetch(p);
        }
    }

    /// Contract section 4: `E = 1 / (1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b) / 400))`, each
    /// player with the values they would enter a game at `at` with (RD*).
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        let mut closed = None;
        let (ra, rda) = self.entering(a, at, &mut closed);
        let (rb, rdb) = self.entering(b, at, &mut closed);
        expected(ra, rb, g_of_square(rda * rda + rdb * rdb))
    }
}
