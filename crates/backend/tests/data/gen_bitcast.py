#!/usr/bin/env python3
"""Prints crates/backend/tests/data/wide/bitcast.amber (python3 gen_bitcast.py > wide/bitcast.amber).

Bitcasts that join narrow scalars into words or split words into them (an f16, 8- or
16-bit integer lives zero-extended in its own register): per lane i (16 lanes), w = x[i]
and q = the 64-bit (x[i], x[(i + 1) % 16]) (low word first):
o[6i ..] = packFloat2x16(unpackFloat2x16(w).yx), packFloat2x16(h * h) (f16 squares),
pack32(unpack8(w).wzyx), pack32(unpack16(w) + 1) (each half wrapping), and the two words
of pack64(unpack16(q).wzyx). The expected words are computed here with Python integers
(byte and half-word shuffles) and exact f16 products rounded by hand (gen_common)."""
import random
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from gen_common import round_frac, to_frac  # noqa: E402

random.seed(20261207)
LANES = 16


def half():
    """A finite f16 (exponent field 0..30), some in the subnormal range."""
    return random.getrandbits(1) << 15 | random.randint(0, 30) << 10 | random.getrandbits(10)


def hmul(a, b):
    p = to_frac(a, 16) * to_frac(b, 16)
    if p == 0:
        return ((a ^ b) >> 15 & 1) << 15
    return round_frac(p, 16)


xs = [half() | half() << 16 for _ in range(LANES)]
xs[0] = 0x8000_0000  # -0.0 in the high half, +0.0 in the low
xs[1] = 0xFFFF_0001  # a NaN half is avoided in f16 lanes: only the integer views see it
out = []
for i, w in enumerate(xs):
    lo, hi = w & 0xFFFF, w >> 16
    q = w | xs[(i + 1) % LANES] << 32
    halves = [(q >> (16 * k)) & 0xFFFF for k in range(4)]
    rev = halves[3] | halves[2] << 16 | halves[1] << 32 | halves[0] << 48
    sq = None if i == 1 else hmul(lo, lo) | hmul(hi, hi) << 16
    out += [
        hi | lo << 16,
        sq,
        int.from_bytes(w.to_bytes(4, "little")[::-1], "little"),
        ((lo + 1) & 0xFFFF) | ((hi + 1) & 0xFFFF) << 16,
        rev & 0xFFFF_FFFF,
        rev >> 32,
    ]

print("#!amber")
for line in __doc__.strip().split("\n"):
    print("# " + line if line else "#")
print("# Lane 1's f16 square (a NaN) is not checked. Written by ../gen_bitcast.py.")
print("""SHADER compute bitcast GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer X { uint x[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint w = x[i];
  f16vec2 h = unpackFloat2x16(w);
  o[6u * i + 0u] = packFloat2x16(h.yx);
  o[6u * i + 1u] = packFloat2x16(h * h);
  o[6u * i + 2u] = pack32(unpack8(w).wzyx);
  o[6u * i + 3u] = pack32(unpack16(w) + u16vec2(1));
  uint64_t q = packUint2x32(uvec2(w, x[(i + 1u) % 16u]));
  uvec2 r = unpackUint2x32(pack64(unpack16(q).wzyx));
  o[6u * i + 4u] = r.x;
  o[6u * i + 5u] = r.y;
}
END""")
print("BUFFER x DATA_TYPE uint32 DATA")
for k in range(0, LANES, 8):
    print(" ".join(str(v) for v in xs[k : k + 8]))
print("END")
print(f"BUFFER o DATA_TYPE uint32 SIZE {len(out)} FILL 0")
print("""PIPELINE compute p
  ATTACH bitcast
  BIND BUFFER x AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1""")
run = []
for k, v in enumerate(out + [None]):
    if v is not None:
        run.append((k, v))
        if len(run) < 6:
            continue
    if run:
        print(f"EXPECT o IDX {4 * run[0][0]} EQ " + " ".join(str(x) for _, x in run))
    run = []
