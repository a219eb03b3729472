//! Control flow, barriers and fences, atomics, warp votes and reductions, matrix
//! instructions, video instructions and the miscellaneous ones.

use super::*;

pub(super) fn control(g: &mut Gen) {
    g.k(
        "bra",
        75,
        Out::R32,
        "mov.u32 %r0, %r1; @%p1 bra $Ldone; add.s32 %r0, %r2, 1; $Ldone:",
    );
    g.k("bra", 75, Out::R32, "mov.u32 %r0, 0; $Lloop: add.s32 %r0, %r0, %r2; sub.s32 %r1, %r1, 1; setp.ne.s32 %p3, %r1, 0; @%p3 bra.uni $Lloop;");
    g.k("brx.idx", 75, Out::R32, "$Lt: .branchtargets $L0, $L1, $L2; and.b32 %r5, %r1, 1; brx.idx %r5, $Lt; $L0: mov.u32 %r0, 7; bra $Lend; $L1: mov.u32 %r0, %r2; bra $Lend; $L2: mov.u32 %r0, %r3; $Lend:");
    g.k("call", 75, Out::R32, "{ .param .b32 a; .param .b32 r; st.param.b32 [a], %r1; call.uni (r), fid, (a); ld.param.b32 %r0, [r]; }");
    g.k("call", 75, Out::R32, "mov.u32 %r0, %r2; @%p1 bra $Lskip; { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1; call (r), fid, (a); ld.param.b32 %r0, [r]; } $Lskip:");
    g.k("call", 75, Out::R32, "{ .reg .b64 %fp; mov.u64 %fp, fid; .param .b32 a; .param .b32 r; st.param.b32 [a], %r1; $Lproto: .callprototype (.param .b32 _) _ (.param .b32 _); call (r), %fp, (a), $Lproto; ld.param.b32 %r0, [r]; }");
    g.k("ret", 75, Out::None, "@%p1 ret; st.global.b32 [%rd9], %r1;");
    g.k(
        "exit",
        75,
        Out::None,
        "@%p1 exit; st.global.b32 [%rd9], %r1;",
    );
}

pub(super) fn sync(g: &mut Gen) {
    g.k("bar", 75, Out::None, "bar.sync 0;");
    g.k("bar", 75, Out::None, "bar.sync 1, 64;");
    g.k("bar", 75, Out::None, "bar.sync %r1;");
    g.k("bar", 75, Out::None, "bar.sync %r1, %r2;");
    g.k("bar", 75, Out::None, "bar.arrive 2, 64;");
    g.k("bar", 75, Out::None, "bar.arrive %r1, %r2;");
    g.k("bar", 75, Out::R32, "bar.red.popc.u32 %r0, 0, %p1;");
    g.k("bar", 75, Out::R32, "bar.red.popc.u32 %r0, 3, 96, !%p1;");
    g.k("bar", 75, Out::Pred, "bar.red.and.pred %p0, 0, %p1;");
    g.k("bar", 75, Out::Pred, "bar.red.or.pred %p0, 1, !%p2;");
    g.k("barrier", 75, Out::None, "barrier.sync 0;");
    g.k("barrier", 75, Out::None, "barrier.sync.aligned 1;");
    g.k(
        "barrier",
        75,
        Out::None,
        "barrier.cta.arrive.aligned 2, 32;",
    );
    g.k("barrier", 75, Out::R32, "barrier.red.popc.u32 %r0, 0, %p1;");
    g.k("bar.warp.sync", 75, Out::None, "bar.warp.sync 0xffffffff;");
    g.k("bar.warp.sync", 75, Out::None, "bar.warp.sync %r1;");
    g.k(
        "barrier.cluster",
        90,
        Out::None,
        "barrier.cluster.arrive; barrier.cluster.wait;",
    );
    g.k(
        "barrier.cluster",
        90,
        Out::None,
        "barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;",
    );
    g.k(
        "barrier.cluster",
        90,
        Out::None,
        "barrier.cluster.arrive.release; barrier.cluster.wait.acquire;",
    );
    for s in ["cta", "gl", "sys"] {
        g.k(
            "membar",
            75,
            Out::None,
            format!("st.global.b32 [%rd9], %r1; membar.{s}; st.global.b32 [%rd9+4], %r2;"),
        );
    }
    for sem in ["sc", "acq_rel"] {
        for s in ["cta", "gpu", "sys"] {
            g.k(
                "fence",
                75,
                Out::None,
                format!("st.global.b32 [%rd9], %r1; fence.{sem}.{s}; st.global.b32 [%rd9+4], %r2;"),
            );
        }
        g.k(
            "fence",
            90,
            Out::None,
            format!("st.global.b32 [%rd9], %r1; fence.{sem}.cluster; st.global.b32 [%rd9+4], %r2;"),
        );
    }
    g.k(
        "fence",
        75,
        Out::None,
        "st.global.b32 [%rd9], %r1; fence.proxy.alias; st.global.b32 [%rd9+4], %r2;",
    );
    g.k(
        "fence",
        90,
        Out::None,
        "st.global.b32 [%rd9], %r1; fence.proxy.async; st.global.b32 [%rd9+4], %r2;",
    );
    g.k("fence", 90, Out::None, "fence.proxy.async.shared::cta;");
    g.k(
        "fence",
        90,
        Out::None,
        "fence.mbarrier_init.release.cluster;",
    );
    g.k(
        "fence",
        90,
        Out::None,
        "fence.proxy.tensormap::generic.release.gpu;",
    );
    g.k(
        "fence",
        90,
        Out::None,
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
    );
    let m = "mov.u32 %r7, sbuf;";
    g.k(
        "mbarrier",
        80,
        Out::R64,
        format!("{m} mbarrier.init.shared.b64 [%r7], %r1; mbarrier.arrive.shared.b64 %rd0, [%r7];"),
    );
    g.k("mbarrier", 80, Out::R64, format!("{m} mbarrier.init.shared::cta.b64 [%r7], 32; mbarrier.arrive.noComplete.shared.b64 %rd0, [%r7], %r2;"));
    g.k(
        "mbarrier",
        80,
        Out::R64,
        format!("{m} mbarrier.arrive_drop.shared.b64 %rd0, [%r7];"),
    );
    g.k(
        "mbarrier",
        80,
        Out::Pred,
        format!("{m} mbarrier.test_wait.shared.b64 %p0, [%r7], %rd1;"),
    );
    g.k(
        "mbarrier",
        80,
        Out::Pred,
        format!("{m} mbarrier.test_wait.parity.shared.b64 %p0, [%r7], %r2;"),
    );
    g.k(
        "mbarrier",
        80,
        Out::R32,
        "mbarrier.pending_count.b64 %r0, %rd1;",
    );
    g.k(
        "mbarrier",
        80,
        Out::None,
        format!("{m} mbarrier.inval.shared.b64 [%r7];"),
    );
    g.k(
        "mbarrier",
        90,
        Out::Pred,
        format!("{m} mbarrier.try_wait.shared.b64 %p0, [%r7], %rd1;"),
    );
    g.k(
        "mbarrier",
        90,
        Out::Pred,
        format!(
            "{m} mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p0, [%r7], %r2, 1000;"
        ),
    );
    g.k(
        "mbarrier",
        90,
        Out::None,
        format!("{m} mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r7], 128;"),
    );
    g.k(
        "mbarrier",
        90,
        Out::None,
        format!("{m} mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r7], 128;"),
    );
    g.k(
        "mbarrier",
        90,
        Out::R64,
        format!("{m} mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd0, [%r7], 256;"),
    );
    g.k(
        "griddepcontrol",
        90,
        Out::None,
        "griddepcontrol.launch_dependents;",
    );
    g.k("griddepcontrol", 90, Out::None, "griddepcontrol.wait;");
    g.k(
        "elect.sync",
        90,
        Out::R32,
        "elect.sync %r0|%p3, 0xffffffff; selp.b32 %r5, 1, 0, %p3; add.s32 %r0, %r0, %r5;",
    );
    g.k90a(
        "setmaxnreg",
        Out::None,
        "setmaxnreg.inc.sync.aligned.u32 232;",
    );
    g.k90a(
        "setmaxnreg",
        Out::None,
        "setmaxnreg.dec.sync.aligned.u32 40;",
    );
}

pub(super) fn atomics(g: &mut Gen) {
    let saddr = "mov.u32 %r5, sbuf; and.b32 %r6, %r1, 0x3f0; add.s32 %r5, %r5, %r6;";
    let spaces = [("global", "[%rd9+8]"), ("shared", "[%r5]"), ("", "[%rd1]")];
    let ops: [(&str, &[&str]); 9] = [
        ("add", &["u32", "s32", "u64", "f32", "f64"]),
        ("min", &["u32", "s32", "u64", "s64"]),
        ("max", &["u32", "s32", "u64", "s64"]),
        ("inc", &["u32"]),
        ("dec", &["u32"]),
        ("and", &["b32", "b64"]),
        ("or", &["b32", "b64"]),
        ("xor", &["b32", "b64"]),
        ("exch", &["b32", "b64"]),
    ];
    for (sp, a) in spaces {
        let pre = if sp == "shared" { saddr } else { "" };
        let dsp = if sp.is_empty() {
            String::new()
        } else {
            format!(".{sp}")
        };
        for (op, tys) in ops {
            for t in tys {
                let src = reg(t, 2);
                g.k(
                    "atom",
                    75,
                    out_of(t),
                    format!("{pre} atom{dsp}.{op}.{t} {}, {a}, {src};", reg(t, 0)),
                );
                if op != "exch" {
                    g.k(
                        "red",
                        75,
                        Out::None,
                        format!("{pre} red{dsp}.{op}.{t} {a}, {src};"),
                    );
                }
            }
        }
        for t in ["b32", "b64"] {
            g.k(
                "atom",
                75,
                out_of(t),
                format!(
                    "{pre} atom{dsp}.cas.{t} {}, {a}, {}, {};",
                    reg(t, 0),
                    reg(t, 2),
                    reg(t, 3)
                ),
            );
        }
        g.k(
            "atom",
            75,
            Out::R32,
            format!("{pre} atom{dsp}.add.u32 %r0, {a}, 1;"),
        );
        g.k(
            "atom",
            75,
            Out::R16,
            format!("{pre} atom{dsp}.add.noftz.f16 %h0, {a}, %h2;"),
        );
        g.k(
            "atom",
            75,
            Out::R32,
            format!("{pre} atom{dsp}.add.noftz.f16x2 %r0, {a}, %r2;"),
        );
        g.k(
            "atom",
            90,
            Out::R16,
            format!("{pre} atom{dsp}.add.noftz.bf16 %h0, {a}, %h2;"),
        );
        g.k(
            "atom",
            90,
            Out::R32,
            format!("{pre} atom{dsp}.add.noftz.bf16x2 %r0, {a}, %r2;"),
        );
        g.k(
            "red",
            75,
            Out::None,
            format!("{pre} red{dsp}.add.noftz.f16x2 {a}, %r2;"),
        );
        g.k(
            "atom",
            90,
            Out::R16,
            format!("{pre} atom{dsp}.cas.b16 %h0, {a}, %h2, %h3;"),
        );
        g.k(
            "atom",
            90,
            Out::R32,
            format!("{pre} atom{dsp}.min.f32 %r0, {a}, %r2;").replace(".min.f32", ".exch.b32"),
        );
    }
    for sem in ["relaxed", "acquire", "release", "acq_rel"] {
        for sc in ["cta", "gpu", "sys"] {
            g.k(
                "atom",
                75,
                Out::R32,
                format!("atom.{sem}.{sc}.global.add.u32 %r0, [%rd9+8], %r2;"),
            );
            g.k(
                "atom",
                75,
                Out::R64,
                format!("atom.{sem}.{sc}.global.cas.b64 %rd0, [%rd9+8], %rd2, %rd3;"),
            );
            if sem == "relaxed" || sem == "release" {
                g.k(
                    "red",
                    75,
                    Out::None,
                    format!("red.{sem}.{sc}.global.add.u32 [%rd9+8], %r2;"),
                );
                g.k(
                    "red",
                    75,
                    Out::None,
                    format!("red.{sem}.{sc}.global.add.f32 [%rd9+8], %r2;"),
                );
            }
        }
    }
    g.k(
        "atom",
        90,
        Out::R32,
        "atom.relaxed.cluster.global.add.u32 %r0, [%rd9+8], %r2;",
    );
    g.k(
        "atom",
        90,
        Out::None,
        "atom.global.v2.f32.add {%r5, %r6}, [%rd9], {%r1, %r2}; st.global.b32 [%rd9], %r5;",
    );
    g.k("atom", 90, Out::None, "atom.global.v4.f32.add {%r5, %r6, %r7, %r8}, [%rd9], {%r1, %r2, %r3, %r4}; st.global.b32 [%rd9], %r5;");
    g.k(
        "red",
        90,
        Out::None,
        "red.global.v2.f16x2.add.noftz [%rd9], {%r1, %r2};",
    );
    g.k(
        "red",
        90,
        Out::None,
        "red.global.v4.f32.add [%rd9], {%r1, %r2, %r3, %r4};",
    );
    g.k("atom", 80, Out::R32, "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0; atom.global.add.L2::cache_hint.u32 %r0, [%rd9+8], %r2, %rd5;");
}

pub(super) fn warp(g: &mut Gen) {
    for m in ["all", "any", "uni"] {
        g.k(
            "vote",
            75,
            Out::Pred,
            format!("vote.sync.{m}.pred %p0, %p1, 0xffffffff;"),
        );
        g.k(
            "vote",
            75,
            Out::Pred,
            format!("vote.sync.{m}.pred %p0, !%p1, %r2;"),
        );
    }
    g.k(
        "vote",
        75,
        Out::R32,
        "vote.sync.ballot.b32 %r0, %p1, 0xffffffff;",
    );
    g.k("vote", 75, Out::R32, "vote.sync.ballot.b32 %r0, !%p1, %r2;");
    for t in ["b32", "b64"] {
        g.k(
            "match.sync",
            75,
            Out::R32,
            format!("match.any.sync.{t} %r0, {}, 0xffffffff;", reg(t, 1)),
        );
        g.k("match.sync", 75, Out::R32, format!("match.all.sync.{t} %r0|%p3, {}, %r2; selp.b32 %r5, 1, 0, %p3; add.s32 %r0, %r0, %r5;", reg(t, 1)));
    }
    g.k("activemask", 75, Out::R32, "activemask.b32 %r0;");
    for (op, t) in [
        ("add", "u32"),
        ("add", "s32"),
        ("min", "u32"),
        ("min", "s32"),
        ("max", "u32"),
        ("max", "s32"),
        ("and", "b32"),
        ("or", "b32"),
        ("xor", "b32"),
    ] {
        g.k(
            "redux.sync",
            80,
            Out::R32,
            format!("redux.sync.{op}.{t} %r0, %r1, 0xffffffff;"),
        );
        g.k(
            "redux.sync",
            80,
            Out::R32,
            format!("redux.sync.{op}.{t} %r0, %r1, %r2;"),
        );
    }
}

pub(super) fn matrix(g: &mut Gen) {
    let s = "mov.u32 %r7, sbuf;";
    let f8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}";
    g.k("wmma", 75, Out::None, ".reg .b32 %a<8>; .reg .b32 %b<8>; .reg .f32 %c<8>; wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%rd9]; wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%rd9+512]; wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%rd9+1024]; wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}; wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd9], {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};");
    g.k("mma", 75, Out::None, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2}, {%r3}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma", 75, Out::None, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r5, %r6}, {%r1}, {%r2}, {%r3, %r4}; st.global.v2.b32 [%rd9], {%r5, %r6};");
    g.k("mma", 80, Out::None, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma", 80, Out::None, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma", 80, Out::None, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma", 80, Out::None, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%rd5, %rd6}, {%rd1}, {%rd2}, {%rd3, %rd4}; st.global.v2.b64 [%rd9], {%rd5, %rd6};");
    g.k("mma", 80, Out::None, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma", 89, Out::None, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    g.k("mma.sp", 80, Out::None, "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, %r3, 0x0; st.global.v4.b32 [%rd9], {%r5, %r6, %r7, %r8};");
    for (x, regs) in [
        ("x1", "{%r5}"),
        ("x2", "{%r5, %r6}"),
        ("x4", "{%r5, %r6, %r7, %r8}"),
    ] {
        for tr in ["", ".trans"] {
            g.k("ldmatrix", 75, Out::R32, format!("{s} add.s32 %r7, %r7, %r1; ldmatrix.sync.aligned.m8n8.{x}{tr}.shared.b16 {regs}, [%r7]; mov.u32 %r0, %r5;").replace("{%r5, %r6, %r7, %r8}, [%r7]", "{%r5, %r6, %r4, %r8}, [%r7]"));
            g.k("stmatrix", 90, Out::None, format!("{s} add.s32 %r7, %r7, %r1; stmatrix.sync.aligned.m8n8.{x}{tr}.shared.b16 [%r7], {};", regs.replace("%r5", "%r2").replace("%r6", "%r3").replace("%r7", "%r4").replace("%r8", "%r1")));
        }
    }
    g.k(
        "movmatrix",
        75,
        Out::R32,
        "movmatrix.sync.aligned.m8n8.trans.b16 %r0, %r1;",
    );
    let _ = f8;
    let desc = "mov.b64 %rd5, %rd1; mov.b64 %rd6, %rd2;";
    g.k90a("wgmma", Out::None, "wgmma.fence.sync.aligned;");
    g.k90a("wgmma", Out::None, "wgmma.commit_group.sync.aligned;");
    g.k90a("wgmma", Out::None, "wgmma.wait_group.sync.aligned 1;");
    g.k90a("wgmma", Out::None, format!("{desc} .reg .f32 %d<4>; mov.b32 %d0, %r1; mov.b32 %d1, %r2; mov.b32 %d2, %r3; mov.b32 %d3, %r4; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%d0, %d1, %d2, %d3}}, %rd5, %rd6, 1, 1, 1, 0, 0; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.v4.f32 [%rd9], {{%d0, %d1, %d2, %d3}};"));
}

pub(super) fn video(g: &mut Gen) {
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] {
        g.k(
            "video",
            75,
            Out::R32,
            format!("{op}.s32.s32.s32 %r0, %r1, %r2;"),
        );
        g.k(
            "video",
            75,
            Out::R32,
            format!("{op}.u32.u32.u32.sat %r0, %r1.b0, %r2.h1;"),
        );
        g.k(
            "video",
            75,
            Out::R32,
            format!("{op}.s32.u32.s32.add %r0, %r1, %r2, %r3;"),
        );
    }
    for op in ["vshl", "vshr"] {
        g.k(
            "video",
            75,
            Out::R32,
            format!("{op}.u32.u32.u32.clamp %r0, %r1, %r2;"),
        );
        g.k(
            "video",
            75,
            Out::R32,
            format!("{op}.s32.s32.u32.wrap.max %r0, %r1, %r2, %r3;"),
        );
    }
    g.k(
        "video",
        75,
        Out::R32,
        "vmad.s32.s32.s32 %r0, %r1, %r2, %r3;",
    );
    g.k(
        "video",
        75,
        Out::R32,
        "vmad.u32.u32.u32.sat.shr7 %r0, %r1.h0, %r2.h1, %r3;",
    );
    g.k("video", 75, Out::R32, "vset.s32.s32.lt %r0, %r1, %r2;");
    g.k(
        "video",
        75,
        Out::R32,
        "vset.u32.u32.ne.add %r0, %r1, %r2, %r3;",
    );
    for op in [
        "vadd2",
        "vsub2",
        "vavrg2",
        "vabsdiff2",
        "vmin2",
        "vmax2",
        "vadd4",
        "vsub4",
        "vavrg4",
        "vabsdiff4",
        "vmin4",
        "vmax4",
    ] {
        g.k(
            "video.simd",
            75,
            Out::R32,
            format!("{op}.u32.u32.u32 %r0, %r1, %r2, %r3;"),
        );
        g.k(
            "video.simd",
            75,
            Out::R32,
            format!("{op}.s32.s32.s32.sat %r0, %r1, %r2, %r3;"),
        );
        g.k(
            "video.simd",
            75,
            Out::R32,
            format!("{op}.u32.u32.u32.add %r0, %r1, %r2, %r3;"),
        );
    }
    g.k(
        "video.simd",
        75,
        Out::R32,
        "vset2.u32.u32.lt %r0, %r1, %r2, %r3;",
    );
    g.k(
        "video.simd",
        75,
        Out::R32,
        "vset4.s32.s32.ne.add %r0, %r1, %r2, %r3;",
    );
}

pub(super) fn misc(g: &mut Gen) {
    g.k("brkpt", 75, Out::None, "@%p1 brkpt;");
    g.k("nanosleep", 75, Out::None, "nanosleep.u32 100;");
    g.k("nanosleep", 75, Out::None, "nanosleep.u32 %r1;");
    g.k("pmevent", 75, Out::None, "pmevent 3;");
    g.k("pmevent", 75, Out::None, "pmevent.mask 0x5;");
    g.k("trap", 75, Out::None, "@%p1 trap;");
}
