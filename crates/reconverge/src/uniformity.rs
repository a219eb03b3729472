//! The uniformity analysis over a module: a fixpoint that only ever adds divergence.
//!
//! A value is *uniform* when, at every dynamic execution, all lanes of the tangle executing
//! its definition — and of every tangle executing one of its uses — hold the same value; a
//! conditional branch or switch is uniform when its condition or selector is, so it never
//! splits a tangle. Everything starts uniform; sources of divergence (per-lane built-ins,
//! per-lane memory, atomics, per-lane subgroup results) and the control-dependence rules
//! of `control.rs` make values divergent, and divergence flows through data until nothing
//! changes. Being monotone and bounded by the number of values, it ends.
//!
//! Calls: a parameter is divergent when some call passes a divergent argument; a call's
//! result is uniform when the callee has no divergent branch (so all lanes that enter
//! together leave together, by one path) and every value it returns is uniform. Both are
//! part of the same module-wide fixpoint, so call chains of any depth settle.

use std::collections::BTreeSet;
use tangle_ir::hash::{FxHashMap, FxHashSet};

use tangle_ir::{Func, Function, Module, Op, Operand, Terminator, Value};

use crate::control::{self, Shape};
use crate::memory::{self, Writes};
use crate::values::{self, Facts};

/// The analysis result for one function.
#[derive(Clone, Debug, Default)]
pub struct FunctionUniformity {
    divergent: FxHashSet<Value>,
    /// Values uniform only where read inside the given blocks (defined in a loop with
    /// divergent exits or a divergent switch, read after it).
    uniform_within: FxHashMap<Value, FxHashSet<tangle_ir::Block>>,
    divergent_phi_blocks: FxHashSet<tangle_ir::Block>,
    divergent_branches: BTreeSet<tangle_ir::Block>,
    divergent_exit_loops: BTreeSet<tangle_ir::Block>,
    returns_uniform: bool,
}

impl FunctionUniformity {
    /// Whether value `v` is uniform everywhere: one value per tangle where it is defined and
    /// wherever it is read.
    pub fn is_uniform(&self, v: Value) -> bool {
        !self.divergent.contains(&v) && !self.uniform_within.contains_key(&v)
    }

    /// Whether value `v` holds one value per tangle where block `at` reads it (an
    /// instruction or the terminator of `at`, or a phi taking it as the incoming value from
    /// `at`), and where `at` defines it. A value defined in a loop with divergent exits is
    /// uniform inside the loop and divergent after it.
    pub fn is_uniform_at(&self, v: Value, at: tangle_ir::Block) -> bool {
        !self.divergent.contains(&v) && self.uniform_within.get(&v).is_none_or(|r| r.contains(&at))
    }

    /// Whether operand `op` as read in block `at` is uniform: constants always, globals
    /// when they name shared memory (a pointer to per-lane memory differs between lanes),
    /// values by [`FunctionUniformity::is_uniform_at`].
    pub fn operand_is_uniform(&self, module: &Module, op: Operand, at: tangle_ir::Block) -> bool {
        match op {
            Operand::Value(v) => self.is_uniform_at(v, at),
            Operand::Const(_) => true,
            Operand::Global(g) => module
                .globals
                .get(g)
                .is_some_and(|d| !memory::is_per_lane(d.storage)),
        }
    }

    /// Whether the terminator of block `b` never splits a tangle: true for blocks without a
    /// conditional branch or switch, and for those whose condition or selector is uniform.
    pub fn branch_is_uniform(&self, b: tangle_ir::Block) -> bool {
        !self.divergent_branches.contains(&b)
    }

    /// The blocks whose conditional branch or switch is divergent, in block order.
    pub fn divergent_branches(&self) -> impl Iterator<Item = tangle_ir::Block> + '_ {
        self.divergent_branches.iter().copied()
    }

    /// The divergent values, in value order.
    pub fn divergent_values(&self) -> Vec<Value> {
        let mut v: Vec<Value> = self.divergent.iter().copied().collect();
        v.sort();
        v
    }

    /// Whether the loop (cycle) headed by `header` may be left by the lanes of one tangle in
    /// different iterations or by different exits.
    pub fn has_divergent_exits(&self, header: tangle_ir::Block) -> bool {
        self.divergent_exit_loops.contains(&header)
    }

    /// Whether a call of this function gives every lane of the calling tangle one result.
    pub fn returns_uniform(&self) -> bool {
        self.returns_uniform
    }
}

/// The uniformity of every function of a module.
#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    funcs: FxHashMap<Func, FunctionUniformity>,
}

impl Uniformity {
    /// Analyses every function of `module` (which should verify; blocks the entry does not
    /// reach are left out).
    pub fn analyse(module: &Module) -> Self {
        Self::analyse_keeping_constructs(module).0
    }

    /// [`Uniformity::analyse`], which also hands over the construct tree it built of each
    /// structured function (none for the others), so that the lowering, which reads the
    /// same functions unchanged, does not build them again (docs/lowering-speed.md,
    /// round 4).
    pub(crate) fn analyse_keeping_constructs(
        module: &Module,
    ) -> (Self, FxHashMap<Func, tangle_ir::analysis::ConstructTree>) {
        let writes = Writes::of(module);
        let facts = Facts {
            module,
            writes: &writes,
        };
        let shapes: FxHashMap<Func, Shape> = module
            .funcs
            .iter()
            .map(|(f, func)| (f, Shape::new(func)))
            .collect();
        let mut result = Uniformity {
            funcs: module
                .funcs
                .iter()
                .map(|(f, _)| {
                    let fu = FunctionUniformity {
                        returns_uniform: true,
                        ..FunctionUniformity::default()
                    };
                    (f, fu)
                })
                .collect(),
        };
        loop {
            let mut changed = false;
            for (f, func) in module.funcs.iter() {
                changed |= result.analyse_function(&facts, &shapes[&f], f, func);
            }
            changed |= result.propagate_arguments(module);
            if !changed {
                break;
            }
        }
        let constructs = shapes
            .into_iter()
            .filter_map(|(f, shape)| Some((f, shape.into_constructs()?)))
            .collect();
        (result, constructs)
    }

    /// The result for function `f`, if the module has it.
    pub fn function(&self, f: Func) -> Option<&FunctionUniformity> {
        self.funcs.get(&f)
    }

    /// Hands over the verdicts for function `f`, leaving none for it: the lowering frees
    /// each function's verdicts once it has planned that function's rewrite.
    pub(crate) fn take_function(&mut self, f: Func) -> Option<FunctionUniformity> {
        self.funcs.remove(&f)
    }

    /// Marks a callee's parameters divergent where some call passes a divergent argument.
    fn propagate_arguments(&mut self, module: &Module) -> bool {
        let mut newly: Vec<(Func, Value)> = Vec::new();
        for (f, func) in module.funcs.iter() {
            let fu = &self.funcs[&f];
            for &b in &func.layout {
                for &i in &func.blocks[b].insts {
                    let inst = &func.insts[i];
                    let Op::Call(callee) = inst.op else { continue };
                    let Some(cf) = module.funcs.get(callee) else {
                        continue;
                    };
                    for (p, a) in cf.params.iter().zip(&inst.args) {
                        if !fu.operand_is_uniform(module, *a, b) {
                            newly.push((callee, *p));
                        }
                    }
                }
            }
        }
        let mut changed = false;
        for (f, p) in newly {
            if let Some(fu) = self.funcs.get_mut(&f) {
                changed |= fu.divergent.insert(p);
            }
        }
        changed
    }

    /// Runs function `f` to its own fixpoint under the current call summaries and
    /// parameters; returns whether anything became divergent.
    fn analyse_function(
        &mut self,
        facts: &Facts<'_>,
        shape: &Shape,
        f: Func,
        func: &Function,
    ) -> bool {
        let summaries: FxHashMap<Func, bool> = self
            .funcs
            .iter()
            .map(|(g, u)| (*g, u.returns_uniform))
            .collect();
        let fu = self.funcs.get_mut(&f).expect("every function has an entry");
        let module = facts.module;
        let mut any = false;
        loop {
            let mut changed = false;
            for &b in &func.layout {
                if !shape.is_reachable(b) {
                    continue;
                }
                for &i in &func.blocks[b].insts {
                    let inst = &func.insts[i];
                    let Some(r) = inst.result else { continue };
                    if fu.divergent.contains(&r) {
                        continue;
                    }
                    let uniform = if let Op::Phi(preds) = &inst.op {
                        // Each incoming value is read at the end of its block.
                        !fu.divergent_phi_blocks.contains(&b)
                            && inst
                                .args
                                .iter()
                                .zip(preds)
                                .all(|(a, p)| fu.operand_is_uniform(module, *a, *p))
                    } else {
                        let snapshot = &*fu;
                        values::result_is_uniform(
                            facts,
                            func,
                            inst,
                            &|op| snapshot.operand_is_uniform(module, op, b),
                            &|g| summaries.get(&g).copied().unwrap_or(false),
                        )
                    };
                    if !uniform {
                        fu.divergent.insert(r);
                        changed = true;
                    }
                }
                let split_by = match &func.blocks[b].term {
                    Terminator::CondBranch { cond, .. } => Some(*cond),
                    Terminator::Switch { selector, .. } => Some(*selector),
                    _ => None,
                };
                if let Some(op) = split_by {
                    if !fu.operand_is_uniform(module, op, b) && fu.divergent_branches.insert(b) {
                        let effects = control::divergent_branch(shape, func, b);
                        fu.divergent_phi_blocks.extend(effects.join_blocks);
                        for (v, region) in effects.escaping {
                            match fu.uniform_within.get_mut(&v) {
                                Some(r) => r.retain(|x| region.contains(x)),
                                None => {
                                    fu.uniform_within.insert(v, (*region).clone());
                                }
                            }
                        }
                        fu.divergent_exit_loops.extend(effects.divergent_exit_loops);
                        changed = true;
                    }
                }
            }
            any |= changed;
            if !changed {
                break;
            }
        }
        let returns_uniform = fu.divergent_branches.is_empty()
            && func.layout.iter().all(|&b| match func.blocks[b].term {
                Terminator::ReturnValue(op) => fu.operand_is_uniform(module, op, b),
                _ => true,
            });
        if fu.returns_uniform && !returns_uniform {
            fu.returns_uniform = false;
            any = true;
        }
        any
    }
}
