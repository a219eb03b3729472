#!/usr/bin/env python3
"""Writes tests/data/wide/transcendental.amber: GLSL.std.450's transcendental functions
(atan, atan2, exp2, exp, log2, log, pow) in f32 and f16 through the SASS engine, bit for bit, with EXPECTs computed
here, independently of tangle's Rust code:

- the functions are tangle's definitions (docs/interp.md, "Transcendental functions"):
  fixed sequences of IEEE binary32 operations. This script re-implements each sequence
  from that description, with its own binary32 arithmetic (products, sums and quotients
  in binary64 rounded once to binary32 by hand, which is exact IEEE binary32 arithmetic
  since 53 >= 2*24 + 2; fused multiply-adds exact in fractions, rounded once), reading
  only the polynomial coefficients from crates/lanes/src/recipe/coefficients.rs (data
  of the definition, not code);
- every expected value is then checked against the exact function (mpmath, 40 digits):
  within tangle's stated bound (atan 2 ulp, atan2 3 ulp; Vulkan allows 4096), so a
  wrong re-implementation here cannot pass silently either;
- f16: the operand widened exactly, the f32 result rounded once to f16 by hand.

Run from this directory: python3 gen_transcendental.py
"""
import math
import os
import random
import re
import struct
from fractions import Fraction as F

import mpmath as mp

from gen_common import data, dispatch, expects, round_frac, to_frac

mp.mp.dps = 40

HERE = os.path.dirname(os.path.abspath(__file__))
QNAN = 0x7FFFFFFF  # the one NaN the definitions return


def coefficients(name):
    text = open(os.path.join(HERE, "../../../lanes/src/recipe/coefficients.rs")).read()
    body = re.search(rf"pub const {name}: \[u32; \d+\] = \[(.*?)\];", text, re.S).group(1)
    return [int(h, 16) for h in re.findall(r"0x([0-9a-f]{8})", body)]


# ---- binary32 arithmetic on bit patterns --------------------------------------------


def val(b):
    """The f32 b as a Python float (exact), NaN and infinities included."""
    return struct.unpack("<f", struct.pack("<I", b))[0]


def bits(v):
    """A Python float (binary64) rounded once to f32."""
    if math.isnan(v):
        return 0x7FC00000
    sign = 0x80000000 if math.copysign(1.0, v) < 0 else 0
    if math.isinf(v):
        return sign | 0x7F800000
    if v == 0:
        return sign
    return round_frac(F(v), 32)


def mul(a, b):
    return bits(val(a) * val(b))  # exact in binary64, rounded once


def add(a, b):
    return bits(val(a) + val(b))  # binary64 then binary32: innocuous double rounding


def sub(a, b):
    return bits(val(a) - val(b))


def div(a, b):
    x, y = val(a), val(b)
    if math.isnan(x) or math.isnan(y) or (x == 0 and y == 0) or (
            math.isinf(x) and math.isinf(y)):
        return QNAN
    sign = (a ^ b) & 0x80000000
    if y == 0 or math.isinf(x):
        return sign | 0x7F800000
    if math.isinf(y) or x == 0:
        return sign
    return sign | round_frac(abs(F(x) / F(y)), 32)


def fma(a, b, c):
    x, y, z = val(a), val(b), val(c)
    if any(math.isnan(t) or math.isinf(t) for t in (x, y, z)):
        return bits(x * y + z)
    exact = F(x) * F(y) + F(z)
    if exact == 0:
        return bits(x * y + z)  # the signed zero of IEEE's rule, exact in binary64
    return round_frac(exact, 32)


def gt(a, b):
    return val(a) > val(b)


def lt(a, b):
    return val(a) < val(b)


def eq(a, b):
    return val(a) == val(b)


def is_nan32(b):
    return b & 0x7FFFFFFF > 0x7F800000


def canonical(r):
    return QNAN if is_nan32(r) else r


ONE = 0x3F800000
PIO2_HI, PIO2_LO = 0x3FC90FDB, 0xB33BBD2E
PI_HI, PI_LO = 0x40490FDB, 0xB3BBBD2E
PIO4 = 0x3F490FDB


def atan01(t):
    s = mul(t, t)
    c = coefficients("ATAN")
    p = c[-1]
    for k in reversed(c[:-1]):
        p = fma(p, s, k)
    return fma(t, mul(s, p), t)


def minus_from(hi, lo, x):
    return add(sub(hi, x), lo)


def atan(x):
    a = x & 0x7FFFFFFF
    big = gt(a, ONE)
    t = div(ONE, a) if big else a
    r = atan01(t)
    if eq(a, ONE):
        r = PIO4
    if big:
        r = minus_from(PIO2_HI, PIO2_LO, r)
    return canonical(r | (x & 0x80000000))


def atan2(y, x):
    ay, ax = y & 0x7FFFFFFF, x & 0x7FFFFFFF
    steep = gt(ay, ax)
    num, den = (ax, ay) if steep else (ay, ax)
    r = atan01(div(num, den))
    if eq(ax, ay):
        r = PIO4
    if steep:
        r = minus_from(PIO2_HI, PIO2_LO, r)
    if lt(x, 0):
        r = minus_from(PI_HI, PI_LO, r)
    return canonical(r | (y & 0x80000000))


M32 = 0xFFFFFFFF
ROUNDER = 0x4B400000  # 1.5 * 2^23
LOG2E_HI, LOG2E_LO = 0x3FB8AA3B, 0x32A57060
LN2, LN2_HI, LN2_LO = 0x3F317218, 0x3F317200, 0x35BFBE8E
SQRT2 = 0x3FB504F3


def horner(x, c):
    p = c[-1]
    for k in reversed(c[:-1]):
        p = fma(p, x, k)
    return p


def sar(v, k):
    return ((v - (1 << 32) if v >> 31 else v) >> k) & M32


def exp2_parts(hi, lo):
    low, high = bits(-151.0), bits(129.0)
    x = low if lt(hi, low) else hi
    x = high if gt(x, high) else x
    y = add(x, ROUNDER)
    f = add(sub(x, sub(y, ROUNDER)), lo)
    p = horner(f, coefficients("EXP2"))
    n = (y - ROUNDER) & M32
    n1 = sar(n, 1)
    n2 = (n1 + (n & 1)) & M32
    s1 = ((n1 + 127) << 23) & M32
    s2 = ((n2 + 127) << 23) & M32
    return mul(mul(p, s1), s2)


def exp2(x):
    return canonical(exp2_parts(x, 0))


def exp(x):
    hi = mul(x, LOG2E_HI)
    err = fma(x, LOG2E_HI, sub(0, hi))
    lo = fma(x, LOG2E_LO, err)
    if not lt(hi & 0x7FFFFFFF, bits(152.0)):
        lo = 0
    return canonical(exp2_parts(hi, lo))


def log2_parts(x):
    small = lt(x, 0x00800000)
    xs = mul(x, 0x4B000000) if small else x
    adjust = bits(-23.0) if small else 0
    e = ((xs >> 23) - 127) & M32
    m = (xs & 0x007FFFFF) | ONE
    if gt(m, SQRT2):
        m = mul(m, 0x3F000000)
        e = (e + 1) & M32
    e_f = add(sub((e + ROUNDER) & M32, ROUNDER), adjust)
    r = sub(m, ONE)
    return e_f, mul(r, horner(r, coefficients("LOG2")))


def log2_special(x, r):
    if eq(x, 0):
        r = 0xFF800000
    if eq(x, 0x7F800000):
        r = 0x7F800000
    if lt(x, 0) or is_nan32(x):
        r = QNAN
    return r


def log2_of(x):
    e, lg = log2_parts(x)
    return log2_special(x, add(e, lg))


def log2(x):
    return canonical(log2_of(x))


def log(x):
    e, lg = log2_parts(x)
    t = fma(e, LN2_LO, mul(lg, LN2))
    return canonical(log2_special(x, fma(e, LN2_HI, t)))


def pow_(x, y):
    return canonical(exp2_parts(mul(y, log2_of(x)), 0))


# ---- checks against the exact functions ------------------------------------------------


def ulps(r, exact):
    """|r - exact| in units of the f32 spacing at exact."""
    v = mp.mpf(val(r))
    if v == exact:
        return 0
    e = max(int(mp.floor(mp.log(abs(exact), 2))), -126) if exact != 0 else -126
    return float(abs(v - exact) / mp.mpf(2) ** (e - 23))


def check(r, exact, bound, what):
    if exact is None:
        assert r == QNAN, what
        return
    if mp.isinf(exact):
        assert r == (0xFF800000 if exact < 0 else 0x7F800000), what
        return
    u = ulps(r, exact)
    assert u <= bound, f"{what}: {u} ulp"


def exact_atan(x):
    v = val(x)
    return None if math.isnan(v) else mp.atan(mp.mpf(v))


def exact_atan2(y, x):
    vy, vx = val(y), val(x)
    if math.isnan(vy) or math.isnan(vx):
        return None
    if math.isinf(vy) or math.isinf(vx) or vy == 0:
        # The IEEE table's multiples of pi/4 (mpmath drops the sign of a zero y).
        return mp.mpf(math.atan2(vy, vx))
    return mp.atan2(mp.mpf(vy), mp.mpf(vx))


def f16_of(r):
    """An f32 result rounded once to f16 (a NaN: the top of its payload, as F2F and the
    half crate both keep it)."""
    if is_nan32(r):
        return (r >> 16) & 0x8000 | 0x7C00 | (r >> 13) & 0x3FF | 0x200
    if r & 0x7FFFFFFF == 0x7F800000:
        return (r >> 16) & 0x8000 | 0x7C00
    # Rounded by magnitude, the sign put back (fractions have no -0).
    return (r >> 16) & 0x8000 | round_frac(to_frac(r & 0x7FFFFFFF, 32), 16)


def f32_of_f16(h):
    """An f16 widened exactly to f32."""
    if h & 0x7C00 == 0x7C00:
        return (h & 0x8000) << 16 | 0x7F800000 | (h & 0x3FF) << 13
    return (h & 0x8000) << 16 | round_frac(to_frac(h & 0x7FFF, 16), 32)


# ---- the operands ----------------------------------------------------------------------

EDGE_A32 = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00123, 0x3F800000,
    0xBF800000, 0x3F7FFFFF, 0x3F800001, 0x00000001, 0x807FFFFF, 0x1E3CE508, 0x3F000000,
    0x40000000, 0x60AD78EC, 0x7F7FFFFF, 0xFF7FFFFF, 0xC2C80000, 0x4B000001, 0xBFB504F3,
    0x39800000, 0x3F7FF000, 0xC0490FDB,
]
EDGE_Y32 = [
    0x00000000, 0x80000000, 0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F800000,
    0x7F800000, 0x7F800000, 0xFF800000, 0x7F800000, 0x3F800000, 0x7FC00000, 0x3F800000,
    0x00000001, 0x7F7FFFFF, 0x00800000, 0x3E99999A, 0x501502F9, 0x4E6E6B28, 0x3C23D70A,
    0x3F3504F3, 0x2F800000, 0x40490FDB,
]
EDGE_X32 = [
    0x3F800000, 0x3F800000, 0xBF800000, 0xBF800000, 0x00000000, 0x80000000, 0x3F800000,
    0x7F800000, 0xFF800000, 0xFF800000, 0x3F800000, 0x7F800000, 0x3F800000, 0xFFC00001,
    0x7F7FFFFF, 0x00000001, 0x3F800000, 0xBF4CCCCD, 0x3F800000, 0xCE6E6B28, 0xC2C80000,
    0x3F3504F3, 0x00000000, 0x00000000,
]


def unfused(f, *args):
    """f's result with every fused multiply-add split into a rounded product and a
    rounded sum (the back-end mutant the test must catch)."""
    global fma
    fused = fma
    fma = lambda a, b, c: add(mul(a, b), c)
    try:
        return f(*args)
    finally:
        fma = fused


def sensitive(n, pick, f):
    """n operand tuples drawn (seeded) by pick() where f's definition and its unfused
    mutant differ, so that an FMUL + FADD in place of an FFMA fails the script."""
    rng = random.Random(2026)
    out = []
    while len(out) < n:
        args = pick(rng)
        if f(*args) != unfused(f, *args):
            out.append(args)
    return out


A32 = EDGE_A32 + [a for (a,) in sensitive(8, lambda r: (bits(r.uniform(-4, 4)),), atan)]
PAIRS = sensitive(8, lambda r: (bits(r.uniform(-4, 4)), bits(r.uniform(-4, 4))), atan2)
Y32 = EDGE_Y32 + [y for y, _ in PAIRS]
X32 = EDGE_X32 + [x for _, x in PAIRS]
A16 = [
    0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00, 0x3BFF, 0x3C01, 0x0001,
    0x83FF, 0x3800, 0x4000, 0x7BFF, 0xFBFF, 0x3555, 0x4248, 0x2E66, 0x5640, 0x1400,
    0x3A00, 0xB4CD, 0x4E40, 0x6400, 0x1234, 0x39A8, 0xBDA8, 0x0400, 0x3BF0, 0x4900,
    0xC248, 0x7000,
]
Y16 = [
    0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x3C00, 0x7E00, 0x0001, 0x7BFF,
    0x4200, 0xC200, 0x34CD, 0x3C00, 0xBC00, 0x39A8, 0x3C01, 0x2C00, 0x4248, 0x0400,
    0x3C00, 0x8000, 0x7C00, 0x3C00, 0x5640, 0xC900, 0x3A00, 0x1400, 0x6400, 0x83FF,
    0x3800, 0x0000,
]
X16 = [
    0x3C00, 0xBC00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x7C00, 0x3C00, 0x7BFF, 0x0001,
    0x4400, 0xC400, 0xBA66, 0x3C01, 0x3BFF, 0x39A8, 0x3C00, 0x4800, 0xC248, 0x0400,
    0xFC00, 0xBC00, 0x3C00, 0x0001, 0xD640, 0xC900, 0x3A00, 0x5400, 0x3C00, 0x03FF,
    0x0000, 0x0000,
]


EDGE_E32 = [bits(v) for v in (
    0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 127.9, 128.0, 127.99999,
    -126.0, -149.0, -149.5, -150.0, -160.0, 88.7, -87.3, -103.97, 1e-10, -1.6279644e14,
    3.3, 88.72283, 1e30)]
EDGE_L32 = [bits(v) for v in (
    1.0, 2.0, 0.5, math.inf, math.nan, 0.0, -1.0, 1.0000001, 0.99999994, 3.0, 10.0, 1e-30,
    1e30, 0.9999, 1.0001, 7.389056, 1.4142135, 1.4142137, 0.70710677, 2.7182817)] + [
    0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF]
EDGE_P32 = [(bits(x), bits(y)) for x, y in (
    (2.0, 10.0), (2.0, 0.5), (10.0, -2.0), (0.0, 3.0), (0.0, -1.0), (-2.0, 2.0),
    (1.0, math.inf), (math.inf, 2.0), (math.inf, -1.0), (0.5, 200.0), (3.0, 0.0),
    (1.5, 80.0), (7.0, 0.33333334), (1e-20, 0.5), (1e10, 3.5), (0.9, -500.0),
    (2.0, -149.0), (5.0, 2.0), (100.0, 0.5), (1e-45, 1.0), (math.nan, 1.0), (2.0, math.nan),
    (0.1, 2.2), (1e30, 1.2))]
E32 = EDGE_E32 + [a for (a,) in sensitive(4, lambda r: (bits(r.uniform(-20, 20)),), exp2)] + [
    a for (a,) in sensitive(4, lambda r: (bits(r.uniform(-20, 20)),), exp)]
L32 = EDGE_L32 + [a for (a,) in sensitive(4, lambda r: (bits(r.uniform(0.01, 100)),), log2)] + [
    a for (a,) in sensitive(4, lambda r: (bits(r.uniform(0.01, 100)),), log)]
P32 = EDGE_P32 + sensitive(8, lambda r: (bits(r.uniform(0, 10)), bits(r.uniform(-8, 8))), pow_)
E16 = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00, 0x4B80, 0x4BFF, 0x4C00,
       0xCB00, 0xCC60, 0xCE00, 0x3800, 0x2E66, 0x4900, 0xC900, 0x1400, 0x4A3D, 0x5000,
       0xD000, 0x4248, 0xBD00, 0x3555, 0x4500, 0xC700, 0x47FF, 0x0001, 0xC9C0, 0xC980,
       0x4A00, 0xB800]
L16 = [0x3C00, 0x4000, 0x3800, 0x7C00, 0x7E00, 0x0000, 0xBC00, 0x3C01, 0x3BFF, 0x0001,
       0x03FF, 0x0400, 0x7BFF, 0x3DA8, 0x39A8, 0x4170, 0x4900, 0x1400, 0x6400, 0x4248,
       0x4500, 0x3E00, 0x3A00, 0x5640, 0x2E66, 0x4D00, 0x3555, 0x2000, 0x7000, 0x3BF0,
       0x3C10, 0x4E40]


def undefined_log(x):
    return val(x) <= 0


def undefined_pow(x, y):
    return val(x) < 0 or (val(x) == 0 and val(y) <= 0)


def exact_pow(x, y):
    vx, vy = val(x), val(y)
    if math.isnan(vx) or math.isnan(vy) or (vx == 1 and math.isinf(vy)):
        return None
    if vx == 0 or math.isinf(vx) or math.isinf(vy):
        return mp.mpf(math.pow(vx, vy))
    return mp.power(mp.mpf(vx), mp.mpf(vy))


def exact1(f, x):
    v = val(x)
    if math.isnan(v):
        return None
    if math.isinf(v):
        return mp.mpf(f(mp.mpf(v)))
    return f(mp.mpf(v))


def check_range(r, exact, bound, what):
    """check, with results beyond f32's range (or below its smallest subnormal) held to
    the rounded value."""
    if exact is not None and not mp.isinf(exact) and (
            abs(exact) > mp.mpf(val(0x7F7FFFFF)) or abs(exact) < mp.mpf(2) ** -149):
        assert r == bits(float(exact)), what
        return
    check(r, exact, bound, what)


def exp_log_script():
    e2 = [exp2(a) for a in E32]
    ee = [exp(a) for a in E32]
    for a, r2, r in zip(E32, e2, ee):
        check_range(r2, exact1(lambda v: mp.power(2, v), a), 1, f"exp2({a:#x})")
        check_range(r, exact1(mp.exp, a), 1, f"exp({a:#x})")
    l2 = [None if undefined_log(a) else log2(a) for a in L32]
    ll = [None if undefined_log(a) else log(a) for a in L32]
    for a, r2, r in zip(L32, l2, ll):
        if r2 is not None:
            check(r2, exact1(lambda v: mp.log(v, 2), a), 1.5, f"log2({a:#x})")
            check(r, exact1(mp.log, a), 2, f"log({a:#x})")
    pw = [None if undefined_pow(x, y) else pow_(x, y) for x, y in P32]
    h_e2 = [f16_of(exp2(f32_of_f16(a))) for a in E16]
    h_l2 = [None if undefined_log(f32_of_f16(a)) else f16_of(log2(f32_of_f16(a))) for a in L16]
    assert len(E32) == len(L32) == len(P32) == len(E16) == len(L16) == 32
    px = [x for x, _ in P32]
    py = [y for _, y in P32]
    return f"""SHADER compute exp_log GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint x[]; }};
layout(std430, binding = 1) buffer R {{ uint r[]; }};
layout(std430, binding = 2) buffer H {{ uint h[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  float a = uintBitsToFloat(x[i]), b = uintBitsToFloat(x[32 + i]);
  r[i] = floatBitsToUint(exp2(a));
  r[32 + i] = floatBitsToUint(exp(a));
  r[64 + i] = floatBitsToUint(log2(b));
  r[96 + i] = floatBitsToUint(log(b));
  r[128 + i] = floatBitsToUint(pow(uintBitsToFloat(x[64 + i]), uintBitsToFloat(x[96 + i])));
  float16_t c = uint16BitsToFloat16(uint16_t(x[128 + i]));
  float16_t d = uint16BitsToFloat16(uint16_t(x[160 + i]));
  h[i] = uint(float16BitsToUint16(exp2(c)));
  h[32 + i] = uint(float16BitsToUint16(log2(d)));
}}
END
BUFFER ex DATA_TYPE uint32 DATA
{data(E32 + L32 + px + py + E16 + L16)}
END
BUFFER er DATA_TYPE uint32 SIZE 160 FILL 0
BUFFER eh DATA_TYPE uint32 SIZE 64 FILL 0
{dispatch("q", "exp_log", "ex er eh")}
{expects("er", e2 + ee + l2 + ll + pw)}
{expects("eh", h_e2 + h_l2)}
"""


def undefined2(y, x, w):
    """atan2(0, 0) (either sign) is undefined: no EXPECT."""
    m = 0x7FFFFFFF if w == 32 else 0x7FFF
    return y & m == 0 and x & m == 0


def script():
    r_atan = []
    for a in A32:
        r = atan(a)
        check(r, exact_atan(a), 2, f"atan({a:#x})")
        r_atan.append(r)
    r_atan2, r_swap = [], []
    for y, x in zip(Y32, X32):
        for (p, q), out in (((y, x), r_atan2), ((x, y), r_swap)):
            if undefined2(p, q, 32):
                out.append(None)
                continue
            r = atan2(p, q)
            check(r, exact_atan2(p, q), 3, f"atan2({p:#x}, {q:#x})")
            out.append(r)
    h_atan = []
    for a in A16:
        r = atan(f32_of_f16(a))
        check(r, exact_atan(f32_of_f16(a)), 2, f"atan16({a:#x})")
        h_atan.append(f16_of(r))
    h_atan2 = []
    for y, x in zip(Y16, X16):
        if undefined2(y, x, 16):
            h_atan2.append(None)
            continue
        r = atan2(f32_of_f16(y), f32_of_f16(x))
        h_atan2.append(f16_of(r))
    assert len(A32) == len(Y32) == len(X32) == len(A16) == len(Y16) == len(X16) == 32
    return f"""#!amber
# atan and atan2 (GLSL.std.450 Atan, Atan2) through the SASS engine, bit for bit, in f32
# and f16 (given and stored as bits), scalar and as a vec2: zeros of both signs,
# infinities, quiet NaNs (the definitions' one NaN, 0x7fffffff; f16 0x7fff), 1 and its
# neighbours (where atan's reduction switches), subnormals, the largest finite values,
# every quadrant of atan2 and its axes, pairs of infinities (multiples of pi/4), equal
# magnitudes, atan2(+-0, +-0) (undefined: no EXPECT), and in f32 eight operands of each
# where splitting one fused multiply-add into FMUL + FADD changes the result. Written by
# ../gen_transcendental.py: the EXPECTs re-implement tangle's definitions (docs/interp.md,
# "Transcendental functions") with the script's own binary32 arithmetic, and are checked
# against the exact functions (mpmath): within 2 ulp (atan) and 3 ulp (atan2) in f32.
SHADER compute transcendental GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint x[]; }};
layout(std430, binding = 1) buffer R {{ uint r[]; }};
layout(std430, binding = 2) buffer H {{ uint h[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  float a = uintBitsToFloat(x[i]);
  r[i] = floatBitsToUint(atan(a));
  float y = uintBitsToFloat(x[32 + i]), c = uintBitsToFloat(x[64 + i]);
  vec2 v = atan(vec2(y, c), vec2(c, y));
  r[32 + i] = floatBitsToUint(v.x);
  r[64 + i] = floatBitsToUint(v.y);
  float16_t b = uint16BitsToFloat16(uint16_t(x[96 + i]));
  h[i] = uint(float16BitsToUint16(atan(b)));
  float16_t hy = uint16BitsToFloat16(uint16_t(x[128 + i]));
  float16_t hx = uint16BitsToFloat16(uint16_t(x[160 + i]));
  h[32 + i] = uint(float16BitsToUint16(atan(hy, hx)));
}}
END
BUFFER x DATA_TYPE uint32 DATA
{data(A32 + Y32 + X32 + A16 + Y16 + X16)}
END
BUFFER r DATA_TYPE uint32 SIZE 96 FILL 0
BUFFER h DATA_TYPE uint32 SIZE 64 FILL 0
{dispatch("p", "transcendental", "x r h")}
{expects("r", r_atan + r_atan2 + r_swap)}
{expects("h", h_atan + h_atan2)}
""" + exp_log_script()


if __name__ == "__main__":
    with open(os.path.join(HERE, "wide", "transcendental.amber"), "w") as f:
        f.write(script())
