#!/usr/bin/env python3
"""Measures ladder_projector::math's exp or ln against mpmath (an independent implementation at
120 bits, far beyond binary64's 53).

Usage: math_check.py exp|ln FILE. FILE holds little-endian binary64 pairs (x, f(x) as the Rust
function computed it). Prints one line: the largest error in units in the last place of the exact
value (an ulp of a subnormal result is 2^-1074), the x where it occurs as 16 hex digits, how many
pairs there were, and how many results were not the correctly rounded one, separately for normal
and subnormal results:
    normal MAX_ULP X_HEX COUNT NOT_CORRECTLY_ROUNDED subnormal MAX_ULP X_HEX COUNT NOT_CR
Bits of x and y are read exactly, so the error is the real one. Uses every core.
"""
import math
import os
import struct
import sys
from multiprocessing import Pool

import mpmath
from mpmath import mp, mpf

mp.prec = 120
TINY = mpf(2) ** -1022


def ulp_of(v):
    """The ulp of binary64 numbers near the real v (2^-1074 below 2^-1022)."""
    if v == 0:
        return mpf(2) ** -1074
    _, e = mpmath.frexp(v)  # v = m 2^e, 1/2 <= |m| < 1
    return mpf(2) ** max(int(e) - 53, -1074)


def check(args):
    name, chunk = args
    f = mpmath.exp if name == "exp" else mpmath.log
    out = {"normal": [0.0, 0, 0, 0], "subnormal": [0.0, 0, 0, 0]}
    for x, y in chunk:
        exact = f(mpf(x))
        if math.isinf(y):
            # Right only where the exact value rounds to infinity (at or above 2^1024 - 2^970).
            err = 0.0 if exact >= mpf(2) ** 1024 - mpf(2) ** 970 else float("inf")
        else:
            err = float(abs(mpf(y) - exact) / ulp_of(exact))
        slot = out["subnormal" if 0 < abs(exact) < TINY else "normal"]
        slot[2] += 1
        if err > 0.5:
            slot[3] += 1
        if err > slot[0]:
            slot[0] = err
            slot[1] = struct.unpack("<Q", struct.pack("<d", x))[0]
    return out


def main():
    name, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    pairs = list(struct.iter_unpack("<dd", data))
    n = os.cpu_count() or 1
    size = max(1, len(pairs) // (4 * n))
    chunks = [(name, pairs[i : i + size]) for i in range(0, len(pairs), size)]
    total = {"normal": [0.0, 0, 0, 0], "subnormal": [0.0, 0, 0, 0]}
    with Pool(n) as pool:
        for part in pool.imap_unordered(check, chunks):
            for key in total:
                t, p = total[key], part[key]
                if p[0] > t[0]:
                    t[0], t[1] = p[0], p[1]
                t[2] += p[2]
                t[3] += p[3]
    print(
        " ".join(
            "%s %.6f %016x %d %d" % (key, t[0], t[1], t[2], t[3]) for key, t in total.items()
        )
    )


if __name__ == "__main__":
    main()
