//! The dynamic check of the uniformity analysis: runs a module on the reference interpreter
//! and compares every value the analysis calls uniform with what each tangle holds.

#![allow(dead_code)]

pub mod bundled;

use std::collections::HashSet;

use tangle_interp::{Access, Config, Interpreter, Observation, Observer};
use tangle_ir::{Func, Module, Op, Terminator, Value};
use tangle_reconverge::Uniformity;

/// What a checked run saw.
#[derive(Debug, Default)]
pub struct Tally {
    /// Observations of a value claimed uniform, by a tangle of two lanes or more.
    pub uniform_checks: usize,
    /// Executions of a branch claimed uniform by a tangle of two lanes or more.
    pub uniform_branch_checks: usize,
    /// Where a value claimed uniform held several values in one tangle.
    pub violations: Vec<String>,
    /// Branches claimed divergent that a tangle of two lanes or more executed (precision:
    /// how many of them did split is `divergent_branches_split`).
    pub divergent_branches_run: HashSet<(Func, tangle_ir::Block)>,
    /// Branches claimed divergent that split a tangle at least once.
    pub divergent_branches_split: HashSet<(Func, tangle_ir::Block)>,
}

/// Whether two lanes' values can be told apart: an undefined value (poison) may stand for
/// any value, so it agrees with every other, component by component.
fn agree(a: &tangle_interp::value::Val, b: &tangle_interp::value::Val) -> bool {
    use tangle_interp::value::Val;
    match (a, b) {
        (Val::Undef(_), _) | (_, Val::Undef(_)) => true,
        (Val::Comp(x), Val::Comp(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| agree(p, q))
        }
        _ => a == b,
    }
}

/// Whether some two of `vals` disagree (see [`agree`]).
fn disagree(vals: &[tangle_interp::value::Val]) -> bool {
    vals.iter()
        .enumerate()
        .any(|(i, a)| vals[i + 1..].iter().any(|b| !agree(a, b)))
}

/// Checks claims `uniform(func, value, block where read or written)` and `branch_uniform(func, block)` on every
/// observation.
pub struct Checker<'a> {
    pub module: &'a Module,
    pub uniform: &'a dyn Fn(Func, Value, tangle_ir::Block) -> bool,
    pub branch_uniform: &'a dyn Fn(Func, tangle_ir::Block) -> bool,
    pub tally: Tally,
}

impl Observer for Checker<'_> {
    fn observe(&mut self, o: &Observation<'_>) {
        if o.mask.count_ones() < 2 {
            return;
        }
        for (v, vals) in o.values {
            if !(self.uniform)(o.func, *v, o.block) {
                continue;
            }
            self.tally.uniform_checks += 1;
            if disagree(vals) && self.tally.violations.len() < 20 {
                self.tally.violations.push(format!(
                    "{} {} {:?} {:?}: {v} claimed uniform, tangle {:#x} holds {vals:?}",
                    o.func, o.block, o.inst, o.access, o.mask
                ));
            }
        }
        let term = &self.module.funcs[o.func].blocks[o.block].term;
        let conditional = matches!(
            term,
            Terminator::CondBranch { .. } | Terminator::Switch { .. }
        );
        let splits = |o: &Observation<'_>| o.values.iter().any(|(_, vals)| disagree(vals));
        if o.inst.is_none() && conditional && !(self.branch_uniform)(o.func, o.block) {
            self.tally.divergent_branches_run.insert((o.func, o.block));
            if splits(o) {
                self.tally
                    .divergent_branches_split
                    .insert((o.func, o.block));
            }
        }
        // A branch claimed uniform must not split the tangle: its lanes agree on the
        // condition or the selector (constants agree trivially).
        if o.inst.is_none()
            && o.access == Access::Read
            && conditional
            && (self.branch_uniform)(o.func, o.block)
        {
            self.tally.uniform_branch_checks += 1;
            if splits(o) && self.tally.violations.len() < 20 {
                self.tally.violations.push(format!(
                    "{} {}: branch claimed uniform splits tangle {:#x}",
                    o.func, o.block, o.mask
                ));
            }
        }
    }
}

/// Runs `entry` of `module` with `config` and `buffers`, checking `analysis`'s claims.
/// Errors of the run itself (a shader the interpreter refuses) come back as `Err`.
pub fn check_run(
    module: &Module,
    analysis: &Uniformity,
    entry: &str,
    config: Config,
    buffers: &[((u32, u32), Vec<u8>)],
) -> Result<Tally, String> {
    let uniform =
        |f: Func, v: Value, at| analysis.function(f).is_some_and(|u| u.is_uniform_at(v, at));
    let branch = |f: Func, b| analysis.function(f).is_some_and(|u| u.branch_is_uniform(b));
    check_claims(module, &uniform, &branch, entry, config, buffers)
}

/// Like [`check_run`] with arbitrary claims (to show that wrong claims are caught).
pub fn check_claims(
    module: &Module,
    uniform: &dyn Fn(Func, Value, tangle_ir::Block) -> bool,
    branch_uniform: &dyn Fn(Func, tangle_ir::Block) -> bool,
    entry: &str,
    config: Config,
    buffers: &[((u32, u32), Vec<u8>)],
) -> Result<Tally, String> {
    let mut it = Interpreter::new(module, entry, config).map_err(|e| e.to_string())?;
    for ((set, binding), bytes) in buffers {
        it.bind_buffer(*set, *binding, bytes.clone());
    }
    // Shaders with push constants get 256 bytes of small varied words.
    if tangle_run::resources::uses_push_constants(module) {
        let words = (0..64u32).map(|i| (i * 7 + 3) % 11);
        it.set_push_constants(words.flat_map(|w| w.to_le_bytes()).collect());
    }
    let mut checker = Checker {
        module,
        uniform,
        branch_uniform,
        tally: Tally::default(),
    };
    it.run_observed(&mut checker).map_err(|e| e.to_string())?;
    Ok(checker.tally)
}

/// A copy of `module` with every function-local variable that only loads and stores use
/// promoted to SSA values (what an optimizing front end gives; the analysis is much more
/// precise on it, since a load from a function variable is always divergent).
pub fn promoted(module: &Module) -> Module {
    let mut m = module.clone();
    let types = m.types.clone();
    for (_, func) in m.funcs.iter_mut() {
        let vars: Vec<Value> = func
            .insts
            .iter()
            .filter(|(_, i)| matches!(i.op, Op::Variable(spirv::StorageClass::Function)))
            .filter_map(|(_, i)| i.result)
            .collect();
        for v in vars {
            tangle_ir::ssa_repair::promote_variable(func, &types, v);
        }
    }
    m
}
