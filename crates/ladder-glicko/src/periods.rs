//! The rating-period engine: the bookkeeping of Glicko-style rating periods, written once, into
//! which an algorithm plugs its rating step as a [`Rule`].
//!
//! The engine keeps each player's values after their last rated period, where idle growth counts
//! from, their game count, and the open period: a *slot* per player who played in it (their values
//! at the period's start, computed once by [`Rule::start`], and the period's sums so far) and the
//! list of its games. It closes the period when a step of a later period arrives, rates every slot
//! with [`Rule::rate`], and reports standings with the open period closed on the side. With
//! `period=game` every match is a period of its own; an untraced two-seat match then takes a fast
//! path (`match_of_two`) that does the same arithmetic in the same order without the
//! period's buffers.
//!
//! What a rule decides: its values and their form at the period's start, the expectation of one
//! game, the rating step, what a trace records, and how values are reported. Everything about
//! time (periods, idle marks, the horizon of the last period) is the engine's.

use crate::clock::{check_rd, Clock, Cursor};
use crate::LONG_IDLE_PERIODS;
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, outcome, prior_or, Algorithm, Config, ConfigError, Home, Input, ParamKind,
    ParamSpec, Period, PlayerId, ProjectError, ProjectErrorKind, Projector, Quantities, Revert,
    SeatIn, Standing, Step, Trace,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// The slot index of a player who has none in the open period.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// What the engine's constants say in one algorithm's table (`--help` and docs).
#[derive(Clone, Copy, Debug)]
pub struct EngineDocs {
    /// The default of `period`.
    pub period: &'static str,
    /// The doc of `idle`: what one idle unit grows.
    pub idle: &'static str,
    /// The doc of `rd_max`.
    pub rd_max: &'static str,
    /// The doc of `initial_rating`.
    pub initial_rating: &'static str,
    /// The doc of `initial_rd`.
    pub initial_rd: &'static str,
}

/// The engine's constants, after a rule's own: `period`, `idle`, `rd_max`, `provisional_rd`,
/// `initial_rating`, `initial_rd`, `home`, `revert`, `revert_after`.
const ENGINE_PARAMS: usize = 9;

/// An algorithm's constant table: its own constants `own` (`N` of them), then the engine's,
/// documented by `docs`. `M` must be `N + 9`.
pub const fn with_engine_params<const N: usize, const M: usize>(
    own: [ParamSpec; N],
    docs: EngineDocs,
) -> [ParamSpec; M] {
    let engine: [ParamSpec; ENGINE_PARAMS] = [
        ParamSpec {
            key: "period",
            kind: ParamKind::Period,
            default: docs.period,
            doc: "rating period: a duration P (periods [epoch + kP, epoch + (k+1)P)) or `game` \
                  (each match rated at once)",
            warn_below: None,
        },
        ParamSpec {
            key: "idle",
            kind: ParamKind::Duration,
            default: "1d",
            doc: docs.idle,
            warn_below: None,
        },
        ParamSpec {
            key: "rd_max",
            kind: ParamKind::above(0.0),
            default: "350",
            doc: docs.rd_max,
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
            doc: docs.initial_rating,
            warn_below: None,
        },
        ParamSpec {
            key: "initial_rd",
            kind: ParamKind::above(0.0),
            default: "350",
            doc: docs.initial_rd,
            warn_below: None,
        },
        ladder_projector::HOME_PARAM,
        ladder_projector::REVERT_PARAM,
        ladder_projector::REVERT_AFTER_PARAM,
    ];
    assert!(M == N + ENGINE_PARAMS, "M must be N + 9");
    let mut table = [engine[0]; M];
    let mut i = 0;
    while i < M {
        table[i] = if i < N { own[i] } else { engine[i - N] };
        i += 1;
    }
    table
}

/// A rating step that the engine's periods drive: Glicko's step 2, or Glicko-2's steps 3 to 8.
pub trait Rule: Clone + Debug {
    /// A player's values after their last rated period (and what rating a period yields).
    type Values: Copy + Debug + PartialEq + Serialize + DeserializeOwned;
    /// A player's values at the start of the open period, in the form the step uses them.
    type Start: Copy + Debug + PartialEq + Serialize + DeserializeOwned;

    /// The algorithm's name (docs/spec.md).
    const ALGORITHM: &'static str;
    /// The algorithm's constant table.
    const PARAMS: &'static [ParamSpec];
    /// The constants `ladder tune` searches by default ([`Algorithm::TUNED`]).
    const TUNED: &'static [&'static str];
    /// Whether idle time counts from the period after a rated one (Glicko-2: periods sat out)
    /// rather than from the rated period itself (Glicko: period boundaries crossed).
    const IDLE_FROM_NEXT: bool;
    /// The values of a player who has not joined: all zeros, for which [`Rule::is_joined`] is
    /// false.
    const UNJOINED: Self::Values;

    /// The rule's constants from a configuration already checked against [`Rule::PARAMS`].
    fn from_config(config: &Config) -> Self;
    /// Whether `values` are a joined player's.
    fn is_joined(values: &Self::Values) -> bool;
    /// A joining player's values from the checked rating and RD (RD already capped at `rd_max`)
    /// and the rest of the prior, or the quantity of the prior that is unusable and why.
    fn join(
        &self,
        rating: f64,
        rd: f64,
        prior: &Prior,
    ) -> Result<Self::Values, (&'static str, &'static str)>;
    /// Records what [`Rule::join`] added beyond the rating and RD (nothing by default).
    fn trace_join(&self, trace: &mut Trace, player: PlayerId, values: &Self::Values) {
        let _ = (trace, player, values);
    }
    /// A player's values at the start of a period, after `t` units of idle growth.
    fn start(&self, values: &Self::Values, t: f64) -> Self::Start;
    /// What one game against `b` adds to `a`'s sums, both at the period's start: the expectation
    /// of `a` (with `b`'s `g`) and `g` of `b`'s deviation, what `a` sees of it.
    fn versus(a: &Self::Start, b: &Self::Start) -> (f64, f64);
    /// The rating step for one slot, untraced (the replay's hot path).
    fn rate(&self, slot: &Slot<Self::Start>) -> Result<Self::Values, ProjectErrorKind>;
    /// Records a slot's own values at the period's start (before the engine's flags and games).
    fn trace_start(&self, trace: &mut Trace, who: Option<PlayerId>, start: &Self::Start);
    /// The idle growth a slot's start includes (periods or idle units), and, when the growth
    /// reached the cap, the note of the `rd-at-cap` flag.
    fn idle_of(start: &Self::Start) -> (f64, Option<String>);
    /// The names and formulas a trace records for each game of a slot: the opponent's location
    /// and deviation at the period's start, `g` of that deviation, and the expectation.
    const GAME_TRACE: [(&'static str, &'static str); 4];
    /// The values of [`Rule::GAME_TRACE`] for one game of `me` against `opponent`.
    fn game_trace(me: &Self::Start, opponent: &Self::Start) -> [f64; 4];
    /// The rating step for one slot, recording every quantity after the games. Must give the
    /// same values as [`Rule::rate`].
    fn rate_traced(
        &self,
        slot: &Slot<Self::Start>,
        trace: &mut Trace,
    ) -> Result<Self::Values, ProjectErrorKind>;
    /// The rating (on the reported scale) of values and of a slot's start, for the
    /// `winner-lost-rating` flag.
    fn ratings(values: &Self::Values, start: &Self::Start) -> (f64, f64);
    /// The rating (on the reported scale) at the period's start, from the quantities
    /// [`Rule::trace_start`] records, looked up by name ([`Projector::period_change`]).
    fn traced_start_rating(quantity: &Quantities<'_>) -> Option<f64>;
    /// What a player's standing reports from their values after `t` units of idle growth up to
    /// the last period of the replay: rating, RD and (Glicko-2) volatility, on the Glicko scale.
    fn report(&self, values: &Self::Values, t: f64) -> (f64, f64, Option<f64>);
    /// `(location, deviation)` on the step's scale of a player at the period's start.
    fn position(start: &Self::Start) -> (f64, f64);
    /// `(location, deviation)` on the step's scale of a player with `values` after `t` units of
    /// idle growth.
    fn idle(&self, values: &Self::Values, t: f64) -> (f64, f64);
    /// `(location, deviation)` on the step's scale of a new player with `rating` and `rd`.
    fn scaled(&self, rating: f64, rd: f64) -> (f64, f64);
    /// A location on the step's scale moved by `points` rating points (home advantage).
    fn shift_location(location: f64, points: f64) -> f64;
    /// `values` with the rating moved `fraction` of the way to `toward` (`revert`), the rest kept.
    fn revert(values: &Self::Values, fraction: f64, toward: f64) -> Self::Values;
    /// A player's values at the period's start with the location moved by `points` rating points:
    /// how an opponent enters a game's expectation when one side is at home.
    fn shifted(start: &Self::Start, points: f64) -> Self::Start;
    /// The expectation that a player at `a` beats one at `b` (each a `(location, deviation)`), with
    /// the two deviations combined (docs/outputs.md).
    fn expectation(a: (f64, f64), b: (f64, f64)) -> f64;
}

/// One player's record: the rule's values and the engine's bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record<V> {
    pub(crate) values: V,
    /// Where idle growth counts from (the clock's mark): a period index, or with `period=game`
    /// the instant of the last game or join.
    pub(crate) since: i64,
    /// MatchResults sat in.
    pub(crate) games: u32,
    /// Index into the open period's slots, or `NO_SLOT`.
    pub(crate) slot: u32,
}

/// A player's values at the start of the open period and the period's sums so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slot<S> {
    pub(crate) player: u32,
    pub(crate) start: S,
    /// Each game adds to both slots as it arrives.
    pub(crate) sums: Acc,
}

/// One game of the open period: slot `a` against slot `b`, `s` being a's result (1, 0.5, 0), and
/// `h` which of them is at home: 1 for `a`, -1 for `b`, 0 on neutral ground (the constant `home`
/// times `h` is a's advantage in rating points).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) s: f64,
    pub(crate) h: f64,
}

impl Pair {
    /// The game between seats `x` (slot `a`) and `y` (slot `b`).
    #[inline]
    pub(crate) fn of(a: u32, b: u32, x: &SeatIn, y: &SeatIn) -> Pair {
        Pair { a, b, s: outcome(x.score, y.score), h: x.advantage(1.0) - y.advantage(1.0) }
    }
}

/// A slot's sums over the period's games (Glicko's step 2, Glicko-2's steps 3 and 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Acc {
    /// Σ g_j^2 E (1 - E)
    pub(crate) info: f64,
    /// Σ g_j (s_j - E)
    pub(crate) gain: f64,
    /// Σ s_j and the number of games m, for the `winner-lost-rating` flag.
    pub(crate) score: f64,
    pub(crate) m: u32,
}

impl Acc {
    #[inline]
    pub(crate) fn add(&mut self, g: f64, e: f64, s: f64) {
        self.info += g * g * e * (1.0 - e);
        self.gain += g * (s - e);
        self.score += s;
        self.m += 1;
    }
}

/// The games of slot `i`: each opponent's slot, `i`'s result against it, and `i`'s home sign
/// (1 at home, -1 away, 0 neutral), in period order.
fn games_of<'a, S>(slots: &'a [Slot<S>], games: &Games, i: usize) -> Vec<(&'a Slot<S>, f64, f64)> {
    let mut out = Vec::new();
    games.each(|pair| {
        if pair.a as usize == i {
            out.push((&slots[pair.b as usize], pair.s, pair.h));
        } else if pair.b as usize == i {
            out.push((&slots[pair.a as usize], 1.0 - pair.s, -pair.h));
        }
    });
    out
}

/// The marker in [`Games`] of a match kept as its seats (never a slot: a period has fewer slots
/// than players, and player ids are below `u32::MAX`).
const WHOLE: u32 = u32::MAX;

/// One seat of a match kept as its seats ([`Games`]): its slot in the open period, its side, its
/// score and whether it is at home, which is all [`Pair::of`] reads of a seat.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatGame {
    slot: u32,
    side: u32,
    score: f64,
    home: bool,
}

/// The open period's games in the order they came, kept only for the trace of the period's close
/// (the rating step reads the slots' sums, never the games).
///
/// A match of two seats is kept as its one game. A larger match is kept as its seats, from which
/// its games follow in seat order when a trace asks: every pair of a 1,000-seat match would be
/// 499,500 entries, its seats are 1,000, so the memory a match holds until its period closes is
/// linear in its seats (docs/events.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Games {
    /// Two-seat games, and for a larger match `Pair { a: WHOLE, b: n, .. }`: its `n` seats are
    /// the next `n` of `seats`.
    pairs: Vec<Pair>,
    /// The seats of the larger matches, in order.
    seats: Vec<SeatGame>,
}

impl Games {
    /// Keeps one game of a two-seat match.
    #[inline]
    pub(crate) fn push(&mut self, pair: Pair) {
        self.pairs.push(pair);
    }

    /// Keeps a match of `seats`, seated in slots `seat_slots`: as its one game when it has two
    /// seats (none when they share a side), else as its seats.
    pub(crate) fn push_match(&mut self, seats: &[SeatIn], seat_slots: &[u32]) {
        if let ([x, y], [a, b]) = (seats, seat_slots) {
            if x.side != y.side {
                self.pairs.push(Pair::of(*a, *b, x, y));
            }
            return;
        }
        self.pairs.push(Pair { a: WHOLE, b: seats.len() as u32, s: 0.0, h: 0.0 });
        self.seats.extend(seats.iter().zip(seat_slots).map(|(x, &slot)| SeatGame {
            slot,
            side: x.side,
            score: x.score,
            home: x.home,
        }));
    }

    /// Forgets every game (the period closed).
    pub(crate) fn clear(&mut self) {
        self.pairs.clear();
        self.seats.clear();
    }

    /// How many entries are kept (games of two-seat matches, markers and seats): what the open
    /// period holds in memory for its games.
    pub fn kept(&self) -> usize {
        self.pairs.len() + self.seats.len()
    }

    /// Calls `f` with every game in period order: a larger match's games are its pairs of seats
    /// on different sides in seat order (docs/events.md), as they were added to the sums.
    fn each(&self, mut f: impl FnMut(Pair)) {
        let mut next = 0;
        for pair in &self.pairs {
            if pair.a != WHOLE {
                f(*pair);
                continue;
            }
            let seats = &self.seats[next..next + pair.b as usize];
            next += pair.b as usize;
            for (i, x) in seats.iter().enumerate() {
                for y in &seats[i + 1..] {
                    if x.side != y.side {
                        f(Pair {
                            a: x.slot,
                            b: y.slot,
                            s: outcome(x.score, y.score),
                            h: f64::from(u8::from(x.home)) - f64::from(u8::from(y.home)),
                        });
                    }
                }
            }
        }
    }

    /// Whether every game and seat names a slot below `slots` and the markers account for every
    /// kept seat.
    fn fits(&self, slots: usize) -> bool {
        let mut next = 0usize;
        for pair in &self.pairs {
            if pair.a == WHOLE {
                next = next.saturating_add(pair.b as usize);
            } else if (pair.a as usize) >= slots || (pair.b as usize) >= slots {
                return false;
            }
        }
        next == self.seats.len() && self.seats.iter().all(|s| (s.slot as usize) < slots)
    }
}

/// Everything a checkpoint must keep: the players' records and the open period's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeriodState<V, S> {
    pub(crate) players: Vec<Record<V>>,
    /// The index of the open period (periodic mode), if it holds games.
    pub(crate) open: Option<i64>,
    /// The instant of the last MatchResult applied: its period is the last one of the replay.
    pub(crate) last_match: Option<Timestamp>,
    pub(crate) slots: Vec<Slot<S>>,
    /// The open period's games, for a trace of its close.
    pub(crate) games: Games,
}

impl<V, S> PeriodState<V, S> {
    /// The open period's games, kept for the trace of its close.
    pub fn games(&self) -> &Games {
        &self.games
    }
}

impl<V, S> Default for PeriodState<V, S> {
    fn default() -> Self {
        PeriodState {
            players: Vec::new(),
            open: None,
            last_match: None,
            slots: Vec::new(),
            games: Games::default(),
        }
    }
}

/// The state of a projector driven by rule `R`.
pub type StateOf<R> = PeriodState<<R as Rule>::Values, <R as Rule>::Start>;

/// The engine's own constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Common {
    pub(crate) rd_max: f64,
    pub(crate) initial_rating: f64,
    pub(crate) initial_rd: f64,
    pub(crate) clock: Clock,
    /// `home`, in rating points.
    pub(crate) home: f64,
    /// `revert` and `revert_after`.
    pub(crate) revert: Revert,
}

impl Common {
    /// Whether a player with idle mark `since` and `games` rated games is reverted at a game at
    /// `at` in period `now`: `revert` is on, they have played, and their absence is at least
    /// `revert_after`. With `period=game` the absence is the time since their last game; with
    /// periods of length P, the time between the starts of the period of their last game and of
    /// this one.
    #[inline]
    pub(crate) fn revert_due<R: Rule>(
        &self,
        since: i64,
        games: u32,
        at: Timestamp,
        now: i64,
    ) -> bool {
        if !self.revert.is_on() || games == 0 {
            return false;
        }
        match self.clock.period {
            Period::Game => self.revert.due(Some(since), at.0),
            Period::Every(p) => {
                let last = (since - i64::from(R::IDLE_FROM_NEXT)).saturating_mul(p);
                self.revert.due(Some(last), now.saturating_mul(p))
            }
        }
    }

    /// A joining player's values under `rule` at event `seq`: the prior's rating and RD (or the
    /// defaults), checked, RD capped at `rd_max`, then the rule's own part of the prior. Returns
    /// the rating, the capped RD, the RD asked for and the values; the projector and the lanes
    /// both join through here.
    pub(crate) fn join_values<R: Rule>(
        &self,
        rule: &R,
        seq: u64,
        prior: &Prior,
    ) -> Result<(f64, f64, f64, R::Values), ProjectError> {
        let rating = prior_or(seq, prior.rating, self.initial_rating, "r", "rating", false)?;
        let asked = prior_or(seq, prior.rd, self.initial_rd, "RD", "RD", true)?;
        let rd = asked.min(self.rd_max);
        let values = rule
            .join(rating, rd, prior)
            .map_err(|(quantity, why)| ProjectError::non_finite(seq, quantity, why))?;
        Ok((rating, rd, asked, values))
    }
}

/// A period-based projector: the engine's bookkeeping around the rating step of `R`.
///
/// Invariants: every joined player's values are the rule's valid values (for Glicko and Glicko-2:
/// rating finite, RD in (0, rd_max]); the state changes only when a step succeeds.
#[derive(Clone, Debug)]
pub struct Periodic<R: Rule> {
    config: Config,
    pub(crate) common: Common,
    pub(crate) rule: R,
    pub(crate) state: StateOf<R>,
    /// Reused buffers (not state): a period's results and a match's slots.
    out: Vec<R::Values>,
    seat_slots: Vec<u32>,
    cursor: Cursor,
}

impl<R: Rule> Periodic<R> {
    /// Closes the open period in place (a step of a later period has come).
    fn close(&mut self, seq: u64, mut trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        self.trace_period_title(trace.as_deref_mut());
        let since = self.since_closing();
        let home = self.common.home;
        compute_period(
            &self.rule,
            &self.state.slots,
            &self.state.games,
            home,
            &mut self.out,
            trace,
        )
        .map_err(|kind| ProjectError::new(seq, kind))?;
        for (slot, values) in self.state.slots.iter().zip(self.out.iter()) {
            let p = &mut self.state.players[slot.player as usize];
            p.values = *values;
            p.since = since;
            p.slot = NO_SLOT;
        }
        self.state.slots.clear();
        self.state.games.clear();
        self.state.open = None;
        Ok(())
    }

    /// The idle mark of every player of the open period once it closes: the period itself (or
    /// the next, by [`Rule::IDLE_FROM_NEXT`]), or with period=game this match.
    fn since_closing(&self) -> i64 {
        match self.common.clock.period {
            Period::Every(_) => self.state.open.map_or(0, |k| k + i64::from(R::IDLE_FROM_NEXT)),
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
        let slot = entry(&self.rule, &self.common, p, player, at, now);
        let index = self.state.slots.len() as u32;
        p.slot = index;
        self.state.slots.push(slot);
        index
    }

    /// A two-seat match on two sides with period=game, untraced: the one-match period computed
    /// directly, without the period's buffers. The same arithmetic in the same order as
    /// [`compute_period`] ([`entry`], [`add_game`], [`Rule::rate`]), so the result is
    /// bit-identical to the general path (a test checks it).
    #[inline]
    fn match_of_two(
        &mut self,
        step: &Step<'_>,
        x: &SeatIn,
        y: &SeatIn,
    ) -> Result<(), ProjectError> {
        let (i, j) = (x.player.index(), y.player.index());
        let (rule, clock) = (&self.rule, &self.common.clock);
        let (pa, pb) = (&self.state.players[i], &self.state.players[j]);
        let mut a = entry(rule, &self.common, pa, x.player.0, step.at, 0);
        let mut b = entry(rule, &self.common, pb, y.player.0, step.at, 0);
        let pair = Pair::of(0, 1, x, y);
        // add_game on the two slots, without the slice: the same sums in the same order.
        let ((e_ab, g_b), (e_ba, g_a)) = versus_both::<R>(&a, &b, pair.h * self.common.home);
        a.sums.add(g_b, e_ab, pair.s);
        b.sums.add(g_a, e_ba, 1.0 - pair.s);
        let fail = |kind| ProjectError::new(step.seq, kind);
        let va = rule.rate(&a).map_err(fail)?;
        let vb = rule.rate(&b).map_err(fail)?;
        let since = clock.mark(step.at, R::IDLE_FROM_NEXT);
        for (k, values) in [(i, va), (j, vb)] {
            let p = &mut self.state.players[k];
            p.values = values;
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
            let unjoined = Record { values: R::UNJOINED, since: 0, games: 0, slot: NO_SLOT };
            self.state.players.resize(i + 1, unjoined);
        }
        if R::is_joined(&self.state.players[i].values) {
            // The log refuses a second join; a replay that sees one keeps the first.
            return Ok(());
        }
        let (rating, rd, asked, values) = self.common.join_values(&self.rule, step.seq, &prior)?;
        let since = self.common.clock.mark(step.at, false);
        self.state.players[i] = Record { values, since, games: 0, slot: NO_SLOT };
        if let Some(t) = trace {
            t.section(format!("{} PlayerJoined #{}", R::ALGORITHM, id.0));
            t.quantity(Some(id), "r", "prior.rating, else initial_rating", rating);
            t.quantity(Some(id), "RD", "min(prior.rd, else initial_rd; rd_max)", rd);
            self.rule.trace_join(t, id, &values);
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
            self.state.players.get(id.index()).filter(|p| R::is_joined(&p.values)).map(|p| p.games)
        })?;
        if let (None, [x, y]) = (&trace, seats) {
            if x.side != y.side && x.player != y.player {
                if self.common.clock.period == Period::Game {
                    return self.match_of_two(step, x, y);
                }
                // The general path below without its loops: two slots, one game.
                let a = self.touch(x.player.0, step.at, now);
                let b = self.touch(y.player.0, step.at, now);
                self.state.players[x.player.index()].games += 1;
                self.state.players[y.player.index()].games += 1;
                let pair = Pair::of(a, b, x, y);
                add_game::<R>(&mut self.state.slots, pair, self.common.home);
                self.state.games.push(pair);
                self.state.last_match = Some(step.at);
                self.state.open = Some(now);
                return Ok(());
            }
        }
        let before = self.state.last_match;
        self.state.last_match = Some(step.at);
        let mut seat_slots = std::mem::take(&mut self.seat_slots);
        seat_slots.clear();
        for seat in seats {
            seat_slots.push(self.touch(seat.player.0, step.at, now));
            self.state.players[seat.player.index()].games += 1;
        }
        // docs/events.md: every pair of seats on different sides is one game, in seat order.
        for (i, x) in seats.iter().enumerate() {
            for (j, y) in seats.iter().enumerate().skip(i + 1) {
                if x.side != y.side {
                    let (a, b) = (seat_slots[i], seat_slots[j]);
                    let pair = Pair::of(a, b, x, y);
                    add_game::<R>(&mut self.state.slots, pair, self.common.home);
                }
            }
        }
        self.state.games.push_match(seats, &seat_slots);
        self.seat_slots = seat_slots;
        match self.common.clock.period {
            Period::Every(_) => {
                self.state.open = Some(now);
                if let Some(t) = trace {
                    t.section(format!(
                        "{} match: rated when period {now} closes; {}",
                        R::ALGORITHM,
                        self.common.clock.period_title(R::ALGORITHM, now)
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
                    self.state.games.clear();
                    self.state.last_match = before;
                }
                result
            }
        }
    }

    /// The open period computed on the side, per slot; `None` when there is none or it fails
    /// (a failure is reported by [`Projector::settle`], which drivers call at the end).
    fn closed_on_the_side(&self) -> Option<Vec<R::Values>> {
        self.close_on_the_side(None).ok().flatten()
    }

    /// The open period computed on the side, per slot (`None` when there is none), or why its
    /// arithmetic fails; traced as [`Periodic::close`] traces it.
    fn close_on_the_side(
        &self,
        mut trace: Option<&mut Trace>,
    ) -> Result<Option<Vec<R::Values>>, ProjectErrorKind> {
        self.trace_period_title(trace.as_deref_mut());
        if self.state.slots.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        let home = self.common.home;
        compute_period(&self.rule, &self.state.slots, &self.state.games, home, &mut out, trace)?;
        Ok(Some(out))
    }

    /// The heading of the open period's computation in `trace`, if a period is open.
    fn trace_period_title(&self, trace: Option<&mut Trace>) {
        if let (Some(t), Some(k)) = (trace, self.state.open) {
            t.section(self.common.clock.period_title(R::ALGORITHM, k));
        }
    }

    /// `(values, idle mark)` of a player once the open period is closed (using `closed`).
    fn settled(&self, p: &Record<R::Values>, closed: Option<&[R::Values]>) -> (R::Values, i64) {
        match closed {
            Some(out) if p.slot != NO_SLOT => (out[p.slot as usize], self.since_closing()),
            _ => (p.values, p.since),
        }
    }

    /// A joined player's standing, with the open period closed as `closed` says.
    fn report(
        &self,
        player: PlayerId,
        p: &Record<R::Values>,
        closed: Option<&[R::Values]>,
    ) -> Standing {
        let (values, since) = self.settled(p, closed);
        // docs/spec.md: the last period is the one holding the last MatchResult; a player who sat
        // out periods up to it is reported with the growth for them (with period=game, idle time up
        // to that match).
        let clock = &self.common.clock;
        let next = i64::from(R::IDLE_FROM_NEXT);
        let t = self
            .state
            .last_match
            .map_or(0.0, |end| clock.idle_since(since, end, clock.index(end) + next));
        let (rating, rd, volatility) = self.rule.report(&values, t);
        let games = u64::from(p.games);
        Standing { player, rating, rd: Some(rd), volatility, sigma: None, games, display: None }
    }

    /// `(location, deviation)` with which `player` would enter a game at `at`.
    fn entering(
        &self,
        player: PlayerId,
        at: Timestamp,
        closed: &mut Option<Option<Vec<R::Values>>>,
    ) -> (f64, f64) {
        let (common, clock) = (&self.common, &self.common.clock);
        let joined = self.state.players.get(player.index()).filter(|p| R::is_joined(&p.values));
        let Some(p) = joined else {
            return self.rule.scaled(common.initial_rating, common.initial_rd);
        };
        let (values, since) = match clock.period {
            Period::Every(_) if p.slot != NO_SLOT => {
                let slot = &self.state.slots[p.slot as usize];
                if Some(clock.index(at)) <= self.state.open {
                    let (location, deviation2) = R::position(&slot.start);
                    return (location, deviation2.sqrt());
                }
                let side = closed.get_or_insert_with(|| self.closed_on_the_side());
                self.settled(p, side.as_deref())
            }
            _ => (p.values, p.since),
        };
        let now = clock.index(at);
        let t = clock.idle_since(since, at, now);
        if common.revert_due::<R>(since, p.games, at, now) {
            let values = R::revert(&values, common.revert.fraction, common.initial_rating);
            return self.rule.idle(&values, t);
        }
        self.rule.idle(&values, t)
    }
}

/// One game's sums, added to both slots as it arrives: each side sees the other's values at the
/// period's start, known once both slots exist.
/// `home` is the constant (rating points); the pair's `h` says who has it.
#[inline]
pub(crate) fn add_game<R: Rule>(slots: &mut [Slot<R::Start>], pair: Pair, home: f64) {
    let (a, b) = (slots[pair.a as usize], slots[pair.b as usize]);
    let ((e_ab, g_b), (e_ba, g_a)) = versus_both::<R>(&a, &b, pair.h * home);
    slots[pair.a as usize].sums.add(g_b, e_ab, pair.s);
    slots[pair.b as usize].sums.add(g_a, e_ba, 1.0 - pair.s);
}

/// [`Rule::versus`] both ways, `edge` being a's advantage over b in rating points: each side's
/// expectation compares its location plus its own advantage with the other's, which is the
/// other's location moved by minus the difference.
#[inline]
fn versus_both<R: Rule>(
    a: &Slot<R::Start>,
    b: &Slot<R::Start>,
    edge: f64,
) -> ((f64, f64), (f64, f64)) {
    if edge == 0.0 {
        (R::versus(&a.start, &b.start), R::versus(&b.start, &a.start))
    } else {
        let (b_seen, a_seen) = (R::shifted(&b.start, -edge), R::shifted(&a.start, edge));
        (R::versus(&a.start, &b_seen), R::versus(&b.start, &a_seen))
    }
}

/// A player's values at the start of a period (the step is at `at`, in period `now`).
#[inline]
pub(crate) fn entry<R: Rule>(
    rule: &R,
    common: &Common,
    p: &Record<R::Values>,
    player: u32,
    at: Timestamp,
    now: i64,
) -> Slot<R::Start> {
    // docs/spec.md: idle time since the last game or join: whole periods, or with period=game the
    // fractional time in `idle` units.
    let t = common.clock.idle_since(p.since, at, now);
    // docs/spec.md, revert: the first game after a long absence starts from a rating moved back
    // toward initial_rating.
    if common.revert_due::<R>(p.since, p.games, at, now) {
        let values = R::revert(&p.values, common.revert.fraction, common.initial_rating);
        return Slot { player, start: rule.start(&values, t), sums: Acc::default() };
    }
    Slot { player, start: rule.start(&p.values, t), sums: Acc::default() }
}

/// The rating step for every slot of a period: fills `out`, or fails naming the quantity.
/// Writes nothing else.
fn compute_period<R: Rule>(
    rule: &R,
    slots: &[Slot<R::Start>],
    games: &Games,
    home: f64,
    out: &mut Vec<R::Values>,
    mut trace: Option<&mut Trace>,
) -> Result<(), ProjectErrorKind> {
    out.clear();
    for (i, slot) in slots.iter().enumerate() {
        let values = match trace.as_deref_mut() {
            None => rule.rate(slot)?,
            Some(t) => rate_traced(rule, slots, games, home, i, t)?,
        };
        out.push(values);
    }
    Ok(())
}

/// The rating step for slot `i` of a period with every quantity recorded: the rule's values at
/// the period's start, the idle flags, each game, then the rule's step.
fn rate_traced<R: Rule>(
    rule: &R,
    slots: &[Slot<R::Start>],
    games: &Games,
    home: f64,
    i: usize,
    t: &mut Trace,
) -> Result<R::Values, ProjectErrorKind> {
    let slot = &slots[i];
    let who = Some(PlayerId(slot.player));
    rule.trace_start(t, who, &slot.start);
    let (idle, cap) = R::idle_of(&slot.start);
    if let Some(note) = cap {
        t.flag(who, "rd-at-cap", note);
    }
    if idle >= LONG_IDLE_PERIODS {
        t.flag(who, "long-idle-gap", format!("{idle} periods without a game"));
    }
    for (opponent, s, h) in games_of(slots, games, i) {
        t.opponent(who, PlayerId(opponent.player));
        let edge = h * home;
        let values = if edge == 0.0 {
            R::game_trace(&slot.start, &opponent.start)
        } else {
            R::game_trace(&slot.start, &R::shifted(&opponent.start, -edge))
        };
        if home != 0.0 {
            t.quantity(
                who,
                "home",
                "this player's home advantage over the opponent (home, -home or 0), rating \
                 points: the opponent's location below is moved by minus it",
                edge,
            );
        }
        for ((name, formula), value) in R::GAME_TRACE.into_iter().zip(values) {
            t.quantity(who, name, formula, value);
        }
        t.quantity(who, "s_j", "1 win, 0.5 draw, 0 loss (scores compared)", s);
    }
    let values = rule.rate_traced(slot, t)?;
    let (after, before) = R::ratings(&values, &slot.start);
    let sums = &slot.sums;
    if sums.score > f64::from(sums.m) / 2.0 && after < before {
        t.flag(
            who,
            "winner-lost-rating",
            format!("scored {} of {} but the rating fell", sums.score, sums.m),
        );
    }
    Ok(values)
}

impl<R: Rule> Algorithm for Periodic<R> {
    const ALGORITHM: &'static str = R::ALGORITHM;
    const PARAMS: &'static [ParamSpec] = R::PARAMS;
    const TUNED: &'static [&'static str] = R::TUNED;
    type State = StateOf<R>;

    /// Refuses `initial_rd > rd_max` (RD is always in (0, rd_max]) and configurations of
    /// another algorithm.
    fn new(config: Config) -> Result<Self, ConfigError> {
        Self::restore(config, PeriodState::default())
    }

    /// Refuses a state whose open period does not fit its players.
    fn restore(config: Config, state: StateOf<R>) -> Result<Self, ConfigError> {
        config.check(R::ALGORITHM, R::PARAMS)?;
        check_rd(R::ALGORITHM, &config)?;
        let common = Common {
            rd_max: config.number("rd_max"),
            initial_rating: config.number("initial_rating"),
            initial_rd: config.number("initial_rd"),
            clock: Clock::from_config(&config),
            home: config.number("home"),
            revert: Revert::from_config(&config),
        };
        let n = state.players.len();
        let slots_fit = state.slots.iter().enumerate().all(|(i, s)| {
            (s.player as usize) < n && state.players[s.player as usize].slot as usize == i
        });
        if !slots_fit || !state.games.fits(state.slots.len()) {
            return Err(ConfigError::Inconsistent {
                algorithm: R::ALGORITHM,
                message: "the checkpoint's open period does not fit its players".into(),
            });
        }
        Ok(Periodic {
            rule: R::from_config(&config),
            config,
            common,
            state,
            out: Vec::new(),
            seat_slots: Vec::new(),
            cursor: Cursor::default(),
        })
    }

    fn state(&self) -> &StateOf<R> {
        &self.state
    }
}

impl<R: Rule> Projector for Periodic<R> {
    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(
        &mut self,
        step: &Step<'_>,
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        let now = self.cursor.index(&self.common.clock, step.at);
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

    fn standing(&self, player: PlayerId) -> Option<Standing> {
        let p = self.state.players.get(player.index()).filter(|p| R::is_joined(&p.values))?;
        let closed = if p.slot == NO_SLOT { None } else { self.closed_on_the_side() };
        Some(self.report(player, p, closed.as_deref()))
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    /// Every player's [`Projector::standing`], with the open period closed once for all.
    fn standings(&self) -> Vec<Standing> {
        let closed = self.closed_on_the_side();
        self.state
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| R::is_joined(&p.values))
            .map(|(i, p)| self.report(PlayerId(i as u32), p, closed.as_deref()))
            .collect()
    }

    /// The open period closes (the step's arithmetic included), or its failure is an error at
    /// `seq`; with a trace, its computation is recorded under the period's heading.
    fn settle(&self, seq: u64, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        self.close_on_the_side(trace).map(drop).map_err(|kind| ProjectError::new(seq, kind))
    }

    /// With a duration `period`, the period holding `at`; with `period=game`, none (each match
    /// is rated at once).
    fn rating_period(&self, at: Timestamp) -> Option<(i64, i64)> {
        match self.common.clock.period {
            Period::Every(p) => Some((at.0.div_euclid(p), p)),
            Period::Game => None,
        }
    }

    /// The rule's rating at the period's start, and `r'`.
    fn period_change(&self, quantity: &Quantities<'_>) -> Option<(f64, f64)> {
        Some((R::traced_start_rating(quantity)?, quantity("r'")?))
    }

    /// A winner who lost rating (or a loser who gained): the period's other games outweigh this
    /// result, by the sum that moves the rating.
    fn flag_reason(&self, code: &str, player: &str, quantity: &Quantities<'_>) -> Option<String> {
        if !matches!(code, "winner-lost-rating" | "loser-gained-rating") {
            return None;
        }
        let gain = quantity("Σ g (s-E)").map_or("?".to_string(), |x| format!("{x:.6}"));
        Some(format!(
            "{} rates the whole period at once from the values at its start: the sum \
             Σ g (s - E) over {player}'s games of the period is {gain}, so the other games of the \
             period (listed above) outweigh this result",
            R::ALGORITHM
        ))
    }

    fn prefetch(&self, player: PlayerId) {
        if let Some(p) = self.state.players.get(player.index()) {
            ladder_projector::prefetch(p);
        }
    }

    /// docs/outputs.md: the rule's expectation with both deviations combined, each player with the
    /// values they would enter a game at `at` with.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        let mut closed = None;
        let pa = self.entering(a, at, &mut closed);
        let pb = self.entering(b, at, &mut closed);
        R::expectation(pa, pb)
    }

    /// [`Projector::expectation`] with `home` added to the home seat's location.
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        let mut closed = None;
        let (la, da) = self.entering(a, at, &mut closed);
        let pb = self.entering(b, at, &mut closed);
        let edge = home.edge(self.common.home);
        let la = if edge == 0.0 { la } else { R::shift_location(la, edge) };
        R::expectation((la, da), pb)
    }
}
