//! The performance equation and its numerical solution.

use ladder_projector::math;

/// The Arimaa text: `W(RD) = 1 / (1 + 10^(RD/400))` "where RD is the rating difference", called as
/// `W(r_i - RP)`: the expectation of a player rated `RP` against an opponent rated `r_i`.
pub fn winning_expectancy(rd: f64) -> f64 {
    // 10^(rd/400) = exp(rd * ln(10) / 400): one `exp`, cheaper than `powf`.
    1.0 / (1.0 + math::exp(rd * (std::f64::consts::LN_10 / 400.0)))
}

/// One term of the equation: result `w` against an opponent rated `r`, with weight `k` (> 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// 1 for a win, 0.5 for a draw, 0 for a loss.
    pub w: f64,
    /// The opponent's rating.
    pub r: f64,
    /// The game's weight.
    pub k: f64,
}

/// Why the equation has no usable root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SolveError {
    /// No term with a positive weight: the equation is `0 = 0`.
    #[error("no games to rate")]
    NoGames,
    /// Every weighted game was won: the sum stays positive for every finite rating.
    #[error("no finite rating exists: every game was won, so the rating grows without bound")]
    OnlyWins,
    /// Every weighted game was lost: the sum stays negative for every finite rating.
    #[error("no finite rating exists: every game was lost, so the rating falls without bound")]
    OnlyLosses,
    /// The root lies beyond ±1e9 rating points or the iteration did not settle (not seen in
    /// practice; reported rather than returning a wrong number).
    #[error("the performance equation did not converge")]
    NoConvergence,
}

/// The width, in rating points, to which the root is bracketed: far under the 0.5 that rounding
/// to whole numbers needs.
pub const TOLERANCE: f64 = 1e-9;

/// `f(RP) = sum k_i (w_i - W(r_i - RP))` (the Arimaa text's equation). Strictly decreasing in `RP`
/// when some weight is positive: `W(r_i - RP)` grows with `RP`.
fn f(terms: &[Term], rp: f64) -> f64 {
    terms.iter().map(|t| t.k * (t.w - winning_expectancy(t.r - rp))).sum()
}

/// Solves the Arimaa text's `k1(w1-W(r1-RP)) + ... + kN(wN-W(rN-RP)) = 0` for `RP`.
///
/// The left side is strictly decreasing, positive far below the root and negative far above, so
/// a root exists exactly when some weighted game is not a loss and some is not a win. The root is
/// bracketed by doubling steps, then narrowed by the Illinois variant of regula falsi with a
/// bisection at least every third step, to [`TOLERANCE`].
pub fn solve(terms: &[Term]) -> Result<f64, SolveError> {
    solve_near(terms, f64::NAN)
}

/// [`solve`], starting the bracket around `hint` (e.g. the player's previous rating) when it is
/// finite: the same root, found with fewer evaluations when the hint is close.
pub fn solve_near(terms: &[Term], hint: f64) -> Result<f64, SolveError> {
    let (mut any, mut gain, mut loss) = (false, 0.0, 0.0);
    for t in terms {
        if t.k > 0.0 {
            any = true;
            gain += t.k * t.w;
            loss += t.k * (1.0 - t.w);
        }
    }
    if !any {
        return Err(SolveError::NoGames);
    }
    if loss <= 0.0 {
        return Err(SolveError::OnlyWins);
    }
    if gain <= 0.0 {
        return Err(SolveError::OnlyLosses);
    }
    let (mut lo_r, mut hi_r) = (f64::INFINITY, f64::NEG_INFINITY);
    for t in terms.iter().filter(|t| t.k > 0.0) {
        lo_r = lo_r.min(t.r);
        hi_r = hi_r.max(t.r);
    }
    const LIMIT: f64 = 1e9;
    let first_step = if hint.is_finite() { 25.0 } else { 400.0 };
    if hint.is_finite() {
        (lo_r, hi_r) = (hint, hint);
    }
    let mut step = first_step;
    let mut a = lo_r - step;
    let mut fa = f(terms, a);
    while fa <= 0.0 {
        if fa == 0.0 {
            return Ok(a);
        }
        step *= 2.0;
        a -= step;
        if a < -LIMIT {
            return Err(SolveError::NoConvergence);
        }
        fa = f(terms, a);
    }
    step = first_step;
    let mut b = hi_r + step;
    let mut fb = f(terms, b);
    while fb >= 0.0 {
        if fb == 0.0 {
            return Ok(b);
        }
        step *= 2.0;
        b += step;
        if b > LIMIT {
            return Err(SolveError::NoConvergence);
        }
        fb = f(terms, b);
    }
    // Invariant: a < root < b, fa > 0 > fb.
    let (mut ga, mut gb) = (fa, fb); // the (possibly halved) values used for the secant
    let mut last_side = 0i8;
    let mut width = b - a;
    for iteration in 0..400 {
        if b - a <= TOLERANCE {
            return Ok(0.5 * (a + b));
        }
        let secant = (a * gb - b * ga) / (gb - ga);
        let bisect = iteration % 3 == 2 && b - a > 0.5 * width;
        if iteration % 3 == 2 {
            width = b - a;
        }
        let c = if bisect || !(secant > a && secant < b) { 0.5 * (a + b) } else { secant };
        let fc = f(terms, c);
        if fc == 0.0 {
            return Ok(c);
        }
        if fc > 0.0 {
            a = c;
            ga = fc;
            if last_side == 1 {
                gb *= 0.5; // Illinois: the stale end's value is halved
            }
            last_side = 1;
        } else {
            b = c;
            gb = fc;
            if last_side == -1 {
                ga *= 0.5;
            }
            last_side = -1;
        }
    }
    Err(SolveError::NoConvergence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_game_each_way_and_no_root_cases() {
        let t = |w, r, k| Term { w, r, k };
        // A draw against 1500 alone: RP = 1500.
        assert!((solve(&[t(0.5, 1500.0, 1.0)]).unwrap() - 1500.0).abs() < 1e-6);
        // One win and one loss against 1400 and 1600: RP = 1500 by symmetry.
        let rp = solve(&[t(1.0, 1400.0, 1.0), t(0.0, 1600.0, 1.0)]).unwrap();
        assert!((rp - 1500.0).abs() < 1e-6, "{rp}");
        assert_eq!(solve(&[t(1.0, 1400.0, 1.0)]), Err(SolveError::OnlyWins));
        assert_eq!(solve(&[t(0.0, 1400.0, 1.0)]), Err(SolveError::OnlyLosses));
        assert_eq!(solve(&[]), Err(SolveError::NoGames));
        // A far root: a tiny weight on the loss.
        let rp = solve(&[t(1.0, 1000.0, 1.0), t(0.0, 1000.0, 1e-12)]).unwrap();
        assert!(rp > 5000.0 && rp.is_finite());
        assert!(f(&[t(1.0, 1000.0, 1.0), t(0.0, 1000.0, 1e-12)], rp).abs() < 1e-9);
        // A hint only moves the start of the bracket.
        let terms = [t(1.0, 1400.0, 1.0), t(0.0, 1600.0, 0.5), t(0.5, 1200.0, 0.98)];
        let root = solve(&terms).unwrap();
        for hint in [-1e6, 0.0, root, 1900.0, 5e5] {
            assert!((solve_near(&terms, hint).unwrap() - root).abs() < 2.0 * TOLERANCE, "{hint}");
        }
    }
}
