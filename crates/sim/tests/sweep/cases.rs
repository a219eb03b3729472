//! The sweep's kernels: every arithmetic, conversion, atomic and warp intrinsic of CUDA
//! over the 8/16/32/64-bit integer and 32/64-bit float types, each a kernel of its own.
//!
//! An element-wise case is `out[t] = EXPR` over `a[t]` and `b[t]`; its body is one
//! `__host__ __device__` function compiled both by nvcc (the kernel) and by g++ with
//! `host_shims.h` (the expected output), so the reference is the C semantics of the same
//! expression, not the simulator. Atomic cases fold `a` into four words (global, or shared
//! per block) and are checked where the final value cannot depend on the order; warp
//! cases are run only (their semantics are held by `tests/corpus.rs`).

/// A C type of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

use Ty::*;

impl Ty {
    /// Its spelling in C.
    pub fn c(self) -> &'static str {
        match self {
            I8 => "signed char",
            U8 => "unsigned char",
            I16 => "short",
            U16 => "unsigned short",
            I32 => "int",
            U32 => "unsigned",
            I64 => "long long",
            U64 => "unsigned long long",
            F32 => "float",
            F64 => "double",
        }
    }
    /// Its short name in kernel names.
    pub fn tag(self) -> &'static str {
        match self {
            I8 => "i8",
            U8 => "u8",
            I16 => "i16",
            U16 => "u16",
            I32 => "i32",
            U32 => "u32",
            I64 => "i64",
            U64 => "u64",
            F32 => "f32",
            F64 => "f64",
        }
    }
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }
    /// Whether it is a float type.
    pub fn is_float(self) -> bool {
        matches!(self, F32 | F64)
    }
}

/// Which values an input holds (see `inputs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Set {
    /// Edge values and a pseudo-random spread over the whole type.
    Any,
    /// As `Any` without 0 and -1 (integer divisors: no division by zero or overflow).
    Divisor,
    /// Floats: normal values, denormals, ±0, ±inf, NaN, the extremes (division's slow path).
    Special,
    /// Floats that convert to the integer type `Ty` without overflow (C leaves the others
    /// undefined), or integers that are in range for the float target.
    InRange(Ty),
    /// Floats with integral values below 2^15: sums of 128 of them are exact in any order
    /// (float atomics, whose order of accumulation differs between builds).
    Integral,
}

/// How the output is compared with the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Bit for bit (NaNs of a float output: any NaN matches any NaN).
    Exact,
    /// As `Exact`, and +0 matches -0 (C lets fmin/fmax return either zero).
    ZeroSign,
    /// Only the first four words (atomics whose returned values depend on the order).
    Prefix4,
    /// Not compared: approximations (the simulator's MUFU is exact where hardware is not),
    /// order-dependent atomics, warp operations.
    RunOnly,
}

/// What the kernel does.
#[derive(Clone, Debug)]
pub enum Body {
    /// `out[t] = EXPR` with `a`, `b` the inputs.
    Elementwise(String),
    /// `STMT` run by every thread on global `out` (4 words), with `a`, `b`, `t`.
    GlobalAtomic(String),
    /// `STMT` on a shared array `s` of 4 words per block, copied to `out[4*block..]`.
    SharedAtomic(String),
    /// A warp-level statement writing `out[t]`, with `a`, `b`, `t`, `lane`.
    Warp(String),
}

/// One kernel of the sweep.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel's name (`k_` + this).
    pub name: String,
    /// Input types and sets.
    pub a: (Ty, Set),
    /// The second input.
    pub b: (Ty, Set),
    /// The output type.
    pub out: Ty,
    /// The body.
    pub body: Body,
    /// How the output is checked.
    pub check: Check,
    /// The lowest SM the case compiles for (intrinsics of SM80 and up).
    pub min_sm: u32,
}

fn case(name: String, a: (Ty, Set), b: (Ty, Set), out: Ty, body: Body, check: Check) -> Case {
    Case {
        name,
        a,
        b,
        out,
        body,
        check,
        min_sm: 75,
    }
}

fn ew(name: &str, a: (Ty, Set), b: (Ty, Set), out: Ty, expr: &str, check: Check) -> Case {
    case(
        name.to_string(),
        a,
        b,
        out,
        Body::Elementwise(expr.to_string()),
        check,
    )
}

const INTS: [Ty; 4] = [I32, U32, I64, U64];
const ALL_TYPES: [Ty; 10] = [I8, U8, I16, U16, I32, U32, I64, U64, F32, F64];

/// Every case of the sweep.
pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    integer(&mut v);
    float(&mut v);
    conversions(&mut v);
    intrinsics(&mut v);
    atomics(&mut v);
    aggregated(&mut v);
    warp(&mut v);
    v
}

fn integer(v: &mut Vec<Case>) {
    for t in INTS {
        let n = t.tag();
        let any = (t, Set::Any);
        let bits = t.size() * 8;
        let shift = format!("(a << (b & {}))", bits - 1);
        let shr = format!("(a >> (b & {}))", bits - 1);
        let ops: Vec<(&str, (Ty, Set), Ty, String)> = vec![
            ("add", any, t, "a + b".into()),
            ("sub", any, t, "a - b".into()),
            ("mul", any, t, "a * b".into()),
            ("div", (t, Set::Divisor), t, "a / b".into()),
            ("rem", (t, Set::Divisor), t, "a % b".into()),
            ("and", any, t, "a & b".into()),
            ("or", any, t, "a | b".into()),
            ("xor", any, t, "(a ^ b) + ~a".into()),
            ("shl", any, t, shift),
            ("shr", any, t, shr),
            ("min", any, t, "min(a, b)".into()),
            ("max", any, t, "max(a, b)".into()),
            (
                "cmp",
                any,
                I32,
                "(a < b) + 2 * (a == b) + 4 * (a <= b) + 8 * (a != b)".into(),
            ),
            ("neg", any, t, "-a + (a > 0 ? a : b)".into()),
            ("divc", any, t, "a / 7 + a % 13".into()),
            ("mulc", any, t, "a * 100003 + 77".into()),
        ];
        for (op, b, out, expr) in ops {
            v.push(ew(&format!("{op}_{n}"), any, b, out, &expr, Check::Exact));
        }
    }
    // abs overloads and narrow types' promotions.
    v.push(ew(
        "abs_i32",
        (I32, Set::Divisor),
        (I32, Set::Any),
        I32,
        "abs(a)",
        Check::Exact,
    ));
    v.push(ew(
        "abs_i64",
        (I64, Set::Divisor),
        (I64, Set::Any),
        I64,
        "llabs(a)",
        Check::Exact,
    ));
    for t in [I8, U8, I16, U16] {
        v.push(ew(
            &format!("arith_{}", t.tag()),
            (t, Set::Any),
            (t, Set::Divisor),
            t,
            "(a * b + a / b) ^ (a >> 2)",
            Check::Exact,
        ));
    }
}

fn float(v: &mut Vec<Case>) {
    for t in [F32, F64] {
        let n = t.tag();
        let f = if t == F32 { "f" } else { "" };
        let sp = (t, Set::Special);
        // `__fadd_rn`/`__dadd_rn` keep nvcc from contracting the sum into a fused multiply-add.
        let add = if t == F32 { "__fadd_rn" } else { "__dadd_rn" };
        let ops: Vec<(&str, Ty, String, Check)> = vec![
            ("add", t, "a + b".into(), Check::Exact),
            ("sub", t, "a - b".into(), Check::Exact),
            ("mul", t, "a * b".into(), Check::Exact),
            ("div", t, "a / b".into(), Check::Exact),
            ("rcp", t, format!("1.0{f} / b"), Check::Exact),
            ("divc", t, format!("a / 3.0{f}"), Check::Exact),
            ("sqrt", t, format!("sqrt{f}(a)"), Check::Exact),
            ("fma", t, format!("fma{f}(a, b, a)"), Check::Exact),
            ("fmac", t, format!("fma{f}(a, 2.5{f}, b)"), Check::Exact),
            ("mulc", t, format!("{add}(a * 1.5{f}, b * -0.25{f})"), Check::Exact),
            ("min", t, format!("fmin{f}(a, b)"), Check::ZeroSign),
            ("max", t, format!("fmax{f}(a, b)"), Check::ZeroSign),
            ("abs", t, format!("fabs{f}(a) - fabs{f}(b)"), Check::Exact),
            ("neg", t, "-a * b".into(), Check::Exact),
            (
                "cmp",
                I32,
                "(a < b) + 2 * (a == b) + 4 * (a <= b) + 8 * (a != b) + 16 * (a > b) + 32 * isnan(a) + 64 * isinf(b)".into(),
                Check::Exact,
            ),
            ("sel", t, "a > b ? a : 2.0 * b".into(), Check::Exact),
            ("floor", t, format!("floor{f}(a)"), Check::Exact),
            ("ceil", t, format!("ceil{f}(a)"), Check::Exact),
            ("trunc", t, format!("trunc{f}(a)"), Check::Exact),
            ("round", t, format!("round{f}(a)"), Check::Exact),
            ("rint", t, format!("rint{f}(a)"), Check::Exact),
            ("copysign", t, format!("copysign{f}(a, b)"), Check::Exact),
            ("fmod", t, format!("fmod{f}(a, b)"), Check::Exact),
            ("ldexp", t, format!("ldexp{f}(a, 5)"), Check::Exact),
            ("nextafter", t, format!("nextafter{f}(a, b)"), Check::Exact),
            ("ilogb", I32, format!("(a == 0 || isnan(a) || isinf(a)) ? 0 : ilogb{f}(a)"), Check::Exact),
            ("exp", t, format!("exp{f}(a)"), Check::RunOnly),
            ("log", t, format!("log{f}(a)"), Check::RunOnly),
            ("sin", t, format!("sin{f}(a)"), Check::RunOnly),
            ("pow", t, format!("pow{f}(a, b)"), Check::RunOnly),
            ("rsqrt", t, format!("rsqrt{f}(a)"), Check::RunOnly),
        ];
        for (op, out, expr, check) in ops {
            v.push(ew(&format!("{op}_{n}"), sp, sp, out, &expr, check));
        }
        for r in ["rn", "rz", "ru", "rd"] {
            let pre = if t == F32 { "__f" } else { "__d" };
            let mut list = vec![
                (format!("{pre}add_{r}(a, b)"), "add"),
                (format!("{pre}mul_{r}(a, b)"), "mul"),
                (format!("{pre}div_{r}(a, b)"), "div"),
                (format!("{pre}rcp_{r}(b)"), "rcp"),
                (format!("{pre}sqrt_{r}(a)"), "sqrt"),
            ];
            list.push((
                if t == F32 {
                    format!("__fmaf_{r}(a, b, a)")
                } else {
                    format!("__fma_{r}(a, b, a)")
                },
                "fma",
            ));
            for (expr, op) in list {
                v.push(ew(&format!("{op}_{r}_{n}"), sp, sp, t, &expr, Check::Exact));
            }
        }
    }
    // Approximate single-precision intrinsics (run only).
    for (op, expr) in [
        ("fdividef", "__fdividef(a, b)"),
        ("expf_fast", "__expf(a)"),
        ("sinf_fast", "__sinf(a) + __cosf(b)"),
        ("log2f_fast", "__log2f(a)"),
    ] {
        v.push(ew(
            op,
            (F32, Set::Special),
            (F32, Set::Special),
            F32,
            expr,
            Check::RunOnly,
        ));
    }
    v.push(ew(
        "saturate_f32",
        (F32, Set::Special),
        (F32, Set::Special),
        F32,
        "__saturatef(a)",
        Check::Exact,
    ));
}

fn conversions(v: &mut Vec<Case>) {
    for from in ALL_TYPES {
        for to in ALL_TYPES {
            if from == to {
                continue;
            }
            // Floats to integers: only in-range inputs (C leaves the rest undefined).
            let set = if from.is_float() && !to.is_float() {
                Set::InRange(to)
            } else if from.is_float() {
                Set::Special
            } else {
                Set::Any
            };
            v.push(ew(
                &format!("cvt_{}_{}", to.tag(), from.tag()),
                (from, set),
                (from, set),
                to,
                &format!("({})a", to.c()),
                Check::Exact,
            ));
        }
    }
    // Rounding conversions (saturating, NaN to 0: the PTX cvt rules).
    for r in ["rn", "rz", "ru", "rd"] {
        let f = (F32, Set::Special);
        let d = (F64, Set::Special);
        for (name, a, out, expr) in [
            ("f2i", f, I32, "__float2int"),
            ("f2u", f, U32, "__float2uint"),
            ("f2ll", f, I64, "__float2ll"),
            ("f2ull", f, U64, "__float2ull"),
            ("d2i", d, I32, "__double2int"),
            ("d2u", d, U32, "__double2uint"),
            ("d2ll", d, I64, "__double2ll"),
            ("d2ull", d, U64, "__double2ull"),
            ("d2f", d, F32, "__double2float"),
            ("i2f", (I32, Set::Any), F32, "__int2float"),
            ("u2f", (U32, Set::Any), F32, "__uint2float"),
            ("ll2f", (I64, Set::Any), F32, "__ll2float"),
            ("ull2f", (U64, Set::Any), F32, "__ull2float"),
            ("ll2d", (I64, Set::Any), F64, "__ll2double"),
            ("ull2d", (U64, Set::Any), F64, "__ull2double"),
        ] {
            v.push(ew(
                &format!("{name}_{r}"),
                a,
                a,
                out,
                &format!("{expr}_{r}(a)"),
                Check::Exact,
            ));
        }
    }
    // Half precision through PTX (cuda_fp16.h needs headers the oracle install lacks).
    v.push(case(
        "f16_round_trip".into(),
        (F32, Set::Special),
        (F32, Set::Special),
        F32,
        Body::Warp(
            "unsigned short h; float r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(a[t])); asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(r) : \"h\"(h)); out[t] = r;".into(),
        ),
        Check::RunOnly,
    ));
}

fn intrinsics(v: &mut Vec<Case>) {
    let u = (U32, Set::Any);
    let i = (I32, Set::Any);
    let l = (I64, Set::Any);
    let ul = (U64, Set::Any);
    let list: Vec<(&str, (Ty, Set), Ty, &str)> = vec![
        ("popc", u, I32, "__popc(a) + __popc(b)"),
        ("popcll", ul, I32, "__popcll(a)"),
        ("clz", i, I32, "__clz(a)"),
        ("clzll", l, I32, "__clzll(a)"),
        ("ffs", i, I32, "__ffs(a)"),
        ("ffsll", l, I32, "__ffsll(a)"),
        ("brev", u, U32, "__brev(a)"),
        ("brevll", ul, U64, "__brevll(a)"),
        ("mulhi", i, I32, "__mulhi(a, b)"),
        ("umulhi", u, U32, "__umulhi(a, b)"),
        ("mul64hi", l, I64, "__mul64hi(a, b)"),
        ("umul64hi", ul, U64, "__umul64hi(a, b)"),
        ("mul24", i, I32, "__mul24(a, b)"),
        ("umul24", u, U32, "__umul24(a, b)"),
        ("sad", i, U32, "__sad(a, b, 5u)"),
        ("usad", u, U32, "__usad(a, b, 5u)"),
        ("hadd", i, I32, "__hadd(a, b) ^ __rhadd(a, b)"),
        ("uhadd", u, U32, "__uhadd(a, b) ^ __urhadd(a, b)"),
        ("byte_perm", u, U32, "__byte_perm(a, b, b & 0x7777)"),
        ("funnel_l", u, U32, "__funnelshift_l(a, b, b >> 3)"),
        ("funnel_lc", u, U32, "__funnelshift_lc(a, b, (b >> 3) & 63)"),
        ("funnel_r", u, U32, "__funnelshift_r(a, b, b >> 3)"),
        ("funnel_rc", u, U32, "__funnelshift_rc(a, b, (b >> 3) & 63)"),
        ("dp4a", i, I32, "__dp4a(a, b, 7)"),
        ("vadd4", u, U32, "__vadd4(a, b)"),
        ("vmaxu4", u, U32, "__vmaxu4(a, b)"),
        ("vabsdiffu4", u, U32, "__vabsdiffu4(a, b)"),
        ("vcmpeq2", u, U32, "__vcmpeq2(a, b | 0xffff)"),
        (
            "float_as_int",
            (F32, Set::Special),
            I32,
            "__float_as_int(a) ^ 3",
        ),
        ("int_as_float", i, F32, "__int_as_float(a)"),
        (
            "double_bits",
            (F64, Set::Special),
            I32,
            "__double2hiint(a) ^ __double2loint(a)",
        ),
        ("hilo_double", i, F64, "__hiloint2double(a, b)"),
    ];
    for (name, a, out, expr) in list {
        v.push(ew(name, a, a, out, expr, Check::Exact));
    }
}

fn atomics(v: &mut Vec<Case>) {
    // (op, types, commutative: the final words do not depend on the order).
    let ops: [(&str, &[Ty], bool); 11] = [
        ("Add", &[I32, U32, U64, F32, F64], true),
        ("Sub", &[I32, U32], true),
        ("Min", &[I32, U32, I64, U64], true),
        ("Max", &[I32, U32, I64, U64], true),
        ("And", &[I32, U32, U64], true),
        ("Or", &[I32, U32, U64], true),
        ("Xor", &[I32, U32, U64], true),
        ("Inc", &[U32], true),
        ("Dec", &[U32], true),
        ("Exch", &[I32, U32, U64, F32], false),
        ("CAS", &[I32, U32, U64], false),
    ];
    for (op, types, commutative) in ops {
        for &t in types {
            // Float atomic adds are exact, whatever the order, only with integral inputs.
            let set = if t.is_float() {
                Set::Integral
            } else {
                Set::Any
            };
            let arg = match op {
                "Inc" | "Dec" => "100000u".to_string(),
                "CAS" => format!("a[t] & ({})1, b[t]", t.c()),
                _ => "a[t]".to_string(),
            };
            let call = format!("atomic{op}(&P[t & 3], {arg})");
            for (place, ret) in [("g", false), ("g", true), ("s", false)] {
                let stmt = if ret {
                    format!("out[4 + t] = {}", call.replace('P', "out"))
                } else {
                    format!(
                        "{};",
                        call.replace('P', if place == "g" { "out" } else { "s" })
                    )
                };
                let stmt = if ret { format!("{stmt};") } else { stmt };
                let body = if place == "g" {
                    Body::GlobalAtomic(stmt)
                } else {
                    Body::SharedAtomic(stmt)
                };
                let check = match (commutative, ret) {
                    (false, _) => Check::RunOnly,
                    (true, true) => Check::Prefix4,
                    (true, false) => Check::Exact,
                };
                let suffix = if ret { "_ret" } else { "" };
                v.push(case(
                    format!("atomic{op}_{}_{place}{suffix}", t.tag()),
                    (t, set),
                    (t, set),
                    t,
                    body,
                    check,
                ));
            }
        }
    }
}

/// `atomicAdd(&x, 1)` from a divergent branch: ptxas aggregates it per warp
/// (`ATOMS.POPC.INC`, one increment per active lane).
fn aggregated(v: &mut Vec<Case>) {
    for (place, body) in [
        (
            "g",
            Body::GlobalAtomic("if (a[t] & 1) atomicAdd(&out[0], 1);".into()),
        ),
        (
            "s",
            Body::SharedAtomic("if (a[t] & 1) atomicAdd(&s[0], 1);".into()),
        ),
    ] {
        v.push(case(
            format!("atomic_inc1_i32_{place}"),
            (I32, Set::Any),
            (I32, Set::Any),
            I32,
            body,
            Check::Exact,
        ));
    }
}

fn warp(v: &mut Vec<Case>) {
    let full = "0xffffffffu";
    let mut list: Vec<(String, Ty, String, u32)> = Vec::new();
    for t in [I32, F32, I64, F64] {
        let n = t.tag();
        for (op, e) in [
            ("shfl", format!("__shfl_sync({full}, a[t], (t * 7) & 31)")),
            ("shfl_up", format!("__shfl_up_sync({full}, a[t], 3)")),
            (
                "shfl_down",
                format!("__shfl_down_sync({full}, a[t], 5, 16)"),
            ),
            ("shfl_xor", format!("__shfl_xor_sync({full}, a[t], 6)")),
        ] {
            list.push((format!("{op}_{n}"), t, format!("out[t] = {e};"), 75));
        }
    }
    list.push((
        "ballot".into(),
        I32,
        format!("out[t] = __ballot_sync({full}, a[t] & 1) + __popc(__activemask());"),
        75,
    ));
    list.push((
        "vote".into(),
        I32,
        format!("out[t] = __any_sync({full}, a[t] > 5) + 2 * __all_sync({full}, a[t] > -100) + 4 * __uni_sync({full}, a[t] & 1);"),
        75,
    ));
    list.push((
        "match_any_i64".into(),
        I64,
        format!("out[t] = __match_any_sync({full}, a[t] & 3);"),
        75,
    ));
    list.push((
        "match_all_i32".into(),
        I32,
        format!("int p; out[t] = __match_all_sync({full}, a[t] & 1, &p) + p;"),
        75,
    ));
    for op in ["add", "min", "max"] {
        list.push((
            format!("reduce_{op}_i32"),
            I32,
            format!("out[t] = __reduce_{op}_sync({full}, a[t]);"),
            80,
        ));
    }
    for op in ["and", "or", "xor"] {
        list.push((
            format!("reduce_{op}_u32"),
            U32,
            format!("out[t] = __reduce_{op}_sync({full}, a[t]);"),
            80,
        ));
    }
    list.push((
        "divergent_shfl".into(),
        I32,
        "if (a[t] & 1) out[t] = __shfl_sync(__activemask(), a[t], 0); else out[t] = __shfl_xor_sync(__activemask(), a[t], 1);".into(),
        75,
    ));
    list.push((
        "divergent_reduce".into(),
        I32,
        "if (a[t] & 2) out[t] = __reduce_add_sync(__activemask(), a[t]);".into(),
        80,
    ));
    list.push((
        "syncthreads_count".into(),
        I32,
        "out[t] = __syncthreads_count(a[t] & 1) + 2 * __syncthreads_or(a[t] > 7) + 4 * __syncthreads_and(a[t] > -5);".into(),
        75,
    ));
    list.push((
        "syncwarp_partial".into(),
        I32,
        "if (a[t] & 1) { __syncwarp(__activemask()); out[t] = 1; } else { out[t] = 2; }".into(),
        75,
    ));
    list.push((
        "nanosleep_clock".into(),
        I32,
        "__nanosleep(100); out[t] = (int)(clock() - clock()) * 0 + a[t]; __threadfence();".into(),
        75,
    ));
    for (name, t, stmt, min_sm) in list {
        let mut c = case(
            name,
            (t, Set::Any),
            (t, Set::Any),
            t,
            Body::Warp(stmt),
            Check::RunOnly,
        );
        c.min_sm = min_sm;
        v.push(c);
    }
}
