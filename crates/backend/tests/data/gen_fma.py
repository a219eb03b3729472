#!/usr/bin/env python3
# Prints crates/backend/tests/data/wide/fma.amber (python3 gen_fma.py > wide/fma.amber): f32 fma(a, b, c) per lane, with the
# expected words computed from the exact value a*b+c (Fractions) rounded once to f32.
import random, struct
from fractions import Fraction as F
random.seed(20261202)
def f32(bits): return struct.unpack('<f', struct.pack('<I', bits))[0]
def bits(x): return struct.unpack('<I', struct.pack('<f', x))[0]
def round_f32(x):
    """x (a Fraction) rounded to nearest-even f32, as bits; +0 for 0 (callers handle -0)."""
    if x == 0: return 0
    sign = 0x80000000 if x < 0 else 0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if F(2) ** e > a: e -= 1
    if F(2) ** (e + 1) <= a: e += 1
    e = max(e, -126)
    ulp = F(2) ** (e - 23)
    q = a / ulp
    n = q.numerator // q.denominator
    r = q - n
    if r > F(1, 2) or (r == F(1, 2) and n % 2 == 1): n += 1
    v = n * ulp
    if v >= F(2) ** 128: return sign | 0x7f800000
    return sign | bits(float(v))
def fused(a, b, c):
    fa, fb, fc = f32(a), f32(b), f32(c)
    p = F(fa) * F(fb)
    s = p + F(fc)
    if s == 0:
        pneg = (fa < 0 or (fa == 0 and a >> 31)) != (fb < 0 or (fb == 0 and b >> 31))
        cneg = bool(c >> 31)
        if p == 0 and fc == 0:
            return 0x80000000 if (pneg and cneg) else 0
        return 0
    return round_f32(s)
def finite(b): return (b >> 23) & 0xff != 0xff
cases = []
one = 0x3f800000
# Where the unfused a*b+c differs: (1+2^-12)(1-2^-12) - 1 = -2^-24, and similar.
cases += [(bits(1 + 2**-12), bits(1 - 2**-12), bits(-1.0)),
          (bits(1 + 2**-23), bits(1 + 2**-23), bits(-1.0)),
          (bits(3.0), bits(1/3), bits(-1.0)),
          (bits(0.1), bits(10.0), bits(-1.0)),
          (bits(-0.0), bits(5.0), bits(-0.0)),
          (bits(0.0), bits(-5.0), bits(0.0)),
          (bits(2.0**100), bits(2.0**100), bits(1.0)),
          (bits(2.0**-100), bits(2.0**-40), bits(2.0**-149)),
          (0x00000001, bits(0.5), 0x00000000),
          (0x00000003, bits(0.5), 0x80000000)]
while len(cases) < 96:
    k = random.random()
    if k < 0.5:
        t = tuple(random.getrandbits(32) for _ in range(3))
    else:
        # Near-cancelling: c close to -(a*b).
        a = random.getrandbits(32) & 0xbfffffff | 0x30000000
        b = random.getrandbits(32) & 0xbfffffff | 0x30000000
        p = f32(a) * f32(b)
        c = bits(-p) ^ random.getrandbits(3)
        t = (a, b, c)
    if all(finite(x) for x in t):
        r = fused(*t)
        if finite(r) or (r & 0x7fffffff) == 0x7f800000:
            cases.append(t)
xs = [w for t in cases for w in t]
expect = [fused(*t) for t in cases]
out = []
out.append("#!amber")
out.append("# f32 fma(a, b, c) through the SASS engine, bit for bit: per lane i (96 lanes), a, b, c =")
out.append("# x[3i], x[3i+1], x[3i+2] (finite f32 words: random ones, near-cancelling ones and")
out.append("# hand-picked ones where a*b+c rounded twice differs). The EXPECTs are the exact a*b+c")
out.append("# (Python Fractions) rounded once to nearest-even f32, written by ../gen_fma.py")
out.append("# (Python, exact); an exact zero is +0 unless the product and c are both -0.")
out.append("SHADER compute fma GLSL")
out.append("#version 450")
out.append("layout(local_size_x = 32) in;")
out.append("layout(std430, binding = 0) buffer X { uint x[]; };")
out.append("layout(std430, binding = 1) buffer O { uint o[]; };")
out.append("void main() {")
out.append("  uint i = gl_GlobalInvocationID.x;")
out.append("  o[i] = floatBitsToUint(fma(uintBitsToFloat(x[3u * i]), uintBitsToFloat(x[3u * i + 1u]), uintBitsToFloat(x[3u * i + 2u])));")
out.append("}")
out.append("END")
out.append("BUFFER x DATA_TYPE uint32 DATA")
for k in range(0, len(xs), 8):
    out.append(" ".join(str(v) for v in xs[k:k+8]))
out.append("END")
out.append("BUFFER o DATA_TYPE uint32 SIZE 96 FILL 0")
out.append("PIPELINE compute p")
out.append("  ATTACH fma")
out.append("  BIND BUFFER x AS storage DESCRIPTOR_SET 0 BINDING 0")
out.append("  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 1")
out.append("END")
out.append("RUN p 3 1 1")
for k in range(0, len(expect), 8):
    out.append("EXPECT o IDX %d EQ %s" % (4 * k, " ".join(str(v) for v in expect[k:k+8])))
print("\n".join(out))
