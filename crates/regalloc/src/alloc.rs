//! The driver: validate, compute liveness, walk the blocks in reverse post-order (so every
//! block but a loop header's back-edge predecessors sees its predecessors first), allocate
//! each instruction, settle join edges, and assemble the [`Allocation`].

use crate::error::AllocError;
use crate::function::{BlockId, Function, Limits};
use crate::inst::allocate_inst;
use crate::join::{entry_state, location_in, reconcile};
use crate::liveness;
use crate::output::{Allocation, ClassCounts, Edit, Location, OperandRegs, PhysReg};
use crate::state::State;
use crate::validate::validate;
use crate::walk::Ctx;

/// Allocates registers for `func` within `limits`. See `docs/regalloc.md` for the input
/// rules, the output and the algorithm.
pub fn allocate(func: &Function, limits: &Limits) -> Result<Allocation, AllocError> {
    allocate_reserving(func, limits, &[])
}

/// As [`allocate`], keeping the `reserved` registers out of the allocation altogether (e.g.
/// R1 as the local-memory stack pointer, as ptxas keeps it): no operand, φ or edit touches
/// them, and no fixed operand may name them. `regs_used` counts them.
pub fn allocate_reserving(
    func: &Function,
    limits: &Limits,
    reserved: &[PhysReg],
) -> Result<Allocation, AllocError> {
    allocate_with(
        func,
        limits,
        &Options {
            reserved: reserved.to_vec(),
            ..Options::default()
        },
    )
}

/// What the client knows beyond the function itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Registers kept out of the allocation (see [`allocate_reserving`]).
    pub reserved: Vec<PhysReg>,
    /// Blocks that the warp's lanes may run in separate groups (divergent control flow).
    /// Uniform registers and predicates are one copy per warp, so a group writing one there
    /// could clobber another group's value: in these blocks no UR or UP value may be
    /// defined, and the allocator never moves, evicts or fills one — a function that would
    /// need it is refused with [`AllocError::UniformWriteInDivergentCode`].
    pub divergent: Vec<BlockId>,
}

/// [`allocate`] with [`Options`].
pub fn allocate_with(
    func: &Function,
    limits: &Limits,
    options: &Options,
) -> Result<Allocation, AllocError> {
    let rpo = validate(func, limits)?;
    let reserved = &options.reserved[..];
    check_reserved(func, limits, reserved)?;
    let divergent = divergent_blocks(func, options)?;
    let live = liveness::compute(func, &rpo)?;
    let mut ctx = Ctx::new(func, &live, *limits, reserved);
    ctx.divergent = divergent.clone();
    let blocks = func.blocks.len();
    let mut order = vec![usize::MAX; blocks];
    for (i, b) in rpo.iter().enumerate() {
        order[b.0 as usize] = i;
    }
    let is_join = |b: usize| func.blocks[b].preds.len() > 1 || !func.blocks[b].phis.is_empty();
    let mut exits: Vec<Option<State>> = vec![None; blocks];
    let mut entries: Vec<Option<State>> = vec![None; blocks];
    let mut insts: Vec<Vec<OperandRegs>> = vec![Vec::new(); blocks];
    let mut phis: Vec<Vec<Location>> = vec![Vec::new(); blocks];
    let mut def_locations: Vec<Option<Location>> = vec![None; func.values.len()];

    for &block in &rpo {
        let b = block.0 as usize;
        let here = order[b];
        let mut st = if b == 0 {
            State::new(limits, reserved)
        } else if is_join(b) {
            let preds = &func.blocks[b].preds;
            let (slot, first) = preds
                .iter()
                .enumerate()
                .find(|(_, p)| order[p.0 as usize] < here)
                .ok_or_else(|| {
                    AllocError::Internal(format!("{block} has no predecessor before it"))
                })?;
            let from = exits[first.0 as usize]
                .clone()
                .ok_or_else(|| AllocError::Internal(format!("{first} has no exit state")))?;
            let target = entry_state(&mut ctx, block, &from, slot);
            for pred in preds {
                if order[pred.0 as usize] < here {
                    let exit = exits[pred.0 as usize]
                        .take()
                        .ok_or_else(|| AllocError::Internal(format!("{pred} has no exit state")))?;
                    reconcile(&mut ctx, exit, *pred, block, &target)?;
                }
            }
            for phi in &func.blocks[b].phis {
                let loc = location_in(&mut ctx, &target, phi.dst);
                // Sources on back edges are defined later: ask them to land here.
                if let Location::Reg(reg) = loc {
                    if reg.class == func.info(phi.dst).class {
                        for (pred, src) in preds.iter().zip(&phi.srcs) {
                            if order[pred.0 as usize] > here {
                                ctx.hints.entry(*src).or_insert(reg.index);
                            }
                        }
                    }
                }
                phis[b].push(loc);
                def_locations[phi.dst.0 as usize] = Some(loc);
            }
            entries[b] = Some(target.clone());
            let mut st = target;
            // A φ nothing reads needs its register only on entry.
            for phi in &func.blocks[b].phis {
                let read =
                    live.uses[b].contains_key(&phi.dst) || live.live_out[b].contains(phi.dst);
                if !read {
                    st.release(phi.dst, u16::from(func.info(phi.dst).size));
                }
            }
            st
        } else {
            let pred = func.blocks[b].preds[0];
            let mut st = exits[pred.0 as usize]
                .clone()
                .ok_or_else(|| AllocError::Internal(format!("{pred} has no exit state")))?;
            for value in st.values() {
                if !live.live_in[b].contains(value) {
                    st.release(value, u16::from(func.info(value).size));
                }
            }
            st
        };
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            let regs = allocate_inst(&mut ctx, &mut st, block, i, inst)?;
            for (def, reg) in inst.defs.iter().zip(&regs.defs) {
                def_locations[def.value.0 as usize] = Some(Location::Reg(*reg));
            }
            insts[b].push(regs);
        }
        let succs = &func.blocks[b].succs;
        if succs.len() == 1 && is_join(succs[0].0 as usize) {
            let succ = succs[0];
            if let Some(target) = entries[succ.0 as usize].clone() {
                reconcile(&mut ctx, st, block, succ, &target)?;
                continue;
            }
        }
        exits[b] = Some(st);
    }

    let mut edits = std::mem::take(&mut ctx.edits);
    edits.sort_by_key(|(position, _)| *position);
    let spill_words = crate::slots::share(func, &live, &ctx.slots, &mut edits, &mut phis);
    let mut alloc = Allocation {
        insts,
        phis,
        edits,
        def_locations,
        regs_used: ClassCounts::default(),
        max_live: live.max_live,
        spill_words,
    };
    alloc.regs_used = registers_used(func, &alloc);
    if let Some(e) = uniform_write_in_divergent_code(func, &divergent, &alloc) {
        return Err(e);
    }
    for reg in reserved {
        let count = alloc.regs_used.of_mut(reg.class);
        *count = (*count).max(u32::from(reg.index) + 1);
    }
    Ok(alloc)
}

/// Refuses reserved registers past a limit, and fixed operands that name one.
fn check_reserved(
    func: &Function,
    limits: &Limits,
    reserved: &[PhysReg],
) -> Result<(), AllocError> {
    for reg in reserved {
        if reg.index >= limits.of(reg.class) {
            return Err(AllocError::BadConstraint {
                block: crate::BlockId(0),
                inst: 0,
                what: format!(
                    "reserved {reg} is past the limit of {}",
                    limits.of(reg.class)
                ),
            });
        }
    }
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let fixed_uses = inst
                .uses
                .iter()
                .filter_map(|u| u.fixed.map(|r| (u.value, r)));
            let fixed_defs = inst.defs.iter().filter_map(|d| match d.constraint {
                crate::DefConstraint::Fixed(r) => Some((d.value, r)),
                _ => None,
            });
            for (value, start) in fixed_uses.chain(fixed_defs) {
                let info = func.info(value);
                let hit = reserved.iter().find(|r| {
                    r.class == info.class
                        && r.index >= start
                        && r.index < start + u16::from(info.size)
                });
                if let Some(reg) = hit {
                    return Err(AllocError::BadConstraint {
                        block: crate::BlockId(b as u32),
                        inst: i,
                        what: format!("{value} is fixed onto reserved {reg}"),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Per class, the highest register any operand, φ or edit touches, plus one.
pub(crate) fn registers_used(func: &Function, alloc: &Allocation) -> ClassCounts {
    let mut used = ClassCounts::default();
    let mut note = |loc: Location, size: u8| {
        if let Location::Reg(reg) = loc {
            let top = u32::from(reg.index) + u32::from(size);
            let count = used.of_mut(reg.class);
            *count = (*count).max(top);
        }
    };
    for (b, block) in func.blocks.iter().enumerate() {
        for (inst, regs) in block.insts.iter().zip(&alloc.insts[b]) {
            for (def, reg) in inst.defs.iter().zip(&regs.defs) {
                note(Location::Reg(*reg), func.info(def.value).size);
            }
            for (use_, reg) in inst.uses.iter().zip(&regs.uses) {
                note(Location::Reg(*reg), func.info(use_.value).size);
            }
        }
        for (phi, loc) in block.phis.iter().zip(&alloc.phis[b]) {
            note(*loc, func.info(phi.dst).size);
        }
    }
    for (_, edit) in &alloc.edits {
        match *edit {
            Edit::Move { from, to, size } => {
                note(from, size);
                note(to, size);
            }
            Edit::Swap { a, b } => {
                note(Location::Reg(a), 1);
                note(Location::Reg(b), 1);
            }
        }
    }
    used
}

/// Per block, whether it is divergent; refuses unknown blocks and uniform defs there.
fn divergent_blocks(func: &Function, options: &Options) -> Result<Vec<bool>, AllocError> {
    let mut divergent = vec![false; func.blocks.len()];
    for block in &options.divergent {
        let Some(flag) = divergent.get_mut(block.0 as usize) else {
            return Err(AllocError::BadCfg {
                block: *block,
                what: "a divergent block that does not exist".into(),
            });
        };
        *flag = true;
    }
    for (b, block) in func.blocks.iter().enumerate() {
        if !divergent[b] {
            continue;
        }
        for (i, inst) in block.insts.iter().enumerate() {
            for def in &inst.defs {
                let class = func.info(def.value).class;
                if is_uniform(class) {
                    return Err(AllocError::UniformWriteInDivergentCode {
                        block: BlockId(b as u32),
                        inst: i,
                        class,
                    });
                }
            }
        }
        for phi in &block.phis {
            let class = func.info(phi.dst).class;
            if is_uniform(class) {
                return Err(AllocError::UniformWriteInDivergentCode {
                    block: BlockId(b as u32),
                    inst: 0,
                    class,
                });
            }
        }
    }
    Ok(divergent)
}

/// Whether a class is one copy per warp (uniform registers and predicates).
pub(crate) fn is_uniform(class: crate::RegClass) -> bool {
    matches!(class, crate::RegClass::UGpr | crate::RegClass::UPred)
}

/// The first edit in a divergent block that writes a uniform register, as an error.
fn uniform_write_in_divergent_code(
    func: &Function,
    divergent: &[bool],
    alloc: &Allocation,
) -> Option<AllocError> {
    for (pos, edit) in &alloc.edits {
        let (block, inst) = match *pos {
            crate::Position::Before { block, inst } => (block, inst as usize),
            crate::Position::End { block } => (block, func.block(block).insts.len()),
        };
        if !divergent[block.0 as usize] {
            continue;
        }
        let written: Vec<Location> = match *edit {
            Edit::Move { to, .. } => vec![to],
            Edit::Swap { a, b } => vec![Location::Reg(a), Location::Reg(b)],
        };
        for loc in written {
            if let Location::Reg(reg) = loc {
                if is_uniform(reg.class) {
                    return Some(AllocError::UniformWriteInDivergentCode {
                        block,
                        inst,
                        class: reg.class,
                    });
                }
            }
        }
    }
    None
}
