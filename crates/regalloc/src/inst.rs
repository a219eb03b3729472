//! Allocation of one instruction's operands: bring its uses into registers (fixed ones
//! first), free the values that die here, then place its defs (fixed, tied, free). Every
//! move goes before the instruction; no move writes a register the instruction reads.

use crate::error::AllocError;
use crate::function::{BlockId, DefConstraint, Inst};
use crate::output::{OperandRegs, PhysReg, Position};
use crate::state::State;
use crate::walk::Ctx;

/// Allocates instruction `index` of `block` in `st`, returning its operands' registers.
pub(crate) fn allocate_inst(
    ctx: &mut Ctx<'_>,
    st: &mut State,
    block: BlockId,
    index: usize,
    inst: &Inst,
) -> Result<OperandRegs, AllocError> {
    ctx.pos = Position::Before {
        block,
        inst: index as u32,
    };
    ctx.at = (block, index);
    ctx.pinned.clear();
    ctx.unblock_all();
    let bad = |what: &str| AllocError::BadConstraint {
        block,
        inst: index,
        what: what.into(),
    };
    if inst.early_clobber
        && inst
            .defs
            .iter()
            .any(|d| matches!(d.constraint, DefConstraint::Fixed(_)))
    {
        return Err(bad(
            "fixed defs in an early-clobber instruction are not supported",
        ));
    }

    // Uses: fixed ones first, so free ones do not sit in their way.
    for use_ in inst.uses.iter().filter(|u| u.fixed.is_some()) {
        let class = ctx.info(use_.value).class;
        ctx.place_at(st, use_.value, class, use_.fixed.unwrap_or(0))?;
        ctx.pinned.push((use_.value, class));
    }
    // A use a def is tied to may not sit where a fixed def goes: the two defs would share it.
    let tied_uses: Vec<usize> = inst
        .defs
        .iter()
        .filter_map(|d| match d.constraint {
            DefConstraint::TiedToUse(k) => Some(k),
            _ => None,
        })
        .collect();
    for def in &inst.defs {
        if let DefConstraint::Fixed(reg) = def.constraint {
            let info = ctx.info(def.value);
            ctx.block(info.class, reg, u16::from(info.size));
        }
    }
    for &k in &tied_uses {
        let use_ = inst.uses[k];
        let info = ctx.info(use_.value);
        let reg = ctx.fill(st, use_.value, info.class, None)?;
        let size = u16::from(info.size);
        if (reg..reg + size).any(|r| ctx.is_blocked(info.class, r)) {
            if use_.fixed.is_some() {
                return Err(bad(
                    "a use fixed where a fixed def goes is tied to another def",
                ));
            }
            let to = ctx.alloc(st, info.class, size, None, false)?;
            ctx.move_within(st, use_.value, info.class, to)?;
        }
        ctx.pinned.push((use_.value, info.class));
    }
    ctx.unblock_all();
    for use_ in inst.uses.iter().filter(|u| u.fixed.is_none()) {
        let class = ctx.info(use_.value).class;
        ctx.fill(st, use_.value, class, None)?;
        ctx.pinned.push((use_.value, class));
    }
    let mut regs = OperandRegs::default();
    for use_ in &inst.uses {
        let info = ctx.info(use_.value);
        let reg = st
            .reg(use_.value, info.class)
            .ok_or_else(|| AllocError::Internal(format!("{} not filled", use_.value)))?;
        regs.uses.push(PhysReg {
            class: info.class,
            index: reg,
        });
        ctx.block(info.class, reg, u16::from(info.size));
    }

    // Tied defs: the used value leaves the register (kept elsewhere when it lives on).
    let mut tied: Vec<(usize, u16)> = Vec::new();
    for (d, def) in inst.defs.iter().enumerate() {
        let DefConstraint::TiedToUse(k) = def.constraint else {
            continue;
        };
        let used = inst.uses[k].value;
        let info = ctx.info(used);
        let reg = regs.uses[k].index;
        let lives_on = ctx.live.live_after(block, index, used);
        if lives_on {
            if !st.elsewhere(used, info.class) {
                save_copy(ctx, st, used, info.class, reg)?;
            }
            if st.reg(used, info.class) == Some(reg) {
                st.clear(used, info.class, u16::from(info.size));
            }
        } else {
            st.release(used, u16::from(info.size));
        }
        tied.push((d, reg));
    }

    // Values read here for the last time free their registers (after the defs, when the
    // instruction writes results before it has read every source).
    let dying: Vec<_> = inst
        .uses
        .iter()
        .map(|u| u.value)
        .filter(|v| !ctx.live.live_after(block, index, *v))
        .collect();
    if !inst.early_clobber {
        for v in &dying {
            st.release(*v, u16::from(ctx.info(*v).size));
        }
    }
    // Live-through uses may now be moved or evicted (their registers stay unwritable by moves).
    ctx.pinned.clear();

    let mut def_regs = vec![0u16; inst.defs.len()];
    for &(d, reg) in &tied {
        let info = ctx.info(inst.defs[d].value);
        ctx.clear_window(st, info.class, reg, u16::from(info.size), None)?;
        st.set(inst.defs[d].value, info.class, reg, u16::from(info.size));
        ctx.pinned.push((inst.defs[d].value, info.class));
        def_regs[d] = reg;
    }
    for (d, def) in inst.defs.iter().enumerate() {
        let DefConstraint::Fixed(reg) = def.constraint else {
            continue;
        };
        let info = ctx.info(def.value);
        ctx.clear_window(st, info.class, reg, u16::from(info.size), None)?;
        st.set(def.value, info.class, reg, u16::from(info.size));
        ctx.pinned.push((def.value, info.class));
        def_regs[d] = reg;
    }
    for (d, def) in inst.defs.iter().enumerate() {
        if def.constraint != DefConstraint::Free {
            continue;
        }
        let info = ctx.info(def.value);
        let hint = ctx.hints.get(&def.value).copied();
        let reg = ctx.alloc(
            st,
            info.class,
            u16::from(info.size),
            hint,
            !inst.early_clobber,
        )?;
        st.set(def.value, info.class, reg, u16::from(info.size));
        ctx.pinned.push((def.value, info.class));
        def_regs[d] = reg;
    }
    for (d, def) in inst.defs.iter().enumerate() {
        let info = ctx.info(def.value);
        regs.defs.push(PhysReg {
            class: info.class,
            index: def_regs[d],
        });
        if !ctx.live.live_after(block, index, def.value) {
            st.release(def.value, u16::from(info.size));
        }
    }
    if inst.early_clobber {
        for v in &dying {
            st.release(*v, u16::from(ctx.info(*v).size));
        }
    }
    ctx.pinned.clear();
    Ok(regs)
}

/// Keeps a copy of `value` (read here from `reg`, which a tied def takes) somewhere else:
/// a free register of its class, or the class it spills into. A barrier goes out to a GPR
/// and is put back, since the instruction still reads it from `reg`.
fn save_copy(
    ctx: &mut Ctx<'_>,
    st: &mut State,
    value: crate::ValueId,
    class: crate::RegClass,
    reg: u16,
) -> Result<(), AllocError> {
    let size = u16::from(ctx.info(value).size);
    if class == crate::RegClass::Barrier {
        ctx.evict(st, value, class)?;
        ctx.fill(st, value, class, Some(reg))?;
        return Ok(());
    }
    let cap = ctx.caps[class.index()];
    let blocked = ctx.blocked[class.index()].clone();
    let skip = |r: u16| blocked.get(usize::from(r)).copied().unwrap_or(false);
    match st.find_free(class, size, cap, None, &skip) {
        Some(to) => {
            ctx.edits.push((
                ctx.pos,
                crate::Edit::Move {
                    from: crate::Location::Reg(PhysReg { class, index: reg }),
                    to: crate::Location::Reg(PhysReg { class, index: to }),
                    size: size as u8,
                },
            ));
            st.clear(value, class, size);
            st.set(value, class, to, size);
            Ok(())
        }
        None => ctx.evict(st, value, class),
    }
}
