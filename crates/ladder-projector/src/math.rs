//! The transcendental functions of every projector, in one place and the same on every machine.
//!
//! `f64::exp`, `f64::ln` and `f64::powf` call the platform's C maths library, and glibc, musl,
//! macOS and Windows round their last bits differently, so the same history could print different
//! ratings (and digests) on two machines. An audit between a player on one platform and an operator
//! on another must agree to the bit, so projectors call these functions instead: [`exp`], [`ln`]
//! and [`pow`] are the pure-Rust `libm` crate (a port of FreeBSD's msun), the same code and so the
//! same bits on every target whose floating point is IEEE 754 binary64 (every target Rust supports
//! except 32-bit x86 without SSE2); [`powi`] is written out here as the multiplications it stands
//! for. `sqrt`, `floor`, `abs` and the four operations are exactly rounded by IEEE 754 itself, so
//! std's stay. `clippy.toml` forbids the std versions of these functions in the projector crates.

/// e raised to `x`.
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// The natural logarithm of `x`.
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// `x` raised to the real power `y`.
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

// The `platform-math` feature routes the three through the platform's C maths library instead,
// only so that the projector benchmark can measure what the portable path costs
// (docs/PERFORMANCE.md, "Portable maths"). Digests built with it are not portable: never enable
// it in a build that prints ratings for anyone.

/// e raised to `x` (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
#[allow(clippy::disallowed_methods)]
pub fn exp(x: f64) -> f64 {
    x.exp()
}

/// The natural logarithm of `x` (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
#[allow(clippy::disallowed_methods)]
pub fn ln(x: f64) -> f64 {
    x.ln()
}

/// `x` raised to the real power `y` (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
#[allow(clippy::disallowed_methods)]
pub fn pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// `x` raised to the integer power `n`, by repeated squaring (the multiplications compiler-rt's
/// `__powidf2` makes, which is what `f64::powi` calls today, but written here so no platform or
/// optimiser can choose others): `x^-n` is `1 / x^n`.
#[inline]
pub fn powi(x: f64, n: i32) -> f64 {
    let mut base = x;
    let mut e = n.unsigned_abs();
    let mut r = 1.0;
    loop {
        if e & 1 == 1 {
            r *= base;
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        base *= base;
    }
    if n < 0 {
        1.0 / r
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values from the definitions, checked by hand: e^0 = 1, ln 1 = 0, ln e^k = k for exactly
    // representable results, 2^10 = 1024, 10^-2 = 1 / 100.
    #[test]
    fn exact_cases() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(pow(2.0, 10.0), 1024.0);
        assert_eq!(powi(2.0, 10), 1024.0);
        assert_eq!(powi(10.0, -2), 1.0 / 100.0);
        assert_eq!(powi(0.5, 0), 1.0);
        assert_eq!(powi(3.0, 5), 243.0);
    }

    // Within one unit in the last place of the correctly rounded constants e and ln(10) (msun's
    // exp and log promise less than 1 ulp, not correct rounding).
    #[test]
    fn constants_within_one_ulp() {
        let ulp = |x: f64| f64::from_bits(x.to_bits() + 1) - x;
        assert!((exp(1.0) - std::f64::consts::E).abs() <= ulp(std::f64::consts::E));
        assert!((ln(10.0) - std::f64::consts::LN_10).abs() <= ulp(std::f64::consts::LN_10));
        assert!((exp(ln(7.25)) - 7.25).abs() <= 2.0 * f64::EPSILON * 7.25);
    }

    // Bits pinned: what every platform must compute. exp(1) and ln(0.3) are each one ulp away from
    // the correctly rounded values of e = 2.718281828459045235360287... (2.718281828459045) and
    // ln 0.3 = -1.203972804325935992622746... (-1.203972804325936), both 40-digit decimal
    // expansions: the kind of last-bit difference between maths libraries this module exists to
    // make the same everywhere. exp(-1) = 0.367879441171442321595523... is correctly rounded.
    #[test]
    fn pinned_bits() {
        assert_eq!(exp(1.0), 2.7182818284590455);
        assert_eq!(exp(-1.0), 0.36787944117144233);
        assert_eq!(ln(0.3), -1.2039728043259361);
    }

    // powi is the compiler's powi wherever the compiler uses compiler-rt's loop (the host here).
    #[test]
    fn powi_matches_repeated_squaring_of_std() {
        #[allow(clippy::disallowed_methods)]
        for n in -40..=40 {
            for x in [0.925_f64, 1.5, 10.0, 0.1] {
                assert_eq!(powi(x, n).to_bits(), x.powi(n).to_bits(), "{x}^{n}");
            }
        }
    }
}
