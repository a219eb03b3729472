//! Integer, extended-precision, float and half-precision arithmetic.

use super::*;

pub(super) fn integer(g: &mut Gen) {
    for op in ["add", "sub"] {
        let isa = if op == "add" { "add" } else { "sub" };
        g.typed(isa, 75, &format!("{op}.{{t}} {{d}}, {{a}}, {{b}};"), &INTS);
        g.typed(isa, 75, &format!("{op}.{{t}} {{d}}, {{a}}, 1000;"), &INTS);
        g.typed(isa, 75, &format!("{op}.{{t}} {{d}}, {{a}}, -1;"), &INTS);
        g.k(isa, 75, Out::R32, format!("{op}.sat.s32 %r0, %r1, %r2;"));
    }
    g.k("add", 75, Out::R64, "add.u64 %rd0, %rd1, 0x123456789;");
    g.k("add", 90, Out::R32, "add.u16x2 %r0, %r1, %r2;");
    g.k("add", 90, Out::R32, "add.s16x2 %r0, %r1, %r2;");
    for m in ["lo", "hi"] {
        g.typed(
            "mul",
            75,
            &format!("mul.{m}.{{t}} {{d}}, {{a}}, {{b}};"),
            &INTS,
        );
        g.typed(
            "mul",
            75,
            &format!("mul.{m}.{{t}} {{d}}, {{a}}, 0x10000;"),
            &INTS,
        );
        g.typed(
            "mad",
            75,
            &format!("mad.{m}.{{t}} {{d}}, {{a}}, {{b}}, {{c}};"),
            &INTS,
        );
        g.typed(
            "mul24",
            75,
            &format!("mul24.{m}.{{t}} {{d}}, {{a}}, {{b}};"),
            &["s32", "u32"],
        );
        g.typed(
            "mad24",
            75,
            &format!("mad24.{m}.{{t}} {{d}}, {{a}}, {{b}}, {{c}};"),
            &["s32", "u32"],
        );
    }
    for sh in [2, 8, 256, 0x10000, 0x40000000] {
        g.k("mul", 75, Out::R32, format!("mul.lo.u32 %r0, %r1, {sh};"));
    }
    g.k("mad", 75, Out::R32, "mad.hi.sat.s32 %r0, %r1, %r2, %r3;");
    for (a, d) in [
        ("s16", "s32"),
        ("u16", "u32"),
        ("s32", "s64"),
        ("u32", "u64"),
    ] {
        g.k(
            "mul",
            75,
            out_of(d),
            format!("mul.wide.{a} {}, {}, {};", reg(d, 0), reg(a, 1), reg(a, 2)),
        );
        g.k(
            "mad",
            75,
            out_of(d),
            format!(
                "mad.wide.{a} {}, {}, {}, {};",
                reg(d, 0),
                reg(a, 1),
                reg(a, 2),
                reg(d, 3)
            ),
        );
    }
    g.typed("sad", 75, "sad.{t} {d}, {a}, {b}, {c};", &INTS);
    g.typed("div", 75, "div.{t} {d}, {a}, {b};", &INTS);
    g.typed("div", 75, "div.{t} {d}, {a}, 7;", &INTS);
    g.typed("rem", 75, "rem.{t} {d}, {a}, {b};", &INTS);
    g.typed("rem", 75, "rem.{t} {d}, {a}, 16;", &INTS);
    g.typed("abs", 75, "abs.{t} {d}, {a};", &SINTS);
    g.typed("neg", 75, "neg.{t} {d}, {a};", &SINTS);
    for op in ["min", "max"] {
        g.typed(
            op_isa(op),
            75,
            &format!("{op}.{{t}} {{d}}, {{a}}, {{b}};"),
            &INTS,
        );
        g.typed(
            op_isa(op),
            75,
            &format!("{op}.{{t}} {{d}}, {{a}}, 100;"),
            &INTS,
        );
        g.k(
            op_isa(op),
            90,
            Out::R32,
            format!("{op}.relu.s32 %r0, %r1, %r2;"),
        );
        for t in ["u16x2", "s16x2"] {
            g.k(op_isa(op), 90, Out::R32, format!("{op}.{t} %r0, %r1, %r2;"));
        }
        g.k(
            op_isa(op),
            90,
            Out::R32,
            format!("{op}.relu.s16x2 %r0, %r1, %r2;"),
        );
    }
    for t in ["b32", "b64"] {
        g.k(
            "popc",
            75,
            Out::R32,
            format!("popc.{t} %r0, {};", reg(t, 1)),
        );
        g.k("clz", 75, Out::R32, format!("clz.{t} %r0, {};", reg(t, 1)));
        g.k("brev", 75, out_of(t), fill("brev.{t} {d}, {a};", t));
        g.k(
            "bfi",
            75,
            out_of(t),
            fill("bfi.{t} {d}, {a}, {b}, %r3, %r4;", t),
        );
        g.k(
            "bfi",
            75,
            out_of(t),
            fill("bfi.{t} {d}, {a}, {b}, 8, 5;", t),
        );
    }
    for t in ["u32", "s32", "u64", "s64"] {
        g.k(
            "bfind",
            75,
            Out::R32,
            format!("bfind.{t} %r0, {};", reg(t, 1)),
        );
        g.k(
            "bfind",
            75,
            Out::R32,
            format!("bfind.shiftamt.{t} %r0, {};", reg(t, 1)),
        );
        g.k("bfe", 75, out_of(t), fill("bfe.{t} {d}, {a}, %r3, %r4;", t));
        g.k("bfe", 75, out_of(t), fill("bfe.{t} {d}, {a}, 4, 12;", t));
    }
    g.k("fns", 75, Out::R32, "fns.b32 %r0, %r1, %r2, %r3;");
    g.k("fns", 75, Out::R32, "fns.b32 %r0, %r1, 0, 3;");
    for m in ["wrap", "clamp"] {
        for t in ["u32", "s32"] {
            g.k(
                "szext",
                75,
                Out::R32,
                format!("szext.{m}.{t} %r0, %r1, %r2;"),
            );
            g.k("szext", 75, Out::R32, format!("szext.{m}.{t} %r0, %r1, 8;"));
        }
        g.k("bmsk", 75, Out::R32, format!("bmsk.{m}.b32 %r0, %r1, %r2;"));
        g.k("bmsk", 75, Out::R32, format!("bmsk.{m}.b32 %r0, 4, %r2;"));
    }
    for a in ["u32", "s32"] {
        for b in ["u32", "s32"] {
            g.k(
                "dp4a",
                75,
                Out::R32,
                format!("dp4a.{a}.{b} %r0, %r1, %r2, %r3;"),
            );
            for m in ["lo", "hi"] {
                g.k(
                    "dp2a",
                    75,
                    Out::R32,
                    format!("dp2a.{m}.{a}.{b} %r0, %r1, %r2, %r3;"),
                );
            }
        }
    }
}

/// `min`/`max` are one ISA entry each.
pub(super) fn op_isa(op: &str) -> &'static str {
    if op == "min" {
        "min"
    } else {
        "max"
    }
}

pub(super) fn extended(g: &mut Gen) {
    for t in ["u32", "s32", "u64", "s64"] {
        let (d, a, b, c, e, s5, s6, s7) = (
            reg(t, 0),
            reg(t, 1),
            reg(t, 2),
            reg(t, 3),
            reg(t, 4),
            reg(t, 5),
            reg(t, 6),
            reg(t, 7),
        );
        let fold = format!(
            "xor.b{0} {d}, {s5}, {s6}; xor.b{0} {d}, {d}, {s7};",
            &t[1..]
        );
        g.k(
            "add.cc",
            75,
            out_of(t),
            format!(
                "add.cc.{t} {s5}, {a}, {b}; addc.cc.{t} {s6}, {c}, {e}; addc.{t} {s7}, 0, 0; {fold}"
            ),
        );
        g.k(
            "addc",
            75,
            out_of(t),
            format!("add.cc.{t} {s5}, {a}, 5; addc.cc.{t} {s6}, {c}, 7; addc.{t} {s7}, {b}, {e}; {fold}"),
        );
        g.k(
            "sub.cc",
            75,
            out_of(t),
            format!(
                "sub.cc.{t} {s5}, {a}, {b}; subc.cc.{t} {s6}, {c}, {e}; subc.{t} {s7}, 0, 0; {fold}"
            ),
        );
        g.k(
            "subc",
            75,
            out_of(t),
            format!("sub.cc.{t} {s5}, {a}, 9; subc.{t} {s6}, {c}, {b}; mov.{t} {s7}, 0; {fold}"),
        );
        for m in ["lo", "hi"] {
            g.k(
                "mad.cc",
                75,
                out_of(t),
                format!("mad.{m}.cc.{t} {s5}, {a}, {b}, {c}; madc.{m}.cc.{t} {s6}, {a}, {c}, {e}; madc.{m}.{t} {s7}, {b}, {c}, {d}; {fold}").replace(&format!(", {d}; xor"), &format!(", {e}; xor")),
            );
        }
        g.k(
            "madc",
            75,
            out_of(t),
            format!("add.cc.{t} {s5}, {a}, {b}; madc.lo.{t} {s6}, {a}, {c}, {e}; mov.{t} {s7}, 1; {fold}"),
        );
    }
}

pub(super) fn float(g: &mut Gen) {
    for t in ["f32", "f64"] {
        for p in [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ] {
            g.k(
                "testp",
                75,
                Out::Pred,
                format!("testp.{p}.{t} %p0, {};", reg(t, 1)),
            );
        }
        g.k(
            "copysign",
            75,
            out_of(t),
            fill("copysign.{t} {d}, {a}, {b};", t),
        );
    }
    let f32s = ["f32"];
    for op in ["add", "sub", "mul"] {
        let isa = match op {
            "add" => "add.f",
            "sub" => "sub.f",
            _ => "mul.f",
        };
        g.typed(isa, 75, &format!("{op}.f32 {{d}}, {{a}}, {{b}};"), &f32s);
        for r in RND {
            for ftz in ["", ".ftz"] {
                g.k(
                    isa,
                    75,
                    Out::R32,
                    format!("{op}.{r}{ftz}.f32 %r0, %r1, %r2;"),
                );
                g.k(
                    isa,
                    75,
                    Out::R32,
                    format!("{op}.{r}{ftz}.sat.f32 %r0, %r1, %r2;"),
                );
            }
            g.k(isa, 75, Out::R64, format!("{op}.{r}.f64 %rd0, %rd1, %rd2;"));
        }
        for imm in F32_IMMS {
            g.k(isa, 75, Out::R32, format!("{op}.rn.f32 %r0, %r1, {imm};"));
        }
        for imm in F64_IMMS {
            g.k(isa, 75, Out::R64, format!("{op}.rn.f64 %rd0, %rd1, {imm};"));
        }
        g.k(
            isa,
            75,
            Out::R32,
            format!("{op}.rn.f32 %r0, %r1, 0f40000000;"),
        );
        g.k(
            isa,
            75,
            Out::R32,
            format!("{op}.rz.f32 %r0, %r1, 0f3F000000;"),
        );
    }
    for r in RND {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                g.k(
                    "fma.f",
                    75,
                    Out::R32,
                    format!("fma.{r}{ftz}{sat}.f32 %r0, %r1, %r2, %r3;"),
                );
            }
            g.k(
                "mad.f",
                75,
                Out::R32,
                format!("mad.{r}{ftz}.f32 %r0, %r1, %r2, %r3;"),
            );
        }
        g.k(
            "fma.f",
            75,
            Out::R64,
            format!("fma.{r}.f64 %rd0, %rd1, %rd2, %rd3;"),
        );
        g.k(
            "mad.f",
            75,
            Out::R64,
            format!("mad.{r}.f64 %rd0, %rd1, %rd2, %rd3;"),
        );
    }
    for imm in F32_IMMS {
        g.k(
            "fma.f",
            75,
            Out::R32,
            format!("fma.rn.f32 %r0, %r1, %r2, {imm};"),
        );
        g.k(
            "fma.f",
            75,
            Out::R32,
            format!("fma.rn.f32 %r0, %r1, {imm}, %r3;"),
        );
    }
    for imm in F64_IMMS {
        g.k(
            "fma.f",
            75,
            Out::R64,
            format!("fma.rn.f64 %rd0, %rd1, %rd2, {imm};"),
        );
        g.k(
            "fma.f",
            75,
            Out::R64,
            format!("fma.rn.f64 %rd0, %rd1, {imm}, %rd3;"),
        );
    }
    for ftz in ["", ".ftz"] {
        g.k(
            "div.f",
            75,
            Out::R32,
            format!("div.approx{ftz}.f32 %r0, %r1, %r2;"),
        );
        g.k(
            "div.f",
            75,
            Out::R32,
            format!("div.full{ftz}.f32 %r0, %r1, %r2;"),
        );
        for r in RND {
            g.k(
                "div.f",
                75,
                Out::R32,
                format!("div.{r}{ftz}.f32 %r0, %r1, %r2;"),
            );
            g.k("rcp", 75, Out::R32, format!("rcp.{r}{ftz}.f32 %r0, %r1;"));
            g.k("sqrt", 75, Out::R32, format!("sqrt.{r}{ftz}.f32 %r0, %r1;"));
        }
        g.k("abs.f", 75, Out::R32, format!("abs{ftz}.f32 %r0, %r1;"));
        g.k("neg.f", 75, Out::R32, format!("neg{ftz}.f32 %r0, %r1;"));
        g.k(
            "rcp",
            75,
            Out::R32,
            format!("rcp.approx{ftz}.f32 %r0, %r1;"),
        );
        g.k(
            "sqrt",
            75,
            Out::R32,
            format!("sqrt.approx{ftz}.f32 %r0, %r1;"),
        );
        g.k(
            "rsqrt",
            75,
            Out::R32,
            format!("rsqrt.approx{ftz}.f32 %r0, %r1;"),
        );
        for f in ["sin", "cos", "lg2", "ex2"] {
            let isa = match f {
                "sin" => "sin",
                "cos" => "cos",
                "lg2" => "lg2",
                _ => "ex2",
            };
            g.k(isa, 75, Out::R32, format!("{f}.approx{ftz}.f32 %r0, %r1;"));
        }
        for op in ["min", "max"] {
            let isa = if op == "min" { "min.f" } else { "max.f" };
            g.k(isa, 75, Out::R32, format!("{op}{ftz}.f32 %r0, %r1, %r2;"));
            g.k(
                isa,
                80,
                Out::R32,
                format!("{op}{ftz}.NaN.f32 %r0, %r1, %r2;"),
            );
            g.k(
                isa,
                86,
                Out::R32,
                format!("{op}{ftz}.xorsign.abs.f32 %r0, %r1, %r2;"),
            );
            g.k(
                isa,
                75,
                Out::R32,
                format!("{op}{ftz}.f32 %r0, %r1, 0f7FC00000;"),
            );
            g.k(
                isa,
                75,
                Out::R32,
                format!("{op}{ftz}.f32 %r0, %r1, 0fFF800000;"),
            );
        }
    }
    for r in RND {
        g.k(
            "div.f",
            75,
            Out::R64,
            format!("div.{r}.f64 %rd0, %rd1, %rd2;"),
        );
        g.k("rcp", 75, Out::R64, format!("rcp.{r}.f64 %rd0, %rd1;"));
        g.k("sqrt", 75, Out::R64, format!("sqrt.{r}.f64 %rd0, %rd1;"));
    }
    g.k("abs.f", 75, Out::R64, "abs.f64 %rd0, %rd1;");
    g.k("neg.f", 75, Out::R64, "neg.f64 %rd0, %rd1;");
    g.k("min.f", 75, Out::R64, "min.f64 %rd0, %rd1, %rd2;");
    g.k("max.f", 75, Out::R64, "max.f64 %rd0, %rd1, %rd2;");
    g.k(
        "min.f",
        75,
        Out::R64,
        "min.f64 %rd0, %rd1, 0d7FF8000000000000;",
    );
    g.k("rcp", 75, Out::R64, "rcp.approx.ftz.f64 %rd0, %rd1;");
    g.k("rsqrt", 75, Out::R64, "rsqrt.approx.f64 %rd0, %rd1;");
    g.k("rsqrt", 75, Out::R64, "rsqrt.approx.ftz.f64 %rd0, %rd1;");
    g.k("tanh", 75, Out::R32, "tanh.approx.f32 %r0, %r1;");
}

pub(super) fn half(g: &mut Gen) {
    for op in ["add", "sub", "mul"] {
        let isa = match op {
            "add" => "add.h",
            "sub" => "sub.h",
            _ => "mul.h",
        };
        for t in ["f16", "f16x2"] {
            for m in ["", ".rn", ".ftz", ".sat", ".rn.ftz.sat"] {
                g.k(
                    isa,
                    75,
                    out_of(t),
                    fill(&format!("{op}{m}.{{t}} {{d}}, {{a}}, {{b}};"), t),
                );
            }
        }
        for t in ["bf16", "bf16x2"] {
            g.k(
                isa,
                90,
                out_of(t),
                fill(&format!("{op}.rn.{{t}} {{d}}, {{a}}, {{b}};"), t),
            );
        }
        for bits in F16_BITS {
            g.k(
                isa,
                75,
                Out::R16,
                format!("mov.b16 %h5, {bits}; {op}.f16 %h0, %h1, %h5;"),
            );
        }
        for pair in [
            "0x7E007C00",
            "0x3C00FC00",
            "0x00017BFF",
            "0x80003C00",
            "0x7C017E00",
        ] {
            g.k(
                isa,
                75,
                Out::R32,
                format!("mov.b32 %r5, {pair}; {op}.rn.f16x2 %r0, %r1, %r5;"),
            );
        }
    }
    for t in ["f16", "f16x2"] {
        for m in ["", ".ftz", ".sat", ".ftz.sat"] {
            g.k(
                "fma.h",
                75,
                out_of(t),
                fill(&format!("fma.rn{m}.{{t}} {{d}}, {{a}}, {{b}}, {{c}};"), t),
            );
        }
        g.k(
            "fma.h",
            80,
            out_of(t),
            fill("fma.rn.relu.{t} {d}, {a}, {b}, {c};", t),
        );
        g.k(
            "fma.h",
            80,
            out_of(t),
            fill("fma.rn.ftz.relu.{t} {d}, {a}, {b}, {c};", t),
        );
        g.k(
            "fma.h",
            90,
            out_of(t),
            fill("fma.rn.oob.{t} {d}, {a}, {b}, {c};", t),
        );
        g.k("neg.h", 75, out_of(t), fill("neg.{t} {d}, {a};", t));
        g.k("neg.h", 75, out_of(t), fill("neg.ftz.{t} {d}, {a};", t));
        g.k("abs.h", 75, out_of(t), fill("abs.{t} {d}, {a};", t));
        g.k("abs.h", 75, out_of(t), fill("abs.ftz.{t} {d}, {a};", t));
        g.k("tanh", 75, out_of(t), fill("tanh.approx.{t} {d}, {a};", t));
        g.k("ex2", 75, out_of(t), fill("ex2.approx.{t} {d}, {a};", t));
        for op in ["min", "max"] {
            let isa = if op == "min" { "min.h" } else { "max.h" };
            for m in ["", ".ftz", ".NaN", ".ftz.NaN"] {
                g.k(
                    isa,
                    80,
                    out_of(t),
                    fill(&format!("{op}{m}.{{t}} {{d}}, {{a}}, {{b}};"), t),
                );
            }
            g.k(
                isa,
                86,
                out_of(t),
                fill(&format!("{op}.xorsign.abs.{{t}} {{d}}, {{a}}, {{b}};"), t),
            );
        }
    }
    for pair in ["0x7E007C00", "0x00017BFF"] {
        g.k(
            "fma.h",
            75,
            Out::R32,
            format!("mov.b32 %r5, {pair}; fma.rn.f16x2 %r0, %r1, %r5, %r3;"),
        );
        g.k(
            "fma.h",
            75,
            Out::R32,
            format!("mov.b32 %r5, {pair}; fma.rn.f16x2 %r0, %r1, %r2, %r5;"),
        );
    }
    for t in ["bf16", "bf16x2"] {
        g.k(
            "fma.h",
            80,
            out_of(t),
            fill("fma.rn.{t} {d}, {a}, {b}, {c};", t),
        );
        g.k(
            "fma.h",
            80,
            out_of(t),
            fill("fma.rn.relu.{t} {d}, {a}, {b}, {c};", t),
        );
        g.k("neg.h", 80, out_of(t), fill("neg.{t} {d}, {a};", t));
        g.k("abs.h", 80, out_of(t), fill("abs.{t} {d}, {a};", t));
        g.k("tanh", 90, out_of(t), fill("tanh.approx.{t} {d}, {a};", t));
        g.k(
            "ex2",
            90,
            out_of(t),
            fill("ex2.approx.ftz.{t} {d}, {a};", t),
        );
        for op in ["min", "max"] {
            let isa = if op == "min" { "min.h" } else { "max.h" };
            g.k(
                isa,
                80,
                out_of(t),
                fill(&format!("{op}.{{t}} {{d}}, {{a}}, {{b}};"), t),
            );
            g.k(
                isa,
                80,
                out_of(t),
                fill(&format!("{op}.NaN.{{t}} {{d}}, {{a}}, {{b}};"), t),
            );
        }
    }
}
