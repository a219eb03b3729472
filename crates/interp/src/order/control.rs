//! The shadow of control flow in the second run: a branch on an order-dependent value
//! marks the construct instance it controls, escapes and exits from marked instances
//! spread the mark, released lanes' phis and loop values are order-dependent, and what a
//! marked construct may write (the roots of its stores' pointers) is marked as written by
//! another order.

use tangle_ir::{AtomicOp, Block, Func, Module, Op, Operand};

use super::{set_tainted, src_tainted};
use crate::decode::Src;
use crate::error::Position;
use crate::slot::Slot;
use crate::state::{lanes_of, Kind, Run, Subgroup, Tangle};
use crate::Mask;

/// Where a store's pointer comes from, followed back through access chains and copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Root {
    /// A global's memory (per lane for private and input, per workgroup for workgroup
    /// memory, one for a buffer).
    Global(u32),
    /// A value of the construct's function (a variable or a pointer parameter): the
    /// region the lane's value points into.
    Value(u32),
    /// Not known: a pointer parameter of a called function, a pointer chosen by a phi or
    /// `select`.
    Unknown,
}

impl Run<'_, '_> {
    /// The shadow of a `br_if` or `switch` terminator of `t` (after its header's instances
    /// were pushed): when its condition is order-dependent for some lane, the instance on
    /// top of the stack (the one the header pushed, or for a break or continue the
    /// innermost one) is marked, and everything its construct may write is marked as
    /// written by another order ([`MAY`]); with no instance of this function to mark, the
    /// whole subgroup from here on.
    pub(crate) fn order_branch(&mut self, sg: &mut Subgroup, t: &Tangle, cond: Operand) {
        let fr = *t.frames.last().expect("frame");
        let fi = fr.func.as_u32() as usize;
        let src = Src::of(cond);
        if !lanes_of(t.mask).any(|l| src_tainted(sg, fi, src, l)) {
            return;
        }
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        match t.stack.last() {
            Some(&i) if !matches!(sg.inst(i).kind, Kind::Call { .. }) => {
                sg.inst_mut(i).order_dependent = true;
                let header = construct_header(sg, i);
                self.order_may(sg, fi, Some(header), t.mask, at);
            }
            _ => {
                sg.order_dependent = true;
                self.order_may(sg, fi, None, t.mask, at);
            }
        }
    }

    /// Marks as [`MAY`] every region the lanes of `mask` may write in the construct headed
    /// by `header` of function `fi` (the whole function for `None`), and in the functions
    /// it calls; a write whose memory is not known makes the subgroup order-dependent.
    pub(crate) fn order_may(
        &mut self,
        sg: &mut Subgroup,
        fi: usize,
        header: Option<Block>,
        mask: Mask,
        at: Position,
    ) {
        let m = self.it.module;
        let order = self.order.as_mut().expect("taint run");
        let roots = order
            .roots
            .entry((fi as u32, header))
            .or_insert_with(|| construct_roots(m, Func::from_u32(fi as u32), header))
            .clone();
        for root in roots {
            for lane in lanes_of(mask) {
                let slot = match root {
                    Root::Global(g) => &sg.lanes[lane].globals[g as usize],
                    Root::Value(v) => sg.value(fi, v, lane),
                    Root::Unknown => {
                        sg.order_dependent = true;
                        continue;
                    }
                };
                if let Slot::Ptr { mem, .. } = *slot {
                    let len = self.mems.get(mem as usize).map_or(0, |r| r.len());
                    self.order
                        .as_mut()
                        .expect("taint run")
                        .set_may(mem, len, at);
                }
            }
        }
    }

    /// The shadow of a return value written into the caller's `dest` (function `caller`).
    pub(crate) fn order_return(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        caller: usize,
        dest: u32,
        value: Operand,
    ) {
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let control = Self::order_control(sg, t);
        for lane in lanes_of(t.mask) {
            let od = control || src_tainted(sg, fi, Src::of(value), lane);
            set_tainted(sg, caller, dest, lane, od);
        }
    }

    /// Lanes of `t` leave instances `t.stack[j + 1..]` for `t.stack[j]`: when one they
    /// leave is marked (or the subgroup is), which lanes arrive early depended on the
    /// order, so the instance they arrive at is marked too, and what they skip of its
    /// construct another order may write.
    pub(crate) fn order_escape(&mut self, sg: &mut Subgroup, t: &Tangle, j: usize) {
        if !sg.order_dependent && !t.stack[j + 1..].iter().any(|&i| sg.inst(i).order_dependent) {
            return;
        }
        let i = t.stack[j];
        sg.inst_mut(i).order_dependent = true;
        let fr = *t.frames.last().expect("frame");
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        match sg.inst(i).kind {
            // A return: the rest of the function.
            Kind::Call { .. } => self.order_may(sg, fr.func.as_u32() as usize, None, t.mask, at),
            _ => {
                let header = construct_header(sg, i);
                self.order_may(sg, fr.func.as_u32() as usize, Some(header), t.mask, at);
            }
        }
    }

    /// Lanes of `t` end: under order-dependent control, which lanes are left depends on
    /// the order, so everything the subgroup does from here on is order-dependent, and
    /// what the ending lanes skip (the rest of every function on their call stack) another
    /// order may write.
    pub(crate) fn order_exit(&mut self, sg: &mut Subgroup, t: &Tangle) {
        if !Self::order_control(sg, t) {
            return;
        }
        sg.order_dependent = true;
        let fr = *t.frames.last().expect("frame");
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        let funcs: Vec<usize> = t.frames.iter().map(|f| f.func.as_u32() as usize).collect();
        for fi in funcs {
            self.order_may(sg, fi, None, t.mask, at);
        }
    }

    /// A marked instance of `kind` in function `fi` releases the lanes of `mask`: their
    /// phis at the block they enter are order-dependent, and for a loop every value
    /// defined in the loop (which iteration's value a lane kept depended on the order).
    pub(crate) fn order_release(&mut self, sg: &mut Subgroup, fi: usize, kind: Kind, mask: Mask) {
        let order = self.order.as_mut().expect("taint run");
        order.entering |= mask;
        if let Kind::Loop { header, .. } = kind {
            let func = &self.it.module.funcs[Func::from_u32(fi as u32)];
            let values = order
                .loop_values
                .entry((fi as u32, header))
                .or_insert_with(|| loop_values(func, header));
            for &v in values.iter() {
                for lane in lanes_of(mask) {
                    set_tainted(sg, fi, v, lane, true);
                }
            }
        }
    }

    /// The shadow of the phis of `block` (function `fi`, `n` phis) the lanes of `t` just
    /// evaluated: a phi is order-dependent where its lane's incoming value is, under
    /// order-dependent control, or where the lane was released from a marked instance.
    pub(crate) fn order_phis(&mut self, sg: &mut Subgroup, t: &Tangle, fi: usize, block: Block) {
        let order = self.order.as_mut().expect("taint run");
        let entering = std::mem::take(&mut order.entering) & t.mask;
        let control = Self::order_control(sg, t);
        let facts = &self.it.facts[fi];
        let n = facts.phis(block);
        let edges = &facts.edges[block.as_u32() as usize];
        let mut shadow: Vec<(u32, bool)> = Vec::with_capacity(n);
        for lane in lanes_of(t.mask) {
            let prev = sg.prev(fi, lane);
            let Some(edge) = edges.iter().find(|e| e.from == prev && e.copies.len() == n) else {
                continue;
            };
            shadow.clear();
            let base = control || entering & (1 << lane) != 0;
            for &(res, src) in &edge.copies {
                shadow.push((res, base || src_tainted(sg, fi, src, lane)));
            }
            for &(res, od) in &shadow {
                set_tainted(sg, fi, res, lane, od);
            }
        }
    }
}

/// The values defined in the region of the loop headed by `header` in `func` (its loop
/// and continue constructs): phis and instruction results.
fn loop_values(func: &tangle_ir::Function, header: Block) -> Vec<u32> {
    let tree = tangle_ir::analysis::ConstructTree::new(func);
    let Some(id) = tree.of_header(header) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in tree.region(id) {
        for &i in &func.blocks[b].insts {
            if let Some(r) = func.insts[i].result {
                out.push(r.as_u32());
            }
        }
    }
    out
}

/// The header block of the construct instance `i` (not a call instance): the block whose
/// terminator pushed it.
fn construct_header(sg: &Subgroup, i: usize) -> Block {
    let inst = sg.inst(i);
    match inst.kind {
        Kind::Loop { header, .. } => header,
        _ => inst.frames.last().expect("frame").block,
    }
}

/// Where the stores and atomics of the construct headed by `header` of `f` (the whole
/// function for `None`) and of the functions it calls may write.
fn construct_roots(module: &Module, f: Func, header: Option<Block>) -> Vec<Root> {
    let func = &module.funcs[f];
    let blocks = match header {
        Some(h) => {
            let tree = tangle_ir::analysis::ConstructTree::new(func);
            match tree.of_header(h) {
                Some(id) => tree.region(id),
                None => func.layout.clone(),
            }
        }
        None => func.layout.clone(),
    };
    let mut out = Vec::new();
    let mut seen = vec![f];
    collect_roots(module, f, &blocks, true, &mut seen, &mut out);
    out
}

/// Adds to `out` the roots of the pointers the stores and atomics of `blocks` of `f` write
/// through, and those of the functions they call (`top`: `f` is the construct's own
/// function, whose values the lanes hold).
fn collect_roots(
    module: &Module,
    f: Func,
    blocks: &[Block],
    top: bool,
    seen: &mut Vec<Func>,
    out: &mut Vec<Root>,
) {
    use tangle_ir::glsl::GlslOp;
    let func = &module.funcs[f];
    for &b in blocks {
        for &i in &func.blocks[b].insts {
            let id = &func.insts[i];
            let ptr = match &id.op {
                Op::Store(_) => id.args.first(),
                Op::Atomic { op, .. } if *op != AtomicOp::Load => id.args.first(),
                Op::Glsl(GlslOp::Modf | GlslOp::Frexp) => id.args.get(1),
                Op::Call(c) => {
                    if !seen.contains(c) {
                        seen.push(*c);
                        let callee = &module.funcs[*c];
                        collect_roots(module, *c, &callee.layout, false, seen, out);
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some(r) = ptr.and_then(|p| root(func, *p, top)) {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
}

/// The root of pointer operand `o` of `func`, followed back through access chains and
/// copies; `None` for a function variable of a called function (`top` false: it is fresh
/// per call, so no other order can leave anything in it).
fn root(func: &tangle_ir::Function, mut o: Operand, top: bool) -> Option<Root> {
    use tangle_ir::{PlainOp, ValueDef};
    loop {
        match o {
            Operand::Global(g) => return Some(Root::Global(g.as_u32())),
            Operand::Const(_) => return None,
            Operand::Value(v) => match func.values[v].def {
                ValueDef::Inst(i) => {
                    let id = &func.insts[i];
                    match id.op {
                        Op::Plain(PlainOp::AccessChain | PlainOp::CopyObject) => o = id.args[0],
                        Op::Variable(_) => return top.then_some(Root::Value(v.as_u32())),
                        _ => return Some(Root::Unknown),
                    }
                }
                ValueDef::Param(_) if top => return Some(Root::Value(v.as_u32())),
                _ => return Some(Root::Unknown),
            },
        }
    }
}
