#!/usr/bin/env python3
"""Derives the polynomial coefficients of tangle's f32 transcendental functions and
writes ../src/recipe/coefficients.rs.

Each polynomial is a weighted minimax (Remez exchange) approximation computed here with
mpmath at 50 digits, then rounded to f32. The functions, intervals and weights are those
the recipes in ../src/recipe/ evaluate (see docs/interp.md, "Transcendental functions"):

- atan: atan(t) = t + t*s*P(s) with s = t^2 on t in [0, 1]; P of degree ATAN_DEGREE
  minimises its own relative error against h(s) = (atan(t)/t - 1)/s (the weight 1/|h|
  stays away from zero, unlike the whole expression's, whose vanishing weight at s = 0
  defeats the exchange); the whole expression's relative error is then at most
  s*|h|/(atan(t)/t) <= 0.28 times P's.
- exp2: 2^f = E(f) on f in [-0.5005, 0.5005] (exp's reduced argument carries a low word
  of at most 2^-17 beyond +-0.5), E of degree EXP2_DEGREE, relative error.
- log2: log2(1 + r) = r*L(r) on r in [sqrt(1/2) - 1, sqrt(2) - 1], L of degree
  LOG2_DEGREE, relative error of L against log2(1 + r)/r.

Run from crates/lanes/tools: python3 gen_coefficients.py (prints the achieved relative
error of each fit before rounding).
"""
import os
import struct

import mpmath as mp

mp.mp.dps = 50

ATAN_DEGREE = 8
EXP2_DEGREE = 6
LOG2_DEGREE = 9


def f32(x):
    """x rounded to the nearest f32 (through the nearest f64; the two roundings agree
    for every coefficient here, which lie far from f32 midpoints: asserted)."""
    v = float(x)
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    r = struct.unpack("<f", struct.pack("<I", b))[0]
    # The exact value must round to the same f32 from either side of f64's rounding.
    ulp = abs(struct.unpack("<f", struct.pack("<I", b + 1))[0] - r)
    assert abs(mp.mpf(r) - x) <= ulp / 2 * (1 + 1e-6), x
    return b


def remez(h, w, a, b, n, iters=30):
    """Coefficients c[0..n] of the polynomial P minimising max |w(x) (h(x) - P(x))| on
    [a, b], and that maximum."""
    a, b = mp.mpf(a), mp.mpf(b)
    m = n + 2
    # Chebyshev extrema as the first reference.
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (m - 1)) for i in range(m)]
    # Denser towards a, where the weights here vanish and the first extremum hides.
    grid = [a + (b - a) * (mp.mpf(i) / 4000) ** 2 for i in range(4001)]
    err = None
    for _ in range(iters):
        A = mp.matrix(m, m)
        rhs = mp.matrix(m, 1)
        for i, x in enumerate(xs):
            for j in range(n + 1):
                A[i, j] = x ** j
            A[i, n + 1] = (-1) ** i / w(x)
            rhs[i] = h(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n + 1)]
        e = lambda x: w(x) * (h(x) - mp.polyval(c[::-1], x))
        vals = [e(x) for x in grid]
        # Local extrema of the error on the grid, refined by golden-section search,
        # keeping one per sign run (the largest), then n+2 alternating ones.
        ext = []
        for i in range(len(grid)):
            left = vals[i - 1] if i > 0 else None
            right = vals[i + 1] if i + 1 < len(grid) else None
            v = abs(vals[i])
            if (left is None or v >= abs(left)) and (right is None or v >= abs(right)):
                ext.append(grid[i])
        runs = []
        for x in ext:
            ex = e(x)
            if runs and mp.sign(e(runs[-1])) == mp.sign(ex):
                if abs(ex) > abs(e(runs[-1])):
                    runs[-1] = x
            else:
                runs.append(x)
        while len(runs) > m:
            # Drop the smaller end.
            if abs(e(runs[0])) < abs(e(runs[-1])):
                runs.pop(0)
            else:
                runs.pop()
        if len(runs) < m:
            break
        xs = runs
        new_err = max(abs(e(x)) for x in xs)
        if err is not None and abs(new_err - err) < err * mp.mpf("1e-6"):
            err = new_err
            break
        err = new_err
    return c, err


def atan_fit():
    def g(s):
        t = mp.sqrt(s)
        return mp.atan(t) / t

    def h(s):
        if s < mp.mpf("1e-12"):
            # The series of (atan(t)/t - 1)/s: -1/3 + s/5 - s^2/7 ...
            return sum((-1) ** (k + 1) * s ** k / (2 * k + 3) for k in range(6))
        return (g(s) - 1) / s

    def w(s):
        return 1 / abs(h(s))

    return remez(h, w, 0, 1, ATAN_DEGREE)


def exp2_fit():
    return remez(lambda f: mp.mpf(2) ** f, lambda f: 1 / mp.mpf(2) ** f,
                 mp.mpf("-0.5005"), mp.mpf("0.5005"), EXP2_DEGREE)


def log2_fit():
    def q(r):
        if abs(r) < mp.mpf("1e-20"):
            return 1 / mp.log(2) - r / (2 * mp.log(2))
        return mp.log(1 + r, 2) / r

    return remez(q, lambda r: 1 / q(r), mp.sqrt(2) / 2 - 1, mp.sqrt(2) - 1, LOG2_DEGREE)


def rust_array(name, doc, coeffs):
    bits = [f32(c) for c in coeffs]
    lines = [f"/// {doc}", f"pub const {name}: [u32; {len(bits)}] = ["]
    for c, b in zip(coeffs, bits):
        v = struct.unpack("<f", struct.pack("<I", b))[0]
        lines.append(f"    0x{b:08x}, // {v:.9e}")
    lines.append("];")
    return "\n".join(lines)


def main():
    atan_c, atan_e = atan_fit()
    print(f"atan: degree {ATAN_DEGREE} in s, relative error {mp.nstr(atan_e, 5)}"
          f" = 2^{mp.nstr(mp.log(atan_e, 2), 4)}")
    exp2_c, exp2_e = exp2_fit()
    log2_c, log2_e = log2_fit()
    for name, e in (("exp2", exp2_e), ("log2", log2_e)):
        print(f"{name}: relative error 2^{mp.nstr(mp.log(e, 2), 4)}")
    out = [
        "//! Polynomial coefficients of the transcendental recipes, as f32 bit patterns,",
        "//! lowest degree first. Written by `crates/lanes/tools/gen_coefficients.py`",
        "//! (Remez exchange in mpmath, rounded to f32): do not edit by hand.",
        "",
        rust_array("ATAN",
                   f"atan(t) = t + t s P(s), s = t^2, t in [0, 1]: P's coefficients "
                   f"(2^{mp.nstr(mp.log(atan_e, 2), 4)}).",
                   atan_c),
        "",
        rust_array("EXP2",
                   f"2^f = E(f), f in [-0.5005, 0.5005]: E's coefficients "
                   f"(2^{mp.nstr(mp.log(exp2_e, 2), 4)}).",
                   exp2_c),
        "",
        rust_array("LOG2",
                   f"log2(1 + r) = r L(r), r in [sqrt(1/2) - 1, sqrt(2) - 1]: L's "
                   f"coefficients (2^{mp.nstr(mp.log(log2_e, 2), 4)}).",
                   log2_c),
        "",
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "../src/recipe/coefficients.rs")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
