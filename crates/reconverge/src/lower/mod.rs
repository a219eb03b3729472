//! The reconvergence lowering (issue 14, Deliver 2 and 3): structured functions to the
//! lowered form with NVIDIA-style convergence barriers (`bar_set`, `bar_sync`,
//! `bar_break`, `exit`), so that a machine with only per-lane barriers and plain branches
//! runs every subgroup operation with the tangle the reference interpreter gives.
//!
//! One step per file: [`scopes`] reads the scopes (function, selections, loop break and
//! continue) off the construct tree; [`placement`] decides which scopes get a barrier
//! under each [`Scheme`]; [`rewrite`] moves the edges through the syncs (the escape
//! register and the cascade), opens the scopes, turns kills and an entry point's returns
//! into `exit`, repairs SSA and lays the blocks out in reverse post-order. [`stats`] counts
//! the barrier operations of a lowered module and [`dot`] draws one. The design is written
//! up in `docs/lowering.md`.

pub mod dot;
pub mod fallthrough;
pub mod placement;
pub mod rewrite;
pub mod scopes;
pub mod stats;

use std::fmt;

use tangle_ir::verify::{verify, verify_as, VerifyErrors};
use tangle_ir::{Block, Form, Func, Module, Op};

use crate::Uniformity;

/// Which barrier placement the lowering uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// tangle's: a barrier only where lanes can reach a scope's exit apart, elided when
    /// the scope around syncs right after with nothing observable in between.
    #[default]
    Scopes,
    /// A barrier around every divergent construct (both loop scopes for a divergent
    /// loop), no elision: the cost of not thinking.
    EveryDivergent,
    /// Mesa NAK's placement on the same uniformity analysis, for comparison.
    NakStyle,
    /// Seed 000's flawed first design: structured, `bar_break` out of each level, no
    /// continue barrier. Kept so that the differential tests can show they catch it.
    Baseline,
}

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 4] = [
        Scheme::Scopes,
        Scheme::EveryDivergent,
        Scheme::NakStyle,
        Scheme::Baseline,
    ];

    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Scopes => "scopes",
            Scheme::EveryDivergent => "every-divergent",
            Scheme::NakStyle => "nak",
            Scheme::Baseline => "baseline",
        }
    }

    /// The scheme spelled `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Options of the lowering.
#[derive(Clone, Debug)]
pub struct LowerOptions {
    /// The barrier placement.
    pub scheme: Scheme,
    /// Promote function-local variables to SSA values first, so the uniformity analysis
    /// sees loop counters and locals as the values they are (default on).
    pub promote_variables: bool,
    /// Verify the lowered module before returning it, and answer [`LowerError::Internal`]
    /// when it breaks a rule (a bug of the lowering). A second full verification costs
    /// about as much as the input's, a tenth of the lowering (docs/lowering-speed.md),
    /// so, like [`tangle_ir::pipeline::Pipeline::verify_each`], it is on by default in
    /// debug builds (every test) and off in release builds; campaigns that look for bugs
    /// turn it on. The input is always verified: bad input is the caller's error.
    pub verify_output: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            scheme: Scheme::Scopes,
            promote_variables: true,
            verify_output: cfg!(debug_assertions),
        }
    }
}

/// Why a module could not be lowered.
#[derive(Clone, Debug)]
pub enum LowerError {
    /// The input does not verify (each error has its position).
    Invalid(VerifyErrors),
    /// A function is already in lowered form.
    AlreadyLowered {
        /// The function.
        func: Func,
    },
    /// A function has no blocks.
    NoBody {
        /// The function.
        func: Func,
    },
    /// Something the lowering cannot express, at a block.
    Unsupported {
        /// The function.
        func: Func,
        /// The block.
        block: Block,
        /// What.
        message: String,
    },
    /// The lowering broke its own invariant (a bug): the lowered function does not verify.
    Internal {
        /// The function.
        func: Func,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LowerError::Invalid(e) => write!(f, "the input does not verify:\n{e}"),
            LowerError::AlreadyLowered { func } => write!(f, "{func}: already lowered"),
            LowerError::NoBody { func } => write!(f, "{func}: no blocks"),
            LowerError::Unsupported {
                func,
                block,
                message,
            } => write!(f, "{func} {block}: cannot lower: {message}"),
            LowerError::Internal { func, message } => {
                write!(f, "{func}: internal lowering error: {message}")
            }
        }
    }
}

impl std::error::Error for LowerError {}

/// Lowers every function of a verified structured module with `opts`; the result verifies
/// in lowered form, its blocks in reverse post-order.
pub fn lower_module(m: &Module, opts: &LowerOptions) -> Result<Module, LowerError> {
    verify(m).map_err(LowerError::Invalid)?;
    lower_verified(m.clone(), opts)
}

/// [`lower_module`] of a module the caller gives up: the lowering rewrites it in place
/// instead of cloning it, so the input and the output are never both in memory (on a
/// function of 100k instructions, a copy of the IR is about as large as the last-level
/// cache; docs/lowering-speed.md, round 6). Same checks and same output.
pub fn lower_module_owned(m: Module, opts: &LowerOptions) -> Result<Module, LowerError> {
    verify(&m).map_err(LowerError::Invalid)?;
    lower_verified(m, opts)
}

/// The lowering of a module that verified, rewritten in place.
fn lower_verified(mut out: Module, opts: &LowerOptions) -> Result<Module, LowerError> {
    for (fid, func) in out.funcs.iter() {
        if func.form == Form::Lowered {
            return Err(LowerError::AlreadyLowered { func: fid });
        }
    }
    if opts.promote_variables {
        promote_all(&mut out);
    }
    // Promotion leaves its copies and dead stores where they were made; the analyses and
    // the rewrite walk the blocks, so the instruction arena goes in layout order (a cache
    // miss per instruction on large functions otherwise; docs/lowering-speed.md). The
    // new arena has room for the rewrite's and the repair's additions (fewer than the
    // function's own instructions on the benches), so it is not copied again to grow.
    for (_, func) in out.funcs.iter_mut() {
        let room = func.insts.len();
        tangle_ir::passes::renumber::run_with_room(func, room);
    }
    let (mut uniformity, mut constructs) = Uniformity::analyse_keeping_constructs(&out);
    // Fallthrough lanes of divergent switches get their own copies of the cases they fall
    // into (`fallthrough`), so no scheduler can merge them with the direct lanes.
    if fallthrough::split_divergent_fallthroughs(&mut out, &uniformity) {
        (uniformity, constructs) = Uniformity::analyse_keeping_constructs(&out);
    }
    let ids: Vec<Func> = out.funcs.iter().map(|(f, _)| f).collect();
    for fid in ids {
        if out.funcs[fid].layout.is_empty() {
            continue;
        }
        let is_entry = out.entry_points.iter().any(|e| e.func == fid);
        let plan = {
            let func = &out.funcs[fid];
            // Taken, not borrowed: the verdicts are freed before the rewrite runs.
            let fu = uniformity.take_function(fid).ok_or(LowerError::Internal {
                func: fid,
                message: "no uniformity verdicts".into(),
            })?;
            // The analysis' construct tree is of this function as it is now: the rewrites
            // of the functions before it change only those functions.
            let tree = match constructs.remove(&fid) {
                Some(c) => scopes::ScopeTree::with_constructs(c),
                None => scopes::ScopeTree::new(func),
            };
            let facts = placement::Facts::new(func, &tree, &fu, is_entry);
            let on = placement::place(&facts, opts.scheme);
            rewrite::plan(fid, &facts, &on, opts.scheme == Scheme::Baseline)
        };
        rewrite::apply(&mut out, plan)?;
    }
    if !opts.verify_output {
        return Ok(out);
    }
    verify_as(&out, Form::Lowered).map_err(|e| LowerError::Internal {
        func: e
            .0
            .first()
            .and_then(|x| x.loc.func)
            .unwrap_or(Func::from_u32(0)),
        message: e.to_string(),
    })?;
    Ok(out)
}

/// Promotes every function-local variable that is only loaded and stored to SSA values,
/// and first makes local the `Private` globals that behave as one (below).
fn promote_all(m: &mut Module) {
    localize_private_globals(m);
    let types = m.types.clone();
    for (_, func) in m.funcs.iter_mut() {
        let Some(entry) = func.entry() else { continue };
        let vars: Vec<tangle_ir::Value> = func.blocks[entry]
            .insts
            .iter()
            .filter(|&&i| matches!(func.insts[i].op, Op::Variable(_)))
            .filter_map(|&i| func.insts[i].result)
            .collect();
        tangle_ir::ssa_repair::promote_variables(func, &types, &vars);
    }
}

/// Turns each `Private` global that only one entry point's function uses, only as the
/// pointer of loads and stores, into a function-local variable of that function (with the
/// global's initializer), so that promotion makes SSA values of it. Private memory is per
/// invocation and starts at its initializer; an entry point's function runs once per
/// invocation and nothing calls it, so its local variable holds exactly what the global
/// would. Front ends (and the fuzz generator) keep loop counters in such globals; read from
/// memory, the uniformity analysis must call them divergent, and a uniform loop around a
/// loop that lanes leave apart kept a break barrier it does not need (fuzz seed 79,
/// docs/lowering.md).
fn localize_private_globals(m: &mut Module) {
    use tangle_ir::hash::{FxHashMap, FxHashSet};
    use tangle_ir::{Global, Operand, TypeData};
    let called: FxHashSet<Func> = m
        .funcs
        .iter()
        .flat_map(|(_, f)| f.insts.iter())
        .filter_map(|(_, i)| match i.op {
            Op::Call(c) => Some(c),
            _ => None,
        })
        .collect();
    // Per Private global: the one function that uses it, or `None` once a second one does
    // or a use is not a load's or store's pointer.
    let mut user: FxHashMap<Global, Option<Func>> = FxHashMap::default();
    for (fid, func) in m.funcs.iter() {
        let mut note = |g: Global, ok: bool| {
            let entry = user.entry(g).or_insert(Some(fid));
            if !ok || *entry != Some(fid) {
                *entry = None;
            }
        };
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                let data = &func.insts[i];
                for (k, a) in data.args.iter().enumerate() {
                    if let Operand::Global(g) = *a {
                        let ok = k == 0
                            && match data.op {
                                Op::Load(_) => true,
                                Op::Store(_) => data.args.len() == 2,
                                _ => false,
                            };
                        note(g, ok);
                    }
                }
            }
            if let Some(Operand::Global(g)) = func.blocks[b].term.operand() {
                note(g, false);
            }
        }
    }
    let entries: FxHashSet<Func> = m.entry_points.iter().map(|e| e.func).collect();
    let mut chosen: Vec<(Global, Func)> = user
        .into_iter()
        .filter_map(|(g, f)| Some((g, f?)))
        .filter(|&(g, f)| {
            m.globals[g].storage == spirv::StorageClass::Private
                && entries.contains(&f)
                && !called.contains(&f)
        })
        .collect();
    chosen.sort_unstable();
    for (g, fid) in chosen {
        let Some((_, pointee)) = m.types.pointer(m.globals[g].ty) else {
            continue;
        };
        let ptr = m.types.intern(TypeData::Pointer {
            storage: spirv::StorageClass::Function,
            pointee,
        });
        let init: Vec<Operand> = m.globals[g].init.map(Operand::Const).into_iter().collect();
        let func = &mut m.funcs[fid];
        let Some(entry) = func.entry() else { continue };
        let (_, var) = func.insert_inst(
            tangle_ir::builder::InsertAt::AfterPhis(entry),
            Op::Variable(spirv::StorageClass::Function),
            init,
            Some(ptr),
        );
        let Some(var) = var else { continue };
        for b in func.layout.clone() {
            for i in func.blocks[b].insts.clone() {
                if let Some(a) = func.insts[i].args.first_mut() {
                    if *a == Operand::Global(g) {
                        *a = Operand::Value(var);
                    }
                }
            }
        }
    }
}
