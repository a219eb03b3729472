//! The form the token engine runs (`docs/tokens.md`): a structured module with tokens
//! inferred (`infer-tokens`), then its merge annotations dropped and every function marked
//! lowered, so nothing of the construct tree is left for the engine to lean on. The
//! control-flow graph is unchanged: the tokens alone say where lanes reconverge.

use tangle_ir::module::{Form, Module};
use tangle_ir::verify::{verify, VerifyErrors};

/// Drops every merge annotation, marks every function lowered, and removes the blocks
/// the entry does not reach (structured code keeps unreachable merge blocks, which SPIR-V
/// asks for; nothing runs them, and LLVM's cycle analysis would count their edges into a
/// loop as entries, making a natural loop irreducible in `opt`'s eyes — `docs/tokens.md`).
pub fn drop_structure(module: &mut Module) {
    for (_, f) in module.funcs.iter_mut() {
        for (_, b) in f.blocks.iter_mut() {
            b.merge = None;
        }
        f.form = Form::Lowered;
        tangle_ir::passes::remove_unreachable::run(f);
    }
}

/// `module` with tokens inferred for its structured functions and its structure dropped,
/// verified: what `tangle run --engine tokens` and the fuzz engine `tokens` run.
pub fn for_engine(module: &Module) -> Result<Module, VerifyErrors> {
    let mut m = module.clone();
    crate::infer::run(&mut m);
    drop_structure(&mut m);
    verify(&m)?;
    Ok(m)
}
