#!/usr/bin/env python3
"""Writes tests/data/wide/{div64,atomic64,glsl64}.amber: 64-bit integer division, 64-bit
buffer atomics and the 64-bit integer GLSL functions, with EXPECTs from Python's
integers. Run from this directory:
python3 gen_int64.py
"""
import os
import random

from gen_common import data, dispatch, expects

# ---- div64.amber ---------------------------------------------------------------------


def div64_script():
    """64-bit udiv, umod, sdiv and smod (GLSL's % on signed integers is OpSMod)."""
    rng = random.Random(64)
    M = (1 << 64) - 1
    pairs = [
        (7, 3), (M, 1), (M, M), (M, 2), (1, M), (1 << 63, 3), (M, (1 << 63) + 1),
        ((1 << 63) + 5, (1 << 63) + 1), (0, 5), (123456789012345678, 1000000007),
        (1 << 40, 1 << 20), (M - 10, 1 << 32), ((1 << 32) + 1, (1 << 32) - 1),
        (M - 6, 3), (10, M - 2), (M, 0xFFFFFFFF), (0xFFFFFFFF, 0x1FFFFFFFF),
    ]
    while len(pairs) < 32:
        a = rng.getrandbits(rng.choice([16, 33, 48, 63, 64]))
        b = rng.getrandbits(rng.choice([3, 20, 32, 40, 64]))
        if b and not (a == 1 << 63 and b == M):
            pairs.append((a, b))
    assert all(b != 0 and not (a == 1 << 63 and b == M) for a, b in pairs)

    def sgn(x):
        return x - (1 << 64) if x >> 63 else x

    out = []
    for a, b in pairs:
        sa, sb = sgn(a), sgn(b)
        q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        r = sa - sb * q  # the dividend's sign (truncated division)
        m = r + sb if r != 0 and (r < 0) != (sb < 0) else r
        out += [a // b, a % b, q & M, m & M]
    return f"""#!amber
# 64-bit integer division through the SASS engine: per lane i, with a = x[i], b = x[32 + i]
# (divisors above 2^63, equal to the dividend, 1, all ones, random widths; never 0 and
# never INT64_MIN / -1, which are undefined): o = (a / b, a % b, int64(a) / int64(b),
# int64(a) % int64(b)) (OpUDiv, OpUMod, OpSDiv, OpSMod: the divisor's sign). Written by
# ../gen_int64.py with Python's integers.
SHADER compute div64 GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint64_t x[]; }};
layout(std430, binding = 1) buffer O {{ uint64_t o[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  uint64_t a = x[i], b = x[32 + i];
  o[4 * i + 0] = a / b;
  o[4 * i + 1] = a % b;
  o[4 * i + 2] = uint64_t(int64_t(a) / int64_t(b));
  o[4 * i + 3] = uint64_t(int64_t(a) % int64_t(b));
}}
END
BUFFER x DATA_TYPE uint64 DATA
{data([a for a, _ in pairs] + [b for _, b in pairs], 4)}
END
BUFFER o DATA_TYPE uint64 SIZE 128 FILL 0
{dispatch("p", "div64", "x o")}
{expects("o", out, 4, 8)}
"""


# ---- atomic64.amber -------------------------------------------------------------------


def atomic64_script():
    """64-bit buffer atomics: shared words whose final value does not depend on the
    order of the lanes, and per-lane words whose returned old values do not either."""
    M = (1 << 64) - 1
    rng = random.Random(6464)
    v = [(i * 0x9E3779B97F4A7C15 ^ i << 40 ^ rng.getrandbits(64)) & M for i in range(32)]

    def sgn(x):
        return x - (1 << 64) if x >> 63 else x

    shared0 = [0xFFFF, M, 0, M, 0, 0x5555555555555555, 0, 0]
    unsigned = shared0[:6]
    signed = shared0[6:]
    own = [rng.getrandbits(64) for _ in range(32 * 8)]
    fin = list(unsigned)
    for x in v:
        fin[0] = (fin[0] + x) & M
        fin[1] = min(fin[1], x)
        fin[2] = max(fin[2], x)
        fin[3] &= x | 0x8000000000000001
        fin[4] |= x & 0xF0F0F0F0F0F0F0F0
        fin[5] ^= x
    sfin = [min([sgn(signed[0])] + [sgn(x) for x in v]) & M, max([sgn(signed[1])] + [sgn(x) for x in v]) & M]
    ret = []
    after = []
    for i in range(32):
        o = own[8 * i : 8 * i + 8]
        x = v[i]
        ret += [o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]]
        after += [
            (o[0] + x) & M,
            x,
            x,  # compare-exchange with the old value: stores
            o[3],  # with another comparator: does not
            min(o[4], x),
            max(sgn(o[5]), sgn(x)) & M,
            (o[6] - x) & M,
            (o[7] + 1) & M,
        ]
    return f"""#!amber
# 64-bit buffer atomics through the SASS engine (ATOMG.E.<op>.64/.S64, CAS.64): the 32
# lanes race on eight shared words with add, unsigned and signed min and max, and, or,
# xor (final values independent of the lanes' order), and each lane applies add,
# exchange, compare-exchange (one storing, one not), min, signed max, subtract and
# increment to words of its own, keeping the old values, and an atomic load and store
# (an add of 0 and an exchange: two 32-bit accesses could tear). Written by
# ../gen_int64.py with Python's integers.
SHADER compute atomic64 GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer A {{ uint64_t a[]; }};
layout(std430, binding = 1) buffer S {{ int64_t s[]; }};
layout(std430, binding = 2) buffer V {{ uint64_t v[]; }};
layout(std430, binding = 3) buffer O {{ uint64_t o[]; }};
layout(std430, binding = 4) buffer R {{ uint64_t r[]; }};
layout(std430, binding = 5) buffer L {{ uint64_t l[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  uint64_t x = v[i];
  atomicAdd(a[0], x);
  atomicMin(a[1], x);
  atomicMax(a[2], x);
  atomicAnd(a[3], x | 0x8000000000000001ul);
  atomicOr(a[4], x & 0xF0F0F0F0F0F0F0F0ul);
  atomicXor(a[5], x);
  atomicMin(s[0], int64_t(x));
  atomicMax(s[1], int64_t(x));
  uint b = 8u * i;
  uint64_t old2 = o[b + 2u];
  r[b + 0u] = atomicAdd(o[b + 0u], x);
  r[b + 1u] = atomicExchange(o[b + 1u], x);
  r[b + 2u] = atomicCompSwap(o[b + 2u], old2, x);
  r[b + 3u] = atomicCompSwap(o[b + 3u], ~o[b + 3u], x);
  r[b + 4u] = atomicMin(o[b + 4u], x);
  r[b + 5u] = uint64_t(atomicMax(s[2u + i], int64_t(x)));
  r[b + 6u] = atomicAdd(o[b + 6u], -x);
  r[b + 7u] = atomicAdd(o[b + 7u], 1ul);
  l[2u * i] = atomicLoad(o[b + 3u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  atomicStore(l[2u * i + 1u], x, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}}
END
BUFFER a DATA_TYPE uint64 DATA
{data(unsigned, 4)}
END
BUFFER s DATA_TYPE uint64 DATA
{data(signed + [own[8 * i + 5] for i in range(32)], 4)}
END
BUFFER v DATA_TYPE uint64 DATA
{data(v, 4)}
END
BUFFER o DATA_TYPE uint64 DATA
{data(own, 4)}
END
BUFFER r DATA_TYPE uint64 SIZE 256 FILL 0
BUFFER l DATA_TYPE uint64 SIZE 64 FILL 0
{dispatch("p", "atomic64", "a s v o r l")}
{expects("a", fin, 3, 8)}
{expects("s", sfin + [after[8 * i + 5] for i in range(32)], 4, 8)}
{expects("r", ret, 4, 8)}
{expects("o", [x if k % 8 != 5 else None for k, x in enumerate(after)], 4, 8)}
{expects("l", [w for i in range(32) for w in (own[8 * i + 3], v[i])], 4, 8)}
"""



def glsl64_script():
    """64-bit min, max, clamp, abs and sign, unsigned and signed."""
    rng = random.Random(6400)
    M = (1 << 64) - 1
    edge = [0, 1, M, 1 << 63, (1 << 63) - 1, 0xFFFFFFFF, 1 << 32, M - 0xFFFFFFFF]
    xs = edge + [rng.getrandbits(rng.choice([8, 31, 32, 33, 63, 64])) for _ in range(24)]

    def sgn(x):
        return x - (1 << 64) if x >> 63 else x

    out = []
    for i in range(32):
        a, b, c = xs[i], xs[(i + 3) % 32], xs[(i + 7) % 32]
        lo, hi = min(b, c), max(b, c)
        slo, shi = sorted([sgn(b), sgn(c)])
        sa = sgn(a)
        out += [
            min(a, b), max(a, b), min(max(a, lo), hi),
            min(sa, sgn(b)) & M, max(sa, sgn(b)) & M, min(max(sa, slo), shi) & M,
            abs(sa) & M, (0 if sa == 0 else 1 if sa > 0 else -1) & M,
        ]
    return f"""#!amber
# GLSL's integer min, max, clamp (unsigned and signed), abs and sign on 64-bit values
# through the SASS engine: per lane i, with a = x[i], b = x[i + 3], c = x[i + 7] (mod 32)
# over zero, one, all ones, 2^63 and its neighbour, the 32-bit boundaries and random
# widths: o = (umin(a, b), umax(a, b), uclamp(a, umin(b, c), umax(b, c)), smin, smax,
# sclamp likewise, sabs(a), ssign(a)) (abs(INT64_MIN) wraps, as the reference's does).
# Written by ../gen_int64.py with Python's integers.
SHADER compute glsl64 GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X {{ uint64_t x[]; }};
layout(std430, binding = 1) buffer O {{ uint64_t o[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  uint64_t a = x[i], b = x[(i + 3u) % 32u], c = x[(i + 7u) % 32u];
  int64_t sa = int64_t(a), sb = int64_t(b), sc = int64_t(c);
  uint e = 8u * i;
  o[e + 0u] = min(a, b);
  o[e + 1u] = max(a, b);
  o[e + 2u] = clamp(a, min(b, c), max(b, c));
  o[e + 3u] = uint64_t(min(sa, sb));
  o[e + 4u] = uint64_t(max(sa, sb));
  o[e + 5u] = uint64_t(clamp(sa, min(sb, sc), max(sb, sc)));
  o[e + 6u] = uint64_t(abs(sa));
  o[e + 7u] = uint64_t(sign(sa));
}}
END
BUFFER x DATA_TYPE uint64 DATA
{data(xs, 4)}
END
BUFFER o DATA_TYPE uint64 SIZE 256 FILL 0
{dispatch("p", "glsl64", "x o")}
{expects("o", out, 4, 8)}
"""

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, text in [
        ("div64", div64_script()),
        ("atomic64", atomic64_script()),
        ("glsl64", glsl64_script()),
    ]:
        with open(os.path.join(here, "wide", name + ".amber"), "w") as f:
            f.write(text)
