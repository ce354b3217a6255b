//! Glicko-1 as the Wikipedia article "Glicko system" states it (its section "Classic Glicko
//! system"; "Glicko system" below), with the rating periods of docs/spec.md ("Rating periods").
//!
//! A player's state is `(r, RD)` after their last rated period, and the instant of their last game
//! or join. When they next play in period `k`, step 1 grows RD over the `t` period boundaries
//! crossed since then: `RD* = min(sqrt(RD^2 + c^2 t), rd_max)`, so a player who joins and plays in
//! one period has `t = 0` and Glickman's worked example comes out exactly. Every game of the
//! period is rated from the values at the period's start (opponents enter with their RD*), and
//! step 2 runs once per player when the period closes.

use crate::periods::{with_engine_params, EngineDocs, Periodic, Rule, Slot, StateOf};
use ladder_events::Prior;
use ladder_projector::{
    math, Config, ParamKind, ParamSpec, PlayerId, ProjectErrorKind, Quantities, Trace,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::{LN_10, PI};

/// The algorithm's name (docs/spec.md).
pub const ALGORITHM: &str = "glicko";

/// The Glicko-1 projector (`--algo glicko`): the rating-period engine driving [`GlickoRule`].
pub type Glicko = Periodic<GlickoRule>;

/// Everything a Glicko checkpoint must keep: the players' values and the open period's games.
pub type GlickoState = StateOf<GlickoRule>;

/// "Glicko system", step 2: `q = ln(10) / 400`.
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

/// The constants of `glicko` (docs/spec.md), with defaults and ranges.
pub const PARAMS: &[ParamSpec] = &with_engine_params::<1, 10>(
    [ParamSpec {
        key: "c",
        kind: ParamKind::at_least(0.0),
        default: "6",
        doc: "RD growth per idle period, RD* = min(sqrt(RD^2 + c^2 t), rd_max) (Wikipedia's \
              Glicko system, step 1); the default was chosen with period=5d on real ladders \
              (docs/real-ladders.md)",
        warn_below: None,
    }],
    EngineDocs {
        period: DEFAULT_PERIOD,
        idle: "with period=game, the time worth one period of growth: t = elapsed / idle",
        rd_max: "cap on RD*, the RD of an unrated player (Wikipedia's Glicko system, step 1: \
                 min(..., 350))",
        initial_rating: "rating of a player who joins without a prior (Wikipedia's Glicko system)",
        initial_rd: "RD of a player who joins without a prior (Wikipedia's Glicko system); at \
                     most rd_max",
    },
);

/// One player's values after their last rated period. Invariant for joined players: `rating`
/// finite, `rd` in (0, rd_max]; all zeros for one who has not joined.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Values {
    /// r after the last rated period (or the prior).
    rating: f64,
    /// RD after the last rated period (or the prior), before any idle growth.
    rd: f64,
}

/// A player's values at the start of the open period, computed when they first play in it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Start {
    /// r at the period's start.
    rating: f64,
    /// RD*^2 ("Glicko system", step 1), squared as step 2 uses it.
    rd2: f64,
    /// g(RD*), what opponents see of this player ("Glicko system", step 2).
    g: f64,
    /// The t of RD*.
    t: f64,
    /// Whether RD* hit rd_max.
    capped: bool,
}

/// Glicko-1's rating step ("Glicko system", steps 1 and 2) for the rating-period engine.
#[derive(Clone, Copy, Debug)]
pub struct GlickoRule {
    c2: f64,
    rd_max: f64,
}

/// "Glicko system", step 2: `g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)`.
#[inline]
pub fn g(rd: f64) -> f64 {
    g_of_square(rd * rd)
}

/// `3 q^2 / pi^2`, the constant of g.
const G_K: f64 = 3.0 * Q * Q / (PI * PI);

/// g of a deviation given its square `RD^2` ("Glicko system", step 2), so RD* need not be rooted.
#[inline]
fn g_of_square(rd2: f64) -> f64 {
    1.0 / (1.0 + G_K * rd2).sqrt()
}

/// "Glicko system", step 2: `E(r, r_j, RD_j) = 1 / (1 + e^(-g(RD_j) q (r - r_j)))`, given
/// `g(RD_j)`.
#[inline]
pub fn expected(r: f64, r_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + math::exp(-g_j * Q * (r - r_j)))
}

/// "Glicko system", step 1 squared: `RD*^2 = min(RD^2 + c^2 t, rd_max^2)`, and whether the cap
/// applied.
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

/// "Glicko system", step 1: `RD* = min(sqrt(RD^2 + c^2 t), rd_max)`, and whether the cap applied.
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

impl Rule for GlickoRule {
    type Values = Values;
    type Start = Start;

    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["c", "period"];
    // "Glicko system", step 1: t counts rating periods since the last game or join, so a player who
    // joins and plays in one period has t = 0.
    const IDLE_FROM_NEXT: bool = false;
    const UNJOINED: Values = Values { rating: 0.0, rd: 0.0 };

    const GAME_TRACE: [(&'static str, &'static str); 4] = [
        ("r_j", "opponent's rating at the period's start"),
        ("RD_j", "opponent's RD*"),
        ("g(RD_j)", "1 / sqrt(1 + 3 q^2 RD_j^2 / pi^2)"),
        ("E", "1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))"),
    ];

    fn from_config(config: &Config) -> GlickoRule {
        GlickoRule { c2: config.number("c") * config.number("c"), rd_max: config.number("rd_max") }
    }

    /// RD is positive for every joined player, and the record of one who has not is all zeros.
    #[inline]
    fn is_joined(values: &Values) -> bool {
        values.rd > 0.0
    }

    fn join(
        &self,
        rating: f64,
        rd: f64,
        _: &Prior,
    ) -> Result<Values, (&'static str, &'static str)> {
        Ok(Values { rating, rd })
    }

    #[inline]
    fn start(&self, values: &Values, t: f64) -> Start {
        // "Glicko system", step 1: RD* = min(sqrt(RD^2 + c^2 t), 350)
        let (rd2, capped) = rd_star_squared(values.rd, t, self.c2, self.rd_max);
        Start { rating: values.rating, rd2, g: g_of_square(rd2), t, capped }
    }

    /// "Glicko system", step 2: E(r, r_j, RD_j), each side seeing the other's RD*.
    #[inline]
    fn versus(a: &Start, b: &Start) -> (f64, f64) {
        (expected(a.rating, b.rating, b.g), b.g)
    }

    #[inline]
    fn rate(&self, slot: &Slot<Start>) -> Result<Values, ProjectErrorKind> {
        let (rating, rd) = rate(self.rd_max, slot)?;
        Ok(Values { rating, rd })
    }

    /// `r`, as traced.
    fn traced_start_rating(quantity: &Quantities<'_>) -> Option<f64> {
        quantity("r")
    }

    fn trace_start(&self, t: &mut Trace, who: Option<PlayerId>, slot: &Start) {
        t.quantity(who, "r", "rating at the period's start", slot.rating);
        t.quantity(
            who,
            "t",
            "period boundaries (or idle units) since the last game or join",
            slot.t,
        );
        t.quantity(who, "RD*", "min(sqrt(RD^2 + c^2 t), rd_max)", slot.rd2.sqrt());
    }

    fn idle_of(slot: &Start) -> (f64, Option<String>) {
        (slot.t, slot.capped.then(|| format!("RD* reached rd_max = {}", slot.rd2.sqrt())))
    }

    fn game_trace(me: &Start, opp: &Start) -> [f64; 4] {
        [opp.rating, opp.rd2.sqrt(), opp.g, expected(me.rating, opp.rating, opp.g)]
    }

    fn rate_traced(&self, slot: &Slot<Start>, t: &mut Trace) -> Result<Values, ProjectErrorKind> {
        let new = self.rate(slot)?;
        let who = Some(PlayerId(slot.player));
        let sums = &slot.sums;
        t.quantity(who, "q", "ln(10) / 400", Q);
        t.quantity(
            who,
            "Σ g^2 E (1-E)",
            "Σ over the games above of g(RD_j)^2 E (1 - E)",
            sums.info,
        );
        t.quantity(who, "Σ g (s-E)", "Σ over the games above of g(RD_j) (s_j - E)", sums.gain);
        t.quantity(who, "d^2", "1 / (q^2 Σ g(RD_j)^2 E (1 - E))", 1.0 / (Q * Q * sums.info));
        t.quantity(who, "RD'", "1 / sqrt(1/RD*^2 + 1/d^2)", new.rd);
        t.quantity(who, "r'", "r + q RD'^2 Σ g(RD_j) (s_j - E)", new.rating);
        Ok(new)
    }

    fn ratings(values: &Values, start: &Start) -> (f64, f64) {
        (values.rating, start.rating)
    }

    fn report(&self, values: &Values, t: f64) -> (f64, f64, Option<f64>) {
        (values.rating, rd_star(values.rd, t, self.c2, self.rd_max).0, None)
    }

    fn position(start: &Start) -> (f64, f64) {
        (start.rating, start.rd2)
    }

    fn idle(&self, values: &Values, t: f64) -> (f64, f64) {
        (values.rating, rd_star(values.rd, t, self.c2, self.rd_max).0)
    }

    fn shift_location(location: f64, points: f64) -> f64 {
        location + points
    }

    fn revert(values: &Values, fraction: f64, toward: f64) -> Values {
        Values { rating: values.rating + fraction * (toward - values.rating), ..*values }
    }

    fn shifted(start: &Start, points: f64) -> Start {
        Start { rating: start.rating + points, ..*start }
    }

    fn scaled(&self, rating: f64, rd: f64) -> (f64, f64) {
        (rating, rd)
    }

    /// docs/outputs.md: `E = 1 / (1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b) / 400))`.
    fn expectation((ra, rda): (f64, f64), (rb, rdb): (f64, f64)) -> f64 {
        expected(ra, rb, g_of_square(rda * rda + rdb * rdb))
    }
}

/// "Glicko system", step 2 for one player: `(r', RD')` from the values at the period's start and
/// the period's sums, or the quantity that is not finite.
#[inline]
fn rate(rd_max: f64, slot: &Slot<Start>) -> Result<(f64, f64), ProjectErrorKind> {
    let (start, sums) = (&slot.start, &slot.sums);
    // "Glicko system", step 2: 1/d^2 = q^2 Σ g(RD_j)^2 E (1 - E)
    let inv_d2 = Q * Q * sums.info;
    // "Glicko system", step 2: 1/RD'^2 = 1/RD*^2 + 1/d^2
    // (as RD*^2 / (1 + RD*^2 / d^2): one division instead of two)
    let rd_new2 = start.rd2 / (1.0 + start.rd2 * inv_d2);
    let rd_new = rd_new2.sqrt();
    // "Glicko system", step 2: r' = r + q RD'^2 Σ g(RD_j) (s_j - E)
    let r_new = start.rating + Q * rd_new2 * sums.gain;
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
    Ok((r_new, rd_new.min(rd_max)))
}
