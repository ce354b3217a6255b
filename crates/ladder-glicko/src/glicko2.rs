//! Glicko-2, seed 002 (Glickman's "Example of the Glicko-2 system", with the 2022 `<=` in step
//! 5.4(b)), with the rating periods of `../shared/CONTRACT.md` section 3.
//!
//! A player's state is `(r, RD, sigma)` on the Glicko scale after their last rated period, the
//! instant of their last game or join, and whether that instant was a game. Every period a player
//! sits out, including the one they joined in, applies step 6 only; those periods are applied
//! lazily, `k` at once, as `phi = min(sqrt(phi^2 + k sigma^2), phi_max)` (the same as `k` single
//! steps, because each step is monotone and the cap is a fixed point). Games of a period are rated
//! from the values at the period's start, and steps 3 to 8 run once per player when it closes.

use crate::clock::{check_rd, Clock, Cursor};
use crate::glicko::outcome;
use crate::LONG_IDLE_PERIODS;
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    check_seats, math, Config, ConfigError, Input, ParamKind, ParamSpec, Period, PlayerId,
    ProjectError, ProjectErrorKind, Projector, SeatIn, Standing, Step, Trace,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

pub mod lanes;

/// The contract's name of the algorithm.
pub const ALGORITHM: &str = "glicko2";

/// Seed 002, step 2: the Glicko-2 scale, `mu = (r - 1500) / 173.7178`, `phi = RD / 173.7178`.
pub const SCALE: f64 = 173.7178;

/// Seed 002, step 2: the rating at the centre of the Glicko-2 scale (independent of
/// `initial_rating`, which only says where new players start).
pub const CENTRE: f64 = 1500.0;

/// The most values of k that step 5.2's bracket search tries (`f(a - k tau) < 0`) before giving up
/// with [`ProjectErrorKind::NoConvergence`]. The seed: "k is almost always 1, and very rarely 2 or
/// more"; `f(a - k tau) >= k / tau - 1/2`, so any `tau <= 2000` brackets within this bound.
pub const MAX_BRACKET_STEPS: u32 = 1000;

/// The most iterations of step 5.4 before giving up with [`ProjectErrorKind::NoConvergence`]. The
/// seed: "a maximum of 19 (in 10000 simulations)"; an `epsilon` finer than the float spacing of
/// `ln(sigma'^2)` can never be met and ends here.
pub const MAX_ILLINOIS_ITERATIONS: u32 = 200;

/// The documented default of `period`, chosen by the procedure of docs/real-ladders.md: on the
/// first 70% of two real ladders (ATP tour-level tennis and international football), the period
/// whose log loss is nearest each ladder's best (the smallest worse-of-the-two regret), with the
/// seed's tau = 0.5 and sigma = 0.06, which are per period.
pub const DEFAULT_PERIOD: &str = "10d";

/// The constants of `glicko2` (`../shared/CONTRACT.md` section 3), with defaults and ranges.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "tau",
        kind: ParamKind::above(0.0),
        default: "0.5",
        doc: "system constant constraining volatility change (seed 002, step 1: reasonable \
              choices are between 0.3 and 1.2)",
        warn_below: None,
    },
    ParamSpec {
        key: "sigma",
        kind: ParamKind::above(0.0),
        default: "0.06",
        doc: "volatility of a player who joins without a prior (seed 002, step 1(a))",
        warn_below: None,
    },
    ParamSpec {
        key: "epsilon",
        kind: ParamKind::above(0.0),
        default: "1e-6",
        doc: "convergence tolerance of the volatility iteration (seed 002, step 5.1)",
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
        doc: "with period=game, the time worth one step 6: phi^2 + t sigma^2, t = elapsed / idle",
        warn_below: None,
    },
    ParamSpec {
        key: "rd_max",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "cap on phi* (as RD) in every step 6, the RD of an unrated player (seed 002, step 1)",
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
        doc: "rating of a player who joins without a prior (seed 002, step 1(a))",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rd",
        kind: ParamKind::above(0.0),
        default: "350",
        doc: "RD of a player who joins without a prior (seed 002, step 1(a)); at most rd_max",
        warn_below: None,
    },
];

const NO_SLOT: u32 = u32::MAX;

/// One player's values on the Glicko scale. Invariant for joined players: `rating` finite, `rd`
/// in (0, rd_max], `volatility` positive and finite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PlayerState {
    rating: f64,
    /// RD after the last rated period, before any sat-out period since.
    rd: f64,
    volatility: f64,
    /// Where periods sat out count from ([`Clock::mark`]): the join's own period, or the one
    /// after the last game; with `period=game`, the instant of the last game or join.
    since: i64,
    games: u32,
    slot: u32,
}

impl PlayerState {
    /// Whether the player joined: the volatility is positive for every joined player, and the
    /// record of one who has not is all zeros (so the record needs no flag of its own).
    #[inline]
    fn is_joined(&self) -> bool {
        self.volatility > 0.0
    }
}

const UNJOINED: PlayerState =
    PlayerState { rating: 0.0, rd: 0.0, volatility: 0.0, since: 0, games: 0, slot: NO_SLOT };

/// A player's values at the start of the open period, on the Glicko-2 scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Slot {
    player: u32,
    mu: f64,
    /// phi^2 after the step 6s of the periods sat out (squared, as steps 3 to 7 use it).
    phi2: f64,
    sigma: f64,
    /// g(phi), what opponents see of this player (seed 002, step 3).
    g: f64,
    /// Periods sat out (or idle units with period=game) before this one.
    k: f64,
    capped: bool,
    /// The period's sums so far: each game adds to both slots as it arrives.
    sums: Acc,
}

/// One game of the open period: slot `a` against slot `b`, `s` being a's result.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Pair {
    a: u32,
    b: u32,
    s: f64,
}

/// Everything a checkpoint must keep: the players' values and the open period's games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Glicko2State {
    players: Vec<PlayerState>,
    open: Option<i64>,
    last_match: Option<Timestamp>,
    slots: Vec<Slot>,
    pairs: Vec<Pair>,
}

/// Per-slot sums of seed 002, steps 3 and 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Acc {
    /// Σ g(phi_j)^2 E (1 - E) = 1/v
    info: f64,
    /// Σ g(phi_j) (s_j - E) = Delta / v
    gain: f64,
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

/// A player's new values on the Glicko scale.
#[derive(Clone, Copy, Debug, Default)]
struct Rated {
    rating: f64,
    rd: f64,
    volatility: f64,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    out: Vec<Rated>,
    seat_slots: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Params {
    steps: Steps,
    sigma: f64,
    rd_max: f64,
    phi_max: f64,
    initial_rating: f64,
    initial_rd: f64,
    clock: Clock,
}

/// The Glicko-2 projector (`--algo glicko2`).
///
/// Invariants: every joined player's rating is finite, RD is in (0, rd_max] and the volatility is
/// positive and finite; the state changes only when a step succeeds.
#[derive(Clone, Debug)]
pub struct Glicko2 {
    config: Config,
    params: Params,
    state: Glicko2State,
    scratch: Scratch,
    cursor: Cursor,
}

/// Seed 002, step 3: `g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`.
#[inline]
pub fn g(phi: f64) -> f64 {
    g_of_square(phi * phi)
}

/// `3 / pi^2`, the constant of g.
const G_K: f64 = 3.0 / (PI * PI);

/// g of a deviation given its square `phi^2` (seed 002, step 3), so phi need not be rooted.
#[inline]
fn g_of_square(phi2: f64) -> f64 {
    1.0 / (1.0 + G_K * phi2).sqrt()
}

/// Seed 002, step 6 applied `k` times, squared: `phi^2 = min(phi^2 + k sigma^2, phi_max^2)`, and
/// whether the cap applied.
#[inline]
fn idle_phi_squared(phi: f64, sigma: f64, k: f64, phi_max: f64) -> (f64, bool) {
    // k = 0 leaves phi as it is (even where sigma^2 overflows and 0 * inf would be NaN).
    let grown = if k == 0.0 { phi * phi } else { phi * phi + k * (sigma * sigma) };
    if grown >= phi_max * phi_max {
        (phi_max * phi_max, true)
    } else {
        (grown, false)
    }
}

/// Seed 002, step 3: `E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))`, given `g(phi_j)`.
#[inline]
pub fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + math::exp(-g_j * (mu - mu_j)))
}

/// Seed 002, step 6 applied `k` times (k sat-out periods, or a fraction with period=game):
/// `phi = min(sqrt(phi^2 + k sigma^2), phi_max)`, and whether the cap applied. With `k = 0` phi is
/// returned unchanged.
#[inline]
fn idle_phi(phi: f64, sigma: f64, k: f64, phi_max: f64) -> (f64, bool) {
    if k == 0.0 {
        return (phi, false);
    }
    let grown = (phi * phi + k * (sigma * sigma)).sqrt();
    if grown >= phi_max {
        (phi_max, true)
    } else {
        (grown, false)
    }
}

/// Seed 002, step 5: the new volatility sigma' by the Illinois iteration, bounded by
/// [`MAX_BRACKET_STEPS`] and [`MAX_ILLINOIS_ITERATIONS`], given Delta, phi^2 (squared), v, sigma,
/// tau and epsilon. Records A, B, f_A, f_B of every iteration (the seed's table) when traced.
#[allow(clippy::too_many_arguments)]
pub fn volatility(
    delta: f64,
    phi2: f64,
    v: f64,
    sigma: f64,
    tau: f64,
    epsilon: f64,
    who: Option<PlayerId>,
    trace: Option<&mut Trace>,
) -> Result<f64, ProjectErrorKind> {
    let steps = Steps::new(tau, epsilon);
    match trace {
        None => volatility_in::<false>(delta, phi2, v, sigma, &steps, who, None),
        Some(t) => volatility_in::<true>(delta, phi2, v, sigma, &steps, who, Some(t)),
    }
}

/// The constants of step 5 in the form the iteration uses them.
#[derive(Clone, Copy, Debug)]
struct Steps {
    tau: f64,
    /// `1 / tau^2`
    inv_tau2: f64,
    /// `e^-tau`, the factor between `e^(a - k tau)` and `e^(a - (k+1) tau)`.
    exp_neg_tau: f64,
    epsilon: f64,
}

impl Steps {
    fn new(tau: f64, epsilon: f64) -> Steps {
        Steps { tau, inv_tau2: 1.0 / (tau * tau), exp_neg_tau: math::exp(-tau), epsilon }
    }
}

/// Seed 002, step 5.1: `f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2`,
/// given `e^x`, `gap = Delta^2 - phi^2 - v`, `spread = phi^2 + v` and `1 / tau^2`.
#[inline(always)]
fn f_of(x: f64, ex: f64, gap: f64, spread: f64, a: f64, inv_tau2: f64) -> f64 {
    (ex * (gap - ex)) / (2.0 * (spread + ex) * (spread + ex)) - (x - a) * inv_tau2
}

/// [`volatility`], compiled twice: with `TRACED = false` the trace is known to be absent, so the
/// replay's hot path carries none of the recording code.
#[allow(clippy::too_many_arguments)]
fn volatility_in<const TRACED: bool>(
    delta: f64,
    phi2: f64,
    v: f64,
    sigma: f64,
    consts: &Steps,
    who: Option<PlayerId>,
    trace: Option<&mut Trace>,
) -> Result<f64, ProjectErrorKind> {
    let mut trace = if TRACED { trace } else { None };
    let fail = |quantity, why: String| {
        let player = who.map_or(String::new(), |p| format!("player #{}: ", p.0));
        Err(ProjectErrorKind::NonFinite { quantity, detail: format!("{player}{why}") })
    };
    let Steps { tau, inv_tau2, exp_neg_tau, epsilon } = *consts;
    let delta2 = delta * delta;
    // Seed 002, step 5.1: a = ln(sigma^2) (as 2 ln(sigma) when sigma^2 underflows or overflows).
    let sigma2 = sigma * sigma;
    let (a, e_a) = if sigma2 >= f64::MIN_POSITIVE && sigma2.is_finite() {
        (math::ln(sigma2), sigma2)
    } else {
        let a = 2.0 * math::ln(sigma);
        (a, math::exp(a))
    };
    let (gap, spread) = (delta2 - phi2 - v, phi2 + v);
    // Seed 002, step 5.1: f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
    // given e^x. Every point of the iteration carries its e^x, so exp runs once per new point C
    // only: e^A = sigma^2 for A = a; e^B = Delta^2 - phi^2 - v for B = ln(that); and
    // e^(a - k tau) = sigma^2 (e^-tau)^k in the bracket search.
    let f = |x: f64, ex: f64| f_of(x, ex, gap, spread, a, inv_tau2);
    if !(a.is_finite() && inv_tau2 > 0.0 && inv_tau2.is_finite()) {
        return fail("a", format!("ln(sigma^2) = {a} or 1/tau^2 = {inv_tau2} is unusable"));
    }
    // Seed 002, step 5.2: A = a; B = ln(Delta^2 - phi^2 - v) if Delta^2 > phi^2 + v, else a - k tau
    // for the first k = 1, 2, ... with f(a - k tau) >= 0.
    let (mut big_a, mut e_big_a) = (a, e_a);
    let mut k = 0u32;
    let (mut big_b, mut e_big_b, mut fb) = if delta2 > phi2 + v {
        let b = math::ln(gap);
        (b, gap, f(b, gap))
    } else {
        let mut ex = e_a;
        loop {
            k += 1;
            if k > MAX_BRACKET_STEPS {
                return Err(ProjectErrorKind::NoConvergence {
                    what: "the volatility bracket search (seed 002, step 5.2)",
                    iterations: MAX_BRACKET_STEPS,
                });
            }
            let x = a - f64::from(k) * tau;
            ex *= exp_neg_tau;
            let fx = f(x, ex);
            if fx.is_nan() {
                return fail("f(a - k tau)", format!("f({x}) is not a number"));
            }
            if fx >= 0.0 {
                break (x, ex, fx);
            }
        }
    };
    // Seed 002, step 5.3: f_A = f(A), f_B = f(B) (f_B was computed with B above).
    let mut fa = f(big_a, e_big_a);
    if !(big_b.is_finite() && fa.is_finite() && fb.is_finite()) {
        return fail("B", format!("B = {big_b}, f(A) = {fa}, f(B) = {fb}"));
    }
    if let Some(t) = trace.as_deref_mut() {
        t.quantity(who, "a", "ln(sigma^2)", a);
        t.quantity(who, "k", "bracket steps (0 when Delta^2 > phi^2 + v)", f64::from(k));
        t.quantity(who, "A[0]", "a", big_a);
        t.quantity(who, "B[0]", "ln(Delta^2 - phi^2 - v), or a - k tau", big_b);
        t.quantity(who, "f_A[0]", "f(A)", fa);
        t.quantity(who, "f_B[0]", "f(B)", fb);
    }
    // Seed 002, step 5.4: while |B - A| > epsilon ...
    let mut n = 0u32;
    while (big_b - big_a).abs() > epsilon {
        n += 1;
        if n > MAX_ILLINOIS_ITERATIONS {
            return Err(ProjectErrorKind::NoConvergence {
                what: "the volatility iteration (seed 002, step 5.4)",
                iterations: MAX_ILLINOIS_ITERATIONS,
            });
        }
        // Seed 002, step 5.4(a): C = A + (A - B) f_A / (f_B - f_A), f_C = f(C)
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let e_c = math::exp(c);
        let fc = f(c, e_c);
        if !(c.is_finite() && fc.is_finite()) {
            return fail("C", format!("iteration {n}: C = {c}, f(C) = {fc}"));
        }
        // Seed 002, step 5.4(b), 2022 revision (contract section 3): if f_C f_B <= 0 then
        // A <- B, f_A <- f_B; otherwise f_A <- f_A / 2.
        if fc * fb <= 0.0 {
            (big_a, e_big_a, fa) = (big_b, e_big_b, fb);
        } else {
            fa /= 2.0;
        }
        // Seed 002, step 5.4(c): B <- C, f_B <- f_C.
        (big_b, e_big_b, fb) = (c, e_c, fc);
        if let Some(t) = trace.as_deref_mut() {
            t.quantity(who, format!("C[{n}]"), "A + (A - B) f_A / (f_B - f_A)", c);
            t.quantity(who, format!("f_C[{n}]"), "f(C)", fc);
            t.quantity(who, format!("A[{n}]"), "B if f_C f_B <= 0, else A", big_a);
            t.quantity(who, format!("B[{n}]"), "C", big_b);
            t.quantity(who, format!("f_A[{n}]"), "f_B if f_C f_B <= 0, else f_A / 2", fa);
            t.quantity(who, format!("f_B[{n}]"), "f_C", fb);
        }
    }
    // Seed 002, step 5.5: sigma' = e^(A/2), the root of the e^A already known (or, where e^A is
    // below the normal range, e^(A/2) itself).
    let sigma_new =
        if e_big_a >= f64::MIN_POSITIVE { e_big_a.sqrt() } else { math::exp(big_a / 2.0) };
    if !(sigma_new.is_finite() && sigma_new > 0.0) {
        return fail("sigma'", format!("e^(A/2) with A = {big_a}"));
    }
    if let Some(t) = trace {
        t.quantity(who, "iterations", "Illinois iterations of step 5.4", f64::from(n));
        t.quantity(who, "sigma'", "e^(A/2)", sigma_new);
    }
    Ok(sigma_new)
}

impl Glicko2 {
    /// A projector with a configuration built from [`PARAMS`]. Refuses `initial_rd > rd_max`
    /// (RD is always in (0, rd_max]) and configurations of another algorithm.
    pub fn new(config: Config) -> Result<Glicko2, ConfigError> {
        Glicko2::from_state(config, Glicko2State::default())
    }

    /// Builds the configuration from `KEY=VALUE` pairs and the projector from it.
    pub fn configure(sets: &[(String, String)]) -> Result<Glicko2, ConfigError> {
        Glicko2::new(Config::new(ALGORITHM, PARAMS, sets)?)
    }

    /// Resumes from a checkpointed state (see [`Glicko2::state`]). The state must have been taken
    /// from a projector with the same configuration; one whose indices do not fit is refused.
    pub fn from_state(config: Config, state: Glicko2State) -> Result<Glicko2, ConfigError> {
        config.check(ALGORITHM, PARAMS)?;
        check_rd(ALGORITHM, &config)?;
        let rd_max = config.number("rd_max");
        let params = Params {
            steps: Steps::new(config.number("tau"), config.number("epsilon")),
            sigma: config.number("sigma"),
            rd_max,
            phi_max: rd_max / SCALE,
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
        Ok(Glicko2 {
            config,
            params,
            state,
            scratch: Scratch::default(),
            cursor: Cursor::default(),
        })
    }

    /// The state, for checkpoints.
    pub fn state(&self) -> &Glicko2State {
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
        for (slot, rated) in self.state.slots.iter().zip(out.iter()) {
            let p = &mut self.state.players[slot.player as usize];
            p.rating = rated.rating;
            p.rd = rated.rd;
            p.volatility = rated.volatility;
            p.since = since;
            p.slot = NO_SLOT;
        }
        self.state.slots.clear();
        self.state.pairs.clear();
        self.state.open = None;
        Ok(())
    }

    /// The idle mark of every player of the open period once it closes: periods sat out start
    /// with the next period, or with period=game at this match.
    fn since_closing(&self) -> i64 {
        match self.params.clock.period {
            Period::Every(_) => self.state.open.map_or(0, |k| k + 1),
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
        let (e_ab, e_ba) = (expected(a.mu, b.mu, b.g), expected(b.mu, a.mu, a.g));
        a.sums.add(b.g, e_ab, s);
        b.sums.add(a.g, e_ba, 1.0 - s);
        let fail = |kind| ProjectError::new(step.seq, kind);
        let ra = rate_in::<false>(params, &a, &a.sums, None).map_err(fail)?;
        let rb = rate_in::<false>(params, &b, &b.sums, None).map_err(fail)?;
        let since = params.clock.mark(step.at, true);
        for (k, rated) in [(i, ra), (j, rb)] {
            let p = &mut self.state.players[k];
            p.rating = rated.rating;
            p.rd = rated.rd;
            p.volatility = rated.volatility;
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
        let volatility = prior.volatility.unwrap_or(self.params.sigma);
        if !(volatility.is_finite() && volatility > 0.0) {
            return Err(bad("sigma", "the prior volatility is not a positive finite number"));
        }
        let rd = asked.min(self.params.rd_max);
        self.state.players[i] = PlayerState {
            rating,
            rd,
            volatility,
            since: self.params.clock.mark(step.at, false),
            games: 0,
            slot: NO_SLOT,
        };
        if let Some(t) = trace {
            t.section(format!("{ALGORITHM} PlayerJoined #{}", id.0));
            t.quantity(Some(id), "r", "prior.rating, else initial_rating", rating);
            t.quantity(Some(id), "RD", "min(prior.rd, else initial_rd; rd_max)", rd);
            t.quantity(Some(id), "sigma", "prior.volatility, else sigma", volatility);
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
    fn closed_on_the_side(&self) -> Option<Vec<Rated>> {
        self.close_on_the_side().ok().flatten()
    }

    /// The open period computed on the side, per slot (`None` when there is none), or why its
    /// arithmetic fails.
    fn close_on_the_side(&self) -> Result<Option<Vec<Rated>>, ProjectErrorKind> {
        if self.state.slots.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        compute_period(&self.params, &self.state.slots, &self.state.pairs, &mut out, None)?;
        Ok(Some(out))
    }

    /// `(values, idle mark)` of a player once the open period is closed (with `closed`).
    fn settled(&self, p: &PlayerState, closed: Option<&[Rated]>) -> (Rated, i64) {
        match closed {
            Some(out) if p.slot != NO_SLOT => (out[p.slot as usize], self.since_closing()),
            _ => (Rated { rating: p.rating, rd: p.rd, volatility: p.volatility }, p.since),
        }
    }

    /// `(mu, phi)` with which `player` would enter a game at `at`.
    fn entering(
        &self,
        player: PlayerId,
        at: Timestamp,
        closed: &mut Option<Option<Vec<Rated>>>,
    ) -> (f64, f64) {
        let params = &self.params;
        let Some(p) = self.state.players.get(player.index()).filter(|p| p.is_joined()) else {
            return ((params.initial_rating - CENTRE) / SCALE, params.initial_rd / SCALE);
        };
        let (values, since) = match params.clock.period {
            Period::Every(_) if p.slot != NO_SLOT => {
                let slot = &self.state.slots[p.slot as usize];
                if Some(params.clock.index(at)) <= self.state.open {
                    return (slot.mu, slot.phi2.sqrt());
                }
                let side = closed.get_or_insert_with(|| self.closed_on_the_side());
                self.settled(p, side.as_deref())
            }
            _ => self.settled(p, None),
        };
        let k = params.clock.idle_since(since, at, params.clock.index(at));
        let phi = idle_phi(values.rd / SCALE, values.volatility, k, params.phi_max).0;
        ((values.rating - CENTRE) / SCALE, phi)
    }
}

/// Seed 002, steps 3 and 4's sums for one game of the open period, added to both slots as it
/// arrives: each side sees the other's values at the period's start, known once both slots exist.
#[inline]
fn add_game(slots: &mut [Slot], pair: Pair) {
    let (a, b) = (slots[pair.a as usize], slots[pair.b as usize]);
    // Seed 002, step 3: E(mu, mu_j, phi_j), each side seeing the other's phi at the period's start.
    let e_ab = expected(a.mu, b.mu, b.g);
    let e_ba = expected(b.mu, a.mu, a.g);
    slots[pair.a as usize].sums.add(b.g, e_ab, pair.s);
    slots[pair.b as usize].sums.add(a.g, e_ba, 1.0 - pair.s);
}

/// A player's values at the start of a period (the step is at `at`, in period `now`).
#[inline]
fn entry(params: &Params, p: &PlayerState, player: u32, at: Timestamp, now: i64) -> Slot {
    // Contract section 3: periods sat out since the last game or join, counting the join's own
    // period; with period=game the fractional idle time.
    let k = params.clock.idle_since(p.since, at, now);
    // Seed 002, step 2: mu = (r - 1500) / 173.7178, phi = RD / 173.7178
    let mu = (p.rating - CENTRE) / SCALE;
    let phi0 = p.rd / SCALE;
    // Seed 002, "only Step 6 applies" for each period sat out: phi = sqrt(phi^2 + sigma^2),
    // capped at rd_max (contract section 3), k periods at once; kept squared.
    let (phi2, capped) = idle_phi_squared(phi0, p.volatility, k, params.phi_max);
    let sums = Acc::default();
    Slot { player, mu, phi2, sigma: p.volatility, g: g_of_square(phi2), k, capped, sums }
}

/// Seed 002, steps 3 to 8 for every slot of a period: fills `out`, or fails naming the quantity.
fn compute_period(
    params: &Params,
    slots: &[Slot],
    pairs: &[Pair],
    out: &mut Vec<Rated>,
    mut trace: Option<&mut Trace>,
) -> Result<(), ProjectErrorKind> {
    out.clear();
    for (i, slot) in slots.iter().enumerate() {
        let sums = &slot.sums;
        let who = PlayerId(slot.player);
        if let Some(t) = trace.as_deref_mut() {
            trace_start(t, slots, pairs, i);
        }
        let rated = rate(params, slot, sums, trace.as_deref_mut())?;
        out.push(rated);
        if let Some(t) = trace.as_deref_mut() {
            let rating_before = slot.mu * SCALE + CENTRE;
            if sums.score > f64::from(sums.m) / 2.0 && rated.rating < rating_before {
                t.flag(
                    Some(who),
                    "winner-lost-rating",
                    format!("scored {} of {} but the rating fell", sums.score, sums.m),
                );
            }
        }
    }
    Ok(())
}

/// Seed 002, steps 3 to 8 for one player.
fn rate(
    params: &Params,
    slot: &Slot,
    sums: &Acc,
    trace: Option<&mut Trace>,
) -> Result<Rated, ProjectErrorKind> {
    match trace {
        None => rate_in::<false>(params, slot, sums, None),
        Some(t) => rate_in::<true>(params, slot, sums, Some(t)),
    }
}

/// [`rate`], compiled with and without its trace (see [`volatility_in`]).
#[inline]
fn rate_in<const TRACED: bool>(
    params: &Params,
    slot: &Slot,
    sums: &Acc,
    trace: Option<&mut Trace>,
) -> Result<Rated, ProjectErrorKind> {
    let mut trace = if TRACED { trace } else { None };
    let who = Some(PlayerId(slot.player));
    let fail = |quantity, why: &str| {
        Err(ProjectErrorKind::NonFinite {
            quantity,
            detail: format!("player #{}: {why}", slot.player),
        })
    };
    // Seed 002, step 3: v = [Σ g(phi_j)^2 E (1 - E)]^-1
    let v = 1.0 / sums.info;
    if !(v.is_finite() && v > 0.0) {
        return fail("v", "every E rounded to 0 or 1 (ratings too far apart)");
    }
    // Seed 002, step 4: Delta = v Σ g(phi_j) (s_j - E)
    let delta = v * sums.gain;
    if !delta.is_finite() {
        return fail("Delta", "v Σ g (s - E) overflowed");
    }
    if let Some(t) = trace.as_deref_mut() {
        t.quantity(
            who,
            "Σ g^2 E (1-E)",
            "Σ over the games above of g(phi_j)^2 E (1 - E)",
            sums.info,
        );
        t.quantity(who, "Σ g (s-E)", "Σ over the games above of g(phi_j) (s_j - E)", sums.gain);
        t.quantity(who, "tau", "constant tau", params.steps.tau);
        t.quantity(who, "v", "[Σ g(phi_j)^2 E (1 - E)]^-1", v);
        t.quantity(who, "Delta", "v Σ g(phi_j) (s_j - E)", delta);
    }
    // Seed 002, step 5.
    let sigma = volatility_in::<TRACED>(
        delta,
        slot.phi2,
        v,
        slot.sigma,
        &params.steps,
        who,
        trace.as_deref_mut(),
    )?;
    // Seed 002, step 6: phi* = sqrt(phi^2 + sigma'^2), capped at rd_max (contract section 3);
    // kept squared, as step 7 uses it.
    let grown2 = slot.phi2 + sigma * sigma;
    let capped = grown2 >= params.phi_max * params.phi_max;
    let phi_star2 = if capped { params.phi_max * params.phi_max } else { grown2 };
    // Seed 002, step 7: phi' = 1 / sqrt(1/phi*^2 + 1/v), mu' = mu + phi'^2 Σ g(phi_j) (s_j - E)
    // (1/v is the sum it was computed from).
    // (phi'^2 as phi*^2 / (1 + phi*^2 / v): one division instead of two, and mu' needs no root)
    let phi_new2 = phi_star2 / (1.0 + phi_star2 * sums.info);
    let phi_new = phi_new2.sqrt();
    let mu_new = slot.mu + phi_new2 * sums.gain;
    // Seed 002, step 8: r' = 173.7178 mu' + 1500, RD' = 173.7178 phi'
    let rating = SCALE * mu_new + CENTRE;
    let rd = (SCALE * phi_new).min(params.rd_max);
    if !(phi_new.is_finite() && phi_new > 0.0 && rd > 0.0) {
        return fail("phi'", "1/phi*^2 + 1/v is not a positive finite number");
    }
    if !rating.is_finite() {
        return fail("r'", "173.7178 mu' + 1500 overflowed");
    }
    if let Some(t) = trace {
        t.quantity(who, "phi*", "min(sqrt(phi^2 + sigma'^2), rd_max / 173.7178)", phi_star2.sqrt());
        if capped {
            t.flag(who, "rd-at-cap", format!("phi* reached rd_max = {}", params.rd_max));
        }
        t.quantity(who, "phi'", "1 / sqrt(1/phi*^2 + 1/v)", phi_new);
        t.quantity(who, "mu'", "mu + phi'^2 Σ g(phi_j) (s_j - E)", mu_new);
        t.quantity(who, "r'", "173.7178 mu' + 1500", rating);
        t.quantity(who, "RD'", "173.7178 phi'", rd);
    }
    Ok(Rated { rating, rd, volatility: sigma })
}

fn trace_start(t: &mut Trace, slots: &[Slot], pairs: &[Pair], i: usize) {
    let slot = &slots[i];
    let who = Some(PlayerId(slot.player));
    t.quantity(who, "mu", "(r - 1500) / 173.7178", slot.mu);
    t.quantity(who, "k", "periods sat out before this one (idle units with period=game)", slot.k);
    t.quantity(
        who,
        "phi",
        "min(sqrt((RD / 173.7178)^2 + k sigma^2), rd_max / 173.7178)",
        slot.phi2.sqrt(),
    );
    t.quantity(who, "sigma", "volatility at the period's start", slot.sigma);
    if slot.capped {
        t.flag(who, "rd-at-cap", "idle growth reached rd_max".to_string());
    }
    if slot.k >= LONG_IDLE_PERIODS {
        t.flag(who, "long-idle-gap", format!("{} periods without a game", slot.k));
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
        t.quantity(who, "mu_j", "opponent's mu at the period's start", opp.mu);
        t.quantity(who, "phi_j", "opponent's phi at the period's start", opp.phi2.sqrt());
        t.quantity(who, "g(phi_j)", "1 / sqrt(1 + 3 phi_j^2 / pi^2)", opp.g);
        t.quantity(
            who,
            "E",
            "1 / (1 + exp(-g(phi_j) (mu - mu_j)))",
            expected(slot.mu, opp.mu, opp.g),
        );
        t.quantity(who, "s_j", "1 win, 0.5 draw, 0 loss (scores compared)", s);
    }
}

impl Projector for Glicko2 {
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
        let horizon = self.state.last_match;
        self.state
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_joined())
            .map(|(i, p)| {
                let (values, since) = self.settled(p, closed.as_deref());
                // Contract section 3: every period sat out up to the last one (the one holding the
                // last MatchResult) applies step 6; with period=game, idle time up to that match.
                let clock = &self.params.clock;
                let k =
                    horizon.map_or(0.0, |end| clock.idle_since(since, end, clock.index(end) + 1));
                let rd = if k == 0.0 {
                    values.rd
                } else {
                    let phi =
                        idle_phi(values.rd / SCALE, values.volatility, k, self.params.phi_max).0;
                    (phi * SCALE).min(self.params.rd_max)
                };
                Standing {
                    player: PlayerId(i as u32),
                    rating: values.rating,
                    rd: Some(rd),
                    volatility: Some(values.volatility),
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

    /// Contract section 4: `E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))`, which is
    /// g(sqrt(RD_a^2 + RD_b^2)) on the Glicko scale, each player with the values they would enter
    /// a game at `at` with.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        let mut closed = None;
        let (mu_a, phi_a) = self.entering(a, at, &mut closed);
        let (mu_b, phi_b) = self.entering(b, at, &mut closed);
        expected(mu_a, mu_b, g_of_square(phi_a * phi_a + phi_b * phi_b))
    }
}
