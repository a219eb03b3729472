//! SSA repair after control-flow rewrites.
//!
//! A rewrite such as duplicating a block, or inserting a redefinition of a value on some
//! paths, leaves a *variable* with several definitions: values of one type that all stand for
//! the same thing. [`repair`] takes those definitions and rewrites every use of any of them
//! to the definition that reaches it, inserting phis where definitions meet, by Braun et
//! al.'s construction ("Simple and Efficient Construction of Static Single Assignment Form",
//! CC 2013) over the finished graph (every block sealed): a use looks for a definition
//! earlier in its block, else asks the block's predecessors, placing a phi (before asking,
//! to cut cycles) where there are several. Phis that turn out *trivial* (all operands the
//! phi itself or one other value) are removed until none is left, which makes the result
//! minimal on reducible graphs.
//!
//! Two things keep a repair linear in what it touches rather than in the function. The
//! backward search of a variable whose definitions all lie inside loops or after some
//! point stops at blocks none of its definitions can reach (*reach floors*, below): the
//! variable is undefined there, which is what the search would have found at the entry,
//! after walking the whole function above. And trivial phis are removed with a worklist of
//! their users, not by sweeps until nothing changes (a chain of `n` phis took `n` sweeps).
//!
//! A use that no definition reaches (only possible in unreachable code, or in a function
//! that was not in SSA form before) gets an `undef` of the variable's type. With a single
//! definition, `repair` also mends a definition that no longer dominates its uses: paths
//! that miss it bring `undef` through new phis. The entry block is taken to have no
//! predecessors (SPIR-V forbids branching to it): at its start nothing is defined.

mod sites;

use sites::Site;

use crate::hash::{FxHashMap, FxHashSet};

use crate::builder::InsertAt;
use crate::cfg::{Cfg, DomTree};
use crate::entity::SecondaryMap;
use crate::module::{Block, Function, Inst, Operand, Terminator, Value, ValueDef};
use crate::ops::{Op, PlainOp};
use crate::types::TypeTable;

struct Repair<'f, 'c> {
    func: &'f mut Function,
    cfg: &'c Cfg,
    /// Definitions by block: (position, value); parameters sit at position 0 of the entry
    /// (before everything), instructions at their index + 1.
    defs: FxHashMap<Block, Vec<(usize, Value)>>,
    /// The value live at each block's entry, once known.
    at_entry: FxHashMap<Block, Operand>,
    /// Phis this repair created.
    new_phis: Vec<(Inst, Value, Block)>,
    /// Removed trivial phis and what replaces them.
    replaced: FxHashMap<Value, Operand>,
    undef: Option<Value>,
    ty: crate::types::Type,
    /// Where the backward search stops ([`ReachFloors`]).
    floors: &'c ReachFloors<'c>,
    /// The least reach floor of the variable's definitions: blocks before it in reverse
    /// post-order are reached by none of them.
    floor: usize,
}

/// For each reachable block, a bound on where in reverse post-order the blocks reachable
/// from it start: the position of the header of the outermost loop containing it, or its
/// own position when no loop contains it. In a reducible graph a path from `d` to a block
/// earlier in reverse post-order than `d` takes a back edge of a loop containing `d`, so no
/// block before `d`'s floor is reachable from `d`. Irreducible graphs get floor 0 (no
/// bound).
struct ReachFloors<'d> {
    /// The positions in reverse post-order (the dominator tree's own map, not a copy).
    dom: &'d DomTree,
    floor: SecondaryMap<Block, usize>,
}

impl<'d> ReachFloors<'d> {
    fn new(cfg: &Cfg, dom: &'d DomTree) -> ReachFloors<'d> {
        let order = dom.rpo();
        let rpo = |b: Block| dom.rpo_position(b);
        let mut floor = SecondaryMap::with_capacity(0, order.len());
        // Back edges by header; any retreating edge to a non-dominator: irreducible.
        let mut latches: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
        for (i, &b) in order.iter().enumerate() {
            for &s in cfg.succs(b) {
                let Some(si) = rpo(s) else { continue };
                if si <= i {
                    if !dom.dominates(s, b) {
                        return ReachFloors { dom, floor };
                    }
                    latches.entry(s).or_default().push(b);
                }
            }
        }
        for (i, &b) in order.iter().enumerate() {
            floor.set(b, i);
        }
        // Headers outer first (an outer loop's header comes first in reverse post-order):
        // each loop's body is collected by a backward walk from its latches; a block
        // already taken belongs to an enclosing loop, and so does this whole loop.
        let mut taken = SecondaryMap::with_capacity(false, order.len());
        for (h_pos, &h) in order.iter().enumerate() {
            let Some(ls) = latches.get(&h) else { continue };
            if *taken.get(h) {
                continue;
            }
            taken.set(h, true);
            let mut stack: Vec<Block> = ls.iter().copied().filter(|&l| l != h).collect();
            while let Some(b) = stack.pop() {
                if *taken.get(b) || rpo(b).is_none() {
                    continue;
                }
                taken.set(b, true);
                floor.set(b, h_pos);
                stack.extend(cfg.preds(b).iter().copied().filter(|&p| p != h));
            }
        }
        ReachFloors { dom, floor }
    }

    /// The reach floor of `b` (0 for unreachable blocks: no bound).
    fn of(&self, b: Block) -> usize {
        match self.dom.rpo_position(b) {
            Some(_) => *self.floor.get(b),
            None => 0,
        }
    }

    /// Whether `b` comes before `floor` in reverse post-order.
    fn below(&self, b: Block, floor: usize) -> bool {
        self.dom.rpo_position(b).is_some_and(|i| i < floor)
    }
}

/// Rewrites every use of the values in `defs` (one variable's definitions, all of one type)
/// to the definition that reaches it, adding phis where needed. Returns the phis added
/// (after trivial ones are removed). `defs` must be non-empty.
pub fn repair(func: &mut Function, defs: &[Value]) -> Vec<Value> {
    repair_many(func, &[defs.to_vec()])
        .pop()
        .unwrap_or_default()
}

/// [`repair`] for several variables at once (each group one variable's definitions; a
/// value belongs to the first group naming it), with one control-flow graph and one scan of
/// the function for all of them: what a rewrite that leaves many variables behind needs
/// to stay linear. Returns the phis added per group.
pub fn repair_many(func: &mut Function, groups: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let cfg = Cfg::new(func);
    let dom = DomTree::new(func, &cfg);
    repair_many_in(func, &cfg, &dom, groups)
}

/// [`repair_many`] with the function's control-flow graph and dominator tree given: a
/// repair adds phis and `undef`s but no edges, so a caller that repairs several times (or
/// reads dominance after) builds them once.
pub fn repair_many_in(
    func: &mut Function,
    cfg: &Cfg,
    dom: &DomTree,
    groups: &[Vec<Value>],
) -> Vec<Vec<Value>> {
    match repair_groups(func, cfg, dom, groups, None) {
        Ok(r) => r.phis,
        Err(_) => unreachable!("a repair that mends nothing refuses nothing"),
    }
}

/// What [`repair_many_mending_in`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mended {
    /// The phis added per group: the groups given, then one per mended value.
    pub phis: Vec<Vec<Value>>,
    /// The values outside the groups whose definition no longer dominated all their
    /// uses, ascending; each was repaired as a variable of its own, after the groups.
    pub mended: Vec<Value>,
}

/// [`repair_many_in`], which also mends every value outside `groups` whose definition no
/// longer dominates all its uses (what a control-flow rewrite that adds paths leaves),
/// found in the same scan of the function: as if each were added as a group of its own
/// after `groups`, in value order, which is what a separate search for them would do at
/// the cost of a second read of every instruction. Uses in a definition's own block are
/// taken to follow it (the function was in SSA form before the edit). When `refuse`
/// turns one of those values down (a token, which no phi can merge), answers it (the
/// smallest) and changes nothing.
pub fn repair_many_mending_in(
    func: &mut Function,
    cfg: &Cfg,
    dom: &DomTree,
    groups: &[Vec<Value>],
    refuse: &dyn Fn(&Function, Value) -> bool,
) -> Result<Mended, Value> {
    repair_groups(func, cfg, dom, groups, Some(refuse))
}

/// The repair of `groups`, mending undominated values too when `refuse` is given.
fn repair_groups(
    func: &mut Function,
    cfg: &Cfg,
    dom: &DomTree,
    groups: &[Vec<Value>],
    refuse: Option<sites::Refuse<'_>>,
) -> Result<Mended, Value> {
    let floors = ReachFloors::new(cfg, dom);
    // Dense maps by value and instruction number: hash maps over every instruction cost a
    // cache miss per lookup on large functions.
    // Group numbers as `u32`: the map has an entry per value, and at 100k instructions its
    // size decides whether the scan below stays in cache.
    let mut group_of: SecondaryMap<Value, Option<u32>> =
        SecondaryMap::with_capacity(None, func.values.len());
    for (g, defs) in groups.iter().enumerate() {
        for &v in defs {
            if group_of.get(v).is_none() {
                group_of.set(v, Some(g as u32));
            }
        }
    }
    let scan = sites::scan(func, &mut group_of, groups.len(), refuse.map(|r| (dom, r)))?;
    let position = &scan.position;
    let all = groups
        .iter()
        .map(Vec::as_slice)
        .chain(scan.mended.iter().map(std::slice::from_ref));
    let mut out = Vec::with_capacity(groups.len() + scan.mended.len());
    // One undefined value per type serves every group: it sits at the top of the entry.
    let mut undefs: FxHashMap<crate::types::Type, Value> = FxHashMap::default();
    for (g, defs) in all.enumerate() {
        let Some(&first) = defs.first() else {
            out.push(Vec::new());
            continue;
        };
        let ty = func.values[first].ty;
        let mut by_block: FxHashMap<Block, Vec<(usize, Value)>> = FxHashMap::default();
        for &v in defs {
            if *group_of.get(v) != Some(g as u32) {
                continue;
            }
            match func.values[v].def {
                ValueDef::Param(_) => {
                    if let Some(e) = func.entry() {
                        by_block.entry(e).or_default().push((0, v));
                    }
                }
                ValueDef::Inst(i) => {
                    if let Some(&(b, pos)) = position.get(&i) {
                        by_block.entry(b).or_default().push((pos + 1, v));
                    }
                }
                ValueDef::Unused => {}
            }
        }
        for list in by_block.values_mut() {
            list.sort_unstable();
        }
        let floor = by_block.keys().map(|&b| floors.of(b)).min().unwrap_or(0);
        let is_def =
            |o: &Operand| matches!(o, Operand::Value(v) if *group_of.get(*v) == Some(g as u32));
        let mut r = Repair {
            func: &mut *func,
            cfg,
            defs: by_block,
            at_entry: FxHashMap::default(),
            new_phis: Vec::new(),
            replaced: FxHashMap::default(),
            undef: undefs.get(&ty).copied(),
            ty,
            floors: &floors,
            floor,
        };
        // Find every use's reaching definition before changing anything.
        let group_sites = scan.sites(g);
        let reaching: Vec<Operand> = group_sites
            .iter()
            .map(|s| match *s {
                Site::Inst { block, pos, .. } => r.read_before(block, pos as usize),
                Site::Phi { pred, .. } => r.read_end(pred),
                Site::Term { block } => r.read_end(block),
            })
            .collect();
        r.remove_trivial_phis();
        if let Some(u) = r.undef {
            undefs.insert(ty, u);
        }
        for (site, value) in group_sites.iter().zip(reaching) {
            let value = r.resolve(value);
            match *site {
                Site::Inst { inst, k, .. } | Site::Phi { inst, k, .. } => {
                    r.func.insts[inst].args[k as usize] = value
                }
                Site::Term { block } => {
                    let slot = match &mut r.func.blocks[block].term {
                        Terminator::CondBranch { cond, .. } => cond,
                        Terminator::Switch { selector, .. } => selector,
                        Terminator::ReturnValue(v) => v,
                        _ => continue,
                    };
                    if is_def(slot) {
                        *slot = value;
                    }
                }
            }
        }
        out.push(
            r.new_phis
                .iter()
                .filter(|(_, v, _)| !r.replaced.contains_key(v))
                .map(|p| p.1)
                .collect(),
        );
    }
    Ok(Mended {
        phis: out,
        mended: scan.mended.clone(),
    })
}

/// Promotes the function-local variable whose pointer is `var` to SSA values (the classic
/// "mem2reg"), with the same construction: each store becomes a definition, each load a use
/// at its own position, the initializer (or `undef`) a definition after the entry block's
/// variables. Refused (`false`, nothing changed) unless `var` is a `variable` used only as
/// the pointer of loads and stores.
pub fn promote_variable(func: &mut Function, types: &TypeTable, var: Value) -> bool {
    promote_variables(func, types, &[var])[0]
}

/// [`promote_variable`] for several variables at once, with one use-list scan, one
/// [`repair_many`] and one substitution pass for all of them: promoting `n` variables one
/// by one rebuilt the use lists, the control-flow graph and the reach floors `n` times
/// (quadratic in a function with a variable per few instructions). Returns, per variable,
/// whether it was promoted (those refused are left as they were).
pub fn promote_variables(func: &mut Function, types: &TypeTable, vars: &[Value]) -> Vec<bool> {
    let uses = crate::analysis::UseLists::new(func);
    // Per variable: its instruction, loads, stores and value type, when it can be promoted.
    let mut plans: Vec<Option<Promotion>> = Vec::with_capacity(vars.len());
    for &var in vars {
        plans.push(promotion_plan(func, types, &uses, var));
    }
    let mut groups: Vec<Vec<Value>> = Vec::new();
    // Dense by instruction and value number: the substitution pass below looks up every
    // operand of the function.
    let mut gone: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(false, func.insts.len());
    let mut copies: Vec<Inst> = Vec::new();
    // The initial values go after the entry block's variables, in the variables' order.
    let after_vars = func.entry().map(|entry| {
        func.blocks[entry]
            .insts
            .iter()
            .copied()
            .find(|&i| !matches!(func.insts[i].op, Op::Variable(_)))
            .map_or(InsertAt::End(entry), InsertAt::Before)
    });
    for (vi, loads, stores, ty) in plans.iter().flatten() {
        let after_vars = after_vars.expect("a laid-out variable has an entry block");
        let (init_op, init_args) = match func.insts[*vi].args.first() {
            Some(&init) => (Op::Plain(PlainOp::CopyObject), vec![init]),
            None => (Op::Plain(PlainOp::Undef), Vec::new()),
        };
        let (init_inst, init) = func.insert_inst(after_vars, init_op, init_args, Some(*ty));
        let mut defs = vec![init.expect("a copy has a result")];
        if func.insts[init_inst].op == Op::Plain(PlainOp::CopyObject) {
            copies.push(init_inst);
        }
        // Stores become copies of the stored value (definitions), in place.
        for &s in stores {
            let value = func.insts[s].args[1];
            let d = func.values.push(crate::module::ValueData {
                ty: *ty,
                def: ValueDef::Inst(s),
            });
            let data = &mut func.insts[s];
            data.op = Op::Plain(PlainOp::CopyObject);
            data.args = [value].into();
            data.result = Some(d);
            defs.push(d);
        }
        // Loads become copies of the variable (uses), in place.
        for &l in loads {
            let data = &mut func.insts[l];
            data.op = Op::Plain(PlainOp::CopyObject);
            data.args = [Operand::Value(defs[0])].into();
        }
        copies.extend(stores.iter().chain(loads).copied());
        gone.set(*vi, true);
        groups.push(defs);
    }
    if groups.is_empty() {
        return vec![false; vars.len()];
    }
    repair_many(func, &groups);
    // The copies go: their results are replaced by their operands, in one pass over the
    // function (one pass per copy would make promotion quadratic in the loads and stores).
    let mut subst: SecondaryMap<Value, Option<Operand>> =
        SecondaryMap::with_capacity(None, func.values.len());
    for inst in copies {
        if let (Some(r), Some(&a)) = (func.insts[inst].result, func.insts[inst].args.first()) {
            subst.set(r, Some(a));
        }
        gone.set(inst, true);
    }
    let resolve = |mut o: Operand| {
        // Copies of copies: follow the chain (it ends: each step goes to an older value).
        while let Operand::Value(v) = o {
            match *subst.get(v) {
                Some(next) if next != o => o = next,
                _ => break,
            }
        }
        o
    };
    for b in func.layout.clone() {
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut kept = crate::module::InstList::with_capacity(insts.len());
        for i in insts {
            if *gone.get(i) {
                if let Some(r) = func.insts[i].result {
                    func.values[r].def = ValueDef::Unused;
                }
                continue;
            }
            for a in func.insts[i].args.iter_mut() {
                *a = resolve(*a);
            }
            if let Some(Operand::Value(t)) = func.insts[i].conv.map(|c| resolve(Operand::Value(c)))
            {
                func.insts[i].conv = Some(t);
            }
            kept.push(i);
        }
        func.blocks[b].insts = kept;
        let slot = match &mut func.blocks[b].term {
            Terminator::CondBranch { cond, .. } => Some(cond),
            Terminator::Switch { selector, .. } => Some(selector),
            Terminator::ReturnValue(v) => Some(v),
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = resolve(*slot);
        }
    }
    plans.iter().map(Option::is_some).collect()
}

/// A variable to promote: its `variable` instruction, loads, stores and value type.
type Promotion = (Inst, Vec<Inst>, Vec<Inst>, crate::types::Type);

/// The promotion of variable `var` when it is a laid-out `variable` used only as the
/// pointer of loads and stores.
fn promotion_plan(
    func: &Function,
    types: &TypeTable,
    uses: &crate::analysis::UseLists,
    var: Value,
) -> Option<Promotion> {
    let vi = func.value_inst(var)?;
    if !matches!(func.insts[vi].op, Op::Variable(_)) || func.inst_position(vi).is_none() {
        return None;
    }
    let (mut loads, mut stores) = (Vec::new(), Vec::new());
    for u in uses.uses(var) {
        match *u {
            crate::analysis::Use::Inst { inst, index: 0 } => match func.insts[inst].op {
                Op::Load(_) => loads.push(inst),
                Op::Store(_) if func.insts[inst].args.len() == 2 => stores.push(inst),
                _ => return None,
            },
            _ => return None,
        }
    }
    let (_, ty) = types.pointer(func.values[var].ty)?;
    Some((vi, loads, stores, ty))
}

impl Repair<'_, '_> {
    /// The definition reaching position `pos` of `b` (a definition at `pos` itself is the
    /// using instruction's own result, which cannot reach it).
    fn read_before(&mut self, b: Block, pos: usize) -> Operand {
        let found = self
            .defs
            .get(&b)
            .and_then(|list| list.iter().rev().find(|(p, _)| *p < pos))
            .map(|&(_, v)| Operand::Value(v));
        match found {
            Some(v) => v,
            None => self.read_entry(b),
        }
    }

    /// The definition live at the end of `b`.
    fn read_end(&mut self, b: Block) -> Operand {
        self.read_before(b, usize::MAX)
    }

    /// The definition live on entry to `b`. A chain of single-predecessor blocks without
    /// definitions is walked up to where the value is known; a block with several
    /// predecessors gets a phi, recorded before its operands are looked up so that cycles
    /// through it end there.
    fn read_entry(&mut self, b: Block) -> Operand {
        let mut chain = Vec::new();
        let mut cur = b;
        let v = loop {
            if let Some(&v) = self.at_entry.get(&cur) {
                break v;
            }
            let preds = self.cfg.preds(cur).to_vec();
            if Some(cur) == self.func.entry()
                || preds.is_empty()
                || self.floors.below(cur, self.floor)
            {
                // Nothing defines it on the way here: no definition reaches this block.
                break Operand::Value(self.undef());
            }
            if let [p] = preds[..] {
                chain.push(cur);
                if let Some(&(_, v)) = self.defs.get(&p).and_then(|l| l.last()) {
                    break Operand::Value(v);
                }
                if chain.contains(&p) {
                    // A cycle of single-predecessor blocks is unreachable: nothing defines it.
                    break Operand::Value(self.undef());
                }
                cur = p;
                continue;
            }
            let (inst, phi) = self.func.add_phi(cur, self.ty, &[]);
            self.new_phis.push((inst, phi, cur));
            self.at_entry.insert(cur, Operand::Value(phi));
            for p in preds {
                let v = self.read_end(p);
                self.func.set_phi_incoming(inst, p, v);
            }
            break Operand::Value(phi);
        };
        for c in chain {
            self.at_entry.insert(c, v);
        }
        self.at_entry.insert(b, v);
        v
    }

    /// An `undef` of the variable's type, made once, after the entry block's variables.
    fn undef(&mut self) -> Value {
        if let Some(u) = self.undef {
            return u;
        }
        let entry = self
            .func
            .entry()
            .expect("a function with uses has an entry");
        // After the entry block's phis and variables, found in that block only (not by a
        // search of the function, which would make many repairs quadratic).
        let k = self.func.blocks[entry]
            .insts
            .iter()
            .position(|&i| !matches!(self.func.insts[i].op, Op::Phi(_) | Op::Variable(_)))
            .unwrap_or(self.func.blocks[entry].insts.len());
        let (inst, v) = self.func.insert_inst(
            InsertAt::End(entry),
            Op::Plain(PlainOp::Undef),
            Vec::new(),
            Some(self.ty),
        );
        let insts = &mut self.func.blocks[entry].insts;
        insts.pop();
        insts.insert(k, inst);
        let v = v.expect("undef has a result");
        self.undef = Some(v);
        v
    }

    fn resolve(&self, mut o: Operand) -> Operand {
        while let Operand::Value(v) = o {
            match self.replaced.get(&v) {
                Some(&next) => o = next,
                None => break,
            }
        }
        o
    }

    /// Removes new phis whose operands are all the phi itself or one other value, until
    /// none is left; their uses are rewritten to that value. A worklist: removing a phi
    /// puts the phis that use it back on the list.
    fn remove_trivial_phis(&mut self) {
        let n = self.new_phis.len();
        let index: FxHashMap<Value, usize> = self
            .new_phis
            .iter()
            .enumerate()
            .map(|(k, p)| (p.1, k))
            .collect();
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, &(inst, _, _)) in self.new_phis.iter().enumerate() {
            for a in &self.func.insts[inst].args {
                if let Some(&j) = index.get(&match a {
                    Operand::Value(v) => *v,
                    _ => continue,
                }) {
                    users[j].push(k);
                }
            }
        }
        let mut work: Vec<usize> = (0..n).rev().collect();
        let mut queued = vec![true; n];
        let mut removed: FxHashMap<Block, FxHashSet<Inst>> = FxHashMap::default();
        while let Some(k) = work.pop() {
            queued[k] = false;
            let (inst, phi, b) = self.new_phis[k];
            if self.replaced.contains_key(&phi) {
                continue;
            }
            let args: Vec<Operand> = self.func.insts[inst]
                .args
                .iter()
                .map(|&a| self.resolve(a))
                .collect();
            let mut same: Option<Operand> = None;
            let mut trivial = true;
            for a in &args {
                if *a == Operand::Value(phi) || Some(*a) == same {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(*a);
            }
            if !trivial {
                self.func.insts[inst].args = args.into();
                continue;
            }
            // A phi with no other operand is only reached from itself: undefined.
            let to = match same {
                Some(v) => v,
                None => Operand::Value(self.undef()),
            };
            self.replaced.insert(phi, to);
            removed.entry(b).or_default().insert(inst);
            if let Some(r) = self.func.insts[inst].result {
                self.func.values[r].def = ValueDef::Unused;
            }
            let mine = std::mem::take(&mut users[k]);
            for &u in &mine {
                if !queued[u] {
                    queued[u] = true;
                    work.push(u);
                }
            }
            // Its users now use what replaced it.
            if let Operand::Value(t) = to {
                if let Some(&j) = index.get(&t) {
                    users[j].extend(mine);
                }
            }
        }
        // The removed phis leave their blocks, one pass per block.
        for (b, gone) in removed {
            self.func.blocks[b].insts.retain(|i| !gone.contains(i));
        }
        // Operands of the phis that stay may name phis removed after they were resolved.
        for k in 0..self.new_phis.len() {
            let (inst, phi, _) = self.new_phis[k];
            if !self.replaced.contains_key(&phi) {
                let args: crate::operands::Operands = self.func.insts[inst]
                    .args
                    .iter()
                    .map(|&a| self.resolve(a))
                    .collect();
                self.func.insts[inst].args = args;
            }
        }
    }
}
