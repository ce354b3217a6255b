//! Glicko-2 as Glickman's "Example of the Glicko-2 system" states it ("Glickman" below), with the
//! 2022 `<=` in step 5.4(b) and the rating periods of docs/spec.md ("Rating periods").
//!
//! A player's state is `(r, RD, sigma)` on the Glicko scale after their last rated period, the
//! instant of their last game or join, and whether that instant was a game. Every period a player
//! sits out, including the one they joined in, applies step 6 only; those periods are applied
//! lazily, `k` at once, as `phi = min(sqrt(phi^2 + k sigma^2), phi_max)` (the same as `k` single
//! steps, because each step is monotone and the cap is a fixed point). Games of a period are rated
//! from the values at the period's start, and steps 3 to 8 run once per player when it closes.

use crate::periods::{with_engine_params, EngineDocs, Periodic, Rule, Slot, StateOf};
use ladder_events::Prior;
use ladder_projector::{
    math, Config, ParamKind, ParamSpec, PlayerId, ProjectErrorKind, Quantities, Trace,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

pub mod lanes;

/// The algorithm's name (docs/spec.md).
pub const ALGORITHM: &str = "glicko2";

/// The Glicko-2 projector (`--algo glicko2`): the rating-period engine driving [`Glicko2Rule`].
pub type Glicko2 = Periodic<Glicko2Rule>;

/// Everything a Glicko-2 checkpoint must keep: the players' values and the open period's games.
pub type Glicko2State = StateOf<Glicko2Rule>;

/// Glickman, step 2: the Glicko-2 scale, `mu = (r - 1500) / 173.7178`, `phi = RD / 173.7178`.
pub const SCALE: f64 = 173.7178;

/// Glickman, step 2: the rating at the centre of the Glicko-2 scale (independent of
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

/// The constants of `glicko2` (docs/spec.md), with defaults and ranges.
pub const PARAMS: &[ParamSpec] = &with_engine_params::<3, 12>(
    [
        ParamSpec {
            key: "tau",
            kind: ParamKind::above(0.0),
            default: "0.5",
            doc: "system constant constraining volatility change (Glickman's Glicko-2 example, \
                  step 1: reasonable choices are between 0.3 and 1.2)",
            warn_below: None,
        },
        ParamSpec {
            key: "sigma",
            kind: ParamKind::above(0.0),
            default: "0.06",
            doc: "volatility of a player who joins without a prior (Glickman's Glicko-2 \
                  example, step 1(a))",
            warn_below: None,
        },
        ParamSpec {
            key: "epsilon",
            kind: ParamKind::above(0.0),
            default: "1e-6",
            doc: "convergence tolerance of the volatility iteration (Glickman's Glicko-2 \
                  example, step 5.1)",
            warn_below: None,
        },
    ],
    EngineDocs {
        period: DEFAULT_PERIOD,
        idle: "with period=game, the time worth one step 6: phi^2 + t sigma^2, t = elapsed / idle",
        rd_max: "cap on phi* (as RD) in every step 6, the RD of an unrated player (Glickman's \
                 Glicko-2 example, step 1)",
        initial_rating: "rating of a player who joins without a prior (Glickman's Glicko-2 \
                         example, step 1(a))",
        initial_rd: "RD of a player who joins without a prior (Glickman's Glicko-2 example, \
                     step 1(a)); at most rd_max",
    },
);

/// One player's values on the Glicko scale after their last rated period. Invariant for joined
/// players: `rating` finite, `rd` in (0, rd_max], `volatility` positive and finite; all zeros for
/// one who has not joined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Values {
    rating: f64,
    /// RD after the last rated period, before any sat-out period since.
    rd: f64,
    volatility: f64,
}

/// A player's values at the start of the open period, on the Glicko-2 scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Start {
    mu: f64,
    /// phi^2 after the step 6s of the periods sat out (squared, as steps 3 to 7 use it).
    phi2: f64,
    sigma: f64,
    /// g(phi), what opponents see of this player (Glickman, step 3).
    g: f64,
    /// Periods sat out (or idle units with period=game) before this one.
    k: f64,
    capped: bool,
}

/// Glicko-2's rating step (Glickman, steps 2 to 8) for the rating-period engine.
#[derive(Clone, Copy, Debug)]
pub struct Glicko2Rule {
    steps: Steps,
    sigma: f64,
    rd_max: f64,
    phi_max: f64,
}

/// Glickman, step 3: `g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`.
#[inline]
pub fn g(phi: f64) -> f64 {
    g_of_square(phi * phi)
}

/// `3 / pi^2`, the constant of g.
const G_K: f64 = 3.0 / (PI * PI);

/// g of a deviation given its square `phi^2` (Glickman, step 3), so phi need not be rooted.
#[inline]
fn g_of_square(phi2: f64) -> f64 {
    1.0 / (1.0 + G_K * phi2).sqrt()
}

/// Glickman, step 6 applied `k` times, squared: `phi^2 = min(phi^2 + k sigma^2, phi_max^2)`, and
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

/// Glickman, step 3: `E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))`, given `g(phi_j)`.
#[inline]
pub fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + math::exp(-g_j * (mu - mu_j)))
}

/// Glickman, step 6 applied `k` times (k sat-out periods, or a fraction with period=game):
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

/// [`Rule::start`] of `N` lanes at once, lane `i` being `rules[i]` with `values[i]`, all after the
/// same `k` periods sat out (the clock's, shared by a sweep's lanes): Glickman's step 2 and the
/// step 6s of the periods sat out, then g of step 3. Every lane runs [`Rule::start`]'s IEEE 754
/// operations in the same order (a division, a multiplication, an addition, a square root: each
/// exactly rounded, whichever unit computes it), with no branch between the lanes, so the
/// compiler can take two lanes' divisions and square roots in one vector instruction; the
/// results are [`Rule::start`]'s, bit for bit (`start_n_and_idle_n_are_start_and_idle`).
/// The arithmetic is [`start_fields`]', which the lanes call with each field of `N` lanes side
/// by side; this form of whole [`Values`] is the one the tests hold to [`Rule::start`].
#[cfg(test)]
#[inline]
pub(crate) fn start_n<const N: usize>(
    rules: [&Glicko2Rule; N],
    values: [Values; N],
    k: f64,
) -> [Start; N] {
    let lanes = Fields {
        rating: values.map(|v| v.rating),
        rd: values.map(|v| v.rd),
        volatility: values.map(|v| v.volatility),
    };
    let s = start_fields(rules.map(|r| r.phi_max), &lanes, k);
    std::array::from_fn(|i| Start {
        mu: s.mu[i],
        phi2: s.phi2[i],
        sigma: values[i].volatility,
        g: s.g[i],
        k,
        capped: s.capped[i],
    })
}

/// `N` lanes' [`Values`] field by field (each field's `N` lanes side by side, as a sweep's
/// lanes keep them), so that a kernel loads and stores whole vectors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields<const N: usize> {
    pub(crate) rating: [f64; N],
    pub(crate) rd: [f64; N],
    pub(crate) volatility: [f64; N],
}

/// What [`start_fields`] and [`start_and_idle_fields`] compute of each lane's [`Start`] (its
/// `sigma` is the lane's volatility and its `k` the shared one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Starts<const N: usize> {
    pub(crate) mu: [f64; N],
    pub(crate) phi2: [f64; N],
    pub(crate) g: [f64; N],
    pub(crate) capped: [bool; N],
}

/// [`Rule::start`] of `N` lanes given field by field, lane `i` under the cap `phi_max[i]`
/// ([`start_n`]'s arithmetic: the same operations lane by lane in [`Rule::start`]'s order, no
/// branch between the lanes).
#[inline]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
pub(crate) fn start_fields<const N: usize>(
    phi_max: [f64; N],
    values: &Fields<N>,
    k: f64,
) -> Starts<N> {
    let (mut mu, mut grown) = ([0.0; N], [0.0; N]);
    for i in 0..N {
        // Glickman, step 2.
        mu[i] = (values.rating[i] - CENTRE) / SCALE;
        let phi = values.rd[i] / SCALE;
        grown[i] = phi * phi;
    }
    // idle_phi_squared: k = 0 leaves phi^2 as it is.
    if k != 0.0 {
        for i in 0..N {
            let sigma = values.volatility[i];
            grown[i] += k * (sigma * sigma);
        }
    }
    let (mut phi2, mut capped, mut g) = ([0.0; N], [false; N], [0.0; N]);
    for i in 0..N {
        let cap = phi_max[i] * phi_max[i];
        capped[i] = grown[i] >= cap;
        phi2[i] = if capped[i] { cap } else { grown[i] };
        // g_of_square.
        g[i] = 1.0 / (1.0 + G_K * phi2[i]).sqrt();
    }
    Starts { mu, phi2, g, capped }
}

/// [`Rule::idle`] of `N` lanes at once after the same `k` (see [`start_n`]): `(mu, phi)` of
/// each, Glickman's step 2 and the step 6s of `k` periods sat out, phi capped at `phi_max`; the
/// same operations in the same order as [`Rule::idle`], so the same bits
/// (`start_n_and_idle_n_are_start_and_idle`). The arithmetic is [`idle_fields`]' (which the
/// lanes call); this form is the one the tests hold to [`Rule::idle`].
#[cfg(test)]
#[inline]
pub(crate) fn idle_n<const N: usize>(
    rules: [&Glicko2Rule; N],
    values: [Values; N],
    k: f64,
) -> ([f64; N], [f64; N]) {
    let lanes = Fields {
        rating: values.map(|v| v.rating),
        rd: values.map(|v| v.rd),
        volatility: values.map(|v| v.volatility),
    };
    idle_fields(rules.map(|r| r.phi_max), &lanes, k)
}

/// [`Rule::idle`] of `N` lanes given field by field, lane `i` under the cap `phi_max[i]`
/// ([`idle_n`]'s arithmetic).
#[inline]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
pub(crate) fn idle_fields<const N: usize>(
    phi_max: [f64; N],
    values: &Fields<N>,
    k: f64,
) -> ([f64; N], [f64; N]) {
    let (mut mu, mut phi) = ([0.0; N], [0.0; N]);
    for i in 0..N {
        mu[i] = (values.rating[i] - CENTRE) / SCALE;
        phi[i] = values.rd[i] / SCALE;
    }
    // idle_phi: k = 0 returns phi as it is.
    if k != 0.0 {
        for i in 0..N {
            let sigma = values.volatility[i];
            let grown = (phi[i] * phi[i] + k * (sigma * sigma)).sqrt();
            phi[i] = if grown >= phi_max[i] { phi_max[i] } else { grown };
        }
    }
    (mu, phi)
}

/// [`start_fields`] and [`idle_fields`] of the same `N` lanes after the same `k`, at once: each
/// lane's [`Rule::start`] (the slot a player's first game of a period makes) and the phi of
/// [`Rule::idle`] (with which that game predicts the player: `min(sqrt(phi^2 + k sigma^2),
/// phi_max)`, or phi itself when `k` is 0). The two share Glickman's step 2 and the grown
/// `phi^2 + k sigma^2`, computed once here by the same IEEE 754 operations in the same order as
/// each (a division, two multiplications, an addition), so both results keep their bits
/// (`start_and_idle_fields_are_start_and_idle`). The phi is the square root of the grown phi^2,
/// capped by its own test: the start's phi^2 is capped by a test on the square, and
/// `sqrt(phi^2)` of the start is not always that phi.
#[inline]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
pub(crate) fn start_and_idle_fields<const N: usize>(
    phi_max: [f64; N],
    values: &Fields<N>,
    k: f64,
) -> (Starts<N>, [f64; N]) {
    let (mut mu, mut phi, mut grown) = ([0.0; N], [0.0; N], [0.0; N]);
    for i in 0..N {
        // Glickman, step 2.
        mu[i] = (values.rating[i] - CENTRE) / SCALE;
        phi[i] = values.rd[i] / SCALE;
        grown[i] = phi[i] * phi[i];
    }
    // idle_phi_squared and idle_phi: k = 0 leaves phi (and its square) as it is.
    if k != 0.0 {
        for i in 0..N {
            let sigma = values.volatility[i];
            grown[i] += k * (sigma * sigma);
            // idle_phi's square root of the same sum, capped by its own test.
            let root = grown[i].sqrt();
            phi[i] = if root >= phi_max[i] { phi_max[i] } else { root };
        }
    }
    let (mut phi2, mut capped, mut g) = ([0.0; N], [false; N], [0.0; N]);
    for i in 0..N {
        let cap = phi_max[i] * phi_max[i];
        capped[i] = grown[i] >= cap;
        phi2[i] = if capped[i] { cap } else { grown[i] };
        // g_of_square.
        g[i] = 1.0 / (1.0 + G_K * phi2[i]).sqrt();
    }
    (Starts { mu, phi2, g, capped }, phi)
}

/// Glickman, step 5: the new volatility sigma' by the Illinois iteration, bounded by
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

/// Glickman, step 5.1:
/// `f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2`, given
/// `e^x`, `gap = Delta^2 - phi^2 - v`, `spread = phi^2 + v` and `1 / tau^2`.
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
    // Glickman, step 5.1: a = ln(sigma^2) (as 2 ln(sigma) when sigma^2 underflows or overflows).
    let sigma2 = sigma * sigma;
    let (a, e_a) = if sigma2 >= f64::MIN_POSITIVE && sigma2.is_finite() {
        (math::ln(sigma2), sigma2)
    } else {
        let a = 2.0 * math::ln(sigma);
        (a, math::exp(a))
    };
    let (gap, spread) = (delta2 - phi2 - v, phi2 + v);
    // Glickman, step 5.1:
    // f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
    // given e^x. Every point of the iteration carries its e^x, so exp runs once per new point C
    // only: e^A = sigma^2 for A = a; e^B = Delta^2 - phi^2 - v for B = ln(that); and
    // e^(a - k tau) = sigma^2 (e^-tau)^k in the bracket search.
    let f = |x: f64, ex: f64| f_of(x, ex, gap, spread, a, inv_tau2);
    if !(a.is_finite() && inv_tau2 > 0.0 && inv_tau2.is_finite()) {
        return fail("a", format!("ln(sigma^2) = {a} or 1/tau^2 = {inv_tau2} is unusable"));
    }
    // Glickman, step 5.2: A = a; B = ln(Delta^2 - phi^2 - v) if Delta^2 > phi^2 + v, else a - k tau
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
                    what: "the volatility bracket search (Glickman's Glicko-2 example, step 5.2)",
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
    // Glickman, step 5.3: f_A = f(A), f_B = f(B) (f_B was computed with B above).
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
    // Glickman, step 5.4: while |B - A| > epsilon ...
    let mut n = 0u32;
    while (big_b - big_a).abs() > epsilon {
        n += 1;
        if n > MAX_ILLINOIS_ITERATIONS {
            return Err(ProjectErrorKind::NoConvergence {
                what: "the volatility iteration (Glickman's Glicko-2 example, step 5.4)",
                iterations: MAX_ILLINOIS_ITERATIONS,
            });
        }
        // Glickman, step 5.4(a): C = A + (A - B) f_A / (f_B - f_A), f_C = f(C)
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let e_c = math::exp(c);
        let fc = f(c, e_c);
        if !(c.is_finite() && fc.is_finite()) {
            return fail("C", format!("iteration {n}: C = {c}, f(C) = {fc}"));
        }
        // Glickman, step 5.4(b), 2022 revision (docs/spec.md): if f_C f_B <= 0 then
        // A <- B, f_A <- f_B; otherwise f_A <- f_A / 2.
        if fc * fb <= 0.0 {
            (big_a, e_big_a, fa) = (big_b, e_big_b, fb);
        } else {
            fa /= 2.0;
        }
        // Glickman, step 5.4(c): B <- C, f_B <- f_C.
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
    // Glickman, step 5.5: sigma' = e^(A/2), the root of the e^A already known (or, where e^A is
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

impl Rule for Glicko2Rule {
    type Values = Values;
    type Start = Start;

    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["tau", "period"];
    // Glickman: every period a player sits out, including the one they joined in, applies step 6
    // only; a rated period's own step 6 is in steps 6 and 7, so idle time counts from the next.
    const IDLE_FROM_NEXT: bool = true;
    const UNJOINED: Values = Values { rating: 0.0, rd: 0.0, volatility: 0.0 };

    const GAME_TRACE: [(&'static str, &'static str); 4] = [
        ("mu_j", "opponent's mu at the period's start"),
        ("phi_j", "opponent's phi at the period's start"),
        ("g(phi_j)", "1 / sqrt(1 + 3 phi_j^2 / pi^2)"),
        ("E", "1 / (1 + exp(-g(phi_j) (mu - mu_j)))"),
    ];

    fn from_config(config: &Config) -> Glicko2Rule {
        let rd_max = config.number("rd_max");
        Glicko2Rule {
            steps: Steps::new(config.number("tau"), config.number("epsilon")),
            sigma: config.number("sigma"),
            rd_max,
            phi_max: rd_max / SCALE,
        }
    }

    /// The volatility is positive for every joined player, and the record of one who has not is
    /// all zeros.
    #[inline]
    fn is_joined(values: &Values) -> bool {
        values.volatility > 0.0
    }

    fn join(
        &self,
        rating: f64,
        rd: f64,
        prior: &Prior,
    ) -> Result<Values, (&'static str, &'static str)> {
        let volatility = prior.volatility.unwrap_or(self.sigma);
        if !(volatility.is_finite() && volatility > 0.0) {
            return Err(("sigma", "the prior volatility is not a positive finite number"));
        }
        Ok(Values { rating, rd, volatility })
    }

    fn trace_join(&self, t: &mut Trace, player: PlayerId, values: &Values) {
        t.quantity(Some(player), "sigma", "prior.volatility, else sigma", values.volatility);
    }

    #[inline]
    fn start(&self, values: &Values, k: f64) -> Start {
        // Glickman, step 2: mu = (r - 1500) / 173.7178, phi = RD / 173.7178
        let mu = (values.rating - CENTRE) / SCALE;
        let phi0 = values.rd / SCALE;
        // Glickman, "only Step 6 applies" for each period sat out: phi = sqrt(phi^2 + sigma^2),
        // capped at rd_max (docs/spec.md), k periods at once; kept squared.
        let (phi2, capped) = idle_phi_squared(phi0, values.volatility, k, self.phi_max);
        Start { mu, phi2, sigma: values.volatility, g: g_of_square(phi2), k, capped }
    }

    /// Glickman, step 3: E(mu, mu_j, phi_j), each side seeing the other's phi at the period's
    /// start.
    #[inline]
    fn versus(a: &Start, b: &Start) -> (f64, f64) {
        (expected(a.mu, b.mu, b.g), b.g)
    }

    #[inline]
    fn rate(&self, slot: &Slot<Start>) -> Result<Values, ProjectErrorKind> {
        rate_in::<false>(self, slot, None)
    }

    /// Glickman, step 8's conversion of the traced `mu`: `173.7178 mu + 1500`.
    fn traced_start_rating(quantity: &Quantities<'_>) -> Option<f64> {
        quantity("mu").map(|mu| SCALE * mu + CENTRE)
    }

    fn trace_start(&self, t: &mut Trace, who: Option<PlayerId>, slot: &Start) {
        t.quantity(who, "mu", "(r - 1500) / 173.7178", slot.mu);
        t.quantity(
            who,
            "k",
            "periods sat out before this one (idle units with period=game)",
            slot.k,
        );
        t.quantity(
            who,
            "phi",
            "min(sqrt((RD / 173.7178)^2 + k sigma^2), rd_max / 173.7178)",
            slot.phi2.sqrt(),
        );
        t.quantity(who, "sigma", "volatility at the period's start", slot.sigma);
    }

    fn idle_of(slot: &Start) -> (f64, Option<String>) {
        (slot.k, slot.capped.then(|| "idle growth reached rd_max".to_string()))
    }

    fn game_trace(me: &Start, opp: &Start) -> [f64; 4] {
        [opp.mu, opp.phi2.sqrt(), opp.g, expected(me.mu, opp.mu, opp.g)]
    }

    fn rate_traced(&self, slot: &Slot<Start>, t: &mut Trace) -> Result<Values, ProjectErrorKind> {
        rate_in::<true>(self, slot, Some(t))
    }

    fn ratings(values: &Values, start: &Start) -> (f64, f64) {
        (values.rating, start.mu * SCALE + CENTRE)
    }

    fn report(&self, values: &Values, k: f64) -> (f64, f64, Option<f64>) {
        // docs/spec.md: every period sat out up to the last one (the one holding the last
        // MatchResult) applies step 6; with period=game, idle time up to that match.
        let rd = if k == 0.0 {
            values.rd
        } else {
            let phi = idle_phi(values.rd / SCALE, values.volatility, k, self.phi_max).0;
            (phi * SCALE).min(self.rd_max)
        };
        (values.rating, rd, Some(values.volatility))
    }

    fn position(start: &Start) -> (f64, f64) {
        (start.mu, start.phi2)
    }

    fn idle(&self, values: &Values, k: f64) -> (f64, f64) {
        let phi = idle_phi(values.rd / SCALE, values.volatility, k, self.phi_max).0;
        ((values.rating - CENTRE) / SCALE, phi)
    }

    fn shift_location(location: f64, points: f64) -> f64 {
        location + points / SCALE
    }

    fn revert(values: &Values, fraction: f64, toward: f64) -> Values {
        Values { rating: values.rating + fraction * (toward - values.rating), ..*values }
    }

    fn shifted(start: &Start, points: f64) -> Start {
        Start { mu: start.mu + points / SCALE, ..*start }
    }

    fn scaled(&self, rating: f64, rd: f64) -> (f64, f64) {
        ((rating - CENTRE) / SCALE, rd / SCALE)
    }

    /// docs/outputs.md: `E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))`, which is
    /// g(sqrt(RD_a^2 + RD_b^2)) on the Glicko scale.
    fn expectation((mu_a, phi_a): (f64, f64), (mu_b, phi_b): (f64, f64)) -> f64 {
        expected(mu_a, mu_b, g_of_square(phi_a * phi_a + phi_b * phi_b))
    }
}

/// Glickman, steps 3 to 8 for one player, compiled with and without its trace (see
/// [`volatility_in`]).
#[inline]
fn rate_in<const TRACED: bool>(
    params: &Glicko2Rule,
    slot: &Slot<Start>,
    trace: Option<&mut Trace>,
) -> Result<Values, ProjectErrorKind> {
    let (whole, sums) = (slot, &slot.sums);
    let (player, slot) = (slot.player, &slot.start);
    let mut trace = if TRACED { trace } else { None };
    let who = Some(PlayerId(player));
    let fail = |quantity, why: &str| {
        Err(ProjectErrorKind::NonFinite { quantity, detail: format!("player #{player}: {why}") })
    };
    // Glickman, step 3: v = [Σ g(phi_j)^2 E (1 - E)]^-1
    let v = 1.0 / sums.info;
    if !(v.is_finite() && v > 0.0) {
        // docs/algorithms/glicko2.md, "When a configuration fails": E rounds to 0 or 1 once
        // g(phi_j) |mu - mu_j| passes about 37 (some 6,400 rating points), typically after the
        // player's volatility ran away under a large tau.
        return Err(ProjectErrorKind::NonFinite {
            quantity: "v",
            detail: format!(
                "player #{player}: every E rounded to 0 or 1 (ratings too far apart: the \
                 player's rating at the period's start is {:.1}, volatility {:.6}, against {} \
                 games)",
                SCALE * slot.mu + CENTRE,
                slot.sigma,
                sums.m
            ),
        });
    }
    // Glickman, step 4: Delta = v Σ g(phi_j) (s_j - E)
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
    // Glickman, step 5.
    let sigma = volatility_in::<TRACED>(
        delta,
        slot.phi2,
        v,
        slot.sigma,
        &params.steps,
        who,
        trace.as_deref_mut(),
    )?;
    // Glickman, steps 6 to 8.
    let After { values, phi_star2, capped, phi_new, mu_new } = steps_6_to_8(params, whole, sigma)?;
    if let Some(t) = trace {
        t.quantity(who, "phi*", "min(sqrt(phi^2 + sigma'^2), rd_max / 173.7178)", phi_star2.sqrt());
        if capped {
            t.flag(who, "rd-at-cap", format!("phi* reached rd_max = {}", params.rd_max));
        }
        t.quantity(who, "phi'", "1 / sqrt(1/phi*^2 + 1/v)", phi_new);
        t.quantity(who, "mu'", "mu + phi'^2 Σ g(phi_j) (s_j - E)", mu_new);
        t.quantity(who, "r'", "173.7178 mu' + 1500", values.rating);
        t.quantity(who, "RD'", "173.7178 phi'", values.rd);
    }
    Ok(values)
}

/// [`rate_in_n`] of whole slots: result `i` is bit for bit `rules[i].rate(slots[i])`, error
/// included (the form the tests hold to the scalar `rate` lane by lane).
#[cfg(test)]
pub(crate) fn rate_n<const L: usize>(
    rules: [&Glicko2Rule; L],
    slots: [&Slot<Start>; L],
) -> [Result<Values, ProjectErrorKind>; L] {
    let ins = RateIns {
        mu: slots.map(|slot| slot.start.mu),
        phi2: slots.map(|slot| slot.start.phi2),
        sigma: slots.map(|slot| slot.start.sigma),
        info: slots.map(|slot| slot.sums.info),
        gain: slots.map(|slot| slot.sums.gain),
    };
    let common = rate_in_n(&RateConsts::of(rules), &ins);
    std::array::from_fn(|i| common.get(i).map_or_else(|| rules[i].rate(slots[i]), Ok))
}

/// What steps 3 to 8 read of `L` slots on the common path, field by field (each field's `L`
/// lanes side by side): their [`Start`]'s `mu`, `phi2` and `sigma`, and their sums' `info` and
/// `gain`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RateIns<const L: usize> {
    pub(crate) mu: [f64; L],
    pub(crate) phi2: [f64; L],
    pub(crate) sigma: [f64; L],
    pub(crate) info: [f64; L],
    pub(crate) gain: [f64; L],
}

/// Glickman, steps 3 to 8 ([`Rule::rate`]) for `L` slots at once, each under its own rule's
/// constants (lane `i` of `consts`) and given what the common path reads of it (lane `i` of
/// `ins`): the lanes of a sweep, one player's slot in several configurations, or the slots of
/// several players. Result `i` is bit for bit `rate` of slot `i` under rule `i`: every lane runs the operations of [`rate_in`] in the same order,
/// but the `L` lanes run side by side with no branch between them: their `exp` and `ln` `L` at a
/// time ([`math::exp_n`], [`math::ln_n`]), step 5.2's first bracket step and step 5.4's Illinois
/// iterations in lockstep, and every branch of a lane as a selection by a bit mask ([`pick`]),
/// so that neither the lanes' differing iteration counts nor the data-dependent branch of step
/// 5.4(b) cost a mispredicted jump each, and the compiler keeps the lanes in vector registers.
/// Each lane's iterations are a chain of dependent operations (a division, an `exp`, a
/// division), so more lanes side by side keep more of the floating-point units busy while each
/// chain waits: the lanes rate eight at a time (docs/PERFORMANCE.md, "Sweeps"). A lane leaves
/// the lockstep, and is rated by [`Glicko2Rule::rate`] itself, at anything off the common path:
/// a non-finite quantity, a bound of step 5 reached, a volatility whose square leaves the
/// normal range, a result that fails a check of steps 6 to 8. So its result, error included, is
/// always the scalar one. A lane whose bracket search (step 5.2) needs more than one step takes
/// the rest of it lane by lane ([`bracket_rest`]), as [`volatility_in`] does.
///
/// Result `i` is missing (`rated[i]` 0) for a lane that leaves the common path: the caller
/// rates it with its rule's `rate` of its slot whole (`rate_n` does), so a caller that keeps its slots in
/// another layout (the lanes of a sweep) puts a slot together only then. (Returning the rule's
/// `Result`s from here, with the scalar call in a closure, cost a call and a copy of the array
/// per lane: docs/PERFORMANCE.md, "Sweeps".)
#[inline]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
pub(crate) fn rate_in_n<const L: usize>(consts: &RateConsts<L>, ins: &RateIns<L>) -> Rated<L> {
    let RateConsts { tau, inv_tau2, exp_neg_tau, epsilon, phi_max, rd_max } = *consts;
    // `ok[i]`: all ones while lane i is on the common path, else 0.
    let mut ok = [0u64; L];
    let (mut v, mut gap, mut spread, mut sigma2, mut wide) =
        ([0.0; L], [0.0; L], [0.0; L], [0.0; L], [0u64; L]);
    for i in 0..L {
        // Steps 3 and 4, as rate_in.
        v[i] = 1.0 / ins.info[i];
        let delta = v[i] * ins.gain[i];
        // Step 5.1, as volatility_in.
        let s2 = ins.sigma[i] * ins.sigma[i];
        // Every check taken, each as a mask, with no branch between them.
        ok[i] = finite(v[i])
            & mask(v[i] > 0.0)
            & finite(delta)
            & mask(s2 >= f64::MIN_POSITIVE)
            & finite(s2)
            & mask(inv_tau2[i] > 0.0)
            & finite(inv_tau2[i]);
        // A lane off the common path computes on 1 (filler, so that `ln_n` keeps to its
        // vector path), and its results are dropped.
        sigma2[i] = pick(ok[i], s2, 1.0);
        let delta2 = delta * delta;
        (gap[i], spread[i]) = (delta2 - ins.phi2[i] - v[i], ins.phi2[i] + v[i]);
        wide[i] = ok[i] & mask(delta2 > ins.phi2[i] + v[i]);
    }
    let a = math::ln_n(sigma2);
    // Step 5.2's B where Delta^2 > phi^2 + v: ln(Delta^2 - phi^2 - v).
    let ln_gap = if wide.iter().fold(0, |any, &w| any | w) != 0 {
        math::ln_n(std::array::from_fn(|i| pick(wide[i], gap[i], 1.0)))
    } else {
        [0.0; L]
    };
    // Step 5.2, as volatility_in: B = ln(Delta^2 - phi^2 - v) where Delta^2 > phi^2 + v, else
    // the first a - k tau with f(a - k tau) >= 0, k = 1, 2, ... (the search needs no exp:
    // e^(a - k tau) is sigma^2 (e^-tau)^k). Its first step is taken in every lane, the lanes
    // whose f(a - tau) is negative go on lane by lane ([`bracket_rest`]).
    let (mut big_b, mut e_big_b, mut fb) = ([0.0; L], [0.0; L], [0.0; L]);
    let mut further = 0u64;
    for i in 0..L {
        ok[i] &= finite(a[i]);
        let x = a[i] - f64::from(1u32) * tau[i];
        let ex = sigma2[i] * exp_neg_tau[i];
        big_b[i] = pick(wide[i], ln_gap[i], x);
        e_big_b[i] = pick(wide[i], gap[i], ex);
        fb[i] = f_of(big_b[i], e_big_b[i], gap[i], spread[i], a[i], inv_tau2[i]);
        let narrow = ok[i] & !wide[i];
        // A NaN f(a - tau) ends the search: off the common path.
        ok[i] &= !(narrow & mask(fb[i].is_nan()));
        further |= narrow & mask(fb[i] < 0.0);
    }
    if further != 0 {
        for i in 0..L {
            if ok[i] & !wide[i] != 0 && fb[i] < 0.0 {
                let steps = Steps {
                    tau: tau[i],
                    inv_tau2: inv_tau2[i],
                    exp_neg_tau: exp_neg_tau[i],
                    epsilon: epsilon[i],
                };
                match bracket_rest(a[i], e_big_b[i], gap[i], spread[i], &steps) {
                    Some((b, e_b, f_b)) => (big_b[i], e_big_b[i], fb[i]) = (b, e_b, f_b),
                    None => ok[i] = 0,
                }
            }
        }
    }
    // Step 5.3: A = a, f_A = f(A).
    let (mut big_a, mut e_big_a, mut fa) = (a, sigma2, [0.0; L]);
    for i in 0..L {
        fa[i] = f_of(a[i], sigma2[i], gap[i], spread[i], a[i], inv_tau2[i]);
        ok[i] &= finite(big_b[i]) & finite(fa[i]) & finite(fb[i]);
    }
    // Step 5.4, the live lanes in lockstep: a lane is live while it is on the common path and
    // |B - A| > epsilon, and every live lane has made the same number of iterations.
    let mut n = 0u32;
    loop {
        let mut live = [0u64; L];
        for i in 0..L {
            live[i] = ok[i] & mask((big_b[i] - big_a[i]).abs() > epsilon[i]);
        }
        if live.iter().fold(0, |any, &l| any | l) == 0 {
            break;
        }
        n += 1;
        if n > MAX_ILLINOIS_ITERATIONS {
            for i in 0..L {
                ok[i] &= !live[i];
            }
            break;
        }
        // Step 5.4(a); a lane that is not live computes at 0, and its result is dropped. Every
        // lane is computed and a live lane's results kept by selection, with no branch between
        // the lanes (each lane's operations are its own, in `volatility_in`'s order).
        let mut c = [0.0; L];
        for i in 0..L {
            let next = big_a[i] + (big_a[i] - big_b[i]) * fa[i] / (fb[i] - fa[i]);
            c[i] = pick(live[i], next, 0.0);
        }
        let e_c = math::exp_n(c);
        for i in 0..L {
            let fc = f_of(c[i], e_c[i], gap[i], spread[i], a[i], inv_tau2[i]);
            // A live lane with a non-finite C or f(C) leaves the lockstep, unchanged.
            let both = finite(c[i]) & finite(fc);
            ok[i] &= !live[i] | both;
            let step = live[i] & both;
            // Step 5.4(b), 2022 revision, and 5.4(c).
            // (A stepping lane that swaps takes B for A; any other keeps its A.)
            let swap = mask(fc * fb[i] <= 0.0);
            big_a[i] = pick(step & swap, big_b[i], big_a[i]);
            e_big_a[i] = pick(step & swap, e_big_b[i], e_big_a[i]);
            fa[i] = pick(step, pick(swap, fb[i], fa[i] / 2.0), fa[i]);
            big_b[i] = pick(step, c[i], big_b[i]);
            e_big_b[i] = pick(step, e_c[i], e_big_b[i]);
            fb[i] = pick(step, fc, fb[i]);
        }
    }
    // Step 5.5 (e^(A/2) below the normal range is left to the scalar path), then steps 6 to 8
    // as `steps_6_to_8` computes them, operation for operation, over every lane with no branch
    // between them (a lane off the common path computes on filler and is rated by `rate`).
    let mut good = [0u64; L];
    let (mut sigma, mut phi_new, mut rating, mut rd) = ([0.0; L], [0.0; L], [0.0; L], [0.0; L]);
    for i in 0..L {
        good[i] = ok[i] & mask(e_big_a[i] >= f64::MIN_POSITIVE);
        sigma[i] = pick(good[i], e_big_a[i], 1.0).sqrt();
        // Steps 6 to 8 (see `steps_6_to_8` for each line's formula).
        let grown2 = ins.phi2[i] + sigma[i] * sigma[i];
        let cap = phi_max[i] * phi_max[i];
        let phi_star2 = if grown2 >= cap { cap } else { grown2 };
        let phi_new2 = phi_star2 / (1.0 + phi_star2 * ins.info[i]);
        phi_new[i] = phi_new2.sqrt();
        let mu_new = ins.mu[i] + phi_new2 * ins.gain[i];
        rating[i] = SCALE * mu_new + CENTRE;
        rd[i] = (SCALE * phi_new[i]).min(rd_max[i]);
    }
    let mut rated = [0u64; L];
    for i in 0..L {
        // `steps_6_to_8`'s checks, and step 5.5's; a lane that fails one is left to `rate`,
        // which reports the error. Every check of every lane is taken, each as a mask, with no
        // branch between them.
        rated[i] = good[i]
            & finite(sigma[i])
            & mask(sigma[i] > 0.0)
            & finite(phi_new[i])
            & mask(phi_new[i] > 0.0)
            & mask(rd[i] > 0.0)
            & finite(rating[i]);
    }
    Rated { rating, rd, volatility: sigma, rated }
}

/// The constants of `L` lanes' rules that steps 3 to 8 read ([`rate_in_n`]), each field's `L`
/// lanes side by side: step 5's `tau`, `1 / tau^2`, `e^-tau` and `epsilon` ([`Steps`]), and the
/// caps `phi_max` and `rd_max`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RateConsts<const L: usize> {
    pub(crate) tau: [f64; L],
    pub(crate) inv_tau2: [f64; L],
    pub(crate) exp_neg_tau: [f64; L],
    pub(crate) epsilon: [f64; L],
    pub(crate) phi_max: [f64; L],
    pub(crate) rd_max: [f64; L],
}

impl<const L: usize> RateConsts<L> {
    /// Lane `i`'s constants from `rules[i]`.
    pub(crate) fn of(rules: [&Glicko2Rule; L]) -> RateConsts<L> {
        RateConsts {
            tau: rules.map(|r| r.steps.tau),
            inv_tau2: rules.map(|r| r.steps.inv_tau2),
            exp_neg_tau: rules.map(|r| r.steps.exp_neg_tau),
            epsilon: rules.map(|r| r.steps.epsilon),
            phi_max: rules.map(|r| r.phi_max),
            rd_max: rules.map(|r| r.rd_max),
        }
    }
}

/// What [`rate_in_n`] gives for `L` lanes, field by field (each field's `L` lanes side by side,
/// so that a caller stores four adjacent lanes of a field as one vector): lane `i`'s
/// [`Values`] where `rated[i]` is all ones (a [`mask`]), else nothing (the lane left the common
/// path, and its caller rates it with the rule's `rate`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rated<const L: usize> {
    pub(crate) rating: [f64; L],
    pub(crate) rd: [f64; L],
    pub(crate) volatility: [f64; L],
    pub(crate) rated: [u64; L],
}

impl<const L: usize> Rated<L> {
    /// Lane `i`'s values, if it stayed on the common path.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<Values> {
        (self.rated[i] != 0).then(|| Values {
            rating: self.rating[i],
            rd: self.rd[i],
            volatility: self.volatility[i],
        })
    }

    /// Whether every lane stayed on the common path.
    #[inline(always)]
    pub(crate) fn all(&self) -> bool {
        self.rated.iter().fold(!0, |all, &r| all & r) != 0
    }
}

/// All ones if `b`, else 0: a lane's condition as the mask [`pick`] takes (the form a vector
/// comparison gives, so that the lanes' selections need no branch).
#[inline(always)]
fn mask(b: bool) -> u64 {
    u64::from(b).wrapping_neg()
}

/// All ones if `x` is finite, else 0: `x * 0` is a zero for a finite `x` and NaN for an
/// infinite or NaN one, so this is `mask(x.is_finite())` exactly. (Written so, the lanes' checks
/// compile to vector multiplications and comparisons; `is_finite` beside a comparison of the
/// same value became a test of its bits in general registers, lane by lane:
/// docs/PERFORMANCE.md, "Sweeps".)
#[inline(always)]
fn finite(x: f64) -> u64 {
    mask(x * 0.0 == 0.0)
}

/// `yes` where `m` (a [`mask`]) is all ones, `no` where it is 0: a selection of the bits, with
/// no arithmetic on either value, so the result is one of the two exactly.
#[inline(always)]
fn pick(m: u64, yes: f64, no: f64) -> f64 {
    f64::from_bits((yes.to_bits() & m) | (no.to_bits() & !m))
}

/// Glickman, step 5.2's bracket search from its second step on, for a lane whose first step
/// (k = 1, with `e_x` = e^(a - tau)) gave a negative f: as [`volatility_in`] goes on, the first
/// `(a - k tau, e^(a - k tau), f(a - k tau))` with f at least 0, or `None` where the search
/// stops (a NaN f, or [`MAX_BRACKET_STEPS`] reached), which leaves the common path. Out of line:
/// in a sweep every lane's search ends at its first step.
#[cold]
#[inline(never)]
fn bracket_rest(a: f64, e_x: f64, gap: f64, spread: f64, steps: &Steps) -> Option<(f64, f64, f64)> {
    let mut ex = e_x;
    let mut k = 1u32;
    loop {
        k += 1;
        if k > MAX_BRACKET_STEPS {
            return None;
        }
        let x = a - f64::from(k) * steps.tau;
        ex *= steps.exp_neg_tau;
        let fx = f_of(x, ex, gap, spread, a, steps.inv_tau2);
        if fx.is_nan() {
            return None;
        }
        if fx >= 0.0 {
            return Some((x, ex, fx));
        }
    }
}

/// What Glickman's steps 6 to 8 compute from the new volatility (kept for the trace).
struct After {
    values: Values,
    phi_star2: f64,
    capped: bool,
    phi_new: f64,
    mu_new: f64,
}

/// Glickman, steps 6 to 8 for one slot given its new volatility `sigma` (step 5's result).
#[inline(always)]
fn steps_6_to_8(
    params: &Glicko2Rule,
    slot: &Slot<Start>,
    sigma: f64,
) -> Result<After, ProjectErrorKind> {
    let (sums, player, slot) = (&slot.sums, slot.player, &slot.start);
    let fail = |quantity, why: &str| {
        Err(ProjectErrorKind::NonFinite { quantity, detail: format!("player #{player}: {why}") })
    };
    // Glickman, step 6: phi* = sqrt(phi^2 + sigma'^2), capped at rd_max (docs/spec.md); kept
    // squared, as step 7 uses it.
    let grown2 = slot.phi2 + sigma * sigma;
    let capped = grown2 >= params.phi_max * params.phi_max;
    let phi_star2 = if capped { params.phi_max * params.phi_max } else { grown2 };
    // Glickman, step 7: phi' = 1 / sqrt(1/phi*^2 + 1/v), mu' = mu + phi'^2 Σ g(phi_j) (s_j - E)
    // (1/v is the sum it was computed from).
    // (phi'^2 as phi*^2 / (1 + phi*^2 / v): one division instead of two, and mu' needs no root)
    let phi_new2 = phi_star2 / (1.0 + phi_star2 * sums.info);
    let phi_new = phi_new2.sqrt();
    let mu_new = slot.mu + phi_new2 * sums.gain;
    // Glickman, step 8: r' = 173.7178 mu' + 1500, RD' = 173.7178 phi'
    let rating = SCALE * mu_new + CENTRE;
    let rd = (SCALE * phi_new).min(params.rd_max);
    if !(phi_new.is_finite() && phi_new > 0.0 && rd > 0.0) {
        return fail("phi'", "1/phi*^2 + 1/v is not a positive finite number");
    }
    if !rating.is_finite() {
        return fail("r'", "173.7178 mu' + 1500 overflowed");
    }
    Ok(After {
        values: Values { rating, rd, volatility: sigma },
        phi_star2,
        capped,
        phi_new,
        mu_new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periods::Acc;

    /// A seeded generator (SplitMix64) for the cases.
    struct Mix(u64);
    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
        }
        /// One of `odd` with chance 1 in 16, else uniform in `lo..hi`.
        fn mostly(&mut self, lo: f64, hi: f64, odd: &[f64]) -> f64 {
            if self.next().is_multiple_of(16) {
                odd[(self.next() % odd.len() as u64) as usize]
            } else {
                self.uniform(lo, hi)
            }
        }
    }

    /// A player's values to grow by idle periods, for the start and idle kernels' tests: RDs
    /// below, at (one in sixteen) and far above the cap, and just below it too when `below_cap`,
    /// volatilities whose square overflows or underflows, a zero RD.
    fn idle_values(g: &mut Mix, rule: &Glicko2Rule, below_cap: bool) -> Values {
        let rd = match g.next() % 16 {
            // At the cap: phi = phi_max, so phi^2 is phi_max^2 exactly when k = 0.
            0 => rule.rd_max,
            // Just below it.
            1 if below_cap => rule.rd_max * (1.0 - f64::EPSILON),
            _ => g.mostly(1.0, 400.0, &[0.0, 1e-300, 1e300, 350.0]),
        };
        Values {
            rating: g.mostly(500.0, 2500.0, &[1e300, -1e300, 1500.0]),
            rd,
            volatility: g.mostly(0.01, 0.3, &[1e-200, 1e200, 0.0, 5.0]),
        }
    }

    /// Periods sat out, for the same tests: zero, whole, fractional, huge and tiny.
    fn periods_sat_out(g: &mut Mix) -> f64 {
        match g.next() % 4 {
            0 => 0.0,
            1 => (g.next() % 40) as f64,
            2 => g.uniform(0.0, 30.0),
            _ => g.mostly(0.5, 3.0, &[1e300, 1e-300]),
        }
    }

    fn rule(g: &mut Mix) -> Glicko2Rule {
        let tau = g.mostly(0.1, 1.5, &[1e-3, 50.0, 1e200, 1e-200]);
        let epsilon = g.mostly(1e-9, 1e-5, &[1e-300, 1e-14, 0.5]);
        let rd_max = g.mostly(50.0, 500.0, &[1e-300, 1e300]);
        let sigma = g.uniform(0.01, 0.2);
        Glicko2Rule { steps: Steps::new(tau, epsilon), sigma, rd_max, phi_max: rd_max / SCALE }
    }

    fn slot(g: &mut Mix) -> Slot<Start> {
        let phi2 = g.mostly(1e-4, 4.0, &[0.0, 1e-300, 1e300]);
        let start = Start {
            mu: g.mostly(-4.0, 4.0, &[1e300, -60.0, 60.0]),
            phi2,
            sigma: g.mostly(0.01, 0.3, &[1e-200, 1e200, 5.0, 1e-9, f64::MIN_POSITIVE]),
            g: g_of_square(phi2),
            k: 0.0,
            capped: false,
        };
        let sums = Acc {
            info: g.mostly(1e-3, 5.0, &[0.0, 1e-320, 1e-30, 1e30]),
            gain: g.mostly(-4.0, 4.0, &[1e300, -1e300, 0.0, 40.0]),
            score: 1.0,
            m: 2,
        };
        Slot { player: (g.next() % 1000) as u32, start, sums }
    }

    /// `rate_n` is each lane's `rate`, bit for bit and error for error, over 400,000 lanes of
    /// random slots under random constants in groups of four and as many in groups of eight (as
    /// the lanes rate a period), common ones and every kind that fails or leaves the lockstep (v
    /// infinite, Delta overflowing, sigma^2 outside the normal range, 1/tau^2 zero, step 5's
    /// bounds, an RD cap below any phi), and 30,000 in groups of three.
    #[test]
    fn rate4_is_rate_lane_by_lane() {
        fn check<const N: usize>(g: &mut Mix, groups: usize) -> (usize, usize) {
            let (mut errors, mut oks) = (0, 0);
            for _ in 0..groups {
                let rules: [Glicko2Rule; N] = std::array::from_fn(|_| rule(g));
                let slots: [Slot<Start>; N] = std::array::from_fn(|_| slot(g));
                let many = rate_n::<N>(
                    std::array::from_fn(|i| &rules[i]),
                    std::array::from_fn(|i| &slots[i]),
                );
                for i in 0..N {
                    let one = rules[i].rate(&slots[i]);
                    match (&many[i], &one) {
                        (Ok(x), Ok(y)) => {
                            oks += 1;
                            let bits = |v: &Values| {
                                [v.rating.to_bits(), v.rd.to_bits(), v.volatility.to_bits()]
                            };
                            assert_eq!(
                                bits(x),
                                bits(y),
                                "lane {i} of {N}: {:?} {:?}",
                                rules[i],
                                slots[i]
                            );
                        }
                        (x, y) => {
                            errors += usize::from(y.is_err());
                            assert_eq!(x, y, "lane {i} of {N}: {:?} {:?}", rules[i], slots[i]);
                        }
                    }
                }
            }
            (oks, errors)
        }
        let mut g = Mix(0x5eed_0005);
        let (oks, errors) = check::<{ math::LANES }>(&mut g, 100_000);
        // Both kinds are well represented, in each width.
        assert!(oks > 200_000 && errors > 10_000, "{oks} rated, {errors} errors");
        let (oks, errors) = check::<8>(&mut g, 50_000);
        assert!(oks > 200_000 && errors > 10_000, "{oks} rated, {errors} errors");
        let (oks, errors) = check::<3>(&mut g, 10_000);
        assert!(oks > 15_000 && errors > 1_000, "{oks} rated, {errors} errors");
    }

    /// `rate_in_n` (through `rate_n`) is each lane's `rate`, bit for bit and error for error,
    /// in groups of eight (as closing rates them), four and sixteen, over 240,000 lanes chosen to take
    /// every path of the kernel side by side: the common path with B from ln(Delta^2 - phi^2 -
    /// v) or from a bracket search of one step or of many (`bracket_rest`: a large tau against
    /// a large volatility), Illinois iterations from none to dozens in the same group (epsilon
    /// from 1e-14 to 0.5), and lanes that leave the common path anywhere (the random rules' and
    /// slots' odd values: v or Delta not finite, sigma^2 outside the normal range, step 5's
    /// bounds, an RD cap below any phi). Each lane's path is read from its traced `rate` (its
    /// bracket steps `k` and its `iterations`), and the test asserts each is well represented.
    #[test]
    fn rate_in_n_is_rate_on_every_path_side_by_side() {
        /// A rule and a slot of one of four families (see the test's documentation).
        fn lane(g: &mut Mix) -> (Glicko2Rule, Slot<Start>) {
            let (mut r, mut s) = (rule(g), slot(g));
            match g.next() % 4 {
                // Many bracket steps: f(a - k tau) = e (gap - e) / (2 (spread + e)^2) + k / tau
                // stays negative for several k when tau is large and e = sigma^2 (e^-tau)^k is
                // large against a spread that Delta^2 does not reach.
                0 => {
                    let tau = g.uniform(2.0, 12.0);
                    r.steps = Steps::new(tau, g.mostly(1e-9, 1e-5, &[1e-14, 0.5]));
                    s.start.sigma = g.uniform(0.5, 40.0);
                    s.start.phi2 = g.uniform(1e-4, 0.05);
                    s.sums.info = g.uniform(5.0, 200.0);
                    s.sums.gain = g.uniform(-0.05, 0.05);
                }
                // Iteration counts far apart: epsilon from coarse to below the spacing of the
                // doubles, tau from small to large.
                1 => {
                    let epsilon = match g.next() % 4 {
                        0 => 0.5,
                        1 => 1e-14,
                        2 => 1e-300,
                        _ => g.uniform(1e-12, 1e-2),
                    };
                    r.steps = Steps::new(g.uniform(0.05, 3.0), epsilon);
                }
                // The common case of a sweep's slot.
                _ => {}
            }
            (r, s)
        }
        /// Lane `i`'s bracket steps and Illinois iterations from its traced `rate` (`None` for
        /// an error).
        fn path(rule: &Glicko2Rule, slot: &Slot<Start>) -> Option<(u32, u32)> {
            let mut t = Trace::new();
            rule.rate_traced(slot, &mut t).ok()?;
            let of = |name: &str| {
                t.entries.iter().find_map(|e| match e {
                    ladder_projector::TraceEntry::Quantity { name: n, value, .. } if n == name => {
                        Some(*value as u32)
                    }
                    _ => None,
                })
            };
            Some((of("k")?, of("iterations")?))
        }
        #[derive(Default, Debug)]
        struct Seen {
            errors: usize,
            wide: usize,
            one_step: usize,
            many_steps: usize,
            no_iteration: usize,
            many_iterations: usize,
            /// Groups whose lanes' iteration counts differ by 6 or more.
            spread_groups: usize,
        }
        fn check<const N: usize>(g: &mut Mix, groups: usize, seen: &mut Seen) {
            for _ in 0..groups {
                let lanes: [(Glicko2Rule, Slot<Start>); N] = std::array::from_fn(|_| lane(g));
                let many = rate_n::<N>(
                    std::array::from_fn(|i| &lanes[i].0),
                    std::array::from_fn(|i| &lanes[i].1),
                );
                let (mut least, mut most) = (u32::MAX, 0);
                for (i, ((rule, slot), many)) in lanes.iter().zip(&many).enumerate() {
                    let one = rule.rate(slot);
                    let at = || format!("lane {i} of {N}: {rule:?} {slot:?}");
                    match (many, &one) {
                        (Ok(x), Ok(y)) => {
                            let bits = |v: &Values| {
                                [v.rating.to_bits(), v.rd.to_bits(), v.volatility.to_bits()]
                            };
                            assert_eq!(bits(x), bits(y), "{}", at());
                        }
                        (x, y) => assert_eq!(x, y, "{}", at()),
                    }
                    match path(rule, slot) {
                        None => seen.errors += 1,
                        Some((k, n)) => {
                            match k {
                                0 => seen.wide += 1,
                                1 => seen.one_step += 1,
                                _ => seen.many_steps += 1,
                            }
                            seen.no_iteration += usize::from(n == 0);
                            seen.many_iterations += usize::from(n >= 8);
                            (least, most) = (least.min(n), most.max(n));
                        }
                    }
                }
                seen.spread_groups += usize::from(most >= least.saturating_add(6));
            }
        }
        let mut g = Mix(0x5eed_0007);
        let mut seen = Seen::default();
        check::<8>(&mut g, 20_000, &mut seen);
        check::<4>(&mut g, 10_000, &mut seen);
        check::<16>(&mut g, 2_500, &mut seen);
        // Every path well represented (240,000 lanes in all; a run gave 38,000 errors, 43,000
        // lanes with B from ln(Delta^2 - phi^2 - v), 111,000 with one bracket step and 46,000
        // with more, 2,000 with no iteration and 41,000 with 8 or more, and 23,000 groups whose
        // iteration counts differ by 6 or more).
        assert!(seen.errors > 10_000, "{seen:?}");
        assert!(seen.wide > 10_000 && seen.one_step > 10_000, "{seen:?}");
        assert!(seen.many_steps > 5_000, "{seen:?}");
        assert!(seen.no_iteration > 500 && seen.many_iterations > 5_000, "{seen:?}");
        assert!(seen.spread_groups > 5_000, "{seen:?}");
    }

    /// `start_n` and `idle_n` are each lane's `start` and `idle`, bit for bit, over 400,000
    /// lanes of random values under random constants in groups of four (as the lanes take
    /// them) and 30,000 in groups of three: k zero, whole and fractional, RDs below, at and
    /// far above the cap, volatilities whose square overflows or underflows, a zero RD, and
    /// the caps' edge (a grown phi^2 exactly at phi_max^2, where `start` caps and `idle`'s
    /// square root may not).
    #[test]
    fn start_n_and_idle_n_are_start_and_idle() {
        fn check<const N: usize>(g: &mut Mix, groups: usize) -> usize {
            let mut capped = 0;
            for _ in 0..groups {
                let rules: [Glicko2Rule; N] = std::array::from_fn(|_| rule(g));
                let vals: [Values; N] = std::array::from_fn(|i| idle_values(g, &rules[i], false));
                let k = periods_sat_out(g);
                let rule_refs = std::array::from_fn(|i| &rules[i]);
                let starts = start_n::<N>(rule_refs, vals, k);
                let (mu, phi) = idle_n::<N>(rule_refs, vals, k);
                for i in 0..N {
                    let at = format!("lane {i} of {N}, k {k}: {:?} {:?}", rules[i], vals[i]);
                    let one = rules[i].start(&vals[i], k);
                    let bits =
                        |s: &Start| [s.mu, s.phi2, s.sigma, s.g, s.k].map(f64::to_bits).to_vec();
                    assert_eq!(bits(&starts[i]), bits(&one), "{at}");
                    assert_eq!(starts[i].capped, one.capped, "{at}");
                    capped += usize::from(one.capped);
                    let (m, p) = rules[i].idle(&vals[i], k);
                    assert_eq!(
                        [mu[i].to_bits(), phi[i].to_bits()],
                        [m.to_bits(), p.to_bits()],
                        "{at}"
                    );
                }
            }
            capped
        }
        let mut g = Mix(0x5eed_0006);
        let capped = check::<{ math::LANES }>(&mut g, 100_000);
        // The cap is reached often enough to be tested, and not always.
        assert!(capped > 20_000 && capped < 380_000, "{capped} capped");
        check::<3>(&mut g, 10_000);
    }

    /// `start_and_idle_fields` is each lane's `start` and the phi of its `idle`, bit for bit,
    /// over 400,000 lanes of random values under random constants in groups of four (as the
    /// lanes take them) and 30,000 in groups of three: k zero, whole and fractional, RDs below,
    /// at and far above the cap, volatilities whose square overflows or underflows, a zero RD,
    /// and the caps' edge (a grown phi^2 exactly at phi_max^2, and phi_max whose square rounds,
    /// where `start` caps and `idle`'s square root may not). Found apart from the start's
    /// square, too: over these cases `sqrt` of the start's phi^2 differs from `idle`'s phi.
    #[test]
    fn start_and_idle_fields_are_start_and_idle() {
        fn check<const N: usize>(g: &mut Mix, groups: usize) -> (usize, usize) {
            let (mut capped, mut apart) = (0, 0);
            for _ in 0..groups {
                let rules: [Glicko2Rule; N] = std::array::from_fn(|_| rule(g));
                let vals: [Values; N] = std::array::from_fn(|i| idle_values(g, &rules[i], true));
                let k = periods_sat_out(g);
                let fields = Fields {
                    rating: vals.map(|v| v.rating),
                    rd: vals.map(|v| v.rd),
                    volatility: vals.map(|v| v.volatility),
                };
                let (starts, phi) = start_and_idle_fields(rules.map(|r| r.phi_max), &fields, k);
                for i in 0..N {
                    let at = format!("lane {i} of {N}, k {k}: {:?} {:?}", rules[i], vals[i]);
                    let one = rules[i].start(&vals[i], k);
                    assert_eq!(
                        [starts.mu[i], starts.phi2[i], starts.g[i]].map(f64::to_bits),
                        [one.mu, one.phi2, one.g].map(f64::to_bits),
                        "{at}"
                    );
                    assert_eq!(starts.capped[i], one.capped, "{at}");
                    capped += usize::from(one.capped);
                    let (m, p) = rules[i].idle(&vals[i], k);
                    assert_eq!([one.mu.to_bits(), phi[i].to_bits()], [m.to_bits(), p.to_bits()]);
                    apart += usize::from(one.phi2.sqrt().to_bits() != p.to_bits());
                }
            }
            (capped, apart)
        }
        let mut g = Mix(0x5eed_0007);
        let (capped, apart) = check::<{ math::LANES }>(&mut g, 100_000);
        // The cap is reached often enough to be tested, and not always; the start's root and
        // the idle phi differ often enough that a kernel taking one for the other fails here.
        assert!(capped > 20_000 && capped < 380_000, "{capped} capped");
        assert!(apart > 1_000, "{apart} apart");
        check::<3>(&mut g, 10_000);
    }
}
