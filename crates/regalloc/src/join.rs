//! Block entries with several predecessors or with φs. The entry state is chosen once, from
//! the first predecessor allocated (so its edge needs few moves); the end of every
//! predecessor is then brought to that state: φ sources become their destinations (renamed
//! in place when they die on the edge, copied otherwise), and, class by class in spilling
//! order, unwanted copies are evicted, values are permuted into place as a parallel copy
//! (cycles broken with swaps), and missing values are filled from where they were spilled.

use crate::error::AllocError;
use crate::function::{BlockId, RegClass, ValueId};
use crate::output::{Edit, Location, PhysReg, Position};
use crate::state::State;
use crate::walk::Ctx;

/// The entry state of join block `block`, from the exit state `from` of a predecessor
/// whose φ sources are at position `slot` of the φs.
pub(crate) fn entry_state(ctx: &mut Ctx<'_>, block: BlockId, from: &State, slot: usize) -> State {
    let func = ctx.func;
    let live_in = &ctx.live.live_in[block.0 as usize];
    let mut target = State::new(&ctx.limits, &ctx.reserved);
    // At a loop header, values the loop never reads wait in their slots — as many as the
    // loop's pressure in their class exceeds the limit, the ones read furthest away first —
    // so they are stored once before the loop instead of fought over inside it (Braun and
    // Hack's choice of a loop's entry set).
    let mut parked: rustc_hash::FxHashSet<ValueId> = rustc_hash::FxHashSet::default();
    if let Some(l) = ctx.live.loops.headed_by(block.0 as usize) {
        for class in RegClass::ALL {
            let pressure = ctx.live.loop_pressure[l].of(class);
            let mut excess = pressure.saturating_sub(u32::from(ctx.limits.of(class)));
            if excess == 0 {
                continue;
            }
            let mut idle: Vec<(u32, ValueId)> = live_in
                .iter()
                .filter(|v| func.info(*v).class == class && !ctx.live.loop_uses[l].contains(*v))
                .map(|v| (ctx.live.next_use(func, block, 0, v), v))
                .collect();
            idle.sort_by_key(|&(distance, v)| (std::cmp::Reverse(distance), v));
            for (_, value) in idle {
                if excess == 0 {
                    break;
                }
                excess = excess.saturating_sub(u32::from(func.info(value).size));
                parked.insert(value);
            }
        }
    }
    for value in live_in.iter() {
        let info = func.info(value);
        let loc = from.loc(value);
        let n = u16::from(info.size);
        if parked.contains(&value) {
            ctx.slot_of(value);
            target.set_in_slot(value, true);
            continue;
        }
        // The best place it has: its own class, then the classes it spills into, then its slot.
        let mut class = Some(info.class);
        let mut placed = false;
        while let Some(c) = class {
            if loc.regs[c.index()] != crate::state::NONE {
                target.set(value, c, loc.regs[c.index()], n);
                placed = true;
                break;
            }
            class = c.spill_class();
        }
        if !placed {
            target.set_in_slot(value, true);
        }
    }
    let phis = &func.block(block).phis;
    for (k, phi) in phis.iter().enumerate() {
        let src = phi.srcs[slot];
        let info = func.info(phi.dst);
        let n = u16::from(info.size);
        // The first φ a dying source feeds takes its register over (see `reconcile`).
        let renamed = !live_in.contains(src) && !phis[..k].iter().any(|p| p.srcs[slot] == src);
        let prefer = if renamed {
            from.reg(src, info.class)
        } else {
            None
        };
        let mut class = Some(info.class);
        let mut placed = false;
        while let Some(c) = class {
            let no_skip = |_: u16| false;
            let mut found = target.find_free(
                c,
                n,
                ctx.caps[c.index()],
                prefer.filter(|_| c == info.class),
                &no_skip,
            );
            while found.is_none() && ctx.caps[c.index()] < ctx.limits.of(c) {
                ctx.caps[c.index()] += 1;
                found = target.find_free(c, n, ctx.caps[c.index()], None, &no_skip);
            }
            if let Some(reg) = found {
                target.set(phi.dst, c, reg, n);
                placed = true;
                break;
            }
            class = c.spill_class();
        }
        if !placed {
            ctx.slot_of(phi.dst);
            target.set_in_slot(phi.dst, true);
        }
    }
    target
}

/// Where `value` is in an entry state (its one location).
pub(crate) fn location_in(ctx: &mut Ctx<'_>, target: &State, value: ValueId) -> Location {
    let loc = target.loc(value);
    for class in RegClass::ALL {
        let reg = loc.regs[class.index()];
        if reg != crate::state::NONE {
            return Location::Reg(PhysReg { class, index: reg });
        }
    }
    Location::Slot(ctx.slot_of(value))
}

/// Adds the edits at the end of `pred` that turn its exit state `st` into `target`, the
/// entry state of its only successor `block`.
pub(crate) fn reconcile(
    ctx: &mut Ctx<'_>,
    mut st: State,
    pred: BlockId,
    block: BlockId,
    target: &State,
) -> Result<(), AllocError> {
    let func = ctx.func;
    let len = func.block(pred).insts.len();
    ctx.pos = Position::End { block: pred };
    ctx.at = (pred, len);
    ctx.pinned.clear();
    ctx.unblock_all();
    let b = func.block(block);
    let slot = b
        .preds
        .iter()
        .position(|p| *p == pred)
        .ok_or_else(|| AllocError::Internal(format!("{pred} is no predecessor of {block}")))?;
    let live_in = &ctx.live.live_in[block.0 as usize];

    // φs: a source that dies on the edge and feeds one φ hands its registers over (a
    // rename); the others are copied.
    let mut copies: Vec<(ValueId, ValueId)> = Vec::new();
    let mut renames: Vec<(ValueId, ValueId)> = Vec::new();
    for phi in &b.phis {
        let src = phi.srcs[slot];
        // The first φ a dying source feeds takes it over; the others copy it.
        let renamed = !live_in.contains(src) && !renames.iter().any(|&(_, s)| s == src);
        if renamed {
            renames.push((phi.dst, src));
        } else {
            copies.push((phi.dst, src));
        }
    }
    // Copies go to fresh temporaries (never evicted), renamed to the φs once every source
    // has been read.
    let mut temps: Vec<(ValueId, ValueId)> = Vec::new();
    for &(dst, src) in &copies {
        let temp = copy_to_temp(ctx, &mut st, src, target, dst)?;
        temps.push((dst, temp));
    }
    // A rename needs its source in some register; one found only in its slot is copied
    // instead (its slot is not the φ's). Sources kept are pinned so later copies leave them.
    let mut kept: Vec<(ValueId, ValueId)> = Vec::new();
    for &(dst, src) in &renames {
        let loc = st.loc(src);
        if loc.regs.iter().all(|r| *r == crate::state::NONE) {
            let temp = copy_to_temp(ctx, &mut st, src, target, dst)?;
            temps.push((dst, temp));
        } else {
            for class in RegClass::ALL {
                if loc.regs[class.index()] != crate::state::NONE {
                    ctx.pinned.push((src, class));
                }
            }
            kept.push((dst, src));
        }
    }
    ctx.pinned.clear();
    let renames = kept;
    // Rename all at once: sources that die on the edge hand their registers to the φs.
    let mut handed: Vec<(ValueId, crate::state::ValueLoc)> = Vec::new();
    for &(dst, src) in &renames {
        handed.push((dst, st.loc(src)));
    }
    for &(dst, temp) in &temps {
        handed.push((dst, st.loc(temp)));
    }
    for phi in &b.phis {
        let src = phi.srcs[slot];
        if !live_in.contains(src) {
            st.release(src, u16::from(ctx.info(src).size));
        }
    }
    for &(_, temp) in &temps {
        st.release(temp, u16::from(ctx.info(temp).size));
    }
    for (dst, loc) in handed {
        let n = u16::from(ctx.info(dst).size);
        for class in RegClass::ALL {
            let r = loc.regs[class.index()];
            if r != crate::state::NONE {
                st.set(dst, class, r, n);
            }
        }
    }

    // Class by class, in spilling order, make the registers equal to the target's.
    for class in RegClass::ALL {
        settle_class(ctx, &mut st, target, class)?;
    }
    for value in target.values() {
        if target.loc(value).in_slot && !st.loc(value).in_slot {
            return Err(AllocError::Internal(format!(
                "{value} should be in its slot at the end of {pred}"
            )));
        }
    }
    for class in RegClass::ALL {
        for r in 0..ctx.limits.of(class) {
            if st.owner(class, r) != target.owner(class, r) {
                return Err(AllocError::Internal(format!(
                    "{pred} -> {block}: {}{r} differs from the entry state",
                    class.prefix()
                )));
            }
        }
    }
    Ok(())
}

/// Copies `src` into a fresh temporary that will become φ `dst`: into the class the entry
/// state wants `dst` in (at its register when free), or further down the spill chain when
/// that class is full of values this edge still needs.
fn copy_to_temp(
    ctx: &mut Ctx<'_>,
    st: &mut State,
    src: ValueId,
    target: &State,
    dst: ValueId,
) -> Result<ValueId, AllocError> {
    let info = ctx.info(src);
    let chain: Vec<RegClass> =
        std::iter::successors(Some(info.class), |c| c.spill_class()).collect();
    let wanted = chain
        .iter()
        .position(|c| target.reg(dst, *c).is_some())
        .unwrap_or(chain.len() - 1);
    let temp = ctx.new_temp(info);
    let mut last_error = None;
    for (depth, &class) in chain.iter().enumerate().skip(wanted) {
        match copy_into_class(ctx, st, src, temp, &chain, depth, target.reg(dst, class)) {
            Ok(()) => return Ok(temp),
            Err(e @ AllocError::OutOfRegisters { .. }) => last_error = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_error.unwrap_or_else(|| AllocError::Internal(format!("no class to copy {src} into"))))
}

/// One attempt of [`copy_to_temp`]: `temp` gets a copy of `src` in `chain[depth]`.
fn copy_into_class(
    ctx: &mut Ctx<'_>,
    st: &mut State,
    src: ValueId,
    temp: ValueId,
    chain: &[RegClass],
    depth: usize,
    prefer: Option<u16>,
) -> Result<(), AllocError> {
    let class = chain[depth];
    let n = u16::from(ctx.info(src).size);
    // The source must be in this class or the one above it (one move away); a barrier
    // is copied through a GPR, since leaving a barrier register clears it.
    let from_class = if class == RegClass::Barrier {
        ctx.ensure_in(st, src, RegClass::Gpr)?;
        RegClass::Gpr
    } else if depth == 0 || st.reg(src, class).is_some() {
        ctx.ensure_in(st, src, class)?;
        class
    } else if chain[depth - 1] != RegClass::Barrier && st.reg(src, chain[depth - 1]).is_some() {
        chain[depth - 1]
    } else {
        ctx.ensure_in(st, src, class)?;
        class
    };
    ctx.pinned.push((src, from_class));
    let to = ctx.alloc(st, class, n, prefer, false);
    ctx.pinned.pop();
    let to = to?;
    let from = st
        .reg(src, from_class)
        .ok_or_else(|| AllocError::Internal(format!("{src} left {}", from_class.prefix())))?;
    push(ctx, reg(from_class, from), reg(class, to), n as u8);
    st.set(temp, class, to, n);
    Ok(())
}

fn reg(class: RegClass, index: u16) -> Location {
    Location::Reg(PhysReg { class, index })
}

fn push(ctx: &mut Ctx<'_>, from: Location, to: Location, size: u8) {
    let pos = ctx.pos;
    ctx.edits.push((pos, Edit::Move { from, to, size }));
}

/// Makes class `class` of `st` hold exactly what `target` holds there.
fn settle_class(
    ctx: &mut Ctx<'_>,
    st: &mut State,
    target: &State,
    class: RegClass,
) -> Result<(), AllocError> {
    // 1. Evict what the target does not want here (barriers: also what sits in the wrong
    //    register, since barriers cannot be moved between themselves).
    for value in st.values() {
        let Some(r) = st.reg(value, class) else {
            continue;
        };
        let wanted = match target.reg(value, class) {
            Some(t) => class != RegClass::Barrier || t == r,
            None => false,
        };
        if !wanted {
            ctx.evict(st, value, class)?;
        }
    }
    // 2. Permute what is here into the target's registers: one parallel copy per class.
    let mut moves: Vec<(u16, u16)> = Vec::new();
    let mut moved: Vec<(ValueId, u16, u16)> = Vec::new();
    for value in st.values() {
        let (Some(r), Some(t)) = (st.reg(value, class), target.reg(value, class)) else {
            continue;
        };
        if r != t {
            let n = u16::from(ctx.info(value).size);
            moved.push((value, t, n));
            for w in 0..n {
                moves.push((r + w, t + w));
            }
        }
    }
    for &(value, _, n) in &moved {
        st.clear(value, class, n);
    }
    for &(value, t, n) in &moved {
        st.set(value, class, t, n);
    }
    sequentialize(ctx, class, moves);
    // 3. Fill what is missing, from the class it spilled into or its slot.
    for value in target.values() {
        let Some(t) = target.reg(value, class) else {
            continue;
        };
        if st.reg(value, class).is_none() {
            ctx.fill(st, value, class, Some(t))?;
        }
    }
    Ok(())
}

/// Emits the register-to-register parallel copy `moves` (word moves `from -> to`, every
/// destination distinct) as sequential moves, breaking cycles with swaps.
fn sequentialize(ctx: &mut Ctx<'_>, class: RegClass, moves: Vec<(u16, u16)>) {
    let mut pending: Vec<(u16, u16)> = moves.into_iter().filter(|(f, t)| f != t).collect();
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|&(_, to)| !pending.iter().any(|&(from, _)| from == to));
        match ready {
            Some(i) => {
                let (from, to) = pending.remove(i);
                push(ctx, reg(class, from), reg(class, to), 1);
            }
            None => {
                // Only cycles are left: swap one move's ends; what `to` held is now in `from`.
                let (from, to) = pending.remove(0);
                let pos = ctx.pos;
                ctx.edits.push((
                    pos,
                    Edit::Swap {
                        a: PhysReg { class, index: from },
                        b: PhysReg { class, index: to },
                    },
                ));
                for m in &mut pending {
                    if m.0 == to {
                        m.0 = from;
                    }
                }
                pending.retain(|(f, t)| f != t);
            }
        }
    }
}
