#!/usr/bin/env python3
"""Writes tests/data/wide/transcendental.amber: GLSL.std.450's transcendental functions
(atan, atan2) in f32 and f16 through the SASS engine, bit for bit, with EXPECTs computed
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

from gen_common import data, expects, round_frac, to_frac

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
PIPELINE compute p
  ATTACH transcendental
  BIND BUFFER x AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER r AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER h AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
{expects("r", r_atan + r_atan2 + r_swap)}
{expects("h", h_atan + h_atan2)}
"""


if __name__ == "__main__":
    with open(os.path.join(HERE, "wide", "transcendental.amber"), "w") as f:
        f.write(script())
