//! The seed's arithmetic as pure functions of plain numbers: WinProb, UpdatePlayer, the midnight
//! tick (for any number of midnights at once) and the GLIXARE display.
//!
//! Every line cites the seed line it implements: the "TGR text" below is the forum post that
//! introduced the "Timed Glicko Rating" system for the Competitor program (quoted in
//! `docs/algorithms/tgr.md`). The projector in `lib.rs` only decides *which* values go in; all rating arithmetic lives here,
//! so an auditor can check this file against the seed line by line.
//!
//! A few lines are evaluated in an algebraically identical form that is cheaper (one match is two
//! UpdatePlayer calls, and a tennis history has millions): `3 * Q^2 / PI^2` is folded into one
//! constant, `10^(x / 400)` is `e^(x * Q)`, `1 / V` is used as the product it is the reciprocal of,
//! and `1 / (1 / PRD^2 + 1 / V)` is computed once for both the rating and the RD line. Each
//! differs from the literal expression by rounding only (about 1e-15 relative); the property test
//! `explicit_and_implied_midnights_agree_with_the_eager_seed` checks the whole projector against a
//! literal transcription of the seed to 1e-9.

use ladder_projector::math;
use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;

/// TGR text, constants: `PI = 3.14159265359`.
///
/// The seed's own rounding of π, used literally because the point of this crate is to replay the
/// seed. It differs from [`std::f64::consts::PI`] by about 2.1e-12, which moves ratings by about
/// 1e-13 relative: invisible at the 6 decimals of a standings table.
#[allow(clippy::approx_constant)] // deliberately the seed's rounded constant, not std's π
pub const SEED_PI: f64 = 3.14159265359;

/// TGR text, constants: `Q = ln(10) / 400`, the factor from rating points to the natural scale of
/// the logistic distribution.
pub const Q: f64 = LN_10 / 400.0;

/// `3 * Q^2 / PI^2`, folded once: the seed's `G` and `PG` divide by `PI^2` on every call.
pub(crate) const G_FACTOR: f64 = 3.0 * (Q * Q) / (SEED_PI * SEED_PI);

/// `10^(x / 400)`, the seed's logistic power, computed as `e^(x * Q)` since
/// `10^(x/400) = e^(x * ln(10) / 400)`: the same number to a few ulps and several times cheaper
/// than `powf` followed by a division.
#[inline]
fn pow10_over_400(x: f64) -> f64 {
    math::exp(x * Q)
}

/// `10^x` for the display formula, as `e^(x * ln 10)`.
#[inline]
fn pow10(x: f64) -> f64 {
    math::exp(x * LN_10)
}

/// The seed's `Player` record: `Player.Rating`, `Player.RD` and `Player.Time`.
///
/// Invariants kept by the projector: `rating` and `rd` are finite, `rd > 0`, and after any midnight
/// or game `rd <= rd_max`; `time` is a fraction of a UTC day in `[0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// `Player.Rating`.
    pub rating: f64,
    /// `Player.RD`, the rating deviation.
    pub rd: f64,
    /// `Player.Time`: the fraction of the UTC day at the player's last game, queue timeout or
    /// join, or 0 after a midnight passed since then.
    pub time: f64,
}

/// The constants UpdatePlayer and the midnight code use (the numeric part of the configuration).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constants {
    /// `SC`: RD grows by `SC^2` per day of inactivity (in RD^2).
    pub sc: f64,
    /// `P`: the probability that an even battle's result was deserved (see [`crate::PARAMS`]).
    pub p: f64,
    /// The cap on RD (the seed's literal `350`).
    pub rd_max: f64,
}

/// Every quantity UpdatePlayer computes, named as the seed names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Update {
    /// `PTime = Time - Player1.Time`.
    pub ptime: f64,
    /// `PRD = min(sqrt(Player1.RD^2 + PTime * SC^2), 350)`, with `rd_max` for 350.
    pub prd: f64,
    /// True when the `min` chose `rd_max` (the `rd-at-cap` flag).
    pub prd_capped: bool,
    /// `PG = 1 / sqrt(1 + 3 * Q^2 * Player2.RD^2 / PI^2)`.
    pub pg: f64,
    /// `PE = 1 / (1 + 10^(-PG * (Player1.Rating - Player2.Rating) / 400))`.
    pub pe: f64,
    /// `G = 1 / sqrt(1 + 3 * Q^2 * (Player1.RD^2 + Player2.RD^2) / PI^2)`, inside
    /// `WinProb(Player1, Player2)`: the value this update used, recorded for `explain`.
    pub g: f64,
    /// `WinProb(Player1, Player2)`, the input of `XD`.
    pub win_prob: f64,
    /// `XD = abs(Win - WinProb(Player1, Player2))`.
    pub xd: f64,
    /// `PMERIT = 1 - (1 - P) * XD * (1 + 2 * XD)`.
    pub pmerit: f64,
    /// `V = 1 / (PG^2 * PE * (1 - PE) * Q^2)`.
    pub v: f64,
    /// `Q * PG * (Win - PE) * (2 * PMERIT - 1) / (1 / PRD^2 + 1 / V)`, the rating change.
    pub delta: f64,
    /// Player1 after the update: new `Rating`, `RD = 1 / sqrt(1 / PRD^2 + 1 / V)`, `Time`.
    pub after: Player,
}

impl Update {
    /// `2 * PMERIT - 1`, the weight UpdatePlayer puts on Glicko's change (negative reverses it).
    pub fn merit_weight(&self) -> f64 {
        2.0 * self.pmerit - 1.0
    }
}

/// Where UpdatePlayer's arithmetic breaks down. The projector turns it into a
/// [`ladder_projector::ProjectError`] naming the event.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Breakdown {
    /// `PE` rounded to exactly 1 or 0, so `PE * (1 - PE) = 0` and `V` divides by zero.
    #[error("PE rounded to exactly {pe} (ratings {rating} vs {opponent}), so V divides by zero")]
    PeSaturated {
        /// The value PE rounded to (1 or 0).
        pe: f64,
        /// Player1's rating.
        rating: f64,
        /// Player2's rating.
        opponent: f64,
    },
    /// A quantity came out NaN or infinite.
    #[error("{quantity} = {value} from rating {rating}, RD {rd}, Time {time}, at Time {at}")]
    NonFinite {
        /// The seed's name of the quantity.
        quantity: &'static str,
        /// What it came out as.
        value: f64,
        /// Player1's rating going in.
        rating: f64,
        /// Player1's RD going in.
        rd: f64,
        /// Player1's Time going in.
        time: f64,
        /// The battle's Time.
        at: f64,
    },
}

impl Breakdown {
    /// The seed's name of the quantity that could not be computed.
    pub fn quantity(&self) -> &'static str {
        match self {
            Breakdown::PeSaturated { .. } => "V",
            Breakdown::NonFinite { quantity, .. } => quantity,
        }
    }
}

/// TGR text, `Subroutine WinProb(Player1, Player2)`: the expected probability that a player rated
/// `(r1, rd1)` beats one rated `(r2, rd2)`. Both deviations widen the distribution.
#[inline]
pub fn win_prob(r1: f64, rd1: f64, r2: f64, rd2: f64) -> f64 {
    win_prob_with_g(r1, rd1, r2, rd2).1
}

/// [`win_prob`] with the `G` it computed on the way: `(G, WinProb)`.
#[inline]
fn win_prob_with_g(r1: f64, rd1: f64, r2: f64, rd2: f64) -> (f64, f64) {
    // TGR text, WinProb: G = 1 / sqrt(1 + 3 * Q^2 * (Player1.RD^2 + Player2.RD^2) / PI^2)
    let g = 1.0 / (1.0 + G_FACTOR * (rd1 * rd1 + rd2 * rd2)).sqrt();
    // TGR text, WinProb: return (1 / (1 + 10^(-G * (Player1.Rating - Player2.Rating) / 400)))
    (g, 1.0 / (1.0 + pow10_over_400(-g * (r1 - r2))))
}

/// TGR text, `Subroutine UpdatePlayer(Player1, Player2, Time, Win)`: Player1's values after a
/// battle against Player2 at day fraction `time` with outcome `win` (1, 0, or 0.5 for a draw).
///
/// `p1` and `p2` are the values the seed's code sees at the call: midnights that passed since
/// Player1's last update must already be applied (the projector does that lazily), and in
/// `order=as-written` the second call's `p2` is the first call's result.
#[inline]
pub fn update_player(
    p1: Player,
    p2: Player,
    time: f64,
    win: f64,
    k: &Constants,
) -> Result<Update, Breakdown> {
    update_player_home(p1, p2, time, win, 0.0, k)
}

/// [`update_player`] where Player1 has `edge` rating points of home advantage over Player2 (the
/// constant `home`, negated when Player2 is at home, 0 on neutral ground): PE and WinProb compare
/// `Player1.Rating + edge` with `Player2.Rating`; nothing else changes.
#[inline]
pub fn update_player_home(
    p1: Player,
    p2: Player,
    time: f64,
    win: f64,
    edge: f64,
    k: &Constants,
) -> Result<Update, Breakdown> {
    let nonfinite = |quantity, value| Breakdown::NonFinite {
        quantity,
        value,
        rating: p1.rating,
        rd: p1.rd,
        time: p1.time,
        at: time,
    };
    // TGR text, UpdatePlayer: PTime = Time - Player1.Time
    let ptime = time - p1.time;
    // TGR text, UpdatePlayer: PRD = min(sqrt(Player1.RD^2 + PTime * SC^2), 350)  [350 = rd_max]
    let grown_sq = p1.rd * p1.rd + ptime * (k.sc * k.sc);
    let prd = grown_sq.sqrt().min(k.rd_max);
    if !prd.is_finite() {
        return Err(nonfinite("PRD", prd));
    }
    let prd_capped = grown_sq >= k.rd_max * k.rd_max;
    // 1 / PRD^2 from PRD^2 = min(RD^2 + PTime * SC^2, rd_max^2), without squaring the root back.
    let prd_sq = grown_sq.min(k.rd_max * k.rd_max);
    // TGR text, UpdatePlayer: PG = 1 / sqrt(1 + 3 * Q^2 * Player2.RD^2 / PI^2)
    let pg = 1.0 / (1.0 + G_FACTOR * (p2.rd * p2.rd)).sqrt();
    // TGR text, UpdatePlayer: PE = (1 / (1 + 10^(-PG * (Player1.Rating - Player2.Rating) / 400)))
    // (home: Player1.Rating + edge in place of Player1.Rating, here and in WinProb)
    let r1 = p1.rating + edge;
    let pe = 1.0 / (1.0 + pow10_over_400(-pg * (r1 - p2.rating)));
    // TGR text, UpdatePlayer: XD = abs(Win - WinProb(Player1, Player2))
    let (g, wp) = win_prob_with_g(r1, p1.rd, p2.rating, p2.rd);
    let xd = (win - wp).abs();
    // TGR text, UpdatePlayer: PMERIT = 1 - (1 - P) * XD * (1 + 2 * XD)
    let pmerit = 1.0 - (1.0 - k.p) * xd * (1.0 + 2.0 * xd);
    // TGR text, UpdatePlayer: V = 1 / (PG^2 * PE * (1 - PE) * Q^2). The updates below need only
    // 1 / V, which is this product itself.
    let inv_v = pg * pg * pe * (1.0 - pe) * (Q * Q);
    if inv_v == 0.0 || !inv_v.is_finite() {
        if pe == 0.0 || pe == 1.0 {
            return Err(Breakdown::PeSaturated { pe, rating: p1.rating, opponent: p2.rating });
        }
        return Err(nonfinite("V", 1.0 / inv_v));
    }
    let v = 1.0 / inv_v;
    // TGR text, UpdatePlayer: Player1.RD = 1 / sqrt(1 / PRD^2 + 1 / V), so
    // 1 / (1 / PRD^2 + 1 / V) = RD^2 (computed once, for both lines).
    let rd_sq = 1.0 / (1.0 / prd_sq + inv_v);
    // TGR text, UpdatePlayer: Player1.Rating = Player1.Rating
    //     + Q * PG * (Win - PE) * (2 * PMERIT - 1) / (1 / PRD^2 + 1 / V)
    let delta = Q * pg * (win - pe) * (2.0 * pmerit - 1.0) * rd_sq;
    let rating = p1.rating + delta;
    if !rating.is_finite() {
        return Err(nonfinite("Rating", rating));
    }
    // RD <= PRD in exact arithmetic (1/V > 0); when 1/V is tiny against 1/PRD^2, the rounding of
    // 1 / (1/PRD^2) can land one unit above PRD, and PRD may be rd_max: keep RD at most PRD, so
    // RD <= rd_max holds to the last bit.
    let rd = rd_sq.sqrt().min(prd);
    if !(rd.is_finite() && rd > 0.0) {
        return Err(nonfinite("RD", rd));
    }
    // TGR text, UpdatePlayer: Player1.Time = Time
    let after = Player { rating, rd, time };
    Ok(Update { ptime, prd, prd_capped, pg, pe, g, win_prob: wp, xd, pmerit, v, delta, after })
}

/// TGR text, the midnight code, for `days` consecutive midnights at once: the RD of a player whose
/// `Player.Time` was `time` when the first of them struck.
///
/// The seed runs, at every midnight, `PTime = 1 - Player.Time; Player.RD = min(sqrt(Player.RD^2 +
/// PTime * SC^2), 350); Player.Time = 0`. The first of `k` midnights therefore adds
/// `(1 - Time) * SC^2` to RD^2 and each further one `1 * SC^2`. This returns
/// `min(sqrt(RD^2 + ((1 - Time) + (k - 1)) * SC^2), rd_max)`, capping once instead of at each
/// midnight. That is the same number: capping is monotone and every step only adds, so once the cap
/// is reached every later step stays at it, and if it is never reached no `min` acts
/// (`docs/algorithms/tgr.md`, "Midnights, applied lazily"). For `k = 1` it is the seed's
/// expression exactly; for `k > 1` it differs from k separate square roots only by rounding (a few
/// ulps).
///
/// After the midnights `Player.Time` is 0 (the caller stores that). `days <= 0` returns `rd`.
#[inline]
pub fn midnights(rd: f64, time: f64, days: i64, k: &Constants) -> f64 {
    if days <= 0 {
        return rd;
    }
    // TGR text, midnight: PTime = 1 - Player.Time (first midnight), then 1 for each further one
    let ptime = (1.0 - time) + (days - 1) as f64;
    // TGR text, midnight: Player.RD = min(sqrt(Player.RD^2 + PTime * SC^2), 350)  [350 = rd_max]
    (rd * rd + ptime * (k.sc * k.sc)).sqrt().min(k.rd_max)
}

/// TGR text, the display code: the GLIXARE percentage of a rating, rounded to 2 decimals as the
/// seed displays it (`round(10000 / ...) / 100`, so 50% is exactly `50.0`).
///
/// `round` is half away from zero ([`f64::round`]), the convention of the seed's Excel.
/// Callers decide whether the rating is provisional (then the seed shows no percentage).
pub fn glixare(rating: f64, rd: f64) -> f64 {
    let ln10_sq = LN_10 * LN_10;
    // TGR text, display: sqrt(3 * ln(10)^2 * Player.RD^2 + 2500 * (64 * PI^2 + 147 * ln(10)^2))
    let spread = (3.0 * ln10_sq * (rd * rd)
        + 2500.0 * (64.0 * (SEED_PI * SEED_PI) + 147.0 * ln10_sq))
        .sqrt();
    // TGR text, display: round(10000 / (1 + 10^(((1500 - Player.Rating) * PI / spread)))) / 100
    (10000.0 / (1.0 + pow10((1500.0 - rating) * SEED_PI / spread))).round() / 100.0
}

/// TGR text, `DayFrac()`: the fraction of the UTC day at `nanos_into_day` nanoseconds after
/// midnight, in `[0, 1)`.
///
/// The seed reads hours, minutes and seconds of the current time; ladder takes the event's `at`
/// (nanoseconds kept, so `12:00:00.5` is half a second later than `12:00:00`).
#[inline]
pub fn day_frac(nanos_into_day: i64) -> f64 {
    nanos_into_day as f64 / ladder_events::NANOS_PER_DAY as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: Constants = Constants { sc: 20.0, p: 5.0 / 6.0, rd_max: 350.0 };

    #[test]
    fn one_lazy_midnight_is_the_seed_expression() {
        let seed = (80.0f64 * 80.0 + (1.0 - 0.25) * (20.0 * 20.0)).sqrt().min(350.0);
        assert_eq!(midnights(80.0, 0.25, 1, &K), seed);
        assert_eq!(midnights(80.0, 0.25, 0, &K), 80.0);
    }

    #[test]
    fn capping_once_equals_capping_each_midnight() {
        for &(rd, time) in &[(80.0, 0.25), (340.0, 0.9), (349.9, 0.0), (350.0, 0.5), (30.0, 0.99)] {
            let mut each = rd;
            let mut t: f64 = time;
            for days in 1..400 {
                each = (each * each + (1.0 - t) * (K.sc * K.sc)).sqrt().min(K.rd_max);
                t = 0.0;
                let once = midnights(rd, time, days, &K);
                assert!((each - once).abs() < 1e-9, "rd {rd} time {time} days {days}");
                assert!(once <= K.rd_max);
            }
        }
    }

    /// The `G` an update records is the one its `WinProb` used: Glickman's example players
    /// (1500, RD 200) against (1400, RD 30), by hand with std's maths as the oracle.
    #[test]
    #[allow(clippy::disallowed_methods)] // std's ln and powf as an independent oracle
    #[allow(clippy::approx_constant)] // the seed's PI, 3.14159265359, not std's
    fn the_update_records_the_g_of_its_win_prob() {
        let me = Player { rating: 1500.0, rd: 200.0, time: 0.0 };
        let opp = Player { rating: 1400.0, rd: 30.0, time: 0.0 };
        let u = update_player(me, opp, 0.5, 1.0, &K).unwrap();
        // G = 1 / sqrt(1 + 3 * Q^2 * (200^2 + 30^2) / PI^2), Q = ln(10) / 400, PI = 3.14159265359
        let q = 10f64.ln() / 400.0;
        let g = 1.0
            / (1.0
                + 3.0 * q * q * (200.0f64 * 200.0 + 30.0 * 30.0)
                    / (3.14159265359f64 * 3.14159265359))
                .sqrt();
        assert!((u.g - g).abs() < 1e-15, "{} vs {g}", u.g);
        // ... and WinProb = 1 / (1 + 10^(-G * 100 / 400)) with that G.
        let wp = 1.0 / (1.0 + 10f64.powf(-u.g * 100.0 / 400.0));
        assert!((u.win_prob - wp).abs() < 1e-15, "{} vs {wp}", u.win_prob);
        assert_eq!(u.win_prob, win_prob(1500.0, 200.0, 1400.0, 30.0));
    }

    #[test]
    fn day_frac_of_known_times() {
        let hour = 3_600 * ladder_events::NANOS_PER_SECOND;
        assert_eq!(day_frac(0), 0.0);
        assert_eq!(day_frac(6 * hour), 0.25);
        assert_eq!(day_frac(18 * hour), 0.75);
    }
}
