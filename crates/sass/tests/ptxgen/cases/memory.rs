//! Loads and stores in every state space, asynchronous copies, textures and surfaces.

use super::*;

/// The memory types of loads and stores (8-bit values go through 16-bit registers).
const MEM_TYPES: [(&str, &str); 9] = [
    ("u8", "%h0"),
    ("s8", "%h0"),
    ("u16", "%h0"),
    ("s16", "%h0"),
    ("u32", "%r0"),
    ("s32", "%r0"),
    ("u64", "%rd0"),
    ("f32", "%r0"),
    ("f64", "%rd0"),
];

/// The output of a load into `r`.
pub(super) fn out_reg(r: &str) -> Out {
    match r {
        "%h0" => Out::R16,
        "%rd0" => Out::R64,
        _ => Out::R32,
    }
}

pub(super) fn memory(g: &mut Gen) {
    // An address in each state space: global %rd5 (this thread's slot offset by an input),
    // shared %r5, local from a local array, const %rd5 into cbuf, param.
    let gaddr = "and.b64 %rd5, %rd1, 0x3f0; add.s64 %rd5, %rd9, %rd5;";
    let saddr = "mov.u32 %r5, sbuf; and.b32 %r6, %r1, 0x3f0; add.s32 %r5, %r5, %r6;";
    let caddr = "mov.u64 %rd5, cbuf; and.b64 %rd6, %rd1, 0x3f0; add.s64 %rd5, %rd5, %rd6;";
    for (t, r) in MEM_TYPES {
        let o = out_reg(r);
        g.k("ld", 75, o, format!("{gaddr} ld.global.{t} {r}, [%rd5+8];"));
        g.k("ld", 75, o, format!("{saddr} ld.shared.{t} {r}, [%r5+8];"));
        g.k("ld", 75, o, format!("{caddr} ld.const.{t} {r}, [%rd5];"));
        g.k("ld", 75, o, format!("ld.const.{t} {r}, [cbuf+16];"));
        g.k("ld", 75, o, format!("ld.global.nc.{t} {r}, [%rd9+8];"));
        g.k("ldu", 75, o, format!("ldu.global.{t} {r}, [%rd9+8];"));
        g.k("ld", 75, o, format!("ld.{t} {r}, [%rd1];"));
        g.k(
            "ld",
            75,
            o,
            format!(".local .align 16 .b8 lbuf[64]; st.local.v4.b32 [lbuf], {{%r1, %r2, %r3, %r4}}; st.local.v4.b32 [lbuf+16], {{%r4, %r3, %r2, %r1}}; and.b32 %r6, %r2, 0x1c; mov.u32 %r5, lbuf; add.s32 %r5, %r5, %r6; ld.local.{t} {r}, [%r5];"),
        );
        let src = r.replace('0', "1");
        g.k(
            "st",
            75,
            Out::None,
            format!("{gaddr} st.global.{t} [%rd5+8], {src};"),
        );
        g.k("st", 75, Out::None, format!("{saddr} st.shared.{t} [%r5+8], {src}; bar.sync 0; ld.shared.u32 %r0, [%r5+12]; st.global.u32 [%rd9], %r0;"));
        g.k("st", 75, Out::None, format!("st.{t} [%rd1], {src};"));
    }
    // Vector loads and stores: v2 of 16, 32 and 64 bits, v4 of 16 and 32 bits; loads
    // write the scratch registers 5.. and keep the first.
    for (v, n) in [("v2", 2), ("v4", 4)] {
        for (t, prefix) in [("b16", "%h"), ("b32", "%r"), ("b64", "%rd")] {
            if n == 4 && t == "b64" {
                continue;
            }
            let regs = |from: usize| {
                (from..from + n)
                    .map(|i| format!("{prefix}{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let (dst, src) = (regs(5), regs(1));
            let keep = format!("st.global.{t} [%rd9], {prefix}5;");
            g.k(
                "ld",
                75,
                Out::None,
                format!("{gaddr} ld.global.{v}.{t} {{{dst}}}, [%rd5]; {keep}"),
            );
            g.k(
                "ld",
                75,
                Out::None,
                format!("{saddr} ld.shared.{v}.{t} {{{dst}}}, [%r5]; {keep}"),
            );
            g.k(
                "ld",
                75,
                Out::None,
                format!("ld.global.nc.{v}.{t} {{{dst}}}, [%rd9]; {keep}"),
            );
            g.k(
                "st",
                75,
                Out::None,
                format!("{gaddr} st.global.{v}.{t} [%rd5], {{{src}}};"),
            );
            g.k(
                "st",
                75,
                Out::None,
                format!("{saddr} st.shared.{v}.{t} [%r5], {{{src}}}; bar.sync 0; ld.shared.u32 %r0, [%r5+4]; st.global.u32 [%rd9], %r0;"),
            );
        }
    }
    g.k("ld", 75, Out::None, ".reg .b128 %q; ld.global.b128 %q, [%rd9]; mov.b128 {%rd5, %rd6}, %q; st.global.b64 [%rd9+8], %rd6;");
    g.k(
        "st",
        75,
        Out::None,
        ".reg .b128 %q; mov.b128 %q, {%rd1, %rd2}; st.global.b128 [%rd9], %q;",
    );
    for c in ["ca", "cg", "cs", "lu", "cv"] {
        g.k(
            "ld",
            75,
            Out::R32,
            format!("ld.global.{c}.u32 %r0, [%rd9+8];"),
        );
    }
    for c in ["wb", "cg", "cs", "wt"] {
        g.k(
            "st",
            75,
            Out::None,
            format!("st.global.{c}.u32 [%rd9+8], %r1;"),
        );
    }
    for sem in [
        "volatile",
        "relaxed.cta",
        "relaxed.gpu",
        "relaxed.sys",
        "acquire.cta",
        "acquire.gpu",
        "acquire.sys",
        "weak",
        "mmio.relaxed.sys",
    ] {
        g.k(
            "ld",
            75,
            Out::R32,
            format!("ld.{sem}.global.u32 %r0, [%rd9+8];"),
        );
        if !sem.starts_with("mmio") {
            g.k(
                "ld",
                75,
                Out::R32,
                format!("{saddr} ld.{sem}.shared.u32 %r0, [%r5];"),
            );
        }
        let st = sem.replace("acquire", "release");
        g.k(
            "st",
            75,
            Out::None,
            format!("st.{st}.global.u32 [%rd9+8], %r1;"),
        );
    }
    for h in [
        "L1::evict_normal",
        "L1::evict_unchanged",
        "L1::evict_first",
        "L1::evict_last",
        "L1::no_allocate",
    ] {
        g.k(
            "ld",
            75,
            Out::R32,
            format!("ld.global.{h}.u32 %r0, [%rd9+8];"),
        );
        g.k(
            "st",
            75,
            Out::None,
            format!("st.global.{h}.u32 [%rd9+8], %r1;"),
        );
    }
    for h in ["L2::64B", "L2::128B", "L2::256B"] {
        g.k(
            "ld",
            80,
            Out::R32,
            format!("ld.global.{h}.u32 %r0, [%rd9+8];"),
        );
    }
    g.k("ld", 80, Out::R32, "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0; ld.global.L2::cache_hint.u32 %r0, [%rd9+8], %rd5;");
    g.k("st", 80, Out::None, "createpolicy.fractional.L2::evict_first.b64 %rd5, 0.5; st.global.L2::cache_hint.u32 [%rd9+8], %r1, %rd5;");
    g.k("ld", 75, Out::R32, "ld.param.u32 %r0, [pa+4];");
    for (s, a) in [("global", "[%rd9]"), ("local", "[%rd1]"), ("", "[%rd1]")] {
        for l in ["L1", "L2"] {
            let sp = if s.is_empty() {
                String::new()
            } else {
                format!(".{s}")
            };
            g.k("prefetch", 75, Out::None, format!("prefetch{sp}.{l} {a};"));
        }
    }
    g.k(
        "prefetch",
        80,
        Out::None,
        "prefetch.global.L2::evict_last [%rd9];",
    );
    g.k(
        "prefetch",
        80,
        Out::None,
        "prefetch.global.L2::evict_normal [%rd9];",
    );
    g.k("prefetch", 90, Out::None, "prefetch.tensormap [%rd1];");
    g.k("prefetchu", 75, Out::None, "prefetchu.L1 [%rd1];");
    g.k(
        "applypriority",
        80,
        Out::None,
        "applypriority.global.L2::evict_normal [%rd9], 128;",
    );
    g.k("discard", 80, Out::None, "discard.global.L2 [%rd9], 128;");
    g.k(
        "createpolicy",
        80,
        Out::R64,
        "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd0, 0.25;",
    );
    g.k(
        "createpolicy",
        80,
        Out::R64,
        "createpolicy.range.L2::evict_last.L2::evict_first.b64 %rd0, [%rd1], 256, 1024;",
    );
    g.k("stacksave", 75, Out::R64, "stacksave.u64 %rd0;");
    g.k("stackrestore", 75, Out::R64, "stacksave.u64 %rd5; alloca.u64 %rd6, 64, 16; st.local.u32 [%rd6], %r1; ld.local.u32 %r0, [%rd6]; stackrestore.u64 %rd5; cvt.u64.u32 %rd0, %r0;");
    g.k("alloca", 75, Out::R64, "alloca.u64 %rd5, 32; st.local.u32 [%rd5], %r1; ld.local.u32 %r0, [%rd5]; cvt.u64.u32 %rd0, %r0;");
    g.k("alloca", 75, Out::R64, "cvt.u64.u32 %rd6, %r1; and.b64 %rd6, %rd6, 0xf0; alloca.u64 %rd5, %rd6, 16; st.local.u32 [%rd5], %r1; ld.local.u32 %r0, [%rd5]; cvt.u64.u32 %rd0, %r0;");
}

pub(super) fn async_copy(g: &mut Gen) {
    let saddr = "mov.u32 %r5, sbuf; and.b32 %r6, %r1, 0x3f0; add.s32 %r5, %r5, %r6;";
    for (c, n) in [("ca", 4), ("ca", 8), ("ca", 16), ("cg", 16)] {
        g.k("cp.async", 80, Out::R32, format!("{saddr} cp.async.{c}.shared.global [%r5], [%rd9], {n}; cp.async.commit_group; cp.async.wait_group 0; bar.sync 0; ld.shared.u32 %r0, [%r5];"));
    }
    g.k("cp.async", 80, Out::R32, format!("{saddr} cp.async.ca.shared.global [%r5], [%rd9], 16, %r2; cp.async.wait_all; bar.sync 0; ld.shared.u32 %r0, [%r5];"));
    g.k(
        "cp.async.commit_group",
        80,
        Out::None,
        "cp.async.commit_group;",
    );
    g.k(
        "cp.async.wait_group",
        80,
        Out::None,
        "cp.async.wait_group 1;",
    );
    g.k("cp.async.wait_group", 80, Out::None, "cp.async.wait_all;");
    g.k(
        "cp.async.mbarrier.arrive",
        80,
        Out::None,
        format!("{saddr} cp.async.mbarrier.arrive.shared.b64 [%r5];"),
    );
    g.k(
        "cp.async.mbarrier.arrive",
        80,
        Out::None,
        format!("{saddr} cp.async.mbarrier.arrive.noinc.shared.b64 [%r5];"),
    );
    let b = "mov.u32 %r7, sbuf; add.s32 %r5, %r7, 512;";
    g.k("cp.async.bulk", 90, Out::None, format!("{b} cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd9], 256, [%r7];"));
    g.k(
        "cp.async.bulk",
        90,
        Out::None,
        format!("{b} cp.async.bulk.global.shared::cta.bulk_group [%rd9], [%r5], 256;"),
    );
    g.k(
        "cp.reduce.async.bulk",
        90,
        Out::None,
        format!(
            "{b} cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd9], [%r5], 256;"
        ),
    );
    g.k(
        "cp.async.bulk.prefetch",
        90,
        Out::None,
        "cp.async.bulk.prefetch.L2.global [%rd9], 256;",
    );
    g.k("cp.async.bulk.tensor", 90, Out::None, format!("{b} cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd1, {{%r2}}], [%r7];"));
    g.k("cp.async.bulk.tensor", 90, Out::None, format!("{b} cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {{%r2, %r3}}], [%r5];"));
    g.k("cp.reduce.async.bulk.tensor", 90, Out::None, format!("{b} cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {{%r2}}], [%r5];"));
    g.k(
        "cp.async.bulk.prefetch.tensor",
        90,
        Out::None,
        "cp.async.bulk.prefetch.tensor.1d.L2.global [%rd1, {%r2}];",
    );
    g.k(
        "cp.async.bulk.commit_group",
        90,
        Out::None,
        "cp.async.bulk.commit_group;",
    );
    g.k(
        "cp.async.bulk.wait_group",
        90,
        Out::None,
        "cp.async.bulk.wait_group 0;",
    );
    g.k(
        "cp.async.bulk.wait_group",
        90,
        Out::None,
        "cp.async.bulk.wait_group.read 1;",
    );
    g.k("st.async", 90, Out::None, "mov.u32 %r7, sbuf; st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r7];");
    g.k("red.async", 90, Out::None, "mov.u32 %r7, sbuf; red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r7];");
    g.k90a(
        "tensormap.replace",
        Out::None,
        "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
    );
    g.k("tensormap.cp_fenceproxy", 90, Out::None, "mov.u32 %r7, sbuf; tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r7], 128;");
    g.k(
        "multimem",
        90,
        Out::R32,
        "multimem.ld_reduce.relaxed.gpu.global.add.u32 %r0, [%rd1];",
    );
    g.k(
        "multimem",
        90,
        Out::None,
        "multimem.st.relaxed.gpu.global.u32 [%rd1], %r2;",
    );
    g.k(
        "multimem",
        90,
        Out::None,
        "multimem.red.relaxed.gpu.global.add.u32 [%rd1], %r2;",
    );
}

pub(super) fn texture(g: &mut Gen) {
    // Bindless (unified mode): texture and surface objects are 64-bit handles in %rd1.
    let v4 = "{%r5, %r6, %r7, %r8}";
    let keep = "add.s32 %r0, %r5, %r8;";
    for (geo, coords) in [
        ("1d", "{%r2}"),
        ("2d", "{%r2, %r3}"),
        ("3d", "{%r2, %r3, %r4, %r4}"),
        ("a1d", "{%r4, %r2}"),
        ("a2d", "{%r4, %r2, %r3, %r3}"),
    ] {
        g.k(
            "tex",
            75,
            Out::R32,
            format!("tex.{geo}.v4.f32.s32 {v4}, [%rd1, {coords}]; {keep}"),
        );
        g.k(
            "tex",
            75,
            Out::R32,
            format!("tex.{geo}.v4.s32.f32 {v4}, [%rd1, {coords}]; {keep}"),
        );
        g.k(
            "tex",
            75,
            Out::R32,
            format!("tex.level.{geo}.v4.f32.f32 {v4}, [%rd1, {coords}], %r1; {keep}"),
        );
    }
    g.k(
        "tex",
        75,
        Out::R32,
        format!("tex.cube.v4.f32.f32 {v4}, [%rd1, {{%r2, %r3, %r4, %r4}}]; {keep}"),
    );
    g.k(
        "tex",
        75,
        Out::R32,
        format!(
            "tex.grad.2d.v4.f32.f32 {v4}, [%rd1, {{%r2, %r3}}], {{%r1, %r1}}, {{%r4, %r4}}; {keep}"
        ),
    );
    g.k(
        "tex",
        75,
        Out::R32,
        format!("tex.2d.v4.f32.f32 {v4}, [%rd1, {{%r2, %r3}}], {{1, -1}}; {keep}"),
    );
    g.k(
        "tex",
        75,
        Out::R32,
        format!(
            "tex.2d.v4.f32.f32 {v4}|%p0, [%rd1, {{%r2, %r3}}]; selp.b32 %r6, 1, 0, %p0; {keep}"
        ),
    );
    // All four results used (the second destination register pair), three (one register
    // there) and packed f16 results (one register per pair of components).
    g.k(
        "tex",
        75,
        Out::R32,
        format!("tex.2d.v4.f32.f32 {v4}, [%rd1, {{%r2, %r3}}]; add.s32 %r0, %r5, %r6; add.s32 %r0, %r0, %r7; add.s32 %r0, %r0, %r8;"),
    );
    g.k(
        "tex",
        75,
        Out::R32,
        format!("tex.3d.v4.s32.f32 {v4}, [%rd1, {{%r2, %r3, %r4, %r4}}]; add.s32 %r0, %r5, %r7; add.s32 %r0, %r0, %r8;"),
    );
    g.k(
        "tex",
        75,
        Out::R32,
        "tex.2d.v2.f16x2.f32 {%r5, %r6}, [%rd1, {%r2, %r3}]; add.s32 %r0, %r5, %r6;",
    );
    for c in ["r", "g", "b", "a"] {
        g.k(
            "tld4",
            75,
            Out::R32,
            format!("tld4.{c}.2d.v4.f32.f32 {v4}, [%rd1, {{%r2, %r3}}]; {keep}"),
        );
    }
    for q in [
        "width",
        "height",
        "depth",
        "channel_data_type",
        "channel_order",
        "normalized_coords",
        "num_mipmap_levels",
        "num_samples",
        "array_size",
    ] {
        g.k("txq", 75, Out::R32, format!("txq.{q}.b32 %r0, [%rd1];"));
    }
    g.k("txq", 75, Out::R32, "txq.level.width.b32 %r0, [%rd1], %r2;");
    for q in [
        "width",
        "height",
        "depth",
        "channel_data_type",
        "channel_order",
        "array_size",
        "memory_layout",
    ] {
        g.k("suq", 75, Out::R32, format!("suq.{q}.b32 %r0, [%rd1];"));
    }
    for (geo, coords) in [
        ("1d", "{%r2}"),
        ("2d", "{%r2, %r3}"),
        ("3d", "{%r2, %r3, %r4, %r4}"),
        ("a1d", "{%r4, %r2}"),
        ("a2d", "{%r4, %r2, %r3, %r3}"),
    ] {
        let arrayed = geo.starts_with('a');
        for clamp in ["trap", "clamp", "zero"] {
            g.k(
                "suld",
                75,
                Out::R32,
                format!("suld.b.{geo}.v4.b32.{clamp} {v4}, [%rd1, {coords}]; {keep}"),
            );
            g.k(
                "sust",
                75,
                Out::None,
                format!("sust.b.{geo}.v4.b32.{clamp} [%rd1, {coords}], {{%r1, %r2, %r3, %r4}};"),
            );
        }
        g.k(
            "suld",
            75,
            Out::R32,
            format!("suld.b.{geo}.b32.trap %r0, [%rd1, {coords}];"),
        );
        g.k(
            "suld",
            75,
            Out::R16,
            format!("suld.b.{geo}.b8.trap %h0, [%rd1, {coords}];"),
        );
        g.k(
            "suld",
            75,
            Out::R64,
            format!("suld.b.{geo}.b64.trap %rd0, [%rd1, {coords}];"),
        );
        g.k(
            "sust",
            75,
            Out::None,
            format!("sust.p.{geo}.v4.b32.trap [%rd1, {coords}], {{%r1, %r2, %r3, %r4}};"),
        );
        if !arrayed {
            g.k(
                "sured",
                75,
                Out::None,
                format!("sured.b.add.{geo}.u32.trap [%rd1, {coords}], %r1;"),
            );
        }
    }
    for (op, t) in [
        ("add", "u32"),
        ("min", "s32"),
        ("max", "u32"),
        ("and", "b32"),
        ("or", "b32"),
    ] {
        g.k(
            "sured",
            75,
            Out::None,
            format!("sured.b.{op}.2d.{t}.trap [%rd1, {{%r2, %r3}}], %r1;"),
        );
    }
    g.k(
        "sured",
        75,
        Out::None,
        "sured.b.add.2d.u64.trap [%rd1, {%r2, %r3}], %rd2;",
    );
    for t in ["texref", "samplerref", "surfref"] {
        g.k("istypep", 75, Out::Pred, format!("istypep.{t} %p0, %rd1;"));
    }
}
