#!/usr/bin/env python3
"""Writes tests/data/wide/{sqrt,geometric,ddiv}.amber: square roots, inverse square
roots, length/distance/normalize, min/max/clamp and f64 division over edge operands,
with EXPECTs computed here, independently of tangle:

- sqrt: the correctly rounded root, found with exact rational arithmetic (a candidate is
  right when the squares of the midpoints to its neighbours bracket x), at each width.
- inversesqrt, length, distance, normalize: the reference's definition (the steps in
  binary64, rounded once to the operand's width), evaluated with Python's IEEE floats
  (math.sqrt and / are correctly rounded); inversesqrt is also compared with the exact
  correctly rounded value and any difference is printed (none at these operands).
- f64 division: the exact quotient (fractions) rounded to nearest even by hand, subnormal
  results included.

Run from this directory: python3 gen_glslfloat.py
"""
import math
import random
import struct
from fractions import Fraction as F

# ---- IEEE formats ---------------------------------------------------------------

FMT = {16: (5, 10), 32: (8, 23), 64: (11, 52)}


def to_frac(bits, w):
    """The exact value of a finite float of width w."""
    e_bits, m_bits = FMT[w]
    sign = -1 if bits >> (w - 1) & 1 else 1
    e = bits >> m_bits & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    assert e != (1 << e_bits) - 1, "not finite"
    if e == 0:
        return sign * F(m, 1) * F(2) ** (1 - bias - m_bits)
    return sign * F(m + (1 << m_bits)) * F(2) ** (e - bias - m_bits)


def round_frac(x, w):
    """x rounded to nearest even at width w (bits); overflow gives infinity."""
    e_bits, m_bits = FMT[w]
    bias = (1 << (e_bits - 1)) - 1
    sign = 0
    if x < 0:
        sign, x = 1, -x
    if x == 0:
        return sign << (w - 1)
    # The exponent of the unit in the last place: the binade's, or the subnormals'.
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > x:
        e -= 1
    e = max(e, 1 - bias)
    ulp = F(2) ** (e - m_bits)
    n = x / ulp
    q = n.numerator // n.denominator
    r = n - q
    if r > F(1, 2) or (r == F(1, 2) and q % 2 == 1):
        q += 1
    # q ulps: q < 2^(m_bits+1); renormalise when q reached the next binade.
    if q >= 1 << (m_bits + 1):
        q //= 2
        e += 1
    if e + bias >= (1 << e_bits) - 1:
        return sign << (w - 1) | ((1 << e_bits) - 1) << m_bits
    if q < 1 << m_bits:  # subnormal
        return sign << (w - 1) | q
    return sign << (w - 1) | (e + bias) << m_bits | (q - (1 << m_bits))


def f64_bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def f64_of(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def from_f64(v, w):
    """A Python float rounded once to width w (the reference's last step)."""
    if math.isinf(v):
        return (1 << (w - 1) if v < 0 else 0) | FMT_INF[w]
    return round_frac(F(v), w)


FMT_INF = {w: ((1 << FMT[w][0]) - 1) << FMT[w][1] for w in FMT}


def value(bits, w):
    """A float of width w as a Python float (exact)."""
    return float(to_frac(bits, w))


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
    """sqrt as the reference defines it; None where undefined (x < 0)."""
    v = value_any(bits, w)
    if v < 0:
        return None
    if v == 0 or math.isinf(v):
        return bits
    c = sqrt_exact(bits, w)
    assert c == from_f64(math.sqrt(v), w)
    return c


def rsqrt_ref(bits, w):
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


def value_any(bits, w):
    if bits & ~(1 << (w - 1)) == FMT_INF[w]:
        return -math.inf if bits >> (w - 1) else math.inf
    return value(bits, w)


# ---- amber helpers ----------------------------------------------------------------


def expects(name, vals, per_line=8, size=4):
    """EXPECT lines for the defined values of a buffer (byte offsets)."""
    out = []
    run = []
    for i, v in enumerate(vals + [None]):
        if v is not None and (not run or run[-1][0] == i - 1) and len(run) < per_line:
            run.append((i, v))
            continue
        if run:
            out.append(
                f"EXPECT {name} IDX {run[0][0] * size} EQ " + " ".join(str(x) for _, x in run)
            )
        run = [(i, v)] if v is not None else []
    return "\n".join(out)


def data(vals, per_line=8):
    return "\n".join(
        " ".join(str(v) for v in vals[i : i + per_line]) for i in range(0, len(vals), per_line)
    )


# ---- sqrt.amber ---------------------------------------------------------------------

X32 = [
    0x00000000, 0x80000000, 0x7F800000, 0x3F800000, 0x40000000, 0x40800000, 0x3E800000,
    0x00000001, 0x00000002, 0x000B4D2C, 0x007FFFFF, 0x00800000, 0x0CFFFFFF, 0x0D000000,
    0x7F7FFFFF, 0x404D142A, 0x405AE03B, 0x406E9372, 0x3FFC114A, 0x0E4D142A, 0x4B7FFFFF,
    0x3F800001, 0x3FFFFFFF, 0x40490FDB, 0x3E99999A, 0x42C80000, 0x3C23D70A, 0xC0800000,
    0x5F800000, 0x2F800000, 0x1F3504F3, 0x7E967699,
]
X16 = [
    0x0000, 0x8000, 0x7C00, 0x3C00, 0x4000, 0x4400, 0x3400, 0x0001, 0x0002, 0x03FF,
    0x0400, 0x7BFF, 0x3C01, 0x3FFF, 0x4248, 0x2E66, 0x5640, 0x211F, 0xC400, 0x3D00,
    0x4A00, 0x0155, 0x6400, 0x1234, 0x3555, 0x4B00, 0x2000, 0x5BFF, 0x0010, 0x7000,
    0x3A00, 0x4E40,
]
X64 = [
    0x0, 0x8000000000000000, 0x7FF0000000000000, 0x3FF0000000000000, 0x4000000000000000,
    0x4010000000000000, 0x3FD0000000000000, 0x1, 0x3, 0x000FFFFFFFFFFFFF,
    0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x400FFFFFFFFFFFFF,
    0x400921FB54442D18, 0x3FB999999999999A, 0x4022000000000000, 0x7E37E43C8800759C,
    0x01A56E1FC2F8F359, 0x0000000000BC614E, 0x3FEFFFFFFFFFFFFF, 0x4337FFFFFFFFFFFF,
    0xC000000000000000, 0x5FEFFFFFFFFFFFFF, 0x0008000000000000, 0x3FF6A09E667F3BCD,
    0x41DFFFFFFFC00000, 0x000000000000FFFF, 0x3CB0000000000000, 0x7FE0000000000000,
    0x2000000000000001, 0x4059000000000000,
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
# unit off), exact squares, a negative operand (undefined: no EXPECT). Written by
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
PIPELINE compute p
  ATTACH roots
  BIND BUFFER x AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER s AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER h AS storage DESCRIPTOR_SET 0 BINDING 2
  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 3
END
RUN p 1 1 1
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
PIPELINE compute p
  ATTACH ddiv
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER q AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
{expects("q", q, 4, 8)}
"""


if __name__ == "__main__":
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for name, text in [("sqrt", sqrt_script()), ("ddiv", ddiv_script())]:
        with open(os.path.join(here, "wide", name + ".amber"), "w") as f:
            f.write(text)
