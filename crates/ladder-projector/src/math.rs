//! The transcendental functions of every projector, in one place and the same on every machine.
//!
//! `f64::exp`, `f64::ln` and `f64::powf` call the platform's C maths library, and glibc, musl,
//! macOS and Windows round their last bits differently, so the same history could print different
//! ratings (and digests) on two machines. An audit between a player on one platform and an operator
//! on another must agree to the bit, so projectors call these functions instead.
//!
//! [`exp`] and [`ln`] are written here from IEEE 754's basic operations alone (add, subtract,
//! multiply, compare, and integer operations on the bits): each is exactly rounded by the
//! standard, so the same code gives the same bits on every target whose floating point is IEEE
//! 754 binary64 (every target Rust supports except 32-bit x86 without SSE2). Rust never fuses a
//! multiplication and an addition unless told to (`mul_add`), so no compiler contracts them.
//! They are table-driven, as fast libms are (the tables in `math/tables.rs` are written by
//! `scripts/math_tables.py` with mpmath), and each is held within a stated error bound of the
//! exact value over millions of arguments by a test that asks mpmath (`scripts/math_check.py`).
//! docs/PERFORMANCE.md, "Portable maths", measures them against the platform's library.
//!
//! [`pow`] is the pure-Rust `libm` crate (a port of FreeBSD's msun), portable in the same way but
//! slower; only the simulator calls it. [`powi`] is written out as the multiplications it stands
//! for. `sqrt`, `floor`, `abs` and the four operations are exactly rounded by IEEE 754 itself, so
//! std's stay. `clippy.toml` forbids the std versions of these functions in the projector crates.

/// e raised to `x`, within 0.52 units in the last place of the exact value for every result
/// in the normal range and within 1 for subnormal ones (the bounds `exp_and_ln_against_mpmath`
/// holds over millions of arguments); `+inf` above 709.78, `0` below -745.14, NaN for NaN.
///
/// The table-driven method of Tang's "Table-driven implementation of the exponential function
/// in IEEE floating-point arithmetic" (ACM TOMS, 1989) with 128 entries: x = (128 k + j) ln 2 /
/// 128 + r with |r| <= ln 2 / 256, so e^x = 2^k 2^(j/128) e^r, where 2^(j/128) comes from
/// the table as a double and its relative error, and e^r - 1 from its Taylor polynomial of
/// degree 5 (the first term left out is below 2^-60 of the result).
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn exp(x: f64) -> f64 {
    use tables::{EXP2_J, INV_LN2_N, LN2_N_HI, LN2_N_LO, N};
    // 2^52 + 2^51: adding it rounds a number below 2^51 in magnitude to an integer held in the
    // low bits of the sum (round to nearest, ties to even, as IEEE 754 defines the addition).
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    if !(-745.2..=709.8).contains(&x) {
        return exp_outside(x);
    }
    let z = x * INV_LN2_N;
    let kd = z + SHIFT;
    // The integer n = 128 k + j: kd lies in SHIFT's binade, so its bits are SHIFT's plus n.
    let n = (kd.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let kd = kd - SHIFT;
    // Cody and Waite's reduction: kd * LN2_N_HI is exact and so is x minus it (they are close).
    let r = (x - kd * LN2_N_HI) - kd * LN2_N_LO;
    let j = (n as usize) & (N - 1);
    let k = n >> 7; // floor(n / 128), so that n = 128 k + j with j in 0..128
    let (t, tail) = EXP2_J[j];
    let r2 = r * r;
    let p = r + r2 * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0))));
    let q = tail + p + tail * p; // (1 + tail)(1 + p) - 1
                                 // Below k = -1000, scale * q could be subnormal and lose bits; the last branch keeps it
                                 // normal.
    if (-1000..=1023).contains(&k) {
        let scale = f64::from_bits(t.to_bits().wrapping_add((k as u64) << 52));
        scale + scale * q
    } else if k > 1023 {
        // 2^k t overflows although the result may not: scale by 2^(k-1), then double.
        let scale = f64::from_bits(t.to_bits().wrapping_add(((k - 1) as u64) << 52));
        (scale + scale * q) * 2.0
    } else {
        // Small, perhaps subnormal: the normal value 2^(k+1022) t e^r, then one multiplication
        // by 2^-1022, exact for a normal result and for a subnormal one a second rounding, to
        // the subnormal grid (within 1 ulp).
        let scale = f64::from_bits(t.to_bits().wrapping_add(((k + 1022) as u64) << 52));
        (scale + scale * q) * f64::from_bits(0x0010_0000_0000_0000)
    }
}

/// exp outside [-745.2, 709.8] and for NaN: what IEEE 754's exp returns there.
#[cold]
#[cfg(not(feature = "platform-math"))]
fn exp_outside(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// The natural logarithm of `x`, within 0.52 units in the last place of the exact value (the
/// bound `exp_and_ln_against_mpmath` holds over millions of arguments); `-inf` at 0, NaN below
/// 0 and for NaN, `+inf` at `+inf`.
///
/// The table-driven method of Tang's "Table-driven implementation of the logarithm function in
/// IEEE floating-point arithmetic" (ACM TOMS, 1990) with 128 entries: x = 2^k (F + f) with F =
/// 1 + j/128 the nearest such to x's significand and |f| <= 1/256, so ln x = k ln 2 + ln F +
/// ln(1 + u) with u = f / F. k ln 2 + ln F is exact in its high parts; u is computed to about
/// 2^-84 by one correction step, all without a fused multiply-add; ln(1 + u) is its Taylor
/// polynomial of degree 7 (the first term left out is below 2^-59 of u).
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn ln(x: f64) -> f64 {
    use tables::{LN2_HI, LN2_LO, LN_F};
    let mut bits = x.to_bits();
    let mut k: i64 = -1023;
    if bits.wrapping_sub(0x0010_0000_0000_0000) >= 0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000 {
        // Zero, subnormal, negative, infinite or NaN.
        if x.is_nan() || x < 0.0 {
            return f64::NAN;
        }
        if x == 0.0 {
            return f64::NEG_INFINITY;
        }
        if x == f64::INFINITY {
            return x;
        }
        // Subnormal: scale by 2^52 (exact) into the normal range.
        bits = (x * f64::from_bits(0x4330_0000_0000_0000)).to_bits();
        k -= 52;
    }
    k += (bits >> 52) as i64;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    // The significand's first 8 fraction bits, rounded to 7: j in 0..=128.
    let j = ((((bits >> 44) & 0xff) + 1) >> 1) as usize;
    let (log_f_hi, log_f_lo, inv_f) = LN_F[j];
    // F = 1 + j/128 from its bits (j = 128 carries into the exponent: 2); k below likewise.
    // Integer-to-float conversions would do, but x86-64's `cvtsi2sd` writes only half of its
    // register, a false dependency that chained one call to the next (ln ran at a third of the
    // speed of the libm it replaced in benches/math.rs until these two went).
    let big_f = f64::from_bits(0x3ff0_0000_0000_0000 + ((j as u64) << 45));
    let f = m - big_f; // exact
                       // u = f / F: u1 (32 significant bits) times F is exact, f minus that is exact (Sterbenz),
                       // and the remainder's quotient u2 is small, so u1 + u2 is f / F to about 2^-84 of u.
    let uh = f * inv_f;
    let u1 = f64::from_bits(uh.to_bits() & !0x1f_ffff);
    let u2 = (f - u1 * big_f) * inv_f;
    // 2^52 + 2^51 plus k in its low bits, minus 2^52 + 2^51: k exactly (|k| < 2^11).
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let kd = f64::from_bits(SHIFT.to_bits().wrapping_add(k as u64)) - SHIFT;
    let hi = kd * LN2_HI + log_f_hi; // exact: both are multiples of 2^-42 below 2^10
    let lo = kd * LN2_LO + log_f_lo;
    // ln(1 + u) - u, from f / F rounded once (its error is 2^-53 of a term below 2^-9 u), in
    // Estrin's order: three independent pairs, so the chain of dependent operations is short.
    let w = uh * uh;
    let poly = w * (-0.5 + uh * (1.0 / 3.0))
        + (w * w) * ((-0.25 + uh * 0.2) + w * (-1.0 / 6.0 + uh * (1.0 / 7.0)));
    // hi + u1 as an exact sum s + e (Knuth's two-sum), then everything small added to e.
    let s = hi + u1;
    let v = s - hi;
    let e = (hi - (s - v)) + (u1 - v);
    s + (e + (u2 + (lo + poly)))
}

/// How many arguments [`exp4`] and [`ln4`] take at once.
pub const LANES: usize = 4;

/// [`exp`] of four arguments at once, bit for bit the four results of [`exp`] ([`exp_n`] of
/// four).
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn exp4(x: [f64; LANES]) -> [f64; LANES] {
    exp_n(x)
}

/// [`exp`] of `N` arguments at once, bit for bit the `N` results of [`exp`].
///
/// When every argument lies in [-680, 700] (where [`exp`] takes neither its overflow nor its
/// subnormal branch) the `N` run through [`exp`]'s own operations in the same order, lane by
/// lane, with no branch between them, so the compiler can keep them in vector registers: each
/// lane is IEEE 754's add, multiply and bit operations on its own value, which no vector unit
/// rounds differently (and Rust never contracts them into fused multiply-adds). Otherwise each
/// argument goes through [`exp`] itself. The test `exp4_and_ln4_are_exp_and_ln` holds the two
/// to the bit over millions of arguments, in groups of four and of eight. More than four lanes
/// let a caller whose lanes are each a chain of dependent operations (Glicko-2's step 5) run
/// more chains side by side: the operations of one lane wait on each other, those of different
/// lanes do not.
///
/// Always inlined, with the rare path out of line: called, it took its arguments from memory
/// that its caller had just written lane by lane (docs/PERFORMANCE.md, "Sweeps").
#[inline(always)]
#[cfg(not(feature = "platform-math"))]
pub fn exp_n<const N: usize>(x: [f64; N]) -> [f64; N] {
    // Every lane compared, not the first failing one only: no branch between the lanes.
    if x.iter().fold(true, |all, x| all & (-680.0..=700.0).contains(x)) {
        exp_body(x)
    } else {
        exp_each(x)
    }
}

/// [`exp`] of each of `N` arguments, [`exp_n`]'s rare path (an argument outside [-680, 700]).
#[cold]
#[inline(never)]
#[cfg(not(feature = "platform-math"))]
fn exp_each<const N: usize>(x: [f64; N]) -> [f64; N] {
    x.map(exp)
}

/// [`exp`]'s middle branch (the result's exponent k in -1000..=1023) over `N` lanes.
#[inline(always)]
#[cfg(not(feature = "platform-math"))]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
fn exp_body<const N: usize>(x: [f64; N]) -> [f64; N] {
    use tables::{EXP2_J, INV_LN2_N, LN2_N_HI, LN2_N_LO, N as TABLE};
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    // floor(n / 128) for |n| < 2^20 without an arithmetic shift of 64-bit lanes (which the
    // vector units lack): (n + 2^20) / 128 - 2^13, all exact integer operations.
    const BIAS: i64 = 1 << 20;
    let mut out = [0.0; N];
    let mut kd = [0.0; N];
    let mut n = [0i64; N];
    for i in 0..N {
        let z = x[i] * INV_LN2_N;
        let s = z + SHIFT;
        n[i] = (s.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
        kd[i] = s - SHIFT;
    }
    let mut t = [0.0; N];
    let mut tail = [0.0; N];
    for i in 0..N {
        let (a, b) = EXP2_J[(n[i] as usize) & (TABLE - 1)];
        t[i] = a;
        tail[i] = b;
    }
    for i in 0..N {
        let r = (x[i] - kd[i] * LN2_N_HI) - kd[i] * LN2_N_LO;
        let k = (((n[i] + BIAS) as u64) >> 7) as i64 - (BIAS >> 7);
        let r2 = r * r;
        let p = r + r2 * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0))));
        let q = tail[i] + p + tail[i] * p;
        let scale = f64::from_bits(t[i].to_bits().wrapping_add((k as u64) << 52));
        out[i] = scale + scale * q;
    }
    out
}

/// [`ln`] of four arguments at once, bit for bit the four results of [`ln`] ([`ln_n`] of four).
#[inline]
#[cfg(not(feature = "platform-math"))]
pub fn ln4(x: [f64; LANES]) -> [f64; LANES] {
    ln_n(x)
}

/// [`ln`] of `N` arguments at once, bit for bit the `N` results of [`ln`].
///
/// When every argument is a positive normal finite number the `N` run through [`ln`]'s own
/// operations in the same order, lane by lane, with no branch between them (see [`exp_n`]);
/// otherwise each goes through [`ln`] itself. The test `exp4_and_ln4_are_exp_and_ln` holds the
/// two to the bit over millions of arguments, in groups of four and of eight.
///
/// Always inlined, with the rare path out of line, as [`exp_n`].
#[inline(always)]
#[cfg(not(feature = "platform-math"))]
pub fn ln_n<const N: usize>(x: [f64; N]) -> [f64; N] {
    let normal = |x: &f64| {
        x.to_bits().wrapping_sub(0x0010_0000_0000_0000)
            < 0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000
    };
    // Every lane compared, not the first failing one only: no branch between the lanes.
    if x.iter().fold(true, |all, x| all & normal(x)) {
        ln_body(x)
    } else {
        ln_each(x)
    }
}

/// [`ln`] of each of `N` arguments, [`ln_n`]'s rare path (an argument that is not a positive
/// normal finite number).
#[cold]
#[inline(never)]
#[cfg(not(feature = "platform-math"))]
fn ln_each<const N: usize>(x: [f64; N]) -> [f64; N] {
    x.map(ln)
}

/// [`ln`] of `N` positive normal finite arguments.
#[inline(always)]
#[cfg(not(feature = "platform-math"))]
#[allow(clippy::needless_range_loop)] // lane i of several arrays at once
fn ln_body<const N: usize>(x: [f64; N]) -> [f64; N] {
    use tables::{LN2_HI, LN2_LO, LN_F};
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let mut j = [0usize; N];
    let mut m = [0.0; N];
    let mut kd = [0.0; N];
    for i in 0..N {
        let bits = x[i].to_bits();
        let k = (bits >> 52) as i64 - 1023;
        m[i] = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
        j[i] = ((((bits >> 44) & 0xff) + 1) >> 1) as usize;
        kd[i] = f64::from_bits(SHIFT.to_bits().wrapping_add(k as u64)) - SHIFT;
    }
    let mut lf = [(0.0, 0.0, 0.0); N];
    for i in 0..N {
        lf[i] = LN_F[j[i]];
    }
    let mut out = [0.0; N];
    for i in 0..N {
        let (log_f_hi, log_f_lo, inv_f) = lf[i];
        let big_f = f64::from_bits(0x3ff0_0000_0000_0000 + ((j[i] as u64) << 45));
        let f = m[i] - big_f;
        let uh = f * inv_f;
        let u1 = f64::from_bits(uh.to_bits() & !0x1f_ffff);
        let u2 = (f - u1 * big_f) * inv_f;
        let hi = kd[i] * LN2_HI + log_f_hi;
        let lo = kd[i] * LN2_LO + log_f_lo;
        let w = uh * uh;
        let poly = w * (-0.5 + uh * (1.0 / 3.0))
            + (w * w) * ((-0.25 + uh * 0.2) + w * (-1.0 / 6.0 + uh * (1.0 / 7.0)));
        let s = hi + u1;
        let v = s - hi;
        let e = (hi - (s - v)) + (u1 - v);
        out[i] = s + (e + (u2 + (lo + poly)));
    }
    out
}

/// [`exp`] of four arguments (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
pub fn exp4(x: [f64; LANES]) -> [f64; LANES] {
    x.map(exp)
}

/// [`ln`] of four arguments (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
pub fn ln4(x: [f64; LANES]) -> [f64; LANES] {
    x.map(ln)
}

/// [`exp`] of `N` arguments (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
pub fn exp_n<const N: usize>(x: [f64; N]) -> [f64; N] {
    x.map(exp)
}

/// [`ln`] of `N` arguments (the platform's maths library: `platform-math` is on).
#[inline]
#[cfg(feature = "platform-math")]
pub fn ln_n<const N: usize>(x: [f64; N]) -> [f64; N] {
    x.map(ln)
}

/// `x` raised to the real power `y`: the pure-Rust `libm` crate (a port of FreeBSD's msun),
/// the same bits on every IEEE 754 target. No projector calls it (only the simulator does, off
/// any replay's path), so it keeps the slower library.
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

#[cfg(not(feature = "platform-math"))]
mod tables;

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

    // Bits pinned: what every platform must compute. Each is the correctly rounded value of a
    // 40-digit decimal expansion (mpmath): e = 2.718281828459045235360287..., 1/e =
    // 0.367879441171442321595523..., and ln of the double nearest 0.3 (which is
    // 0.29999999999999998889776975...) = -1.203972804325936029630180..., 0.40 ulp from
    // -1.2039728043259361. The previous library, FreeBSD's msun, gave exp(1) one ulp away.
    #[test]
    fn pinned_bits() {
        assert_eq!(exp(1.0), std::f64::consts::E); // 2.718281828459045, correctly rounded
        assert_eq!(exp(-1.0), 0.36787944117144233);
        assert_eq!(ln(0.3), -1.2039728043259361);
    }

    // What IEEE 754 defines at the edges of each function's domain and range.
    #[test]
    fn special_values() {
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(710.0), f64::INFINITY);
        assert_eq!(exp(-746.0), 0.0);
        // e^709.78 = 1.7976...e308, just below the largest double; e^-745 is 2^-1074 rounded.
        assert!(exp(709.78).is_finite() && exp(709.78) > 1.79e308);
        assert_eq!(exp(-745.0), f64::from_bits(1));
        assert!(ln(f64::NAN).is_nan());
        assert!(ln(-1.0).is_nan());
        assert!(ln(-0.0) == f64::NEG_INFINITY && ln(0.0) == f64::NEG_INFINITY);
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
        assert_eq!(ln(2.0), std::f64::consts::LN_2);
        // ln of the smallest subnormal is -1074 ln 2 = -744.44007192138126231410729844608...
        assert_eq!(ln(f64::from_bits(1)), -744.4400719213812);
    }

    /// A seeded generator (SplitMix64) for the arguments.
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
    }

    /// Arguments of every kind: where the projectors call (|x| < 40 for exp, near 1 for ln), the
    /// whole range, tiny ones, the subnormal and overflow edges, and random bit patterns.
    fn arguments(exp: bool, count: usize) -> Vec<f64> {
        let mut g = Mix(if exp { 0x00e7_0001 } else { 0x001a_0002 });
        (0..count)
            .map(|i| match (exp, i % 10) {
                (true, 0..=3) => g.uniform(-40.0, 40.0),
                (true, 4..=5) => g.uniform(-745.2, 709.8),
                (true, 6..=7) => {
                    let e = (g.next() % 60) as i32 + 1;
                    let s = if g.next() & 1 == 0 { 1.0 } else { -1.0 };
                    s * g.uniform(1.0, 2.0) * powi(2.0, -e)
                }
                (true, 8) => g.uniform(-745.2, -700.0),
                (true, _) => g.uniform(700.0, 709.8),
                (false, 0..=2) => g.uniform(0.5, 2.0),
                (false, 3..=4) => {
                    let e = (g.next() % 40) as i32 + 7;
                    1.0 + g.uniform(-1.0, 1.0) * powi(2.0, -e)
                }
                (false, 5..=8) => f64::from_bits(1 + g.next() % 0x7fef_ffff_ffff_ffff),
                (false, _) => g.uniform(0.0, 1000.0),
            })
            .collect()
    }

    /// Runs `scripts/math_check.py` on the pairs; `None` when python3 with mpmath is missing
    /// outside CI (under `CI=true` the test fails instead: `.ci/run` installs them).
    fn mpmath_check(name: &str, pairs: &[(f64, f64)]) -> Option<String> {
        use std::io::Write;
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        let mut bytes = Vec::with_capacity(pairs.len() * 16);
        for (x, y) in pairs {
            bytes.extend_from_slice(&x.to_le_bytes());
            bytes.extend_from_slice(&y.to_le_bytes());
        }
        file.write_all(&bytes).expect("the pairs written");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/math_check.py");
        let out =
            std::process::Command::new("python3").arg(script).arg(name).arg(file.path()).output();
        let ci = std::env::var("CI").as_deref() == Ok("true");
        match out {
            Ok(out) if out.status.success() => {
                Some(String::from_utf8_lossy(&out.stdout).into_owned())
            }
            other => {
                assert!(!ci, "python3 with mpmath is needed (CI=true): {other:?}");
                eprintln!("skipped: python3 with mpmath not available: {other:?}");
                None
            }
        }
    }

    /// The tables in `math/tables.rs` are exactly what `scripts/math_tables.py` computes with
    /// mpmath at 200 bits (so each entry is the correctly rounded value the file says it is).
    #[test]
    fn tables_are_what_the_script_writes() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let out = std::process::Command::new("python3")
            .arg(format!("{dir}/scripts/math_tables.py"))
            .output();
        let ci = std::env::var("CI").as_deref() == Ok("true");
        let out = match out {
            Ok(out) if out.status.success() => out.stdout,
            other => {
                assert!(!ci, "python3 with mpmath is needed (CI=true): {other:?}");
                eprintln!("skipped: python3 with mpmath not available: {other:?}");
                return;
            }
        };
        let file = std::fs::read(format!("{dir}/src/math/tables.rs")).expect("the tables");
        assert!(out == file, "src/math/tables.rs differs from scripts/math_tables.py's output");
    }

    /// The stated bounds over `LADDER_MATH_ARGS` arguments per function (a million unless set):
    /// exp within 0.52 ulp of the exact value for normal results and 1 ulp for subnormal ones, ln
    /// within 0.52 ulp (ln's results are never subnormal).
    #[test]
    fn exp_and_ln_against_mpmath() {
        let count = std::env::var("LADDER_MATH_ARGS").ok().and_then(|v| v.parse().ok());
        let count: usize = count.unwrap_or(1_000_000);
        for (name, f, normal_bound) in [("exp", exp as fn(f64) -> f64, 0.52), ("ln", ln, 0.52)] {
            let pairs: Vec<(f64, f64)> =
                arguments(name == "exp", count).into_iter().map(|x| (x, f(x))).collect();
            let Some(line) = mpmath_check(name, &pairs) else { return };
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words.len(), 10, "{line}");
            let normal: f64 = words[1].parse().expect("a number");
            let subnormal: f64 = words[6].parse().expect("a number");
            eprintln!("{name}: {line}");
            assert_eq!(
                words[3].parse::<usize>().unwrap() + words[8].parse::<usize>().unwrap(),
                count
            );
            assert!(normal <= normal_bound, "{name}: {line}");
            assert!(subnormal <= 1.0, "{name}: {line}");
        }
    }

    /// The four- and eight-lane forms give exactly the scalar functions' bits: on the arguments
    /// of `exp_and_ln_against_mpmath` (every kind, edges included) and on a million more drawn
    /// where the projectors call, in groups that mix in-range and out-of-range arguments.
    #[test]
    fn exp4_and_ln4_are_exp_and_ln() {
        let mut g = Mix(0x0004_1a4e);
        for exp_side in [true, false] {
            let mut xs = arguments(exp_side, 1_000_000);
            for _ in 0..1_000_000 {
                xs.push(if exp_side { g.uniform(-20.0, 5.0) } else { g.uniform(1e-12, 4.0) });
            }
            // Edges: the fast path's bounds and just beyond them, specials.
            let edges = [
                -680.0,
                700.0,
                f64::from_bits((-680.0f64).to_bits() + 1),
                f64::from_bits(700.0f64.to_bits() + 1),
                0.0,
                -0.0,
                f64::MIN_POSITIVE,
                f64::MIN_POSITIVE / 2.0,
                f64::MAX,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -1.0,
                1.0,
            ];
            xs.extend(edges);
            xs.extend(edges.iter().rev());
            let one: fn(f64) -> f64 = if exp_side { exp } else { ln };
            let check = |x: &[f64], got: &[f64], what: &str| {
                for (x, got) in x.iter().zip(got) {
                    let want = one(*x);
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{what} of {x:e} ({:#x}): {got:e} against {want:e}",
                        x.to_bits(),
                    );
                }
            };
            for group in xs.chunks(LANES) {
                let mut x = [1.0; LANES];
                x[..group.len()].copy_from_slice(group);
                let four = if exp_side { exp4(x) } else { ln4(x) };
                check(&x, &four, if exp_side { "exp4" } else { "ln4" });
            }
            // Groups of eight, as Glicko-2's lanes rate step 5 (offset by three, so that the
            // groups mix differently from the fours').
            for group in xs[3..].chunks(8) {
                let mut x = [1.0; 8];
                x[..group.len()].copy_from_slice(group);
                let eight = if exp_side { exp_n(x) } else { ln_n(x) };
                check(&x, &eight, if exp_side { "exp_n::<8>" } else { "ln_n::<8>" });
            }
        }
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
