#!/usr/bin/env python3
"""Prints crates/backend/tests/data/wide/matrix.amber (python3 gen_matrix.py > wide/matrix.amber).

Matrices in f16, f32 and f64 through the SASS engine. Per lane i (32 lanes), sixteen input
scalars x[16i ..]: random finite values of modest range; lane 0 scaled small (products and
determinants in the subnormal range of the width), lane 1 small integers and signed zeros
(exact cancellations). Each lane writes one std430 struct: transpose, matrix x scalar,
vector x matrix, matrix x vector, matrix x matrix, outer product, determinant and inverse
of 2x2, 3x3 and 4x4 matrices, a matrix with a column and an element replaced, a column
picked by a dynamic index, and a row-major buffer (RowMajor, MatrixStride) written whole,
read back by a dynamic column index (a strided gather) and written by one element through
a dynamic access chain (a strided scatter).

The expected words are computed here, independently of tangle: products and sums exact
(Fractions), each rounded to the width by hand (round to nearest even; IEEE's signs of
zero), in the order SPIR-V's reference semantics take (sums in index order, from the first
product); determinants and inverses by the reference's binary64 definition (cofactor
expansion along the first row, in Python floats, which are IEEE binary64) rounded once to
the width. Buffers are given and checked as 32-bit words (f16 halves two to a word, low
first; f64 as low and high words); padding bytes stay at the FILL value 0.
"""
import random
import struct
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from gen_common import FMT, from_f64, round_frac, to_frac, value  # noqa: E402

random.seed(20261207)
LANES = 32

# ---- IEEE arithmetic of one width, exact then rounded once -------------------------


def sign(b, w):
    return b >> (w - 1) & 1


def fmul(a, b, w):
    p = to_frac(a, w) * to_frac(b, w)
    if p == 0:
        return (sign(a, w) ^ sign(b, w)) << (w - 1)
    return round_frac(p, w)


def fadd(a, b, w):
    s = to_frac(a, w) + to_frac(b, w)
    if s == 0:
        return (1 << (w - 1)) if sign(a, w) and sign(b, w) else 0
    return round_frac(s, w)


def fdot(xs, ys, w):
    acc = None
    for x, y in zip(xs, ys):
        p = fmul(x, y, w)
        acc = p if acc is None else fadd(acc, p, w)
    return acc


# Matrices are lists of columns, each a list of component bits.


def rows_of(m):
    return len(m[0])


def transpose(m):
    return [[c[i] for c in m] for i in range(rows_of(m))]


def times_vector(m, v, w):
    return [fdot([c[i] for c in m], v, w) for i in range(rows_of(m))]


def det64(a):
    """The reference's determinant of rows a (Python floats: binary64)."""
    n = len(a)
    if n == 1:
        return a[0][0]
    if n == 2:
        return a[0][0] * a[1][1] - a[0][1] * a[1][0]
    s = -0.0
    for j in range(n):
        s += a[0][j] * cof64(a, 0, j)
    return s


def cof64(a, i, j):
    minor = [[x for c, x in enumerate(r) if c != j] for k, r in enumerate(a) if k != i]
    d = det64(minor)
    return d if (i + j) % 2 == 0 else -d


def as_rows(m, w):
    n = len(m)
    return [[value(m[j][i], w) for j in range(n)] for i in range(n)]


def determinant(m, w):
    d = det64(as_rows(m, w))
    assert d != 0
    return from_f64(d, w)


def inverse(m, w):
    a = as_rows(m, w)
    d = det64(a)
    assert d != 0 and abs(d) != float("inf"), "singular"
    n = len(m)
    return [[from_f64(cof64(a, j, i) / d, w) for i in range(n)] for j in range(n)]


# ---- inputs ------------------------------------------------------------------------


def rand_float(w, lo, hi):
    e_bits, m_bits = FMT[w]
    bias = (1 << (e_bits - 1)) - 1
    e = random.randint(lo, hi) + bias
    return random.getrandbits(1) << (w - 1) | e << m_bits | random.getrandbits(m_bits)


def exact_int(k, w):
    """A small integer (or -0 for 'm0') as bits of width w."""
    if k == "m0":
        return 1 << (w - 1)
    return from_f64(float(k), w)


SMALL = {16: -9, 32: -66, 64: -262}


def lane_inputs(lane, w):
    if lane == 1:
        ks = [1, -2, 3, "m0", 2, 1, -1, 0, 4, 2, -3, 1, 2, -1, 1, 3]
        return [exact_int(k, w) for k in ks]
    if lane == 0:
        return [rand_float(w, SMALL[w] - 1, SMALL[w] + 1) for _ in range(16)]
    return [rand_float(w, -3, 2) for _ in range(16)]


# ---- std430 layout -------------------------------------------------------------------

# Member kinds: ("s",), ("v", n), ("m", cols, rows, row_major).


def vec_align(n, s):
    return s * (4 if n == 3 else n)


def align_size(t, s):
    if t[0] == "s":
        return s, s
    if t[0] == "v":
        return vec_align(t[1], s), s * t[1]
    _, cols, rows, rm = t
    vec = cols if rm else rows
    count = rows if rm else cols
    a = vec_align(vec, s)
    return a, a * count


def glsl_type(t, w):
    p = {16: "f16", 32: "", 64: "d"}[w]
    if t[0] == "s":
        return {16: "float16_t", 32: "float", 64: "double"}[w]
    if t[0] == "v":
        return f"{p}vec{t[1]}" if w != 32 else f"vec{t[1]}"
    _, c, r, _ = t
    return (f"{p}mat{c}x{r}") if w != 32 else f"mat{c}x{r}"


MEMBERS = [
    ("t", ("m", 3, 2, False)),  # transpose(A)
    ("ms", ("m", 2, 3, False)),  # A * s
    ("va", ("v", 2)),  # v * A
    ("av", ("v", 3)),  # A * u
    ("ab", ("m", 3, 3, False)),  # A * B
    ("op", ("m", 2, 3, False)),  # outerProduct(v, u)
    ("d2", ("s",)),
    ("d3", ("s",)),
    ("d4", ("s",)),
    ("i2", ("m", 2, 2, False)),
    ("i3", ("m", 3, 3, False)),
    ("i4", ("m", 4, 4, False)),
    ("ins", ("m", 3, 3, False)),  # R with column 1 := v and element [2][0] := s
    ("ex", ("v", 3)),  # A[i % 2] (a dynamic column index into a matrix value)
    ("col", ("v", 3)),  # rab[i % 3] read back (a strided gather)
]
# The row-major buffer's element: A * B, then rab[(i+1)%3][i%2] := s.
RAB = ("m", 3, 3, True)


def layout(w):
    s = w // 8
    off, out, big = 0, {}, 0
    for name, t in MEMBERS:
        a, size = align_size(t, s)
        off = (off + a - 1) // a * a
        out[name] = off
        off += size
        big = max(big, a)
    return out, (off + big - 1) // big * big


def put(img, off, t, val, w):
    """Writes val (bits; a vector's list; a matrix's list of columns) at off."""
    s = w // 8
    if t[0] == "s":
        img[off : off + s] = val.to_bytes(s, "little")
    elif t[0] == "v":
        for k, x in enumerate(val):
            put(img, off + k * s, ("s",), x, w)
    else:
        _, cols, rows, rm = t
        stride, _ = align_size(("v", rows if not rm else cols), s)
        for c in range(cols):
            for r in range(rows):
                at = off + (r * stride + c * s if rm else c * stride + r * s)
                put(img, at, ("s",), val[c][r], w)


def expected(w):
    lay, size = layout(w)
    img = bytearray(size * LANES)
    rsize = align_size(RAB, w // 8)[1]
    rimg = bytearray(rsize * LANES)
    inputs = []
    for lane in range(LANES):
        while True:
            x = lane_inputs(lane, w)
            A = [x[0:3], x[3:6]]
            B = [x[6:8], x[8:10], x[10:12]]
            v, u, s = x[12:15], [x[15], x[0]], x[6]
            Q = [x[0:4], x[4:8], x[8:12], x[12:16]]
            R = [x[1:4], x[4:7], x[7:10]]
            S = [x[2:4], x[4:6]]
            try:
                got = {
                    "t": transpose(A),
                    "ms": [[fmul(e, s, w) for e in c] for c in A],
                    "va": [fdot(v, c, w) for c in A],
                    "av": times_vector(A, u, w),
                    "ab": [times_vector(A, c, w) for c in B],
                    "op": [[fmul(a, b, w) for a in v] for b in u],
                    "d2": determinant(S, w),
                    "d3": determinant(R, w),
                    "d4": determinant(Q, w),
                    "i2": inverse(S, w),
                    "i3": inverse(R, w),
                    "i4": inverse(Q, w),
                }
            except AssertionError:
                assert lane > 1, "the fixed lanes must not be singular"
                continue
            break
        inputs.extend(x)
        ins = [list(c) for c in R]
        ins[1] = list(v)
        ins[2][0] = s
        got["ins"] = ins
        got["ex"] = A[lane % 2]
        rab = [list(c) for c in got["ab"]]
        got["col"] = list(rab[lane % 3])
        rab[(lane + 1) % 3][lane % 2] = s
        put(rimg, lane * rsize, RAB, rab, w)
        for name, t in MEMBERS:
            put(img, lane * size + lay[name], t, got[name], w)
    return inputs, img, rimg


def words(b):
    return list(struct.unpack(f"<{len(b) // 4}I", bytes(b)))


def shader(w):
    T = glsl_type(("s",), w)
    V = lambda n: glsl_type(("v", n), w)  # noqa: E731
    M = lambda c, r: glsl_type(("m", c, r, False), w)  # noqa: E731
    ext = ""
    if w == 16:
        ext = (
            "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
            "#extension GL_EXT_shader_16bit_storage : require\n"
        )
    members = []
    for name, t in MEMBERS:
        members.append(f"  {glsl_type(t, w)} {name};")
    body = f"""#version 450
{ext}layout(local_size_x = 32) in;
struct Out {{
{chr(10).join(members)}
}};
layout(std430, binding = 0) buffer X {{ {T} x[]; }};
layout(std430, binding = 1) buffer O {{ Out o[]; }};
layout(std430, binding = 2) buffer RM {{ layout(row_major) {M(3, 3)} rab[]; }};
void main() {{
  uint i = gl_LocalInvocationIndex;
  uint b = 16u * i;
  {M(2, 3)} A = {M(2, 3)}({V(3)}(x[b], x[b + 1u], x[b + 2u]), {V(3)}(x[b + 3u], x[b + 4u], x[b + 5u]));
  {M(3, 2)} B = {M(3, 2)}({V(2)}(x[b + 6u], x[b + 7u]), {V(2)}(x[b + 8u], x[b + 9u]), {V(2)}(x[b + 10u], x[b + 11u]));
  {V(3)} v = {V(3)}(x[b + 12u], x[b + 13u], x[b + 14u]);
  {V(2)} u = {V(2)}(x[b + 15u], x[b]);
  {T} s = x[b + 6u];
  {M(4, 4)} Q = {M(4, 4)}(x[b], x[b + 1u], x[b + 2u], x[b + 3u], x[b + 4u], x[b + 5u], x[b + 6u], x[b + 7u],
      x[b + 8u], x[b + 9u], x[b + 10u], x[b + 11u], x[b + 12u], x[b + 13u], x[b + 14u], x[b + 15u]);
  {M(3, 3)} R = {M(3, 3)}(x[b + 1u], x[b + 2u], x[b + 3u], x[b + 4u], x[b + 5u], x[b + 6u], x[b + 7u], x[b + 8u], x[b + 9u]);
  {M(2, 2)} S = {M(2, 2)}(x[b + 2u], x[b + 3u], x[b + 4u], x[b + 5u]);
  o[i].t = transpose(A);
  o[i].ms = A * s;
  o[i].va = v * A;
  o[i].av = A * u;
  o[i].ab = A * B;
  o[i].op = outerProduct(v, u);
  o[i].d2 = determinant(S);
  o[i].d3 = determinant(R);
  o[i].d4 = determinant(Q);
  o[i].i2 = inverse(S);
  o[i].i3 = inverse(R);
  o[i].i4 = inverse(Q);
  {M(3, 3)} ins = R;
  ins[1] = v;
  ins[2][0] = s;
  o[i].ins = ins;
  o[i].ex = A[i % 2u];
  rab[i] = A * B;
  o[i].col = rab[i][i % 3u];
  rab[i][(i + 1u) % 3u][i % 2u] = s;
}}"""
    return body


def main():
    out = ["#!amber"]
    out += ["# " + line if line else "#" for line in __doc__.strip().split("\n")]
    out.append("# Written by ../gen_matrix.py; do not edit by hand.")
    for w in (16, 32, 64):
        inputs, img, rimg = expected(w)
        s = w // 8
        raw = b"".join(x.to_bytes(s, "little") for x in inputs)
        out.append(f"SHADER compute mat{w} GLSL")
        out.append(shader(w))
        out.append("END")
        out.append(f"BUFFER x{w} DATA_TYPE uint32 DATA")
        xs = words(raw)
        for k in range(0, len(xs), 8):
            out.append(" ".join(str(v) for v in xs[k : k + 8]))
        out.append("END")
        ws = words(img)
        out.append(f"BUFFER o{w} DATA_TYPE uint32 SIZE {len(ws)} FILL 0")
        rs = words(rimg)
        out.append(f"BUFFER r{w} DATA_TYPE uint32 SIZE {len(rs)} FILL 0")
        out.append(f"PIPELINE compute p{w}")
        out.append(f"  ATTACH mat{w}")
        out.append(f"  BIND BUFFER x{w} AS storage DESCRIPTOR_SET 0 BINDING 0")
        out.append(f"  BIND BUFFER o{w} AS storage DESCRIPTOR_SET 0 BINDING 1")
        out.append(f"  BIND BUFFER r{w} AS storage DESCRIPTOR_SET 0 BINDING 2")
        out.append("END")
        out.append(f"RUN p{w} 1 1 1")
        for k in range(0, len(ws), 8):
            out.append(
                f"EXPECT o{w} IDX {4 * k} EQ " + " ".join(str(v) for v in ws[k : k + 8])
            )
        for k in range(0, len(rs), 8):
            out.append(
                f"EXPECT r{w} IDX {4 * k} EQ " + " ".join(str(v) for v in rs[k : k + 8])
            )
    print("\n".join(out))


main()
