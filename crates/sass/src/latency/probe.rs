//! Probe kernels for latency measurement: one PTX entry per probe, each a chain of
//! dependent operations of one kind between loads that ptxas cannot see through and a
//! store that keeps the chain alive. ptxas then has nothing to schedule between the links,
//! so the stall counts it writes into the control codes are the latencies it assumes.

/// One probe: the name of its kernel and the PTX of the chain's body.
pub struct Probe {
    /// Kernel name (`lat_int_alu`).
    pub name: &'static str,
    /// What the chain exercises, for the documentation of the figures.
    pub what: &'static str,
    /// The instructions between the loads and the store. Inputs: `%r1`..`%r4` (32-bit
    /// integers from memory), `%f1`..`%f4` (floats), `%d1`, `%d2` (doubles), `%ua`, `%ub`
    /// (kernel parameters, warp-uniform), `%rd1` (the buffer's global address, 64 bytes
    /// apart per lane, so that loaded values are not warp-uniform and ptxas cannot fold
    /// shuffles or move the addresses to uniform registers). The chain
    /// leaves its result in `%r0` (stored at the end).
    pub body: String,
}

/// How many links each chain has.
const LINKS: usize = 16;

fn chain(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect::<Vec<_>>().join("\n")
}

/// The probes. Each chain starts from `%r10` / `%f10` / `%d10` and ends in `%r0`.
pub fn probes() -> Vec<Probe> {
    let int_ops = [
        "add.s32", "xor.b32", "max.s32", "and.b32", "sub.s32", "or.b32",
    ];
    let mut v = vec![
        Probe {
            name: "lat_int_alu",
            what: "add, xor, max, and, sub, or on 32-bit integers",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| format!(
                    "{} %r{}, %r{}, %r{};",
                    int_ops[k % int_ops.len()],
                    11 + k,
                    10 + k,
                    2 + k % 3
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_int_mad",
            what: "mul.lo and mad.lo on 32-bit integers (IMAD)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| if k % 2 == 0 {
                    format!("mul.lo.s32 %r{}, %r{}, %r2;", 11 + k, 10 + k)
                } else {
                    format!("mad.lo.s32 %r{}, %r{}, %r3, %r4;", 11 + k, 10 + k)
                }),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_int_compare",
            what: "setp on integers feeding selp (ISETP -> SEL: predicate latency)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| format!(
                    "setp.lt.s32 %p{p}, %r{a}, %r2;\nselp.b32 %r{b}, %r3, %r{a}, %p{p};\nadd.s32 %r{b2}, %r{b}, %r4;",
                    p = 1 + k % 6,
                    a = 10 + 2 * k,
                    b = 11 + 2 * k,
                    b2 = 12 + 2 * k
                )),
                10 + 2 * LINKS
            ),
        },
        Probe {
            name: "lat_bit_count",
            what: "popc, brev, clz (POPC, BREV, FLO) with xor between",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| format!(
                    "{} %r{t}, %r{a};\nxor.b32 %r{b}, %r{t}, %r2;",
                    ["popc.b32", "brev.b32", "clz.b32"][k % 3],
                    t = 100 + k,
                    a = 10 + k,
                    b = 11 + k
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_fp32",
            what: "add.rn, mul.rn, fma.rn on f32 (FADD, FMUL, FFMA)",
            body: format!(
                "mov.f32 %f10, %f1;\n{}\nmov.b32 %r0, %f{};",
                chain(LINKS, |k| match k % 3 {
                    0 => format!("add.rn.f32 %f{}, %f{}, %f2;", 11 + k, 10 + k),
                    1 => format!("mul.rn.f32 %f{}, %f{}, %f3;", 11 + k, 10 + k),
                    _ => format!("fma.rn.f32 %f{}, %f{}, %f3, %f4;", 11 + k, 10 + k),
                }),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_fp32_compare",
            what: "setp on f32 feeding selp (FSETP -> FSEL)",
            body: format!(
                "mov.f32 %f10, %f1;\n{}\nmov.b32 %r0, %f{};",
                chain(LINKS, |k| format!(
                    "setp.lt.f32 %p{p}, %f{a}, %f2;\nselp.f32 %f{b}, %f3, %f{a}, %p{p};\nadd.rn.f32 %f{b2}, %f{b}, %f4;",
                    p = 1 + k % 6,
                    a = 10 + 2 * k,
                    b = 11 + 2 * k,
                    b2 = 12 + 2 * k
                )),
                10 + 2 * LINKS
            ),
        },
        Probe {
            name: "lat_fp16",
            what: "add.rn, mul.rn, fma.rn on f16x2 (HADD2, HMUL2, HFMA2)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| match k % 3 {
                    0 => format!("add.rn.f16x2 %r{}, %r{}, %r2;", 11 + k, 10 + k),
                    1 => format!("mul.rn.f16x2 %r{}, %r{}, %r2;", 11 + k, 10 + k),
                    _ => format!("fma.rn.f16x2 %r{}, %r{}, %r2, %r3;", 11 + k, 10 + k),
                }),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_fp64",
            what: "add.rn, mul.rn, fma.rn on f64 (DADD, DMUL, DFMA)",
            body: format!(
                "mov.f64 %d10, %d1;\n{}\ncvt.rzi.s32.f64 %r0, %d{};",
                chain(LINKS, |k| match k % 3 {
                    0 => format!("add.rn.f64 %d{}, %d{}, %d2;", 11 + k, 10 + k),
                    1 => format!("mul.rn.f64 %d{}, %d{}, %d2;", 11 + k, 10 + k),
                    _ => format!("fma.rn.f64 %d{}, %d{}, %d2, %d1;", 11 + k, 10 + k),
                }),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_mufu",
            what: "rcp, ex2, sqrt, lg2 approximations (MUFU)",
            body: format!(
                "mov.f32 %f10, %f1;\n{}\nmov.b32 %r0, %f{};",
                chain(LINKS, |k| format!(
                    "{} %f{}, %f{};",
                    [
                        "rcp.approx.ftz.f32",
                        "ex2.approx.ftz.f32",
                        "sqrt.approx.ftz.f32",
                        "lg2.approx.ftz.f32"
                    ][k % 4],
                    11 + k,
                    10 + k
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_conversion",
            what: "cvt between s32 and f32 (I2F, F2I)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| format!(
                    "cvt.rn.f32.s32 %f{t}, %r{a};\ncvt.rzi.s32.f32 %r{b}, %f{t};",
                    t = 100 + k,
                    a = 10 + k,
                    b = 11 + k
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_warp",
            what: "shfl.sync.bfly with an add after each (SHFL)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(LINKS, |k| format!(
                    "shfl.sync.bfly.b32 %r{t}, %r{a}, {m}, 31, -1;\nadd.s32 %r{b}, %r{t}, %r2;",
                    t = 100 + k,
                    a = 10 + k,
                    b = 11 + k,
                    m = 1 << (k % 5)
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_special_reg",
            what: "%laneid and %ctaid.x read into a dependent add (S2R, S2UR)",
            body: "mov.u32 %r10, %laneid;\nadd.s32 %r11, %r10, %r1;\nmov.u32 %r12, %ctaid.x;\nadd.s32 %r0, %r12, %r11;"
                .to_string(),
        },
        Probe {
            name: "lat_uniform",
            what: "add, xor, shl, and on kernel parameters (the uniform datapath)",
            body: format!(
                "mov.b32 %r10, %ua;\n{}\nadd.s32 %r0, %r{}, %r1;",
                chain(LINKS, |k| format!(
                    "{} %r{}, %r{}, %ub;",
                    ["add.s32", "xor.b32", "and.b32", "or.b32"][k % 4],
                    11 + k,
                    10 + k
                )),
                10 + LINKS
            ),
        },
        Probe {
            name: "lat_uniform_compare",
            what: "setp feeding selp on kernel parameters (UISETP -> USEL: uniform predicates)",
            body: format!(
                "mov.b32 %r10, %ua;\n{}\nadd.s32 %r0, %r{}, %r1;",
                chain(LINKS, |k| format!(
                    "setp.lt.s32 %p{p}, %r{a}, %ub;\nselp.b32 %r{b}, %ub, %r{a}, %p{p};\nxor.b32 %r{b2}, %r{b}, %ua;",
                    p = 1 + k % 6,
                    a = 10 + 2 * k,
                    b = 11 + 2 * k,
                    b2 = 12 + 2 * k
                )),
                10 + 2 * LINKS
            ),
        },
        Probe {
            name: "lat_global_mem",
            what: "pointer chasing through global memory (LDG) and stores (STG)",
            body: format!(
                "mov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(8, |k| format!(
                    "and.b32 %r{t}, %r{a}, 60;\ncvt.u64.u32 %rd{d}, %r{t};\nadd.s64 %rd{e}, %rd1, %rd{d};\nld.global.u32 %r{b}, [%rd{e}];\nst.global.u32 [%rd{e}+64], %r{a};",
                    t = 100 + k,
                    a = 10 + k,
                    b = 11 + k,
                    d = 10 + 2 * k,
                    e = 11 + 2 * k
                )),
                18
            ),
        },
        Probe {
            name: "lat_shared_mem",
            what: "pointer chasing through shared memory (LDS) and stores (STS)",
            body: format!(
                "mov.u32 %r99, sh;\nmov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(8, |k| format!(
                    "and.b32 %r{t}, %r{a}, 252;\nadd.s32 %r{u}, %r99, %r{t};\nst.shared.u32 [%r{u}+256], %r{a};\nld.shared.u32 %r{b}, [%r{u}];",
                    t = 100 + k,
                    u = 120 + k,
                    a = 10 + k,
                    b = 11 + k
                )),
                18
            ),
        },
        Probe {
            name: "lat_const_load",
            what: "indexed loads from a constant array (LDC)",
            body: format!(
                "mov.u64 %rd20, tab;\nmov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
                chain(8, |k| format!(
                    "and.b32 %r{t}, %r{a}, 252;\ncvt.u64.u32 %rd{d}, %r{t};\nadd.s64 %rd{e}, %rd20, %rd{d};\nld.const.u32 %r{b}, [%rd{e}];",
                    t = 100 + k,
                    a = 10 + k,
                    b = 11 + k,
                    d = 30 + 2 * k,
                    e = 31 + 2 * k
                )),
                18
            ),
        },
    ];
    v.push(Probe {
        name: "lat_local_mem",
        what: "a local array indexed by loaded values (STL, LDL)",
        body: format!(
            "mov.u64 %rd40, loc;\nmov.b32 %r10, %r1;\n{}\nmov.b32 %r0, %r{};",
            chain(8, |k| format!(
                "and.b32 %r{t}, %r{a}, 124;\ncvt.u64.u32 %rd{d}, %r{t};\nadd.s64 %rd{e}, %rd40, %rd{d};\nst.local.u32 [%rd{e}], %r{a};\nld.local.u32 %r{b}, [%rd{e}+4];",
                t = 100 + k,
                a = 10 + k,
                b = 11 + k,
                d = 50 + 2 * k,
                e = 51 + 2 * k
            )),
            18
        ),
    });
    v
}

/// The PTX module of every probe for `sm` (`"sm_86"`).
pub fn module(sm: &str) -> String {
    let mut s = format!(
        ".version 8.0\n.target {sm}\n.address_size 64\n\n\
         .const .align 4 .b32 tab[64];\n.shared .align 4 .b32 sh[128];\n\n"
    );
    for p in probes() {
        s.push_str(&format!(
            ".visible .entry {name}(.param .u64 buf, .param .u32 pa, .param .u32 pb)\n{{\n\
             .reg .b32 %r<200>;\n.reg .b32 %ua;\n.reg .b32 %ub;\n.reg .f32 %f<200>;\n\
             .reg .f64 %d<64>;\n.reg .b64 %rd<100>;\n.reg .pred %p<8>;\n\
             .local .align 4 .b32 loc[40];\n\
             ld.param.u64 %rd0, [buf];\ncvta.to.global.u64 %rd90, %rd0;\n\
             mov.u32 %r199, %laneid;\nmul.wide.u32 %rd91, %r199, 64;\n\
             add.s64 %rd1, %rd90, %rd91;\n\
             ld.param.u32 %ua, [pa];\nld.param.u32 %ub, [pb];\n\
             ld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1+4];\n\
             ld.global.u32 %r3, [%rd1+8];\nld.global.u32 %r4, [%rd1+12];\n\
             ld.global.f32 %f1, [%rd1+16];\nld.global.f32 %f2, [%rd1+20];\n\
             ld.global.f32 %f3, [%rd1+24];\nld.global.f32 %f4, [%rd1+28];\n\
             ld.global.f64 %d1, [%rd1+32];\nld.global.f64 %d2, [%rd1+40];\n\
             {body}\n\
             st.global.u32 [%rd1+48], %r0;\nret;\n}}\n\n",
            name = p.name,
            body = p.body
        ));
    }
    s
}
