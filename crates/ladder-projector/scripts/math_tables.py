#!/usr/bin/env python3
"""Writes src/math/tables.rs: the constants and tables of ladder_projector::math's exp and ln.

Every value is computed with mpmath at 200 bits and rounded once to binary64, so the tables are
correctly rounded (or split into an exact high part and a correctly rounded low part, as said
beside each). Run from the crate's folder:  python3 scripts/math_tables.py > src/math/tables.rs
"""
import mpmath
from mpmath import mp, mpf

mp.prec = 200
N = 128  # table entries per binade: exp's 2^(j/N) and ln's 1 + j/N


def d(x):
    """x correctly rounded to binary64, as Rust source that reads back to the same bits."""
    f = float(mpmath.nstr(x, 40, strip_zeros=False))
    # mpmath's str at 40 digits then float() is two roundings; fix the last bit against x.
    f = nearest(x, f)
    return f


def nearest(x, f):
    import math

    best = f
    for g in (math.nextafter(f, -math.inf), f, math.nextafter(f, math.inf)):
        if abs(mpf(g) - x) < abs(mpf(best) - x):
            best = g
    return best



def bits(f):
    import struct

    return struct.unpack("<Q", struct.pack("<d", f))[0]


def trunc_to(x, q):
    """x rounded to the nearest multiple of 2^-q (exact in binary64 when it has few bits)."""
    return mpmath.nint(x * mpf(2) ** q) / mpf(2) ** q


ln2 = mpmath.log(2)
out = []
w = out.append
w("// Written by scripts/math_tables.py (mpmath at 200 bits); do not edit by hand.")
w("")
w("/// Entries per binade in the tables below.")
w("pub(super) const N: usize = %d;" % N)
w("")
w("/// N / ln 2, correctly rounded.")
w("pub(super) const INV_LN2_N: f64 = f64::from_bits(0x%016x);" % bits(d(N / ln2)))
# ln2/N split: a high part with 35 significant bits (a multiple of 2^-42: ln2/128 < 2^-7), so
# k * high is exact for |k| < 2^18, and the rest correctly rounded.
hi = trunc_to(ln2 / N, 42)
w("/// ln 2 / N to a multiple of 2^-42 (35 significant bits: k times it is exact for |k| < 2^18).")
w("pub(super) const LN2_N_HI: f64 = f64::from_bits(0x%016x);" % bits(float(hi)))
w("/// ln 2 / N minus [`LN2_N_HI`], correctly rounded.")
w("pub(super) const LN2_N_LO: f64 = f64::from_bits(0x%016x);" % bits(d(ln2 / N - hi)))
hi = trunc_to(ln2, 42)
w("/// ln 2 to a multiple of 2^-42 (42 significant bits: k times it is exact for |k| < 2^11).")
w("pub(super) const LN2_HI: f64 = f64::from_bits(0x%016x);" % bits(float(hi)))
w("/// ln 2 minus [`LN2_HI`], correctly rounded.")
w("pub(super) const LN2_LO: f64 = f64::from_bits(0x%016x);" % bits(d(ln2 - hi)))
w("")
w("/// 2^(j/N) for j in 0..N: the correctly rounded value and its relative error")
w("/// (2^(j/N) - value) / value, correctly rounded.")
w("pub(super) static EXP2_J: [(f64, f64); N] = [")
for j in range(N):
    v = mpf(2) ** (mpf(j) / N)
    h = d(v)
    t = d((v - mpf(h)) / mpf(h))
    w("    (f64::from_bits(0x%016x), f64::from_bits(0x%016x))," % (bits(h), bits(t)))
w("];")
w("")
w("/// For F = 1 + j/N, j in 0..=N: ln F to a multiple of 2^-42 (so that k ln 2's high part plus")
w("/// it is exact), ln F minus that, correctly rounded, and 1 / F correctly rounded.")
w("pub(super) static LN_F: [(f64, f64, f64); N + 1] = [")
for j in range(N + 1):
    F = 1 + mpf(j) / N
    l = mpmath.log(F)
    h = trunc_to(l, 42)
    w("    (")
    for v in (float(h), d(l - h), d(1 / F)):
        w("        f64::from_bits(0x%016x)," % bits(v))
    w("    ),")
w("];")
print("\n".join(out))
