//! The IR builder's structured helpers (`tangle_ir::builder::structured`) checked by an
//! oracle nobody here wrote: random structured functions, called from an entry point that
//! asks for maximal reconvergence, are written as SPIR-V and must pass spirv-val (and
//! tangle's own verifier).

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use tangle_ir::builder::FunctionBuilder;
use tangle_ir::{EntryPoint, ExecMode, Op};
use tangle_oracle::{require, scratch_dir, Tool};

#[test]
fn random_structured_functions_pass_spirv_val() {
    let test = "random_structured_functions_pass_spirv_val";
    let Some(spirv_val) = require(Tool::SpirvVal, test) else {
        return;
    };
    let dir = scratch_dir();
    let mut rng = fastrand::Rng::with_seed(21);
    for case in 0..400 {
        let size = rng.usize(1..30);
        let (mut m, f) = common::random_structured(&mut rng, size);
        m.capabilities.retain(|c| *c != spirv::Capability::Linkage);
        m.extensions.push("SPV_KHR_maximal_reconvergence".into());
        let void = m.types.void();
        let (mut b, _) = FunctionBuilder::create_function(&mut m, "main", void, &[]);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let (t, fls, k) = (b.const_bool(true), b.const_bool(false), b.const_u32(1));
        b.ins(Op::Call(f), &[t, fls, k]).unwrap();
        b.ret(None);
        let main = b.func;
        m.entry_points.push(EntryPoint {
            model: spirv::ExecutionModel::GLCompute,
            name: "main".into(),
            func: main,
            interface: Vec::new(),
            modes: vec![
                ExecMode::LocalSize([32, 1, 1]),
                ExecMode::MaximallyReconverges,
            ],
        });
        if let Err(e) = tangle_ir::verify::verify(&m) {
            panic!("case {case}: {e}\n{}", tangle_ir::text::print(&m));
        }
        let words = tangle_spirv::writer::write(&m).expect("a structured function is writable");
        let path = dir.path().join(format!("case{case}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = spirv_val.run([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "case {case}: spirv-val rejects the builder's output: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            tangle_ir::text::print(&m)
        );
    }
}
