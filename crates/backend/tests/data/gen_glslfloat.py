#!/usr/bin/env python3
"""Writes tests/data/wide/{sqrt,ddiv,geometric,exact,fmod}.amber (gen_int64.py writes
div64 and atomic64): square roots, inverse square roots, f64 division,
length/distance/normalize, min/max/clamp, the rounding and short functions and mod over
edge operands, with EXPECTs computed here, independently of tangle:

- sqrt: the correctly rounded root, found with exact rational arithmetic (a candidate is
  right when the squares of the midpoints to its neighbours bracket x), at each width.
- inversesqrt, length, distance, normalize: the reference's definition (the steps in
  binary64, rounded once to the operand's width), evaluated with Python's IEEE floats
  (math.sqrt and / are correctly rounded); inversesqrt is also compared with the exact
  correctly rounded value (equal in f16 and f32, asserted; f64 differences counted).
- the rounding functions, mix, smoothstep, ...: the reference's binary64 definitions.
- mod: the exact remainder (math.fmod, checked with fractions) and the reference's sum.
- f64 division: the exact quotient (fractions) rounded to nearest even by hand, subnormal
  results included.

Run from this directory: python3 gen_glslfloat.py
"""
import math
import os
import random
from fractions import Fraction as F

from gen_common import (FMT_INF, data, dispatch, expects, f32_bits, f64_bits, from_f64, is_nan,
                        round_frac, to_frac, value, value_any)


def sqrt_exact(bits, w):
    """The correctly rounded root of a positive finite float, by exact comparison."""
    x = to_frac(bits, w)
    c = from_f64(math.sqrt(float(x)), w)
    for _ in range(4):
        v = to_frac(c, w)
        lo = (to_frac(c - 1, w) + v) / 2 if c > 0 else F(0)
        hi = (v + to_frac(c + 1, w)) / 2
        if lo * lo > x:
            c -= 1
        elif hi * hi < x:
            c += 1
        else:
            assert lo * lo != x and hi * hi != x
            return c
    raise AssertionError("no convergence")


def rsqrt_exact(bits, w):
    """The correctly rounded 1/sqrt(x) of a positive finite float."""
    x = to_frac(bits, w)
    c = from_f64(1.0 / math.sqrt(float(x)), w)
    for _ in range(4):
        v = to_frac(c, w)
        lo = (to_frac(c - 1, w) + v) / 2
        hi = (v + to_frac(c + 1, w)) / 2
        # lo < 1/sqrt(x) < hi  <=>  lo^2 x < 1 < hi^2 x
        if lo * lo * x > 1:
            c -= 1
        elif hi * hi * x < 1:
            c += 1
        else:
            return c
    raise AssertionError("no convergence")


def sqrt_ref(bits, w):
    """sqrt as the reference defines it; None where undefined (x < 0) or NaN (checked by
    the buffer comparison only: the NaN's payload is the host's to propagate)."""
    if is_nan(bits, w):
        return None
    v = value_any(bits, w)
    if v < 0:
        return None
    if v == 0 or math.isinf(v):
        return bits
    c = sqrt_exact(bits, w)
    assert c == from_f64(math.sqrt(v), w)
    return c


def rsqrt_ref(bits, w):
    if is_nan(bits, w):
        return None
    v = value_any(bits, w)
    if v <= 0:
        return None
    if math.isinf(v):
        return 0
    r = from_f64(1.0 / math.sqrt(v), w)
    if r != rsqrt_exact(bits, w):
        # binary64's own double rounding: only possible at width 64 (f16 and f32 keep
        # far fewer bits than binary64's 53).
        assert w == 64, f"inversesqrt of {bits:#x} (f{w}) is not correctly rounded"
        RSQRT64_DOUBLE_ROUNDED.append(bits)
    return r


RSQRT64_DOUBLE_ROUNDED = []


# ---- sqrt.amber ---------------------------------------------------------------------

X32 = [
    0x00000000, 0x80000000, 0x7F800000, 0x3F800000, 0x40000000, 0x40800000, 0x3E800000,
    0x00000001, 0x00000002, 0x000B4D2C, 0x007FFFFF, 0x00800000, 0x0CFFFFFF, 0x0D000000,
    0x7F7FFFFF, 0x404D142A, 0x405AE03B, 0x406E9372, 0x3FFC114A, 0x0E4D142A, 0x4B7FFFFF,
    0x3F800001, 0x3FFFFFFF, 0x40490FDB, 0x3E99999A, 0x42C80000, 0x3C23D70A, 0xC0800000,
    0x7FC00001, 0xFF800123, 0x1F3504F3, 0x7E967699,
]
X16 = [
    0x0000, 0x8000, 0x7C00, 0x3C00, 0x4000, 0x4400, 0x3400, 0x0001, 0x0002, 0x03FF,
    0x0400, 0x7BFF, 0x3C01, 0x3FFF, 0x4248, 0x2E66, 0x5640, 0x211F, 0xC400, 0x3D00,
    0x4A00, 0x0155, 0x6400, 0x1234, 0x3555, 0x4B00, 0x7E01, 0xFD23, 0x0010, 0x7000,
    0x3A00, 0x4E40,
]
X64 = [
    0x0, 0x8000000000000000, 0x7FF0000000000000, 0x3FF0000000000000, 0x4000000000000000,
    0x4010000000000000, 0x3FD0000000000000, 0x1, 0x3, 0x000FFFFFFFFFFFFF,
    0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x400FFFFFFFFFFFFF,
    0x400921FB54442D18, 0x3FB999999999999A, 0x4022000000000000, 0x7E37E43C8800759C,
    0x01A56E1FC2F8F359, 0x0000000000BC614E, 0x3FEFFFFFFFFFFFFF, 0x4337FFFFFFFFFFFF,
    0xC000000000000000, 0x5FEFFFFFFFFFFFFF, 0x0008000000000000, 0x3FF6A09E667F3BCD,
    0x41DFFFFFFFC00000, 0x000000000000FFFF, 0x3CB0000000000000, 0x7FF8000000000001,
    0xFFF0000000000123, 0x4059000000000000,
]


def sqrt_script():
    s32 = [sqrt_ref(b, 32) for b in X32]
    r32 = [rsqrt_ref(b, 32) for b in X32]
    s16 = [sqrt_ref(b, 16) for b in X16]
    r16 = [rsqrt_ref(b, 16) for b in X16]
    s64 = [sqrt_ref(b, 64) for b in X64]
    r64 = [rsqrt_ref(b, 64) for b in X64]
    return f"""#!amber
# sqrt and inversesqrt through the SASS engine, bit for bit, in f32, f16 and f64 (given
# and stored as bits): zeros of both signs, +infinity, subnormals (the smallest, the
# largest), the ends of the normal range, operands whose f32 root is hard to round (ptxas's
# f32 sequence gets 0x404d142a, 0x405ae03b, 0x406e9372, 0x3ffc114a wrong with a seed one
# unit off), exact squares, a negative operand (undefined: no EXPECT), quiet and
# signalling NaNs of both signs (no EXPECT: the buffer comparison checks that the payload
# propagates as the reference's host propagates it). Written by
# ../gen_glslfloat.py: sqrt is the correctly rounded root (exact rational arithmetic),
# inversesqrt the reference's definition 1 / sqrt(x) in binary64 rounded once (Python
# floats): in f16 and f32 the correctly rounded value at every operand here, in f64 the
# reference's two roundings, which differ from it at {len(RSQRT64_DOUBLE_ROUNDED)} of the 32.
SHADER compute roots GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint x[]; }};
layout(std430, binding = 1) buffer S {{ uint s[]; }};
layout(std430, binding = 2) buffer H {{ uint h[]; }};
layout(std430, binding = 3) buffer D {{ uint64_t d[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  float a = uintBitsToFloat(x[i]);
  s[i] = floatBitsToUint(sqrt(a));
  s[32 + i] = floatBitsToUint(inversesqrt(a));
  float16_t b = uint16BitsToFloat16(uint16_t(x[32 + i]));
  h[i] = uint(float16BitsToUint16(sqrt(b)));
  h[32 + i] = uint(float16BitsToUint16(inversesqrt(b)));
  double c = uint64BitsToDouble(d[i]);
  d[32 + i] = doubleBitsToUint64(sqrt(c));
  d[64 + i] = doubleBitsToUint64(inversesqrt(c));
}}
END
BUFFER x DATA_TYPE uint32 DATA
{data(X32 + X16)}
END
BUFFER s DATA_TYPE uint32 SIZE 64 FILL 0
BUFFER h DATA_TYPE uint32 SIZE 64 FILL 0
BUFFER d DATA_TYPE uint64 DATA
{data(X64 + [0] * 64, 4)}
END
{dispatch("p", "roots", "x s h d")}
{expects("s", s32 + r32)}
{expects("h", s16 + r16)}
{expects("d", [None] * 32 + s64 + r64, 4, 8)}
"""


# ---- ddiv.amber ---------------------------------------------------------------------


def ddiv_operands():
    """(a, b) bit pairs: exact and rounding quotients, subnormal operands and results,
    quotients just below, on and just above halfway between two subnormals, overflow,
    underflow to zero, zeros and infinities (never 0 / 0 or inf / inf: their NaN's bits
    are the host's in the reference)."""
    pairs = [
        (1.0, 3.0), (2.0, 3.0), (-1.0, 3.0), (10.0, 4.0), (1.0, 10.0), (7.0, 0.1),
        (1.7976931348623157e308, 0.5), (1e-300, 1e10), (5e-324, 2.0), (1.5e-323, 2.0),
        (1e-310, 1e-310), (1.0, 1e-310), (0.0, 5.0), (-0.0, 5.0), (5.0, 0.0), (-5.0, 0.0),
        (5.0, -0.0), (1e308, 1e-10), (-1e308, 3.0), (3.0, math.inf), (-3.0, math.inf),
        (math.inf, 3.0), (math.inf, -0.0), (9007199254740991.0, 3.0), (0.3, 0.7),
        (2.2250738585072014e-308, 3.0), (2.225073858507201e-308, 1.0000000000000002),
    ]
    bits = [(f64_bits(a), f64_bits(b)) for a, b in pairs]
    # Quotients whose 53-bit rounding is exactly halfway between two subnormals while
    # the quotient itself is not, on both sides (b a random 53-bit significand, a the
    # halfway value times b rounded), and one exact halfway quotient.
    rng = random.Random(17)
    found = {1: 0, -1: 0}
    while found[1] < 2 or found[-1] < 2:
        tie = F(2 * rng.randrange(1, 1 << 12) + 1) * F(2) ** -1075
        b = f64_bits(float((1 << 52 | rng.getrandbits(52)) * 2**18))
        a = round_frac(tie * to_frac(b, 64), 64)
        q = to_frac(a, 64) / to_frac(b, 64)
        side = (q > tie) - (q < tie)
        if side and round53(q) == tie and found[side] < 2:
            found[side] += 1
            bits.append((a, b))
    bits.append((f64_bits(11.0 * 2.0**-998 * 3.0), f64_bits(3.0 * 2.0**77)))
    assert len(bits) == 32, len(bits)
    return bits


def round53(x):
    """x > 0 rounded to 53 significant bits, whatever its exponent."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > x:
        e -= 1
    n = x / F(2) ** (e - 52)
    q = n.numerator // n.denominator
    r = n - q
    if r > F(1, 2) or (r == F(1, 2) and q % 2 == 1):
        q += 1
    return q * F(2) ** (e - 52)


def div_exact(a, b):
    """a / b correctly rounded (finite non-NaN operands, not 0/0 or inf/inf)."""
    va, vb = value_any(a, 64), value_any(b, 64)
    sign = (a ^ b) >> 63 << 63
    if math.isinf(va) or vb == 0:
        return sign | FMT_INF[64]
    if math.isinf(vb) or va == 0:
        return sign
    q = round_frac(to_frac(a, 64) / to_frac(b, 64), 64)
    assert q == f64_bits(va / vb), "Python's division disagrees"
    return q


def ddiv_script():
    ops = ddiv_operands()
    q = [div_exact(a, b) for a, b in ops]
    sub = sum(1 for x in q if 0 < x & ~(1 << 63) < 1 << 52)
    return f"""#!amber
# f64 division through the SASS engine, bit for bit: per lane i, q[i] = a[i] / b[i] over
# exact and rounding quotients, subnormal operands, {sub} subnormal quotients (four of
# them just below or above halfway between two subnormals and rounding to that halfway
# point at 53 bits, where rounding a correctly rounded scaled quotient again goes wrong;
# one exactly halfway), overflow, underflow to zero, zeros and infinities of both signs (no
# NaN: the reference's NaN bits are its host's). Written by ../gen_glslfloat.py: the
# exact quotient (fractions) rounded to nearest even by hand.
SHADER compute ddiv GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer A {{ uint64_t a[]; }};
layout(std430, binding = 1) buffer Q {{ uint64_t q[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  q[i] = doubleBitsToUint64(uint64BitsToDouble(a[i]) / uint64BitsToDouble(a[32 + i]));
}}
END
BUFFER a DATA_TYPE uint64 DATA
{data([x for x, _ in ops] + [y for _, y in ops], 4)}
END
BUFFER q DATA_TYPE uint64 SIZE 32 FILL 0
{dispatch("p", "ddiv", "a q")}
{expects("q", q, 4, 8)}
"""


# ---- geometric.amber -----------------------------------------------------------------


def f32_vals(rng, n):
    """n f32 bit patterns: small integers, random magnitudes over the whole range
    (subnormals included), huge ones whose squares overflow f32 (not f64); never NaN,
    never a zero vector of four."""
    fixed = [0x3F800000, 0x40000000, 0xC0400000, 0x40800000, 0x00000001, 0x7F7FFFFF,
             0x7F000000, 0xFF000000, 0x3F000000, 0x80000000, 0x00000000, 0x3DCCCCCD]
    out = list(fixed)
    while len(out) < n:
        e = rng.randrange(0, 255)
        out.append(rng.getrandbits(1) << 31 | e << 23 | rng.getrandbits(23))
    return out[:n]


def ref_len(xs):
    """The reference's length: squares summed in binary64 in order, then sqrt."""
    acc = -0.0
    for x in xs:
        acc = acc + x * x
    return math.sqrt(acc)


def geometric_script():
    rng = random.Random(5)
    X = f32_vals(rng, 128)
    # Four vectors of four lanes must not be all zero (normalize would divide 0 by 0).
    for i in range(32):
        if all(value(X[4 * i + k], 32) == 0 for k in range(4)):
            X[4 * i] = 0x3F800000
    out = []  # per lane: 12 f32 words
    for i in range(32):
        v = [value(X[4 * i + k], 32) for k in range(4)]
        w = [value(X[(4 * i + 4 * 7 + k) % 128], 32) for k in range(4)]
        row = [
            from_f64(ref_len(v[:2]), 32),
            from_f64(ref_len(v[:3]), 32),
            from_f64(ref_len(v), 32),
            from_f64(ref_len([a - b for a, b in zip(v, w)]), 32),
        ]
        n = ref_len(v)
        row += [from_f64(a / n, 32) for a in v]
        n2 = ref_len(v[:2])
        row += [from_f64(a / n2, 32) if n2 != 0 else None for a in v[:2]]
        # min, max, clamp(v.x, min(w.x, w.y), max(w.x, w.y)) (zeros of mixed signs and
        # NaN pairs left out: which one the reference picks is its host's choice)
        a, b = v[0], w[0]
        mixed0 = a == 0 and b == 0
        row.append(None if mixed0 else X[4 * i] if a < b else X[(4 * i + 28) % 128])
        row.append(None if mixed0 else X[4 * i] if a > b else X[(4 * i + 28) % 128])
        lo, hi = min(w[0], w[1]), max(w[0], w[1])
        c = min(max(a, lo), hi)
        row.append(None if 0 in (a, lo, hi) else f32_bits(c))
        out += row
    # f64: dvec3 from the words of X taken in pairs (low, high), one NaN-free vector a lane.
    D = [X[(2 * k) % 128] | X[(2 * k + 1) % 128] << 32 for k in range(96)]
    dout = []
    for i in range(32):
        v = [value_any(D[3 * i + k], 64) for k in range(3)]
        w = [value_any(D[(3 * i + 45) % 96 + k - ((3 * i + 45) % 96 + k >= 96) * 96], 64)
             for k in range(3)]
        if any(math.isnan(x) or math.isinf(x) for x in v + w):
            dout += [None] * 6
            continue
        n = ref_len(v)
        dout.append(from_f64(n, 64) if not math.isinf(n) else FMT_INF[64])
        d = ref_len([a - b for a, b in zip(v, w)])
        dout.append(from_f64(d, 64) if not math.isinf(d) else FMT_INF[64])
        dout += [from_f64(a / n, 64) if n != 0 and not math.isinf(n) else None for a in v]
        m = v[0] if (v[0] < w[0] or math.isnan(w[0])) else w[0]
        dout.append(None if v[0] == 0 and w[0] == 0 else f64_bits(m))
    # f16: f16vec2 from the low halves of X.
    H = [x & 0xFFFF for x in X[:64]]
    hout = []
    for i in range(32):
        h = [H[2 * i], H[2 * i + 1]]
        if any(b & 0x7C00 == 0x7C00 for b in h):
            hout += [None] * 5
            continue
        v = [value(b, 16) for b in h]
        n = ref_len(v)
        hout.append(from_f64(n, 16))
        hout += [from_f64(a / n, 16) if n != 0 else None for a in v]
        hout.append(None if v[0] == 0 and v[1] == 0 else h[0] if v[0] > v[1] else h[1])
        hout.append(None)
    return f"""#!amber
# length, distance, normalize and min/max/clamp through the SASS engine, bit for bit. Per
# lane i, v = x[4i..4i+4] and w = x[4i+28..4i+32] (mod 128) as f32 bits (random over the
# whole range, subnormals and values whose squares overflow f32 included):
# o = (length(v.xy), length(v.xyz), length(v), distance(v, w), normalize(v),
#      normalize(v.xy), min(v.x, w.x), max(v.x, w.x), clamp(v.x, min(w.x, w.y), max(w.x, w.y)));
# the same words in pairs as dvec3 (d = length, distance, normalize, min) and their low
# halves as f16vec2 (h = length, normalize, max of the two). Written by ../gen_glslfloat.py
# with the reference's definition: the squares summed in binary64 in order, sqrt, the
# divisions in binary64, one rounding to the width (Python's IEEE floats). Lanes where
# the result is NaN, or where min/max meet zeros of both signs (the host picks one), have
# no EXPECT.
SHADER compute geo GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint x[]; }};
layout(std430, binding = 1) buffer O {{ uint o[]; }};
layout(std430, binding = 2) buffer D {{ uint64_t d[]; }};
layout(std430, binding = 3) buffer H {{ uint h[]; }};
vec4 at(uint k) {{
  return uintBitsToFloat(uvec4(x[k % 128u], x[(k + 1u) % 128u], x[(k + 2u) % 128u], x[(k + 3u) % 128u]));
}}
dvec3 dat(uint k) {{
  dvec3 r;
  for (uint j = 0u; j < 3u; j++) {{
    uint m = (k + j) % 96u;
    r[j] = uint64BitsToDouble(uint64_t(x[(2u * m) % 128u]) | uint64_t(x[(2u * m + 1u) % 128u]) << 32);
  }}
  return r;
}}
void main() {{
  uint i = gl_LocalInvocationIndex;
  vec4 v = at(4u * i), w = at(4u * i + 28u);
  uint b = 12u * i;
  o[b + 0u] = floatBitsToUint(length(v.xy));
  o[b + 1u] = floatBitsToUint(length(v.xyz));
  o[b + 2u] = floatBitsToUint(length(v));
  o[b + 3u] = floatBitsToUint(distance(v, w));
  vec4 n = normalize(v);
  vec2 n2 = normalize(v.xy);
  o[b + 4u] = floatBitsToUint(n.x);
  o[b + 5u] = floatBitsToUint(n.y);
  o[b + 6u] = floatBitsToUint(n.z);
  o[b + 7u] = floatBitsToUint(n.w);
  o[b + 8u] = floatBitsToUint(n2.x);
  o[b + 9u] = floatBitsToUint(n2.y);
  o[b + 10u] = floatBitsToUint(min(v.x, w.x));
  o[b + 11u] = floatBitsToUint(max(v.x, w.x));
  o[384u + i] = floatBitsToUint(clamp(v.x, min(w.x, w.y), max(w.x, w.y)));
  dvec3 dv = dat(3u * i), dw = dat(3u * i + 45u);
  dvec3 dn = normalize(dv);
  d[6u * i + 0u] = doubleBitsToUint64(length(dv));
  d[6u * i + 1u] = doubleBitsToUint64(distance(dv, dw));
  d[6u * i + 2u] = doubleBitsToUint64(dn.x);
  d[6u * i + 3u] = doubleBitsToUint64(dn.y);
  d[6u * i + 4u] = doubleBitsToUint64(dn.z);
  d[6u * i + 5u] = doubleBitsToUint64(min(dv.x, dw.x));
  f16vec2 hv = f16vec2(uint16BitsToFloat16(uint16_t(x[2u * i] & 0xffffu)),
                       uint16BitsToFloat16(uint16_t(x[2u * i + 1u] & 0xffffu)));
  f16vec2 hn = normalize(hv);
  h[5u * i + 0u] = uint(float16BitsToUint16(length(hv)));
  h[5u * i + 1u] = uint(float16BitsToUint16(hn.x));
  h[5u * i + 2u] = uint(float16BitsToUint16(hn.y));
  h[5u * i + 3u] = uint(float16BitsToUint16(max(hv.x, hv.y)));
  h[5u * i + 4u] = 0u;
}}
END
BUFFER x DATA_TYPE uint32 DATA
{data(X)}
END
BUFFER o DATA_TYPE uint32 SIZE 416 FILL 0
BUFFER d DATA_TYPE uint64 SIZE 192 FILL 0
BUFFER h DATA_TYPE uint32 SIZE 160 FILL 0
{dispatch("p", "geo", "x o d h")}
{expects("o", [x for k, x in enumerate(out) if k % 13 != 12] + [x for k, x in enumerate(out) if k % 13 == 12])}
{expects("d", dout, 4, 8)}
{expects("h", hout)}
"""




# ---- exact.amber ---------------------------------------------------------------------


def zsign(r, x):
    """r, a zero taking x's sign (Rust's floor/ceil/trunc/round keep it)."""
    return math.copysign(0.0, x) if r == 0 else r


def exact_funcs(x, y, z, w=64):
    """floor, ceil, trunc, roundEven, round, fract, sign, step(y, x), mix(x, y, z),
    smoothstep(min(y, z), max(y, z) + 1, x), radians, degrees as the reference computes
    them in binary64 (the edge's + 1 in the operands' width w)."""
    fl = zsign(float(math.floor(x)), x)
    ce = zsign(float(math.ceil(x)), x)
    tr = zsign(float(math.trunc(x)), x)
    re = zsign(float(round(x)), x)
    ro = tr + math.copysign(1.0, x) if abs(x - tr) >= 0.5 else tr
    sg = 1.0 if x > 0 else -1.0 if x < 0 else x
    st = 0.0 if x < y else 1.0
    mx = x * (1.0 - z) + y * z
    e0 = min(y, z)
    e1 = max(y, z) + 1.0
    if w == 32:  # the shader adds 1 in f32
        e1 = value(from_f64(e1, 32), 32)
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    sm = t * t * (3.0 - 2.0 * t)
    return [fl, ce, tr, re, ro, x - fl, sg, st, mx, sm, x * (math.pi / 180.0), x * (180.0 / math.pi)]


def exact_script():
    X = [0x3F000000, 0xBF000000, 0x3FC00000, 0xBFC00000, 0x40200000, 0xC0200000,
         0xBE99999A, 0x60AD78EC, 0x80000001, 0x3EFFFFFF, 0x4B000001, 0xCB000001,
         0x00000000, 0x80000000, 0x3F800000, 0xC0490FDB, 0x42F6E979, 0xC4D2D000,
         0x3DCCCCCD, 0x4E6E6B28, 0xBF7FFFFF, 0x4B7FFFFF, 0x3A83126F, 0xC2C80000,
         0x40490FDB, 0x447A0000, 0xBDCCCCCD, 0x3F7FFFFF, 0x4AFFFFFF, 0xCAFFFFFF,
         0x40400000, 0xC0C00000]
    f = [value(b, 32) for b in X]
    o32, o64 = [], []
    for i in range(32):
        x, y, z = f[i], f[(i + 5) % 32], f[(i + 11) % 32]
        r = exact_funcs(x, y, z, 32)
        # cross((x, y, z), (y, z, x)) and reflect((x, y, z), (z, x, y)) in binary64.
        a, b = [x, y, z], [y, z, x]
        cr = [a[1] * b[2] - b[1] * a[2], a[2] * b[0] - b[2] * a[0], a[0] * b[1] - b[0] * a[1]]
        n = [z, x, y]
        d = -0.0
        for p, q in zip(a, n):
            d = d + p * q
        rf = [p - 2.0 * d * q for p, q in zip(a, n)]
        o32 += [from_f64(v, 32) for v in r + cr + rf]
        # f64: dx = x + y 1e-9 (in binary64, as the shader does), likewise dy, dz.
        dx, dy, dz = x + y * 1e-9, y + z * 1e-9, z + x * 1e-9
        o64 += [f64_bits(v) for v in exact_funcs(dx, dy, dz)[:10]] + [0, 0]
    return f"""#!amber
# The GLSL functions the reference defines by exact or short binary64 steps, through the
# SASS engine, bit for bit: per lane i, with x = f[i], y = f[i + 5], z = f[i + 11] (mod
# 32) over halves and their neighbours, values past 2^23 and 2^24, zeros of both signs, a
# subnormal: o = (floor, ceil, trunc, roundEven, round, fract, sign of x, step(y, x),
# mix(x, y, z), smoothstep(min(y, z), max(y, z) + 1, x), radians(x), degrees(x),
# cross((x, y, z), (y, z, x)), reflect((x, y, z), (z, x, y))), and the first ten in f64
# (GLSL has no double radians or degrees) on x + y 1e-9, y + z 1e-9, z + x 1e-9. Written by ../gen_glslfloat.py with the
# reference's binary64 definitions in Python floats (math.floor/ceil/trunc, round to even,
# halves away from zero by hand); no NaN or infinity arises.
SHADER compute exact GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint f[]; }};
layout(std430, binding = 1) buffer O {{ uint o[]; }};
layout(std430, binding = 2) buffer D {{ uint64_t d[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  float x = uintBitsToFloat(f[i]), y = uintBitsToFloat(f[(i + 5u) % 32u]), z = uintBitsToFloat(f[(i + 11u) % 32u]);
  uint b = 18u * i;
  o[b + 0u] = floatBitsToUint(floor(x));
  o[b + 1u] = floatBitsToUint(ceil(x));
  o[b + 2u] = floatBitsToUint(trunc(x));
  o[b + 3u] = floatBitsToUint(roundEven(x));
  o[b + 4u] = floatBitsToUint(round(x));
  o[b + 5u] = floatBitsToUint(fract(x));
  o[b + 6u] = floatBitsToUint(sign(x));
  o[b + 7u] = floatBitsToUint(step(y, x));
  o[b + 8u] = floatBitsToUint(mix(x, y, z));
  o[b + 9u] = floatBitsToUint(smoothstep(min(y, z), max(y, z) + 1.0, x));
  o[b + 10u] = floatBitsToUint(radians(x));
  o[b + 11u] = floatBitsToUint(degrees(x));
  vec3 c = cross(vec3(x, y, z), vec3(y, z, x));
  vec3 r = reflect(vec3(x, y, z), vec3(z, x, y));
  o[b + 12u] = floatBitsToUint(c.x);
  o[b + 13u] = floatBitsToUint(c.y);
  o[b + 14u] = floatBitsToUint(c.z);
  o[b + 15u] = floatBitsToUint(r.x);
  o[b + 16u] = floatBitsToUint(r.y);
  o[b + 17u] = floatBitsToUint(r.z);
  double dx = double(x) + double(y) * 1e-9lf, dy = double(y) + double(z) * 1e-9lf;
  double dz = double(z) + double(x) * 1e-9lf;
  uint e = 12u * i;
  d[e + 0u] = doubleBitsToUint64(floor(dx));
  d[e + 1u] = doubleBitsToUint64(ceil(dx));
  d[e + 2u] = doubleBitsToUint64(trunc(dx));
  d[e + 3u] = doubleBitsToUint64(roundEven(dx));
  d[e + 4u] = doubleBitsToUint64(round(dx));
  d[e + 5u] = doubleBitsToUint64(fract(dx));
  d[e + 6u] = doubleBitsToUint64(sign(dx));
  d[e + 7u] = doubleBitsToUint64(step(dy, dx));
  d[e + 8u] = doubleBitsToUint64(mix(dx, dy, dz));
  d[e + 9u] = doubleBitsToUint64(smoothstep(min(dy, dz), max(dy, dz) + 1.0lf, dx));
}}
END
BUFFER f DATA_TYPE uint32 DATA
{data(X)}
END
BUFFER o DATA_TYPE uint32 SIZE 576 FILL 0
BUFFER d DATA_TYPE uint64 SIZE 384 FILL 0
{dispatch("p", "exact", "f o d")}
{expects("o", o32)}
{expects("d", o64, 4, 8)}
"""


# ---- fmod.amber ----------------------------------------------------------------------


def ref_fmod(a, b):
    """OpFMod as the reference computes it: the exact remainder (math.fmod is exact, and
    checked here with fractions), the divisor added once where the signs differ."""
    r = math.fmod(a, b)
    if not math.isinf(b):
        assert F(r) == F(a) - F(b) * int(F(a) / F(b))
    if r != 0 and (r < 0) != (b < 0):
        r = r + b
    return r


def fmod_script():
    # Lanes 6, 13, 18, 22: exponent differences past 232 (more than eight of the ten
    # 29-bit steps) with divisors whose significands are not powers of two.
    xs = [7.0, -7.0, 7.0, -7.0, 3.4028234663852886e38, 3.4028234663852886e38,
          3.4028234663852886e38, 5.5, 0.0, -0.0, 1.0, 100.0, 16777215.0, 1e38, -1e30, 0.1,
          2.5, -2.5, -3.3e38, 6.0, 123456.789, -0.3, 2.5e38, 8.0, 9.5, 1e20, -1e-10, 3.0,
          1.0, 65504.0, 1e10, 0.5]
    ys = [3.0, 3.0, -3.0, -3.0, 1e-45, 3.0, 9.80908925027372e-45, 0.1, 5.0, 5.0, 1e30,
          -7.0, 0.7, 3.3e-39, 3.3, 1e-40, 1.0, 1.0, 1.1754942106924411e-38, 6.0, -0.001,
          1.0, 1.2611686178923354e-44, -3.0, 2.5, 1.0000001, 7.0, 1e-30, math.inf, 0.3,
          -math.inf, 0.25]
    X = [from_f64(v, 32) for v in xs]
    Y = [from_f64(v, 32) for v in ys]
    far = [i for i in range(32) if not math.isinf(ys[i]) and xs[i] != 0
           and (X[i] >> 23 & 0xFF) - max(Y[i] >> 23 & 0xFF, 1) > 200]
    assert len(far) >= 5, far
    out = []
    for a, b in zip(X, Y):
        out.append(from_f64(ref_fmod(value(a, 32), value_any(b, 32)), 32))
    hx = [from_f64(v, 16) for v in [7.0, -7.0, 65504.0, 0.1, 1000.5, -3.0, 6e-8, 2.5]]
    hy = [from_f64(v, 16) for v in [3.0, 3.0, 6e-8, 0.03, -7.0, 0.75, 1e-4, -1.0]]
    hout = [from_f64(ref_fmod(value(a, 16), value(b, 16)), 16) for a, b in zip(hx, hy)]
    return f"""#!amber
# GLSL's mod (OpFMod) through the SASS engine, bit for bit: per lane i, o[i] = mod(x[i],
# y[i]) on f32 bits over remainders of both signs, exponent differences up to 276 (the
# largest f32 by the smallest subnormal), zeros, subnormals, infinite divisors (x, then
# x + y where the signs differ); h[i] = mod on f16 for the first 8 lanes. No NaN (no zero
# divisor, no infinite dividend). Written by ../gen_glslfloat.py: the exact remainder
# (math.fmod, checked with fractions), the divisor added in binary64 where the signs
# differ, one rounding, as the reference defines it.
SHADER compute fmod GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint x[]; }};
layout(std430, binding = 1) buffer O {{ uint o[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  o[i] = floatBitsToUint(mod(uintBitsToFloat(x[i]), uintBitsToFloat(x[32u + i])));
  if (i < 8u) {{
    float16_t a = uint16BitsToFloat16(uint16_t(x[64u + i])), b = uint16BitsToFloat16(uint16_t(x[72u + i]));
    o[32u + i] = uint(float16BitsToUint16(mod(a, b)));
  }}
}}
END
BUFFER x DATA_TYPE uint32 DATA
{data(X + Y + hx + hy)}
END
BUFFER o DATA_TYPE uint32 SIZE 40 FILL 0
{dispatch("p", "fmod", "x o")}
{expects("o", out + hout)}
"""


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, text in [
        ("sqrt", sqrt_script()),
        ("ddiv", ddiv_script()),
        ("geometric", geometric_script()),
        ("exact", exact_script()),
        ("fmod", fmod_script()),
    ]:
        with open(os.path.join(here, "wide", name + ".amber"), "w") as f:
            f.write(text)
