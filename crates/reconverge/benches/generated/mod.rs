//! The generated entry points of the lowering's speed measurements (the criterion bench
//! `lower` and the example `lower_speed`): a long run of units, each a loop with a
//! divergent `if` that ballots and a divergent break, then a divergent `if`/`else` with a
//! ballot in each arm, with a variable carried through them (promoted to phis). About 17
//! instructions per unit.

use tangle_ir::builder::FunctionBuilder;
use tangle_ir::{EntryPoint, ExecMode, GlobalData, Module, Op, PlainOp};

/// An entry point made of `units` units; returns the module and its instruction count.
pub fn generated(units: usize) -> (Module, usize) {
    let mut m = Module::default();
    m.capabilities.push(spirv::Capability::GroupNonUniform);
    m.capabilities
        .push(spirv::Capability::GroupNonUniformBallot);
    m.extensions.push("SPV_KHR_maximal_reconvergence".into());
    let u32t = m.types.u32();
    let void = m.types.void();
    let input_ptr = m.types.intern(tangle_ir::TypeData::Pointer {
        storage: spirv::StorageClass::Input,
        pointee: u32t,
    });
    let lane = m.globals.push(GlobalData {
        ty: input_ptr,
        storage: spirv::StorageClass::Input,
        init: None,
        decorations: tangle_ir::GlobalDecorations {
            builtin: Some(spirv::BuiltIn::LocalInvocationIndex),
            ..Default::default()
        },
        name: None,
    });
    let (mut b, _) = FunctionBuilder::create_function(&mut m, "main", void, &[]);
    let func = b.func;
    let entry = b.create_block();
    b.switch_to_block(entry);
    let id = b.load(lane.into());
    let var = b.local_variable(u32t);
    let one = b.const_u32(1);
    let t = b.const_bool(true);
    for k in 0..units {
        let bit = b.const_u32(1 << (k % 5));
        let masked = b.plain(PlainOp::BitwiseAnd, &[id.into(), bit]);
        let zero = b.const_u32(0);
        let cond = b.plain(PlainOp::INotEqual, &[masked.into(), zero]);
        // A loop with a divergent if that ballots and a divergent break.
        let l = b.begin_loop();
        let f = b.begin_if(cond.into(), false);
        let ballot = b
            .ins(
                Op::Group {
                    op: tangle_ir::GroupOp::Ballot,
                    scope: spirv::Scope::Subgroup,
                    group: None,
                },
                &[t],
            )
            .unwrap()
            .unwrap();
        let x = b
            .ins(Op::CompositeExtract([0].into()), &[ballot.into()])
            .unwrap()
            .unwrap();
        let old = b.load(var.into());
        let sum = b.plain(PlainOp::IAdd, &[old.into(), x.into()]);
        b.store(var.into(), sum.into());
        b.loop_break(&l);
        b.end_if(f);
        let old = b.load(var.into());
        let again = b.plain(PlainOp::IAdd, &[old.into(), one]);
        b.store(var.into(), again.into());
        b.begin_continue(&l);
        let stop = b.plain(PlainOp::IEqual, &[masked.into(), bit]);
        b.end_loop(l, Some(stop.into()));
        // A divergent if/else with a ballot in each arm.
        let mut f = b.begin_if(cond.into(), true);
        let b1 = b
            .ins(
                Op::Group {
                    op: tangle_ir::GroupOp::Ballot,
                    scope: spirv::Scope::Subgroup,
                    group: None,
                },
                &[t],
            )
            .unwrap()
            .unwrap();
        let y = b
            .ins(Op::CompositeExtract([1].into()), &[b1.into()])
            .unwrap()
            .unwrap();
        let old = b.load(var.into());
        let sum = b.plain(PlainOp::IAdd, &[old.into(), y.into()]);
        b.store(var.into(), sum.into());
        b.begin_else(&mut f);
        let b2 = b
            .ins(
                Op::Group {
                    op: tangle_ir::GroupOp::Elect,
                    scope: spirv::Scope::Subgroup,
                    group: None,
                },
                &[],
            )
            .unwrap()
            .unwrap();
        let _ = b2;
        b.end_if(f);
    }
    b.ret(None);
    m.entry_points.push(EntryPoint {
        model: spirv::ExecutionModel::GLCompute,
        name: "main".into(),
        func,
        interface: vec![lane],
        modes: vec![
            ExecMode::LocalSize([32, 1, 1]),
            ExecMode::MaximallyReconverges,
        ],
    });
    let n = m.funcs[func].insts.len();
    (m, n)
}
