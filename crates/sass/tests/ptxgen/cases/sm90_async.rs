//! SM90's asynchronous operations in more variants than one per instruction: every
//! tensor dimension of the tensor-map copies (the number of coordinate registers follows
//! the dimension), each reduction and type of the bulk and remote reductions, each size of
//! `st.async`, the bulk copy between shared memories of the cluster and the wait counts
//! of `wgmma.wait_group` (`docs/sass-sm90-async.md`).

use super::{Gen, Out};

pub(super) fn sm90_async(g: &mut Gen) {
    let b = "mov.u32 %r7, sbuf; add.s32 %r5, %r7, 512;";
    // One coordinate register per dimension (`%r6` and `%r8` are filled too, so ptxas
    // loads every coordinate into its own uniform register).
    let coords = ["%r1", "%r2", "%r3", "%r4", "%r6"];
    let fill = "mov.u32 %r6, %tid.y; mov.u32 %r8, %tid.z;";
    for d in 1..=5 {
        let c = coords[..d].join(", ");
        g.k("cp.async.bulk.tensor", 90, Out::None, format!("{b} {fill} cp.async.bulk.tensor.{d}d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd1, {{{c}}}], [%r7];"));
        g.k("cp.async.bulk.tensor", 90, Out::None, format!("{b} {fill} cp.async.bulk.tensor.{d}d.global.shared::cta.bulk_group [%rd1, {{{c}}}], [%r5];"));
        g.k(
            "cp.async.bulk.prefetch.tensor",
            90,
            Out::None,
            format!("{fill} cp.async.bulk.prefetch.tensor.{d}d.L2.global [%rd1, {{{c}}}];"),
        );
    }
    for op in ["add", "min", "max", "inc", "dec", "and", "or", "xor"] {
        g.k("cp.reduce.async.bulk.tensor", 90, Out::None, format!("{b} cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group [%rd1, {{%r2, %r3}}], [%r5];"));
    }
    for (op, ty) in [
        ("add", "u32"),
        ("min", "s32"),
        ("max", "u32"),
        ("inc", "u32"),
        ("dec", "u32"),
        ("and", "b32"),
        ("or", "b64"),
        ("xor", "b32"),
        ("add", "u64"),
        ("min", "s64"),
        ("add.noftz", "f16"),
        ("add.noftz", "bf16"),
    ] {
        g.k(
            "cp.reduce.async.bulk",
            90,
            Out::None,
            format!("{b} cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{ty} [%rd9], [%r5], 256;"),
        );
    }
    g.k("cp.reduce.async.bulk", 90, Out::None, format!("{b} cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r5], [%r7], 256, [%r7];"));
    g.k("cp.async.bulk", 90, Out::None, format!("{b} cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r5], [%r7], 256, [%r7];"));
    for (op, ty) in [
        ("add", "u32"),
        ("min", "s32"),
        ("max", "u32"),
        ("inc", "u32"),
        ("dec", "u32"),
        ("and", "b32"),
        ("or", "b32"),
        ("xor", "b32"),
        ("add", "u64"),
    ] {
        let v = if ty.ends_with("64") { "%rd2" } else { "%r2" };
        g.k("red.async", 90, Out::None, format!("mov.u32 %r7, sbuf; red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.{op}.{ty} [%r1], {v}, [%r7];"));
    }
    for (ty, v) in [
        ("b64", "%rd2"),
        ("v2.b32", "{%r2, %r3}"),
        ("v4.b32", "{%r1, %r2, %r3, %r4}"),
    ] {
        g.k("st.async", 90, Out::None, format!("mov.u32 %r7, sbuf; st.async.shared::cluster.mbarrier::complete_tx::bytes.{ty} [%r1], {v}, [%r7];"));
    }
    for n in [2, 7] {
        g.k90a(
            "wgmma",
            Out::None,
            format!("wgmma.wait_group.sync.aligned {n};"),
        );
    }
}
