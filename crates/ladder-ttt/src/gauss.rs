//! Gaussians and the truncation arithmetic of TrueSkill Through Time, written as the reference
//! package `trueskillthroughtime` 1.1.0 (PyPI) computes them, so that the two agree to rounding.
//!
//! The package takes `erfc` from the Chebyshev fit of Numerical Recipes ("Numerical Recipes in C",
//! 2nd ed., section 6.2, `erfcc`: fractional error below 1.2e-7 everywhere) and inverts it with
//! three Newton steps; ladder uses the same fit, not a more exact `erfc`, because the package's
//! estimates are the ones the model is checked against (docs/algorithms/ttt.md).

use ladder_projector::math;
use serde::{Deserialize, Serialize};

/// `sqrt(2)`.
const SQRT2: f64 = std::f64::consts::SQRT_2;

/// `sqrt(2 pi)`, computed as the package computes it.
fn sqrt2pi() -> f64 {
    (2.0 * std::f64::consts::PI).sqrt()
}

/// The complementary error function, Numerical Recipes' `erfcc` (the package's `erfc`):
/// `t = 1 / (1 + |x| / 2)`, `erfc(|x|) = t exp(-x^2 - 1.26551223 + t (1.00002368 + t (0.37409196
/// + ...)))`, and `erfc(x) = 2 - erfc(-x)` for negative `x`.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + z / 2.0);
    let a = -0.82215223 + t * 0.17087277;
    let b = 1.48851587 + t * a;
    let c = -1.13520398 + t * b;
    let d = 0.27886807 + t * c;
    let e = -0.18628806 + t * d;
    let f = 0.09678418 + t * e;
    let g = 0.37409196 + t * f;
    let h = 1.00002368 + t * g;
    let r = t * math::exp(-z * z - 1.26551223 + t * h);
    if x < 0.0 {
        2.0 - r
    } else {
        r
    }
}

/// The inverse of [`erfc`] on `[0, 2]`: the package's `erfcinv` (a rational first guess, then
/// three Newton steps on [`erfc`] itself, so that `erfc(erfcinv(y))` is `y` for this `erfc`).
/// `y` outside `[0, 2]` gives NaN; `0` and `2` give the infinities.
// The package's literals, kept as written (its first guess and `2 / sqrt(pi)`).
#[allow(clippy::approx_constant, clippy::excessive_precision)]
pub fn erfcinv(y: f64) -> f64 {
    if y >= 2.0 {
        return f64::NEG_INFINITY;
    }
    if y.is_nan() || y < 0.0 {
        return f64::NAN;
    }
    if y == 0.0 {
        return f64::INFINITY;
    }
    let yy = if y < 1.0 { y } else { 2.0 - y };
    let t = (-2.0 * math::ln(yy / 2.0)).sqrt();
    let mut x = -0.70711 * ((2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t);
    for _ in 0..3 {
        let err = erfc(x) - yy;
        x += err / (1.12837916709551257 * math::exp(-(x * x)) - x * err);
    }
    if y < 1.0 {
        x
    } else {
        -x
    }
}

/// The normal distribution function: `P(X <= x)` for `X ~ N(mu, sigma^2)`,
/// `erfc(-(x - mu) / (sigma sqrt 2)) / 2`.
pub fn cdf(x: f64, mu: f64, sigma: f64) -> f64 {
    0.5 * erfc(-(x - mu) / (sigma * SQRT2))
}

/// The normal density: `exp(-(x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)`.
pub fn pdf(x: f64, mu: f64, sigma: f64) -> f64 {
    let normalizer = 1.0 / (sqrt2pi() * sigma);
    normalizer * math::exp(-((x - mu) * (x - mu)) / (2.0 * sigma * sigma))
}

/// The normal quantile function: `mu - sigma sqrt(2) erfcinv(2 p)`.
pub fn ppf(p: f64, mu: f64, sigma: f64) -> f64 {
    mu - sigma * SQRT2 * erfcinv(2.0 * p)
}

/// The first two moments of a truncated normal: `v` and `w` of Herbrich, Minka & Graepel,
/// "TrueSkill: A Bayesian Skill Rating System" (NIPS 2006), for a difference `N(mu, sigma^2)`
/// observed above `margin` (a win) or within `[-margin, margin]` (a tie).
pub fn v_w(mu: f64, sigma: f64, margin: f64, tie: bool) -> (f64, f64) {
    if !tie {
        let alpha = (margin - mu) / sigma;
        let v = pdf(-alpha, 0.0, 1.0) / cdf(-alpha, 0.0, 1.0);
        let w = v * (v + (-alpha));
        (v, w)
    } else {
        let alpha = (-margin - mu) / sigma;
        let beta = (margin - mu) / sigma;
        let (pa, pb) = (pdf(alpha, 0.0, 1.0), pdf(beta, 0.0, 1.0));
        let denom = cdf(beta, 0.0, 1.0) - cdf(alpha, 0.0, 1.0);
        let v = (pa - pb) / denom;
        let u = (alpha * pa - beta * pb) / denom;
        (v, -(u - v * v))
    }
}

/// The mean and standard deviation of `N(mu, sigma^2)` truncated as [`v_w`] says:
/// `mu + sigma v` and `sigma sqrt(1 - w)`.
pub fn trunc(mu: f64, sigma: f64, margin: f64, tie: bool) -> (f64, f64) {
    let (v, w) = v_w(mu, sigma, margin, tie);
    (mu + sigma * v, sigma * (1.0 - w).sqrt())
}

/// The draw margin of a game whose two compared sides have performance noise `sd` (the square root
/// of the sum of their players' `beta^2`), for a draw probability `p_draw`: the package's
/// `compute_margin`, `|ppf(0.5 - p_draw / 2, 0, sd)|`.
pub fn margin(p_draw: f64, sd: f64) -> f64 {
    ppf(0.5 - p_draw / 2.0, 0.0, sd).abs()
}

/// A Gaussian as `(mu, sigma)`, the package's `Gaussian`: `sigma` infinite is the uniform
/// message (`Ninf`), which has `tau = pi = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ms {
    /// The mean.
    pub mu: f64,
    /// The standard deviation, `>= 0` (infinite for no information).
    pub sigma: f64,
}

/// No information: `N(0, inf)`.
pub const NINF: Ms = Ms { mu: 0.0, sigma: f64::INFINITY };

impl Ms {
    /// Precision `sigma^-2` (0 when `sigma` is infinite).
    pub fn pi(self) -> f64 {
        if self.sigma > 0.0 {
            1.0 / (self.sigma * self.sigma)
        } else {
            f64::INFINITY
        }
    }

    /// Precision-adjusted mean `mu sigma^-2`.
    pub fn tau(self) -> f64 {
        if self.sigma > 0.0 {
            self.mu * (1.0 / (self.sigma * self.sigma))
        } else {
            f64::INFINITY
        }
    }

    /// The product of two densities (the package's `*`).
    pub fn times(self, o: Ms) -> Ms {
        G { tau: self.tau() + o.tau(), pi: self.pi() + o.pi() }.ms()
    }

    /// The quotient of two densities (the package's `/`).
    pub fn over(self, o: Ms) -> Ms {
        G { tau: self.tau() - o.tau(), pi: self.pi() - o.pi() }.ms()
    }

    /// The sum of two independent variables (the package's `+`).
    pub fn plus(self, o: Ms) -> Ms {
        Ms { mu: self.mu + o.mu, sigma: (self.sigma * self.sigma + o.sigma * o.sigma).sqrt() }
    }

    /// The difference of two independent variables (the package's `-`).
    pub fn minus(self, o: Ms) -> Ms {
        Ms { mu: self.mu - o.mu, sigma: (self.sigma * self.sigma + o.sigma * o.sigma).sqrt() }
    }

    /// Removes an independent summand (the package's `exclude`).
    pub fn exclude(self, o: Ms) -> Ms {
        Ms { mu: self.mu - o.mu, sigma: (self.sigma * self.sigma - o.sigma * o.sigma).sqrt() }
    }

    /// `(|mu - mu'|, |sigma - sigma'|)`, what convergence compares (the package's `delta`).
    pub fn delta(self, o: Ms) -> (f64, f64) {
        ((self.mu - o.mu).abs(), (self.sigma - o.sigma).abs())
    }

    /// In natural parameters.
    pub fn g(self) -> G {
        if self.sigma.is_infinite() {
            G::NINF
        } else {
            let pi = 1.0 / (self.sigma * self.sigma);
            G { tau: self.mu * pi, pi }
        }
    }
}

/// A Gaussian message in natural parameters (`tau = mu / sigma^2`, `pi = 1 / sigma^2`), the form
/// in which the history keeps its messages: products and quotients are sums and differences.
///
/// Invariant: `pi >= 0`; `pi == 0` is the uniform message with `tau == 0` (the package's
/// `mu_sigma` turns a precision at or below zero into `N(0, inf)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct G {
    /// `mu / sigma^2`.
    pub tau: f64,
    /// `1 / sigma^2`.
    pub pi: f64,
}

impl G {
    /// No information.
    pub const NINF: G = G { tau: 0.0, pi: 0.0 };

    /// `N(mu, sigma^2)`.
    pub fn new(mu: f64, sigma: f64) -> G {
        Ms { mu, sigma }.g()
    }

    /// Keeps the invariant: a precision at or below zero is no information (the package's
    /// `mu_sigma`).
    #[inline]
    fn norm(tau: f64, pi: f64) -> G {
        if pi > 0.0 {
            G { tau, pi }
        } else {
            G::NINF
        }
    }

    /// The product of two densities.
    #[inline]
    pub fn times(self, o: G) -> G {
        G::norm(self.tau + o.tau, self.pi + o.pi)
    }

    /// The quotient of two densities.
    #[inline]
    pub fn over(self, o: G) -> G {
        G::norm(self.tau - o.tau, self.pi - o.pi)
    }

    /// The mean (0 for no information).
    #[inline]
    pub fn mu(self) -> f64 {
        if self.pi > 0.0 {
            self.tau / self.pi
        } else {
            0.0
        }
    }

    /// The standard deviation (infinite for no information).
    #[inline]
    pub fn sigma(self) -> f64 {
        if self.pi > 0.0 {
            (1.0 / self.pi).sqrt()
        } else {
            f64::INFINITY
        }
    }

    /// As `(mu, sigma)`.
    #[inline]
    pub fn ms(self) -> Ms {
        if self.pi > 0.0 {
            Ms { mu: self.tau / self.pi, sigma: (1.0 / self.pi).sqrt() }
        } else if self.pi.is_infinite() {
            Ms { mu: self.tau / self.pi, sigma: 0.0 }
        } else {
            NINF
        }
    }

    /// The skill drift of TrueSkill Through Time: the variance grows by `gamma^2 t` over `t` time
    /// units, the mean stays (the package's `forget`).
    #[inline]
    pub fn forget(self, gamma: f64, t: f64) -> G {
        if self.pi > 0.0 {
            let var = 1.0 / self.pi + t * gamma * gamma;
            let pi = 1.0 / var;
            G { tau: self.tau / self.pi * pi, pi }
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_is_within_the_fits_published_error_of_known_values() {
        // erfc(0) = 1; erfc(1) = 0.157299207050285...; erfc(-1) = 1.842700792949715...
        // (Abramowitz & Stegun, table 7.1), within Numerical Recipes' 1.2e-7 fractional error.
        for (x, want) in [(0.0, 1.0), (1.0, 0.157_299_207_050_285), (-1.0, 1.842_700_792_949_715)] {
            let got = erfc(x);
            assert!(((got - want) / want).abs() < 1.2e-7, "erfc({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn erfcinv_inverts_erfc() {
        for y in [0.01, 0.3, 0.9, 1.0, 1.2, 1.7, 1.99] {
            assert!((erfc(erfcinv(y)) - y).abs() < 1e-12, "y = {y}");
        }
        assert_eq!(erfcinv(2.0), f64::NEG_INFINITY);
        assert_eq!(erfcinv(0.0), f64::INFINITY);
        assert!(erfcinv(-0.5).is_nan());
    }

    #[test]
    fn the_draw_margin_leaves_p_draw_between_minus_and_plus_margin() {
        // Two players of equal skill and no uncertainty: the difference of performances is
        // N(0, 2 beta^2), so P(|d| <= margin) must be p_draw.
        let sd = 2f64.sqrt();
        for p in [0.1, 0.25, 0.5] {
            let m = margin(p, sd);
            let got = cdf(m, 0.0, sd) - cdf(-m, 0.0, sd);
            assert!((got - p).abs() < 1e-9, "p_draw {p}: {got}");
        }
    }

    #[test]
    fn natural_parameters_multiply_as_densities() {
        // N(1, 1) N(3, 1) is N(2, 1/2), by completing the square.
        let p = G::new(1.0, 1.0).times(G::new(3.0, 1.0));
        assert!((p.mu() - 2.0).abs() < 1e-15 && (p.sigma() - 0.5f64.sqrt()).abs() < 1e-15);
        assert_eq!(p.over(G::new(3.0, 1.0)).mu(), 1.0);
        assert_eq!(G::new(1.0, 1.0).over(G::new(1.0, 1.0)), G::NINF);
        // Drift: variance 1 + 4 * 0.25 = 2.
        let f = G::new(5.0, 1.0).forget(0.5, 4.0);
        assert!((f.mu() - 5.0).abs() < 1e-15 && (f.sigma() - 2f64.sqrt()).abs() < 1e-15);
    }
}
