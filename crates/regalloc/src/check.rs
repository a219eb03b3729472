//! The symbolic checker: runs an allocated function on symbols instead of numbers and
//! proves every operand reads the value it names, on every path.
//!
//! The state maps each register word and slot word to the SSA value (and word of it) it
//! holds. Definitions write their registers, edits copy and swap (a barrier-to-GPR move
//! clears the barrier, as `BMOV.32.CLEAR` does), φs relabel their location on each edge
//! once the source is seen there, and at a join the states of all incoming edges are
//! intersected until a fixed point. Nothing here uses the allocator's own data: the
//! checker reads only the input [`Function`] and the output [`Allocation`], so it judges
//! the allocator independently (and clients can run it on their own results).

use std::collections::HashMap;

use thiserror::Error;

use crate::function::{BlockId, DefConstraint, Function, Limits, RegClass, ValueId};
use crate::output::{Allocation, Edit, Location, PhysReg, Position};

/// A rule the allocation breaks.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{block}{}: {what}", inst.map(|i| format!(" inst {i}")).unwrap_or_default())]
pub struct CheckError {
    /// The block.
    pub block: BlockId,
    /// The instruction, if the problem is at one.
    pub inst: Option<usize>,
    /// What is wrong.
    pub what: String,
}

/// One 32-bit word of a location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Word {
    Reg(RegClass, u16),
    Slot(u32),
}

fn word(loc: Location, w: u16) -> Word {
    match loc.offset(w) {
        Location::Reg(r) => Word::Reg(r.class, r.index),
        Location::Slot(s) => Word::Slot(s),
    }
}

type Symbols = HashMap<Word, (ValueId, u8)>;

/// Checks `alloc` for `func` under `limits`: shapes, classes, alignment, limits, operand
/// constraints, legal edits, and — symbolically, on every path — that every use and every
/// φ source reads its own value.
pub fn check(func: &Function, limits: &Limits, alloc: &Allocation) -> Result<(), CheckError> {
    check_reserving(func, limits, &[], alloc)
}

/// As [`check`], and no operand, φ or edit may touch the `reserved` registers (those given
/// to [`crate::allocate_reserving`]).
pub fn check_reserving(
    func: &Function,
    limits: &Limits,
    reserved: &[PhysReg],
    alloc: &Allocation,
) -> Result<(), CheckError> {
    // Only a function the allocator would accept has a meaning to check against.
    crate::validate::validate(func, limits).map_err(|e| CheckError {
        block: BlockId(0),
        inst: None,
        what: format!("the function itself is refused: {e}"),
    })?;
    check_static(func, limits, alloc)?;
    check_untouched(func, reserved, alloc)?;
    let blocks = func.blocks.len();
    let mut entry: Vec<Option<Symbols>> = vec![None; blocks];
    entry[0] = Some(Symbols::new());
    let mut queued = vec![false; blocks];
    let mut work = vec![0usize];
    queued[0] = true;
    let mut edits_by_pos: HashMap<Position, Vec<Edit>> = HashMap::new();
    for (pos, edit) in &alloc.edits {
        edits_by_pos.entry(*pos).or_default().push(*edit);
    }
    while let Some(b) = work.pop() {
        queued[b] = false;
        let block = BlockId(b as u32);
        let mut state = entry[b].clone().unwrap_or_default();
        let err = |inst: Option<usize>, what: String| CheckError { block, inst, what };
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            if let Some(edits) = edits_by_pos.get(&Position::Before {
                block,
                inst: i as u32,
            }) {
                apply(&mut state, edits);
            }
            let regs = &alloc.insts[b][i];
            for (u, use_) in inst.uses.iter().enumerate() {
                let size = func.info(use_.value).size;
                for w in 0..u16::from(size) {
                    let found = state.get(&word(Location::Reg(regs.uses[u]), w)).copied();
                    if found != Some((use_.value, w as u8)) {
                        return Err(err(
                            Some(i),
                            format!(
                                "use {u} reads {} word {w} expecting {}, finds {}",
                                regs.uses[u],
                                use_.value,
                                show(found)
                            ),
                        ));
                    }
                }
            }
            for (d, def) in inst.defs.iter().enumerate() {
                let size = func.info(def.value).size;
                for w in 0..u16::from(size) {
                    state.insert(word(Location::Reg(regs.defs[d]), w), (def.value, w as u8));
                }
            }
        }
        if let Some(edits) = edits_by_pos.get(&Position::End { block }) {
            apply(&mut state, edits);
        }
        for succ in &func.blocks[b].succs {
            let s = succ.0 as usize;
            let target = &func.blocks[s];
            let slot = target.preds.iter().position(|p| *p == block).unwrap_or(0);
            let mut out = state.clone();
            let mut relabel = Vec::new();
            for (k, phi) in target.phis.iter().enumerate() {
                let src = phi.srcs[slot];
                let loc = alloc.phis[s][k];
                for w in 0..u16::from(func.info(src).size) {
                    let found = state.get(&word(loc, w)).copied();
                    if found != Some((src, w as u8)) {
                        return Err(err(
                            None,
                            format!(
                                "edge to {succ}: phi {k} expects {src} word {w} in {loc}, finds {}",
                                show(found)
                            ),
                        ));
                    }
                    relabel.push((word(loc, w), (phi.dst, w as u8)));
                }
            }
            for (at, symbol) in relabel {
                out.insert(at, symbol);
            }
            let changed = match &mut entry[s] {
                None => {
                    entry[s] = Some(out);
                    true
                }
                Some(existing) => {
                    let before = existing.len();
                    existing.retain(|k, v| out.get(k) == Some(v));
                    existing.len() != before
                }
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    Ok(())
}

fn show(found: Option<(ValueId, u8)>) -> String {
    match found {
        Some((value, w)) => format!("{value} word {w}"),
        None => "nothing known".into(),
    }
}

fn apply(state: &mut Symbols, edits: &[Edit]) {
    for edit in edits {
        match *edit {
            Edit::Move { from, to, size } => {
                for w in 0..u16::from(size) {
                    match state.get(&word(from, w)).copied() {
                        Some(symbol) => state.insert(word(to, w), symbol),
                        None => state.remove(&word(to, w)),
                    };
                }
                if let (Location::Reg(f), Location::Reg(_)) = (from, to) {
                    if f.class == RegClass::Barrier {
                        // BMOV.32.CLEAR: the barrier register no longer holds the value.
                        state.remove(&word(from, 0));
                    }
                }
            }
            Edit::Swap { a, b } => {
                let (wa, wb) = (word(Location::Reg(a), 0), word(Location::Reg(b), 0));
                let (va, vb) = (state.remove(&wa), state.remove(&wb));
                if let Some(v) = va {
                    state.insert(wb, v);
                }
                if let Some(v) = vb {
                    state.insert(wa, v);
                }
            }
        }
    }
}

/// As [`check`], under the client's [`crate::Options`]: nothing touches a reserved register,
/// and in a divergent block no edit writes a uniform register or predicate (one copy per
/// warp, so a group writing one could clobber another group's value).
pub fn check_with(
    func: &Function,
    limits: &Limits,
    options: &crate::Options,
    alloc: &Allocation,
) -> Result<(), CheckError> {
    check_reserving(func, limits, &options.reserved, alloc)?;
    for (pos, edit) in &alloc.edits {
        let (block, inst) = match *pos {
            Position::Before { block, inst } => (block, Some(inst as usize)),
            Position::End { block } => (block, None),
        };
        if !options.divergent.contains(&block) {
            continue;
        }
        let writes_uniform = match *edit {
            Edit::Move {
                to: Location::Reg(r),
                ..
            } => matches!(r.class, RegClass::UGpr | RegClass::UPred),
            Edit::Move { .. } => false,
            Edit::Swap { a, .. } => matches!(a.class, RegClass::UGpr | RegClass::UPred),
        };
        if writes_uniform {
            return Err(CheckError {
                block,
                inst,
                what: format!("edit {edit} writes a uniform register in divergent code"),
            });
        }
    }
    for block in &options.divergent {
        let Some(b) = func.blocks.get(block.0 as usize) else {
            continue;
        };
        for (i, inst) in b.insts.iter().enumerate() {
            if inst
                .defs
                .iter()
                .any(|d| matches!(func.info(d.value).class, RegClass::UGpr | RegClass::UPred))
            {
                return Err(CheckError {
                    block: *block,
                    inst: Some(i),
                    what: "a uniform value defined in divergent code".into(),
                });
            }
        }
    }
    Ok(())
}

/// No register of `reserved` appears anywhere in the allocation.
fn check_untouched(
    func: &Function,
    reserved: &[PhysReg],
    alloc: &Allocation,
) -> Result<(), CheckError> {
    let hits = |loc: Location, size: u8| match loc {
        Location::Reg(r) => reserved.iter().any(|x| {
            x.class == r.class && x.index >= r.index && x.index < r.index + u16::from(size)
        }),
        Location::Slot(_) => false,
    };
    for (b, block) in func.blocks.iter().enumerate() {
        let err = |inst: Option<usize>, what: String| CheckError {
            block: BlockId(b as u32),
            inst,
            what,
        };
        for (i, (inst, regs)) in block.insts.iter().zip(&alloc.insts[b]).enumerate() {
            let defs = inst.defs.iter().map(|d| d.value).zip(&regs.defs);
            let uses = inst.uses.iter().map(|u| u.value).zip(&regs.uses);
            for (value, reg) in defs.chain(uses) {
                if hits(Location::Reg(*reg), func.info(value).size) {
                    return Err(err(Some(i), format!("{value} in reserved {reg}")));
                }
            }
        }
        for (phi, loc) in block.phis.iter().zip(&alloc.phis[b]) {
            if hits(*loc, func.info(phi.dst).size) {
                return Err(err(None, format!("phi {} in reserved {loc}", phi.dst)));
            }
        }
    }
    for (pos, edit) in &alloc.edits {
        let touched = match *edit {
            Edit::Move { from, to, size } => hits(from, size) || hits(to, size),
            Edit::Swap { a, b } => hits(Location::Reg(a), 1) || hits(Location::Reg(b), 1),
        };
        if touched {
            let (block, inst) = match *pos {
                Position::Before { block, inst } => (block, Some(inst as usize)),
                Position::End { block } => (block, None),
            };
            return Err(CheckError {
                block,
                inst,
                what: format!("edit {edit} touches a reserved register"),
            });
        }
    }
    Ok(())
}

/// Everything that can be judged without running: shapes, classes, alignment, limits,
/// constraints, and the legality of each edit.
fn check_static(func: &Function, limits: &Limits, alloc: &Allocation) -> Result<(), CheckError> {
    let top = CheckError {
        block: BlockId(0),
        inst: None,
        what: String::new(),
    };
    if alloc.insts.len() != func.blocks.len() || alloc.phis.len() != func.blocks.len() {
        return Err(CheckError {
            what: "per-block tables have the wrong length".into(),
            ..top
        });
    }
    let reg_ok = |reg: PhysReg, size: u8| {
        let size = u16::from(size);
        reg.index % size == 0 && reg.index + size <= limits.of(reg.class)
    };
    for (b, block) in func.blocks.iter().enumerate() {
        let id = BlockId(b as u32);
        let err = |inst: Option<usize>, what: String| CheckError {
            block: id,
            inst,
            what,
        };
        if alloc.insts[b].len() != block.insts.len() || alloc.phis[b].len() != block.phis.len() {
            return Err(err(
                None,
                "per-instruction or per-phi table has the wrong length".into(),
            ));
        }
        for (k, (phi, loc)) in block.phis.iter().zip(&alloc.phis[b]).enumerate() {
            let info = func.info(phi.dst);
            if let Location::Reg(reg) = loc {
                let reachable = std::iter::successors(Some(info.class), |c| c.spill_class())
                    .any(|c| c == reg.class);
                if !reachable || !reg_ok(*reg, info.size) {
                    return Err(err(
                        None,
                        format!("phi {k} at {loc}: wrong class, misaligned or past the limit"),
                    ));
                }
            } else if let Location::Slot(s) = loc {
                if s % u32::from(info.size) != 0 || s + u32::from(info.size) > alloc.spill_words {
                    return Err(err(
                        None,
                        format!("phi {k} at {loc}: slot misaligned or past the spill area"),
                    ));
                }
            }
        }
        for (i, (inst, regs)) in block.insts.iter().zip(&alloc.insts[b]).enumerate() {
            if regs.defs.len() != inst.defs.len() || regs.uses.len() != inst.uses.len() {
                return Err(err(Some(i), "operand count differs".into()));
            }
            let window = |reg: PhysReg, value: ValueId| {
                (
                    reg.class,
                    reg.index,
                    reg.index + u16::from(func.info(value).size),
                )
            };
            for (use_, reg) in inst.uses.iter().zip(&regs.uses) {
                let info = func.info(use_.value);
                if reg.class != info.class || !reg_ok(*reg, info.size) {
                    return Err(err(
                        Some(i),
                        format!(
                            "use of {} in {reg}: wrong class, misaligned or past the limit",
                            use_.value
                        ),
                    ));
                }
                if use_.fixed.is_some_and(|f| f != reg.index) {
                    return Err(err(
                        Some(i),
                        format!("use of {} in {reg}, fixed elsewhere", use_.value),
                    ));
                }
            }
            for (def, reg) in inst.defs.iter().zip(&regs.defs) {
                let info = func.info(def.value);
                if reg.class != info.class || !reg_ok(*reg, info.size) {
                    return Err(err(
                        Some(i),
                        format!(
                            "def of {} in {reg}: wrong class, misaligned or past the limit",
                            def.value
                        ),
                    ));
                }
                match def.constraint {
                    DefConstraint::Free => {}
                    DefConstraint::Fixed(f) if f == reg.index => {}
                    DefConstraint::TiedToUse(k) if regs.uses.get(k) == Some(reg) => {}
                    _ => {
                        return Err(err(
                            Some(i),
                            format!("def of {} in {reg} breaks its constraint", def.value),
                        ))
                    }
                }
                if inst.early_clobber {
                    let (c, lo, hi) = window(*reg, def.value);
                    for (use_, ureg) in inst.uses.iter().zip(&regs.uses) {
                        let (uc, ulo, uhi) = window(*ureg, use_.value);
                        if c == uc && lo < uhi && ulo < hi {
                            return Err(err(
                                Some(i),
                                format!("early-clobber def in {reg} overlaps a use in {ureg}"),
                            ));
                        }
                    }
                }
            }
            for (d, (def, reg)) in inst.defs.iter().zip(&regs.defs).enumerate() {
                let (c, lo, hi) = window(*reg, def.value);
                for (other, oreg) in inst.defs.iter().zip(&regs.defs).take(d) {
                    let (oc, olo, ohi) = window(*oreg, other.value);
                    if c == oc && lo < ohi && olo < hi {
                        return Err(err(Some(i), format!("defs in {reg} and {oreg} overlap")));
                    }
                }
            }
        }
    }
    for (pos, edit) in &alloc.edits {
        let (block, inst) = match *pos {
            Position::Before { block, inst } => (block, Some(inst as usize)),
            Position::End { block } => (block, None),
        };
        let err = |what: String| CheckError { block, inst, what };
        let Some(b) = func.blocks.get(block.0 as usize) else {
            return Err(err("edit in a block that does not exist".into()));
        };
        if inst.is_some_and(|i| i >= b.insts.len()) || (inst.is_none() && b.succs.len() != 1) {
            return Err(err(format!(
                "edit {edit} at a position that does not exist"
            )));
        }
        if !edit_is_legal(edit, limits, alloc.spill_words) {
            return Err(err(format!("edit {edit} is not a move the machine has")));
        }
    }
    if alloc.edits.windows(2).any(|w| w[0].0 > w[1].0) {
        return Err(CheckError {
            what: "edits are not in layout order".into(),
            ..top
        });
    }
    Ok(())
}

fn edit_is_legal(edit: &Edit, limits: &Limits, spill_words: u32) -> bool {
    let in_range = |loc: Location, size: u8| match loc {
        Location::Reg(r) => {
            r.index % u16::from(size) == 0 && r.index + u16::from(size) <= limits.of(r.class)
        }
        Location::Slot(s) => s % u32::from(size) == 0 && s + u32::from(size) <= spill_words,
    };
    match *edit {
        Edit::Move { from, to, size } => {
            if !matches!(size, 1 | 2 | 4) || !in_range(from, size) || !in_range(to, size) {
                return false;
            }
            let overlap = match (from, to) {
                (Location::Reg(a), Location::Reg(b)) => {
                    a.class == b.class
                        && a.index < b.index + u16::from(size)
                        && b.index < a.index + u16::from(size)
                }
                (Location::Slot(a), Location::Slot(b)) => {
                    a < b + u32::from(size) && b < a + u32::from(size)
                }
                _ => false,
            };
            if overlap {
                return false;
            }
            match (from, to) {
                (Location::Reg(a), Location::Reg(b)) => {
                    let within = a.class == b.class
                        && a.class != RegClass::Barrier
                        && size <= a.class.max_size();
                    let down = a.class.spill_class() == Some(b.class)
                        || b.class.spill_class() == Some(a.class);
                    within
                        || (down
                            && (size == 1
                                || (a.class.max_size() >= size && b.class.max_size() >= size)))
                }
                (Location::Reg(a), Location::Slot(_)) | (Location::Slot(_), Location::Reg(a)) => {
                    a.class == RegClass::Gpr
                }
                (Location::Slot(_), Location::Slot(_)) => false,
            }
        }
        Edit::Swap { a, b } => {
            a.class == b.class
                && a.class != RegClass::Barrier
                && a != b
                && in_range(Location::Reg(a), 1)
                && in_range(Location::Reg(b), 1)
        }
    }
}

/// The allocated function as text, one line per φ, edit and instruction
/// (`  3: v7=R4 <- v2=R0 v5=P1`), for test failures and debugging.
pub fn listing(func: &Function, alloc: &Allocation) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut edits: HashMap<Position, Vec<Edit>> = HashMap::new();
    for (pos, edit) in &alloc.edits {
        edits.entry(*pos).or_default().push(*edit);
    }
    for (b, block) in func.blocks.iter().enumerate() {
        let id = BlockId(b as u32);
        let _ = writeln!(out, "{id}: preds {:?} succs {:?}", block.preds, block.succs);
        for (k, phi) in block.phis.iter().enumerate() {
            let loc = alloc.phis.get(b).and_then(|p| p.get(k));
            let _ = writeln!(
                out,
                "  {}={} = phi {:?}",
                phi.dst,
                loc.map(|l| l.to_string()).unwrap_or_default(),
                phi.srcs
            );
        }
        for (i, inst) in block.insts.iter().enumerate() {
            for edit in edits
                .get(&Position::Before {
                    block: id,
                    inst: i as u32,
                })
                .into_iter()
                .flatten()
            {
                let _ = writeln!(out, "     {edit}");
            }
            let regs = alloc.insts.get(b).and_then(|r| r.get(i));
            let _ = write!(out, "  {i}:");
            for (d, def) in inst.defs.iter().enumerate() {
                let reg = regs
                    .and_then(|r| r.defs.get(d))
                    .map(|r| r.to_string())
                    .unwrap_or_default();
                let _ = write!(out, " {}={reg}", def.value);
            }
            let _ = write!(out, " <-");
            for (u, use_) in inst.uses.iter().enumerate() {
                let reg = regs
                    .and_then(|r| r.uses.get(u))
                    .map(|r| r.to_string())
                    .unwrap_or_default();
                let _ = write!(out, " {}={reg}", use_.value);
            }
            let _ = writeln!(out, "{}", if inst.branch { " (branch)" } else { "" });
        }
        for edit in edits
            .get(&Position::End { block: id })
            .into_iter()
            .flatten()
        {
            let _ = writeln!(out, "     end: {edit}");
        }
    }
    out
}
