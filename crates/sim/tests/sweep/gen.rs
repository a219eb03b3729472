//! The sweep's sources and inputs: the CUDA file with every case's kernel, the host
//! program that computes the expected outputs from the same expressions, and the input
//! arrays.

use super::cases::{Body, Case, Check, Set, Ty};

/// Threads per launch: 2 blocks of 64.
pub const N: usize = 128;

/// The CUDA translation unit with every case's kernel (cases above `sm` left out).
pub fn cuda_source(cases: &[Case], sm: u32) -> String {
    let mut s = String::new();
    for c in cases.iter().filter(|c| c.min_sm <= sm) {
        let (a, b, r) = (c.a.0.c(), c.b.0.c(), c.out.c());
        let head = format!(
            "extern \"C\" __global__ void k_{}(const {a} *__restrict__ a, const {b} *__restrict__ b, {r} *out) {{\n  int t = blockIdx.x * blockDim.x + threadIdx.x;\n",
            c.name
        );
        match &c.body {
            Body::Elementwise(e) => {
                s += &format!(
                    "__device__ inline {r} f_{}({a} a, {b} b) {{ return {e}; }}\n",
                    c.name
                );
                s += &head;
                s += &format!("  out[t] = f_{}(a[t], b[t]);\n}}\n\n", c.name);
            }
            Body::GlobalAtomic(stmt) => {
                s += &head;
                s += &format!("  {stmt}\n}}\n\n");
            }
            Body::SharedAtomic(stmt) => {
                s += &head;
                s += &format!(
                    "  __shared__ {r} s[4];\n  if (threadIdx.x < 4) s[threadIdx.x] = 0;\n  __syncthreads();\n  {stmt}\n  __syncthreads();\n  if (threadIdx.x < 4) out[4 * blockIdx.x + threadIdx.x] = s[threadIdx.x];\n}}\n\n"
                );
            }
            Body::Warp(stmt) => {
                s += &head;
                s += &format!("  int lane = threadIdx.x & 31; (void)lane;\n  {stmt}\n}}\n\n");
            }
        }
    }
    s
}

/// The host program: reads `NAME.a`/`NAME.b` from the directory given as its argument and
/// writes `NAME.want` for every checked case.
pub fn host_source(cases: &[Case]) -> String {
    let mut s = String::from(
        "#include \"host_shims.h\"\n#include <cstdio>\n#include <cstdlib>\n#include <string>\n#include <vector>\n\n\
         static std::string dir;\n\
         static std::vector<char> rd(const std::string &n) {\n  FILE *f = fopen((dir + \"/\" + n).c_str(), \"rb\");\n  if (!f) { perror(n.c_str()); exit(2); }\n  std::vector<char> v(1 << 20);\n  v.resize(fread(v.data(), 1, v.size(), f));\n  fclose(f);\n  return v;\n}\n\
         static void wr(const std::string &n, const void *p, size_t len) {\n  FILE *f = fopen((dir + \"/\" + n).c_str(), \"wb\");\n  fwrite(p, 1, len, f);\n  fclose(f);\n}\n\n",
    );
    let checked: Vec<&Case> = cases.iter().filter(|c| c.check != Check::RunOnly).collect();
    for c in &checked {
        if let Body::Elementwise(e) = &c.body {
            s += &format!(
                "static {} f_{}({} a, {} b) {{ (void)a; (void)b; return {e}; }}\n",
                c.out.c(),
                c.name,
                c.a.0.c(),
                c.b.0.c()
            );
        }
    }
    s += &format!("\nint main(int argc, char **argv) {{\n  dir = argv[1];\n  const int N = {N};\n  (void)argc;\n");
    for c in &checked {
        let (a, b, r) = (c.a.0.c(), c.b.0.c(), c.out.c());
        s += &format!(
            "  {{\n    auto va = rd(\"{n}.a\"), vb = rd(\"{n}.b\");\n    const {a} *a = (const {a} *)va.data();\n    const {b} *b = (const {b} *)vb.data();\n    (void)a; (void)b;\n    static {r} out[4 + N];\n",
            n = c.name
        );
        match &c.body {
            Body::Elementwise(_) => {
                s += &format!(
                    "    for (int t = 0; t < N; t++) out[t] = f_{}(a[t], b[t]);\n    wr(\"{}.want\", out, N * sizeof(*out));\n",
                    c.name, c.name
                );
            }
            Body::GlobalAtomic(stmt) => {
                s += &format!(
                    "    for (int t = 0; t < N; t++) {{ {stmt} }}\n    wr(\"{}.want\", out, (4 + N) * sizeof(*out));\n",
                    c.name
                );
            }
            Body::SharedAtomic(stmt) => {
                s += &format!(
                    "    for (int blk = 0; blk < 2; blk++) {{\n      {r} s[4] = {{}};\n      for (int t = blk * 64; t < blk * 64 + 64; t++) {{ {stmt} }}\n      for (int i = 0; i < 4; i++) out[4 * blk + i] = s[i];\n    }}\n    wr(\"{}.want\", out, (4 + N) * sizeof(*out));\n",
                    c.name
                );
            }
            Body::Warp(_) => unreachable!("warp cases are run only"),
        }
        s += "  }\n";
    }
    s += "  return 0;\n}\n";
    s
}

/// SplitMix64: the inputs' pseudo-random stream.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A float in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The range `[lo, hi)` a float converted to the integer type `to` must lie in.
fn int_range(to: Ty) -> (f64, f64) {
    match to {
        Ty::I8 => (-128.0, 128.0),
        Ty::U8 => (0.0, 256.0),
        Ty::I16 => (-32768.0, 32768.0),
        Ty::U16 => (0.0, 65536.0),
        Ty::I32 => (-2147483648.0, 2147483648.0),
        Ty::U32 => (0.0, 4294967296.0),
        Ty::I64 => (-9.2e18, 9.2e18),
        Ty::U64 => (0.0, 1.8e19),
        Ty::F32 | Ty::F64 => (-1e30, 1e30),
    }
}

fn float_values(set: Set, rng: &mut Mix) -> Vec<f64> {
    match set {
        Set::Integral => float_values(Set::InRange(Ty::I16), rng)
            .into_iter()
            .map(f64::round)
            .collect(),
        Set::InRange(to) => {
            let (lo, hi) = int_range(to);
            let mut v: Vec<f64> = vec![0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, 0.99, lo.max(-7.5)];
            while v.len() < N {
                let k = v.len();
                // Small values with halves, then the whole range (scaled by a power of two
                // so the extremes are reached).
                let x = if k % 2 == 0 {
                    ((rng.next() % 4001) as f64 - 2000.0) / 4.0
                } else {
                    lo + (hi - lo) * rng.unit().powi(1 + (k % 5) as i32)
                };
                v.push(if lo >= 0.0 { x.abs() } else { x });
            }
            v.into_iter()
                .map(|x| x.clamp(lo, hi - hi.abs() * 1e-7 - 1.0))
                .collect()
        }
        _ => {
            let mut v: Vec<f64> = vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                3.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                7.0,
                -2.5,
                1e-40,    // an f32 denormal
                -3e-42,   // another
                1e-310,   // an f64 denormal
                3.4e38,   // near f32's maximum
                -1.7e308, // near f64's maximum
                1.2e-38,  // near f32's smallest normal
                2.3e-308,
                1e30,
                1e-30,
                8.5e37, // divisor beyond 2^126: float division's slow path
                0.1,
            ];
            while v.len() < N {
                let k = v.len();
                let m = rng.unit() * 2.0 - 1.0;
                let e = match k % 4 {
                    0 => (rng.next() % 20) as i32 - 10,
                    1 => (rng.next() % 250) as i32 - 125,
                    2 => (rng.next() % 60) as i32 - 30,
                    _ => (rng.next() % 2000) as i32 - 1000,
                };
                v.push(m * 2f64.powi(e));
            }
            v
        }
    }
}

fn int_values(t: Ty, set: Set, rng: &mut Mix) -> Vec<u64> {
    let bits = t.size() * 8;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let signed = matches!(t, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64);
    let min = if signed { 1u64 << (bits - 1) } else { 0 };
    let mut v = vec![
        0,
        1,
        mask,
        min,
        min.wrapping_sub(1) & mask,
        2,
        7,
        13,
        mask - 6,
    ];
    while v.len() < N {
        let k = v.len();
        let x = rng.next();
        v.push(match k % 3 {
            0 => x & 0xff,
            1 => (x % 2001).wrapping_sub(1000),
            _ => x,
        });
    }
    for x in &mut v {
        *x &= mask;
        if set == Set::Divisor && (*x == 0 || (signed && *x == mask)) {
            *x = 3;
        }
    }
    v
}

/// The bytes of input array `which` (0 for `a`, 1 for `b`) of type `t` and set `set`.
pub fn input(t: Ty, set: Set, which: u64) -> Vec<u8> {
    let mut rng = Mix(0x5eed ^ which.wrapping_mul(0x1234_5678_9abc));
    let mut out = Vec::with_capacity(N * t.size());
    if t.is_float() {
        let mut v = float_values(set, &mut rng);
        if which == 1 {
            v.rotate_left(5);
        }
        for x in v {
            match t {
                Ty::F32 => out.extend((x as f32).to_le_bytes()),
                _ => out.extend(x.to_le_bytes()),
            }
        }
    } else {
        let v = if let Set::InRange(to) = set {
            // Integers in range of a float target: none are needed (every integer
            // converts); kept general.
            let _ = to;
            int_values(t, Set::Any, &mut rng)
        } else {
            int_values(t, set, &mut rng)
        };
        for x in v {
            out.extend(&x.to_le_bytes()[..t.size()]);
        }
    }
    out
}

/// Whether `got` matches `want` under `check` for elements of type `t`: `None` when they
/// match, else the first differing element's index.
pub fn compare(t: Ty, check: Check, got: &[u8], want: &[u8]) -> Option<usize> {
    let n = t.size();
    let limit = if check == Check::Prefix4 {
        4
    } else {
        want.len() / n
    };
    (0..limit).find(|&i| {
        let (g, w) = (&got[i * n..i * n + n], &want[i * n..i * n + n]);
        if g == w {
            return false;
        }
        match t {
            Ty::F32 => {
                let (x, y) = (
                    f32::from_le_bytes(g.try_into().unwrap()),
                    f32::from_le_bytes(w.try_into().unwrap()),
                );
                !((x.is_nan() && y.is_nan()) || (check == Check::ZeroSign && x == y))
            }
            Ty::F64 => {
                let (x, y) = (
                    f64::from_le_bytes(g.try_into().unwrap()),
                    f64::from_le_bytes(w.try_into().unwrap()),
                );
                !((x.is_nan() && y.is_nan()) || (check == Check::ZeroSign && x == y))
            }
            _ => true,
        }
    })
}
