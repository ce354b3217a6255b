//! Glicko-2, seed 002 (Glickman's "Example of the Glicko-2 system", with the 2022 `<=` in step
//! 5.4(b)), with the rating periods of `../shared/CONTRACT.md` section 3.
//!
//! A player's state is `(r, RD, sigma)` on the Glicko scale after their last rated period, the
//! instant of their last game or join, and whether that instant was a game. Every period a player
//! sits out, including the one they joined in, applies step 6 only; those periods are applied
//! lazily, `k` at once, as `phi = min(sqrt(phi^2 + k sigma^2), phi_max)` (the same as `k` single
//! steps, because each step is monotone and the cap is a fixed point). Games of a period are rated
//! from the values at the period's start, and steps 3 to 8 run once per player when it closes.

use crate::clock::{check_rd, Clock};
use crate::glicko::outcome;
use crate::LONG_IDLE_PERIODS;
use ladder_events::{Prior, Timestamp};
use ladder_projector::{
    Config, ConfigError, Input, ParamKind, ParamSpec, Period, PlayerId, ProjectError,
    ProjectErrorKind, Projector, SeatIn, Standing, Step, Trace,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

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
        default: "1d",
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
    joined: bool,
    rating: f64,
    /// RD after the last rated period, before any sat-out period since.
    rd: f64,
    volatility: f64,
    /// The last game or the join.
    last: Timestamp,
    /// Whether `last` is a game (periods sat out start after it) or the join (they start with it).
    played: bool,
    games: u64,
    slot: u32,
}

const UNJOINED: PlayerState = PlayerState {
    joined: false,
    rating: 0.0,
    rd: 0.0,
    volatility: 0.0,
    last: Timestamp(0),
    played: false,
    games: 0,
    slot: NO_SLOT,
};

/// A player's values at the start of the open period, on the Glicko-2 scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Slot {
    player: u32,
    mu: f64,
    /// phi after the step 6s of the periods sat out.
    phi: f64,
    sigma: f64,
    /// g(phi), what opponents see of this player (seed 002, step 3).
    g: f64,
    /// Periods sat out (or idle units with period=game) before this one.
    k: f64,
    capped: bool,
    last: Timestamp,
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
#[derive(Clone, Copy, Debug, Default)]
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
    acc: Vec<Acc>,
    out: Vec<Rated>,
    seat_slots: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Params {
    tau: f64,
    epsilon: f64,
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
}

/// Seed 002, step 3: `g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`.
#[inline]
pub fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * (phi * phi) / (PI * PI)).sqrt()
}

/// Seed 002, step 3: `E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))`, given `g(phi_j)`.
#[inline]
pub fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
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
/// [`MAX_BRACKET_STEPS`] and [`MAX_ILLINOIS_ITERATIONS`]. Records A, B, f_A, f_B of every iteration
/// (the seed's table) when traced.
#[allow(clippy::too_many_arguments)]
pub fn volatility(
    delta: f64,
    phi: f64,
    v: f64,
    sigma: f64,
    tau: f64,
    epsilon: f64,
    who: Option<PlayerId>,
    mut trace: Option<&mut Trace>,
) -> Result<f64, ProjectErrorKind> {
    let fail = |quantity, why: String| {
        let player = who.map_or(String::new(), |p| format!("player #{}: ", p.0));
        Err(ProjectErrorKind::NonFinite { quantity, detail: format!("{player}{why}") })
    };
    let (delta2, phi2) = (delta * delta, phi * phi);
    // Seed 002, step 5.1: a = ln(sigma^2) (as 2 ln(sigma) when sigma^2 underflows or overflows).
    let sigma2 = sigma * sigma;
    let a = if sigma2 >= f64::MIN_POSITIVE && sigma2.is_finite() {
        sigma2.ln()
    } else {
        2.0 * sigma.ln()
    };
    let tau2 = tau * tau;
    // Seed 002, step 5.1: f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2
    let f = |x: f64| {
        let ex = x.exp();
        (ex * (delta2 - phi2 - v - ex)) / (2.0 * (phi2 + v + ex) * (phi2 + v + ex)) - (x - a) / tau2
    };
    if !(a.is_finite() && tau2 > 0.0 && tau2.is_finite()) {
        return fail("a", format!("ln(sigma^2) = {a} or tau^2 = {tau2} is unusable"));
    }
    // Seed 002, step 5.2: A = a; B = ln(Delta^2 - phi^2 - v) if Delta^2 > phi^2 + v, else a - k tau
    // for the first k = 1, 2, ... with f(a - k tau) >= 0.
    let mut big_a = a;
    let mut k = 0u32;
    let mut big_b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        loop {
            k += 1;
            if k > MAX_BRACKET_STEPS {
                return Err(ProjectErrorKind::NoConvergence {
                    what: "the volatility bracket search (seed 002, step 5.2)",
                    iterations: MAX_BRACKET_STEPS,
                });
            }
            let x = a - f64::from(k) * tau;
            let fx = f(x);
            if fx.is_nan() {
                return fail("f(a - k tau)", format!("f({x}) is not a number"));
            }
            if fx >= 0.0 {
                break x;
            }
        }
    };
    // Seed 002, step 5.3: f_A = f(A), f_B = f(B).
    let mut fa = f(big_a);
    let mut fb = f(big_b);
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
        let fc = f(c);
        if !(c.is_finite() && fc.is_finite()) {
            return fail("C", format!("iteration {n}: C = {c}, f(C) = {fc}"));
        }
        // Seed 002, step 5.4(b), 2022 revision (contract section 3): if f_C f_B <= 0 then
        // A <- B, f_A <- f_B; otherwise f_A <- f_A / 2.
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        // Seed 002, step 5.4(c): B <- C, f_B <- f_C.
        big_b = c;
        fb = fc;
        if let Some(t) = trace.as_deref_mut() {
            t.quantity(who, format!("C[{n}]"), "A + (A - B) f_A / (f_B - f_A)", c);
            t.quantity(who, format!("f_C[{n}]"), "f(C)", fc);
            t.quantity(who, format!("A[{n}]"), "B if f_C f_B <= 0, else A", big_a);
            t.quantity(who, format!("B[{n}]"), "C", big_b);
            t.quantity(who, format!("f_A[{n}]"), "f_B if f_C f_B <= 0, else f_A / 2", fa);
            t.quantity(who, format!("f_B[{n}]"), "f_C", fb);
        }
    }
    // Seed 002, step 5.5: sigma' = e^(A/2)
    let sigma_new = (big_a / 2.0).exp();
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
            tau: config.number("tau"),
            epsilon: config.number("epsilon"),
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
        Ok(Glicko2 { config, params, state, scratch: Scratch::default() })
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
        let Scratch { acc, out, .. } = &mut self.scratch;
        compute_period(&self.params, &self.state.slots, &self.state.pairs, acc, out, trace)
            .map_err(|kind| ProjectError::new(seq, kind))?;
        for (slot, rated) in self.state.slots.iter().zip(out.iter()) {
            let p = &mut self.state.players[slot.player as usize];
            p.rating = rated.rating;
            p.rd = rated.rd;
            p.volatility = rated.volatility;
            p.last = slot.last;
            p.played = true;
            p.slot = NO_SLOT;
        }
        self.state.slots.clear();
        self.state.pairs.clear();
        self.state.open = None;
        Ok(())
    }

    /// Periods sat out between a player's last game or join and `at` (contract section 3): whole
    /// periods, counting the join's own period, or with period=game the fractional idle time.
    #[inline]
    fn sat_out(&self, last: Timestamp, played: bool, at: Timestamp) -> f64 {
        let clock = &self.params.clock;
        match clock.period {
            Period::Every(_) => {
                let idle_from = clock.index(last) + i64::from(played);
                (clock.index(at) - idle_from).max(0) as f64
            }
            Period::Game => clock.idle_units(last, at),
        }
    }

    #[inline]
    fn touch(&mut self, player: u32, at: Timestamp) -> u32 {
        let (last, played, slot) = {
            let p = &self.state.players[player as usize];
            (p.last, p.played, p.slot)
        };
        if slot != NO_SLOT {
            let s = &mut self.state.slots[slot as usize];
            s.last = s.last.max(at);
            return slot;
        }
        let k = self.sat_out(last, played, at);
        let p = &mut self.state.players[player as usize];
        // Seed 002, step 2: mu = (r - 1500) / 173.7178, phi = RD / 173.7178
        let mu = (p.rating - CENTRE) / SCALE;
        let phi0 = p.rd / SCALE;
        // Seed 002, "only Step 6 applies" for each period sat out: phi = sqrt(phi^2 + sigma^2),
        // capped at rd_max (contract section 3), k periods at once.
        let (phi, capped) = idle_phi(phi0, p.volatility, k, self.params.phi_max);
        let index = self.state.slots.len() as u32;
        p.slot = index;
        self.state.slots.push(Slot {
            player,
            mu,
            phi,
            sigma: p.volatility,
            g: g(phi),
            k,
            capped,
            last: at,
        });
        index
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
        if self.state.players[i].joined {
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
            joined: true,
            rating,
            rd,
            volatility,
            last: step.at,
            played: false,
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
        seats: &[SeatIn],
        trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        for seat in seats {
            let known = self.state.players.get(seat.player.index()).is_some_and(|p| p.joined);
            if !known {
                return Err(ProjectError::new(
                    step.seq,
                    ProjectErrorKind::UnknownPlayer(seat.player.0),
                ));
            }
        }
        let before = self.state.last_match;
        self.state.last_match = Some(step.at);
        let mut seat_slots = std::mem::take(&mut self.scratch.seat_slots);
        seat_slots.clear();
        for seat in seats {
            seat_slots.push(self.touch(seat.player.0, step.at));
            self.state.players[seat.player.index()].games += 1;
        }
        // Contract section 1: every pair of seats on different sides is one game, in seat order.
        for (i, x) in seats.iter().enumerate() {
            for (j, y) in seats.iter().enumerate().skip(i + 1) {
                if x.side != y.side {
                    let (a, b) = (seat_slots[i], seat_slots[j]);
                    self.state.pairs.push(Pair { a, b, s: outcome(x.score, y.score) });
                }
            }
        }
        self.scratch.seat_slots = seat_slots;
        match self.params.clock.period {
            Period::Every(_) => {
                self.state.open = Some(self.params.clock.index(step.at));
                if let Some(t) = trace {
                    t.section(format!(
                        "{ALGORITHM} match: rated when period {} closes",
                        self.params.clock.index(step.at)
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
        let (mut acc, mut out) = (Vec::new(), Vec::new());
        compute_period(
            &self.params,
            &self.state.slots,
            &self.state.pairs,
            &mut acc,
            &mut out,
            None,
        )?;
        Ok(Some(out))
    }

    /// `(values, last, played)` of a player once the open period is closed (with `closed`).
    fn settled(&self, p: &PlayerState, closed: Option<&[Rated]>) -> (Rated, Timestamp, bool) {
        match closed {
            Some(out) if p.slot != NO_SLOT => {
                (out[p.slot as usize], self.state.slots[p.slot as usize].last, true)
            }
            _ => (Rated { rating: p.rating, rd: p.rd, volatility: p.volatility }, p.last, p.played),
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
        let Some(p) = self.state.players.get(player.index()).filter(|p| p.joined) else {
            return ((params.initial_rating - CENTRE) / SCALE, params.initial_rd / SCALE);
        };
        let (values, last, played) = match params.clock.period {
            Period::Every(_) if p.slot != NO_SLOT => {
                let slot = &self.state.slots[p.slot as usize];
                if Some(params.clock.index(at)) <= self.state.open {
                    return (slot.mu, slot.phi);
                }
                let side = closed.get_or_insert_with(|| self.closed_on_the_side());
                self.settled(p, side.as_deref())
            }
            _ => self.settled(p, None),
        };
        let k = self.sat_out(last, played, at);
        let phi = idle_phi(values.rd / SCALE, values.volatility, k, params.phi_max).0;
        ((values.rating - CENTRE) / SCALE, phi)
    }
}

/// Seed 002, steps 3 to 8 for every slot of a period: fills `out`, or fails naming the quantity.
fn compute_period(
    params: &Params,
    slots: &[Slot],
    pairs: &[Pair],
    acc: &mut Vec<Acc>,
    out: &mut Vec<Rated>,
    mut trace: Option<&mut Trace>,
) -> Result<(), ProjectErrorKind> {
    acc.clear();
    acc.resize(slots.len(), Acc::default());
    for pair in pairs {
        let (a, b) = (&slots[pair.a as usize], &slots[pair.b as usize]);
        // Seed 002, step 3: E(mu, mu_j, phi_j), each side seeing the other's phi at the period's start.
        let e_ab = expected(a.mu, b.mu, b.g);
        let e_ba = expected(b.mu, a.mu, a.g);
        acc[pair.a as usize].add(b.g, e_ab, pair.s);
        acc[pair.b as usize].add(a.g, e_ba, 1.0 - pair.s);
    }
    out.clear();
    for (i, (slot, sums)) in slots.iter().zip(acc.iter()).enumerate() {
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
    mut trace: Option<&mut Trace>,
) -> Result<Rated, ProjectErrorKind> {
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
        t.quantity(who, "v", "[Σ g(phi_j)^2 E (1 - E)]^-1", v);
        t.quantity(who, "Delta", "v Σ g(phi_j) (s_j - E)", delta);
    }
    // Seed 002, step 5.
    let sigma = volatility(
        delta,
        slot.phi,
        v,
        slot.sigma,
        params.tau,
        params.epsilon,
        who,
        trace.as_deref_mut(),
    )?;
    // Seed 002, step 6: phi* = sqrt(phi^2 + sigma'^2), capped at rd_max (contract section 3).
    let grown = slot.phi.hypot(sigma);
    let (phi_star, capped) =
        if grown >= params.phi_max { (params.phi_max, true) } else { (grown, false) };
    // Seed 002, step 7: phi' = 1 / sqrt(1/phi*^2 + 1/v), mu' = mu + phi'^2 Σ g(phi_j) (s_j - E)
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = slot.mu + phi_new * phi_new * sums.gain;
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
        t.quantity(who, "phi*", "min(sqrt(phi^2 + sigma'^2), rd_max / 173.7178)", phi_star);
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
    t.quantity(who, "phi", "min(sqrt((RD / 173.7178)^2 + k sigma^2), rd_max / 173.7178)", slot.phi);
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
        t.quantity(who, "j", "opponent's player id", f64::from(opp.player));
        t.quantity(who, "mu_j", "opponent's mu at the period's start", opp.mu);
        t.quantity(who, "phi_j", "opponent's phi at the period's start", opp.phi);
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
        if let Some(open) = self.state.open {
            if self.params.clock.index(step.at) > open {
                self.close(step.seq, trace.as_deref_mut())?;
            }
        }
        match step.input {
            Input::Joined { player, prior } => self.joined(step, player, prior, trace),
            Input::Match { seats } => self.matched(step, seats, trace),
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
            .filter(|(_, p)| p.joined)
            .map(|(i, p)| {
                let (values, last, played) = self.settled(p, closed.as_deref());
                // Contract section 3: every period sat out up to the last one (the one holding the
                // last MatchResult) applies step 6; with period=game, idle time up to that match.
                let k = horizon.map_or(0.0, |end| match self.params.clock.period {
                    Period::Every(_) => {
                        let clock = &self.params.clock;
                        let idle_from = clock.index(last) + i64::from(played);
                        (clock.index(end) + 1 - idle_from).max(0) as f64
                    }
                    Period::Game => self.params.clock.idle_units(last, end),
                });
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
                    games: p.games,
                    display: None,
                }
            })
            .collect()
    }

    /// The open period closes (seed's arithmetic included), or its failure is an error at `seq`.
    fn settle(&self, seq: u64) -> Result<(), ProjectError> {
        self.close_on_the_side().map(drop).map_err(|kind| ProjectError::new(seq, kind))
    }

    /// Contract section 4: `E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))`, which is
    /// g(sqrt(RD_a^2 + RD_b^2)) on the Glicko scale, each player with the values they would enter
    /// a game at `at` with.
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        let mut closed = None;
        let (mu_a, phi_a) = self.entering(a, at, &mut closed);
        let (mu_b, phi_b) = self.entering(b, at, &mut closed);
        expected(mu_a, mu_b, g(phi_a.hypot(phi_b)))
    }
}
