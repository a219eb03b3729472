//! Comparison and selection, logic and shifts, moves and special registers, conversions.

use super::*;

pub(super) fn compare(g: &mut Gen) {
    for t in INTS {
        for c in ICMP {
            if t.starts_with('s') && ["lo", "ls", "hi", "hs"].contains(&c) {
                continue;
            }
            g.k(
                "setp",
                75,
                Out::Pred,
                fill(&format!("setp.{c}.{{t}} %p0, {{a}}, {{b}};"), t),
            );
        }
        g.k("setp", 75, Out::Pred, fill("setp.lt.{t} %p0, {a}, 77;", t));
        g.k(
            "setp",
            75,
            Out::Pred,
            fill("setp.ne.and.{t} %p0, {a}, {b}, %p1;", t),
        );
        g.k(
            "setp",
            75,
            Out::Pred,
            fill(
                "setp.ge.or.{t} %p0|%p3, {a}, {b}, !%p1; xor.pred %p0, %p0, %p3;",
                t,
            ),
        );
        g.k(
            "set",
            75,
            Out::R32,
            fill("set.gt.u32.{t} %r0, {a}, {b};", t),
        );
        g.k(
            "set",
            75,
            Out::R32,
            fill("set.eq.xor.s32.{t} %r0, {a}, {b}, %p2;", t),
        );
        g.k(
            "selp",
            75,
            out_of(t),
            fill("selp.{t} {d}, {a}, {b}, %p1;", t),
        );
        g.k("selp", 75, out_of(t), fill("selp.{t} {d}, {a}, 5, %p1;", t));
    }
    for t in ["b16", "b32", "b64"] {
        g.k("setp", 75, Out::Pred, fill("setp.ne.{t} %p0, {a}, {b};", t));
        g.k(
            "selp",
            75,
            out_of(t),
            fill("selp.{t} {d}, {a}, {b}, %p1;", t),
        );
    }
    for t in ["f32", "f64"] {
        for c in FCMP {
            g.k(
                "setp",
                75,
                Out::Pred,
                fill(&format!("setp.{c}.{{t}} %p0, {{a}}, {{b}};"), t),
            );
        }
        g.k(
            "setp",
            75,
            Out::Pred,
            fill("setp.lt.ftz.{t} %p0, {a}, {b};", t).replace(".ftz.f64", ".f64"),
        );
        g.k(
            "setp",
            75,
            Out::Pred,
            fill(
                "setp.gtu.and.{t} %p0|%p3, {a}, {b}, %p1; xor.pred %p0, %p0, %p3;",
                t,
            ),
        );
        g.k(
            "set",
            75,
            Out::R32,
            fill("set.lt.f32.{t} %r0, {a}, {b};", t),
        );
        g.k(
            "set",
            75,
            Out::R32,
            fill("set.num.or.u32.{t} %r0, {a}, {b}, !%p2;", t),
        );
        g.k(
            "selp",
            75,
            out_of(t),
            fill("selp.{t} {d}, {a}, {b}, %p1;", t),
        );
        g.k(
            "slct",
            75,
            out_of(t),
            fill("slct.{t}.s32 {d}, {a}, {b}, %r3;", t),
        );
        g.k(
            "slct",
            75,
            out_of(t),
            fill("slct.{t}.f32 {d}, {a}, {b}, %r3;", t),
        );
        g.k(
            "slct",
            75,
            out_of(t),
            fill("slct.ftz.{t}.f32 {d}, {a}, {b}, %r3;", t),
        );
    }
    for imm in F32_IMMS.iter().step_by(3) {
        g.k(
            "setp",
            75,
            Out::Pred,
            format!("setp.lt.f32 %p0, %r1, {imm};"),
        );
    }
    for imm in F64_IMMS.iter().step_by(3) {
        g.k(
            "setp",
            75,
            Out::Pred,
            format!("setp.geu.f64 %p0, %rd1, {imm};"),
        );
    }
    for c in [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "ltu", "num", "nan",
    ] {
        g.k(
            "setp.h",
            75,
            Out::Pred,
            format!("setp.{c}.f16 %p0, %h1, %h2;"),
        );
        g.k(
            "setp.h",
            75,
            Out::Pred,
            format!("setp.{c}.ftz.f16x2 %p0|%p3, %r1, %r2; and.pred %p0, %p0, %p3;"),
        );
        g.k(
            "setp.h",
            90,
            Out::Pred,
            format!("setp.{c}.bf16 %p0, %h1, %h2;"),
        );
        g.k(
            "set.h",
            75,
            Out::R32,
            format!("set.{c}.u32.f16 %r0, %h1, %h2;"),
        );
        g.k(
            "set.h",
            75,
            Out::R32,
            format!("set.{c}.f16x2.f16x2 %r0, %r1, %r2;"),
        );
        g.k(
            "set.h",
            75,
            Out::R16,
            format!("set.{c}.f16.f16 %h0, %h1, %h2;"),
        );
        g.k(
            "set.h",
            90,
            Out::R32,
            format!("set.{c}.bf16x2.bf16x2 %r0, %r1, %r2;"),
        );
    }
}

pub(super) fn logic(g: &mut Gen) {
    for op in ["and", "or", "xor"] {
        let isa = match op {
            "and" => "and",
            "or" => "or",
            _ => "xor",
        };
        for t in ["b16", "b32", "b64"] {
            g.k(
                isa,
                75,
                out_of(t),
                fill(&format!("{op}.{{t}} {{d}}, {{a}}, {{b}};"), t),
            );
            g.k(
                isa,
                75,
                out_of(t),
                fill(&format!("{op}.{{t}} {{d}}, {{a}}, 0xF0F0;"), t),
            );
        }
        g.k(isa, 75, Out::Pred, format!("{op}.pred %p0, %p1, %p2;"));
        g.k(isa, 75, Out::Pred, format!("{op}.pred %p0, %p1, !%p2;"));
    }
    for t in ["b16", "b32", "b64"] {
        g.k("not", 75, out_of(t), fill("not.{t} {d}, {a};", t));
        g.k("cnot", 75, out_of(t), fill("cnot.{t} {d}, {a};", t));
        g.k("shl", 75, out_of(t), fill("shl.{t} {d}, {a}, %r3;", t));
        g.k("shl", 75, out_of(t), fill("shl.{t} {d}, {a}, 3;", t));
    }
    g.k("not", 75, Out::Pred, "not.pred %p0, %p1;");
    for t in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
    ] {
        g.k("shr", 75, out_of(t), fill("shr.{t} {d}, {a}, %r3;", t));
        g.k("shr", 75, out_of(t), fill("shr.{t} {d}, {a}, 5;", t));
    }
    for lut in ["0x96", "0xE8", "0xCA", "0x3C", "0x01", "0xFE"] {
        g.k(
            "lop3",
            75,
            Out::R32,
            format!("lop3.b32 %r0, %r1, %r2, %r3, {lut};"),
        );
        g.k(
            "lop3",
            75,
            Out::R32,
            format!("lop3.b32 %r0, %r1, 0xFF00, %r3, {lut};"),
        );
    }
    for b in ["and", "or"] {
        g.k(
            "lop3",
            75,
            Out::Pred,
            format!("lop3.{b}.b32 %r5|%p0, %r1, %r2, %r3, 0x96, %p1; st.global.b32 [%rd9+4], %r5;"),
        );
    }
    for d in ["l", "r"] {
        for m in ["wrap", "clamp"] {
            g.k(
                "shf",
                75,
                Out::R32,
                format!("shf.{d}.{m}.b32 %r0, %r1, %r2, %r3;"),
            );
            g.k(
                "shf",
                75,
                Out::R32,
                format!("shf.{d}.{m}.b32 %r0, %r1, %r2, 7;"),
            );
        }
    }
}

pub(super) fn data(g: &mut Gen) {
    for t in ["b16", "b32", "b64", "u16", "s32", "u64", "f32", "f64"] {
        g.k("mov", 75, out_of(t), fill("mov.{t} {d}, {a};", t));
    }
    g.k("mov", 75, Out::R32, "mov.b32 %r0, 0x12345678;");
    g.k("mov", 75, Out::R64, "mov.b64 %rd0, 0x123456789ABCDEF0;");
    g.k("mov", 75, Out::R64, "mov.b64 %rd0, {%r1, %r2};");
    g.k(
        "mov",
        75,
        Out::R32,
        "mov.b64 {%r5, %r6}, %rd1; add.s32 %r0, %r5, %r6;",
    );
    g.k("mov", 75, Out::R32, "mov.b32 %r0, {%h1, %h2};");
    g.k(
        "mov",
        75,
        Out::R16,
        "mov.b32 {%h5, %h6}, %r1; xor.b16 %h0, %h5, %h6;",
    );
    g.k("mov", 75, Out::R64, "mov.u64 %rd0, gbuf;");
    g.k("mov", 75, Out::R32, "mov.u32 %r0, sbuf;");
    for (sr, w) in [
        ("%tid.x", 32),
        ("%tid.y", 32),
        ("%tid.z", 32),
        ("%ntid.x", 32),
        ("%ntid.y", 32),
        ("%laneid", 32),
        ("%warpid", 32),
        ("%nwarpid", 32),
        ("%ctaid.x", 32),
        ("%ctaid.z", 32),
        ("%nctaid.y", 32),
        ("%smid", 32),
        ("%nsmid", 32),
        ("%gridid", 64),
        ("%lanemask_eq", 32),
        ("%lanemask_le", 32),
        ("%lanemask_lt", 32),
        ("%lanemask_ge", 32),
        ("%lanemask_gt", 32),
        ("%clock", 32),
        ("%clock_hi", 32),
        ("%clock64", 64),
        ("%globaltimer", 64),
        ("%globaltimer_lo", 32),
        ("%globaltimer_hi", 32),
        ("%pm0", 32),
        ("%pm7", 32),
        ("%pm0_64", 64),
        ("%envreg0", 32),
        ("%envreg31", 32),
        ("%total_smem_size", 32),
        ("%dynamic_smem_size", 32),
    ] {
        let (d, o) = if w == 64 {
            ("u64 %rd0", Out::R64)
        } else {
            ("u32 %r0", Out::R32)
        };
        g.k("mov", 75, o, format!("mov.{d}, {sr};"));
    }
    g.k(
        "mov",
        80,
        Out::R32,
        "mov.u32 %r0, %reserved_smem_offset_begin;",
    );
    for sr in [
        "%clusterid.x",
        "%nclusterid.x",
        "%cluster_ctaid.x",
        "%cluster_nctaid.x",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%is_explicit_cluster",
        "%aggr_smem_size",
    ] {
        let (d, o) = if sr == "%is_explicit_cluster" {
            ("pred %p0", Out::Pred)
        } else {
            ("u32 %r0", Out::R32)
        };
        g.k("mov", 90, o, format!("mov.{d}, {sr};"));
    }
    for m in ["up", "down", "bfly", "idx"] {
        g.k(
            "shfl.sync",
            75,
            Out::R32,
            format!("shfl.sync.{m}.b32 %r0, %r1, %r2, 0x1f, 0xffffffff;"),
        );
        g.k(
            "shfl.sync",
            75,
            Out::R32,
            format!("shfl.sync.{m}.b32 %r0, %r1, 3, %r3, 0xffffffff;"),
        );
        g.k("shfl.sync", 75, Out::R32, format!("shfl.sync.{m}.b32 %r0|%p0, %r1, %r2, %r3, %r4; selp.b32 %r5, 1, 0, %p0; add.s32 %r0, %r0, %r5;"));
    }
    for m in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"] {
        g.k(
            "prmt",
            75,
            Out::R32,
            format!("prmt.b32{m} %r0, %r1, %r2, %r3;"),
        );
        g.k(
            "prmt",
            75,
            Out::R32,
            format!("prmt.b32{m} %r0, %r1, %r2, 0x3210;"),
        );
    }
}

pub(super) fn convert(g: &mut Gen) {
    let ints = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"];
    let floats = ["f16", "f32", "f64"];
    // Registers for a cvt operand of `t` (8-bit values live in 16-bit registers).
    let rg = |t: &str, i: u32| {
        if t.ends_with('8') {
            format!("%h{i}")
        } else {
            reg(t, i)
        }
    };
    let out = |t: &str| {
        if t.ends_with('8') {
            Out::R16
        } else {
            out_of(t)
        }
    };
    for d in ints {
        for s in ints {
            if d != s {
                g.k(
                    "cvt",
                    75,
                    out(d),
                    format!("cvt.{d}.{s} {}, {};", rg(d, 0), rg(s, 1)),
                );
            }
        }
        if !matches!(d, "s32" | "s64") {
            g.k(
                "cvt",
                75,
                out(d),
                format!("cvt.sat.{d}.s32 {}, %r1;", rg(d, 0)),
            );
        }
        for s in floats {
            for r in ["rni", "rzi", "rmi", "rpi"] {
                g.k(
                    "cvt",
                    75,
                    out(d),
                    format!("cvt.{r}.{d}.{s} {}, {};", rg(d, 0), rg(s, 1)),
                );
            }
            g.k(
                "cvt",
                75,
                out(d),
                format!("cvt.rzi.sat.{d}.{s} {}, {};", rg(d, 0), rg(s, 1)),
            );
        }
        g.k(
            "cvt",
            75,
            out(d),
            format!("cvt.rzi.ftz.{d}.f32 {}, %r1;", rg(d, 0)),
        );
        if !d.ends_with('8') {
            g.k(
                "cvt",
                90,
                out(d),
                format!("cvt.rni.{d}.bf16 {}, %h1;", rg(d, 0)),
            );
        }
    }
    for s in ints {
        for d in floats {
            for r in RND {
                g.k(
                    "cvt",
                    75,
                    out_of(d),
                    format!("cvt.{r}.{d}.{s} {}, {};", reg(d, 0), rg(s, 1)),
                );
            }
        }
        if !s.ends_with('8') {
            g.k(
                "cvt",
                90,
                Out::R16,
                format!("cvt.rn.bf16.{s} %h0, {};", rg(s, 1)),
            );
        }
    }
    for d in floats {
        for s in floats {
            if d == s {
                for r in ["rni", "rzi", "rmi", "rpi"] {
                    g.k(
                        "cvt",
                        75,
                        out_of(d),
                        format!("cvt.{r}.{d}.{s} {}, {};", reg(d, 0), reg(s, 1)),
                    );
                }
                continue;
            }
            let narrow = floats.iter().position(|x| *x == d) < floats.iter().position(|x| *x == s);
            if narrow {
                for r in RND {
                    g.k(
                        "cvt",
                        75,
                        out_of(d),
                        format!("cvt.{r}.{d}.{s} {}, {};", reg(d, 0), reg(s, 1)),
                    );
                }
                g.k(
                    "cvt",
                    75,
                    out_of(d),
                    format!("cvt.rn.sat.{d}.{s} {}, {};", reg(d, 0), reg(s, 1)),
                );
            } else {
                g.k(
                    "cvt",
                    75,
                    out_of(d),
                    format!("cvt.{d}.{s} {}, {};", reg(d, 0), reg(s, 1)),
                );
            }
        }
    }
    g.k("cvt", 75, Out::R32, "cvt.ftz.f32.f16 %r0, %h1;");
    g.k("cvt", 75, Out::R32, "cvt.ftz.sat.f32.f32 %r0, %r1;");
    g.k("cvt", 80, Out::R16, "cvt.rn.bf16.f32 %h0, %r1;");
    g.k("cvt", 80, Out::R16, "cvt.rn.relu.bf16.f32 %h0, %r1;");
    g.k("cvt", 80, Out::R16, "cvt.rn.relu.f16.f32 %h0, %r1;");
    g.k("cvt", 80, Out::R32, "cvt.f32.bf16 %r0, %h1;");
    g.k("cvt", 80, Out::R32, "cvt.rn.f16x2.f32 %r0, %r1, %r2;");
    g.k("cvt", 80, Out::R32, "cvt.rz.relu.f16x2.f32 %r0, %r1, %r2;");
    g.k("cvt", 80, Out::R32, "cvt.rn.bf16x2.f32 %r0, %r1, %r2;");
    g.k("cvt", 80, Out::R32, "cvt.rna.tf32.f32 %r0, %r1;");
    for f8 in ["e4m3x2", "e5m2x2"] {
        g.k(
            "cvt",
            89,
            Out::R16,
            format!("cvt.rn.satfinite.{f8}.f32 %h0, %r1, %r2;"),
        );
        g.k(
            "cvt",
            89,
            Out::R16,
            format!("cvt.rn.satfinite.relu.{f8}.f16x2 %h0, %r1;"),
        );
        g.k("cvt", 89, Out::R32, format!("cvt.rn.f16x2.{f8} %r0, %h1;"));
    }
    for d in ["u8", "s8"] {
        g.k(
            "cvt.pack",
            75,
            Out::R32,
            format!("cvt.pack.sat.{d}.s32.b32 %r0, %r1, %r2, %r3;"),
        );
    }
    for d in ["u16", "s16"] {
        g.k(
            "cvt.pack",
            75,
            Out::R32,
            format!("cvt.pack.sat.{d}.s32 %r0, %r1, %r2;"),
        );
    }
    for s in ["const", "global", "local", "shared"] {
        g.k("cvta", 75, Out::R64, format!("cvta.{s}.u64 %rd0, %rd1;"));
        g.k("cvta", 75, Out::R64, format!("cvta.to.{s}.u64 %rd0, %rd1;"));
        g.k(
            "isspacep",
            75,
            Out::Pred,
            format!("isspacep.{s} %p0, %rd1;"),
        );
    }
    g.k("cvta", 75, Out::R64, "cvta.global.u64 %rd0, gbuf;");
    g.k("cvta", 75, Out::R64, "cvta.shared.u64 %rd0, sbuf;");
    g.k(
        "isspacep",
        90,
        Out::Pred,
        "isspacep.shared::cluster %p0, %rd1;",
    );
    g.k(
        "mapa",
        90,
        Out::R32,
        "mapa.shared::cluster.u32 %r0, %r1, %r2;",
    );
    g.k("mapa", 90, Out::R64, "mapa.u64 %rd0, %rd1, %r2;");
    g.k(
        "getctarank",
        90,
        Out::R32,
        "getctarank.shared::cluster.u32 %r0, %r1;",
    );
    g.k("getctarank", 90, Out::R32, "getctarank.u64 %r0, %rd1;");
}
