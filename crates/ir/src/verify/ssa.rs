//! References and SSA form: every entity exists, every value is defined once and dominates
//! its uses, phis sit at block starts with one operand per predecessor.

use crate::hash::FxHashSet;

use super::{Location, Point, Rule, Sink};
use crate::cfg::{Cfg, DomTree};
use crate::entity::SecondaryMap;
use crate::module::{Block, Func, Function, Inst, Module, Operand, Value, ValueDef};
use crate::ops::Op;

fn loc(f: Func, b: Option<Block>, i: Option<Point>, v: Option<Value>) -> Location {
    Location {
        func: Some(f),
        block: b,
        point: i,
        value: v,
    }
}

/// Checks that everything `func` refers to exists; later checks rely on it.
pub(super) fn check_references(module: &Module, f: Func, func: &Function, sink: &mut Sink) {
    let value_ok = |v: Value| {
        func.values
            .get(v)
            .is_some_and(|d| d.def != ValueDef::Unused)
    };
    let mut in_layout: SecondaryMap<Block, bool> =
        SecondaryMap::with_capacity(false, func.blocks.len());
    if func.layout.is_empty() {
        sink.report(
            Rule::Structure,
            loc(f, None, None, None),
            "a function needs at least one block",
        );
    }
    if !module.types.contains(func.ret) {
        sink.report(
            Rule::Reference,
            loc(f, None, None, None),
            format!("return type {} does not exist", func.ret),
        );
    }
    for &b in &func.layout {
        if !func.blocks.contains(b) {
            sink.report(
                Rule::Reference,
                loc(f, Some(b), None, None),
                "block does not exist",
            );
            continue;
        }
        if *in_layout.get(b) {
            sink.report(
                Rule::Structure,
                loc(f, Some(b), None, None),
                "block appears twice in the layout",
            );
        }
        in_layout.set(b, true);
    }
    for (v, data) in func.values.iter() {
        if data.def != ValueDef::Unused && !module.types.contains(data.ty) {
            sink.report(
                Rule::Reference,
                loc(f, None, None, Some(v)),
                format!("type {} does not exist", data.ty),
            );
        }
    }
    let check_operand = |o: &Operand, l: Location, sink: &mut Sink| match o {
        Operand::Value(v) if !value_ok(*v) => {
            sink.report(Rule::Reference, l, format!("{v} is not defined"))
        }
        Operand::Const(c) if !module.consts.contains(*c) => {
            sink.report(Rule::Reference, l, format!("{c} does not exist"))
        }
        Operand::Global(g) if !module.globals.contains(*g) => {
            sink.report(Rule::Reference, l, format!("{g} does not exist"))
        }
        _ => {}
    };
    let check_block = |t: Block, l: Location, sink: &mut Sink| {
        if !*in_layout.get(t) {
            sink.report(
                Rule::Reference,
                l,
                format!("{t} is not a block of this function"),
            );
        }
    };
    for &b in &func.layout {
        let Some(block) = func.blocks.get(b) else {
            continue;
        };
        for (k, &i) in block.insts.iter().enumerate() {
            let Some(inst) = func.insts.get(i) else {
                sink.report(
                    Rule::Reference,
                    loc(f, Some(b), Some(Point::Inst(k)), None),
                    "instruction does not exist",
                );
                continue;
            };
            let l = loc(f, Some(b), Some(Point::Inst(k)), inst.result);
            for a in inst
                .args
                .iter()
                .chain(inst.conv.map(Operand::Value).as_ref())
            {
                check_operand(a, l, sink);
            }
            match &inst.op {
                Op::Phi(blocks) => {
                    for t in blocks {
                        check_block(*t, l, sink);
                    }
                }
                Op::Call(callee) if !module.funcs.contains(*callee) => {
                    sink.report(
                        Rule::Reference,
                        l,
                        format!("function {callee} does not exist"),
                    );
                }
                _ => {}
            }
            if let Some(r) = inst.result {
                if func.values.get(r).map(|d| d.def) != Some(ValueDef::Inst(i)) {
                    sink.report(Rule::Ssa, l, format!("{r} is not recorded as defined here"));
                }
            }
        }
        let l = loc(f, Some(b), Some(Point::Terminator), None);
        if let Some(o) = block.term.operand() {
            check_operand(&o, l, sink);
        }
        for t in block.term.successors() {
            check_block(t, l, sink);
        }
        if let Some(m) = block.merge {
            check_block(m.merge_block(), l, sink);
            if let crate::module::Merge::Loop {
                continue_target, ..
            } = m
            {
                check_block(continue_target, l, sink);
            }
        }
    }
}

/// Checks definitions, phis and dominance.
pub(super) fn check(
    module: &Module,
    f: Func,
    func: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    sink: &mut Sink,
) {
    let _ = module;
    // Where each instruction is: (block, position).
    // Dense by instruction number (a hash map costs a cache miss per lookup on large
    // functions).
    let mut place: SecondaryMap<Inst, Option<(Block, usize)>> =
        SecondaryMap::with_capacity(None, func.insts.len());
    for &b in &func.layout {
        for (k, &i) in func.blocks[b].insts.iter().enumerate() {
            if place.get(i).is_some() {
                sink.report(
                    Rule::Ssa,
                    loc(f, Some(b), Some(Point::Inst(k)), None),
                    "instruction appears in two places",
                );
            }
            place.set(i, Some((b, k)));
        }
    }
    for (k, &p) in func.params.iter().enumerate() {
        if func.values[p].def != ValueDef::Param(k as u32) {
            sink.report(
                Rule::Ssa,
                loc(f, None, None, Some(p)),
                "parameter is not recorded as a parameter",
            );
        }
    }
    // Does the definition of `v` dominate position (b, k)?
    let dominates_use = |v: Value, b: Block, k: usize| -> bool {
        match func.values[v].def {
            ValueDef::Param(_) => true,
            ValueDef::Unused => false,
            ValueDef::Inst(i) => match *place.get(i) {
                None => false,
                Some((db, dk)) => {
                    if db == b {
                        dk < k
                    } else {
                        dom.strictly_dominates(db, b)
                    }
                }
            },
        }
    };
    for &b in &func.layout {
        if !dom.is_reachable(b) {
            continue;
        }
        let block = &func.blocks[b];
        let mut seen_non_phi = false;
        for (k, &i) in block.insts.iter().enumerate() {
            let inst = &func.insts[i];
            let l = loc(f, Some(b), Some(Point::Inst(k)), inst.result);
            if let Op::Phi(blocks) = &inst.op {
                if seen_non_phi {
                    sink.report(
                        Rule::Ssa,
                        l,
                        "a phi must come before every other instruction of its block",
                    );
                }
                if blocks.len() != inst.args.len() {
                    sink.report(Rule::Ssa, l, "a phi needs one block per operand");
                    continue;
                }
                let preds: FxHashSet<Block> = cfg.preds(b).iter().copied().collect();
                let mut listed = FxHashSet::default();
                for (a, pb) in inst.args.iter().zip(blocks) {
                    if !listed.insert(*pb) {
                        sink.report(Rule::Ssa, l, format!("{pb} appears twice in the phi"));
                    }
                    if !preds.contains(pb) {
                        sink.report(Rule::Ssa, l, format!("{pb} is not a predecessor of {b}"));
                        continue;
                    }
                    if let Operand::Value(v) = a {
                        // The value must be available at the end of the incoming block.
                        if dom.is_reachable(*pb) && !dominates_use(*v, *pb, usize::MAX) {
                            sink.report(
                                Rule::Ssa,
                                l,
                                format!("{v} does not dominate the end of {pb}"),
                            );
                        }
                    }
                }
                for p in &preds {
                    if !listed.contains(p) && dom.is_reachable(*p) {
                        sink.report(
                            Rule::Ssa,
                            l,
                            format!("the phi has no operand for predecessor {p}"),
                        );
                    }
                }
                continue;
            }
            seen_non_phi = true;
            if let Op::Variable(_) = inst.op {
                if Some(b) != func.entry()
                    || block.insts[..k]
                        .iter()
                        .any(|j| !matches!(func.insts[*j].op, Op::Variable(_)))
                {
                    sink.report(
                        Rule::Ssa,
                        l,
                        "function variables must come first in the entry block",
                    );
                }
            }
            for a in inst
                .args
                .iter()
                .chain(inst.conv.map(Operand::Value).as_ref())
            {
                if let Operand::Value(v) = a {
                    if !dominates_use(*v, b, k) {
                        sink.report(Rule::Ssa, l, format!("{v} does not dominate this use"));
                    }
                }
            }
        }
        let k = block.insts.len();
        if let Some(Operand::Value(v)) = block.term.operand() {
            if !dominates_use(v, b, k) {
                sink.report(
                    Rule::Ssa,
                    loc(f, Some(b), Some(Point::Inst(k)), None),
                    format!("{v} does not dominate this use"),
                );
            }
        }
    }
}
