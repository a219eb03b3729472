"""Helpers of the test-data generators: IEEE binary16/32/64 values as exact fractions,
rounding to nearest even by hand, and AmberScript EXPECT/DATA lines."""
import math
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


def from_f64(v, w):
    """A Python float rounded once to width w (the reference's last step)."""
    sign = 1 << (w - 1) if math.copysign(1.0, v) < 0 else 0
    if math.isinf(v):
        return sign | FMT_INF[w]
    return sign | round_frac(F(abs(v)), w)


FMT_INF = {w: ((1 << FMT[w][0]) - 1) << FMT[w][1] for w in FMT}


def value(bits, w):
    """A float of width w as a Python float (exact; -0 kept)."""
    return math.copysign(float(to_frac(bits, w)), -1.0 if bits >> (w - 1) & 1 else 1.0)


def is_nan(bits, w):
    return bits & ~(1 << (w - 1)) > FMT_INF[w]

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


def dispatch(pipeline, shader, buffers):
    """A compute pipeline attaching `shader` with `buffers` (names, in binding order) as
    storage buffers of descriptor set 0, and its one-workgroup RUN."""
    binds = "".join(
        f"  BIND BUFFER {b} AS storage DESCRIPTOR_SET 0 BINDING {i}\n"
        for i, b in enumerate(buffers.split())
    )
    return f"PIPELINE compute {pipeline}\n  ATTACH {shader}\n{binds}END\nRUN {pipeline} 1 1 1"


def data(vals, per_line=8):
    return "\n".join(
        " ".join(str(v) for v in vals[i : i + per_line]) for i in range(0, len(vals), per_line)
    )


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


