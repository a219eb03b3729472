//! The allocator's primitive steps on a [`State`]: find a register (packing tuples by moving
//! values, growing the class's used range, or evicting), evict a value into the class it
//! spills into (or its slot), fill it back, and put a value in a required register. Every
//! move is recorded as an edit at the current position.

use rustc_hash::FxHashMap as HashMap;

use crate::error::AllocError;
use crate::function::{BlockId, Function, Limits, RegClass, ValueId, ValueInfo};
use crate::liveness::Liveness;
use crate::output::{Edit, Location, PhysReg, Position};
use crate::state::State;

/// Everything the steps share across the whole function.
pub(crate) struct Ctx<'a> {
    /// The input.
    pub(crate) func: &'a Function,
    /// Its liveness.
    pub(crate) live: &'a Liveness,
    /// The hard limits.
    pub(crate) limits: Limits,
    /// Per class, the registers the allocator lets itself use so far: starts at the class's
    /// pressure bound and grows only when packing fails, so few registers get used.
    pub(crate) caps: [u16; 5],
    /// The edits so far.
    pub(crate) edits: Vec<(Position, Edit)>,
    /// Each spilled value's first slot word.
    pub(crate) slots: HashMap<ValueId, u32>,
    /// Slot words handed out.
    pub(crate) slot_words: u32,
    /// Where new edits go.
    pub(crate) pos: Position,
    /// The point next-use distances are measured from.
    pub(crate) at: (BlockId, usize),
    /// Entities that must stay where they are for now.
    pub(crate) pinned: Vec<(ValueId, RegClass)>,
    /// Per class, registers no edit may write here (the current instruction reads them).
    pub(crate) blocked: [Vec<bool>; 5],
    /// Class and size of the allocator's own temporary values (ids past the function's).
    pub(crate) temps: Vec<ValueInfo>,
    /// Registers the client keeps for itself.
    pub(crate) reserved: Vec<PhysReg>,
    /// Per block, whether the client marked it divergent (uniform classes frozen there).
    pub(crate) divergent: Vec<bool>,
    /// Preferred registers for defs: a φ source on a back edge prefers its φ's register
    /// at the loop header, so the edge needs no move.
    pub(crate) hints: HashMap<ValueId, u16>,
}

impl<'a> Ctx<'a> {
    /// A context for `func`, with each class's cap at its pressure bound (and at least as
    /// high as any fixed operand needs).
    pub(crate) fn new(
        func: &'a Function,
        live: &'a Liveness,
        limits: Limits,
        reserved: &[PhysReg],
    ) -> Ctx<'a> {
        let mut caps = [0u16; 5];
        for class in RegClass::ALL {
            let bound = live.max_live.of(class).min(u32::from(limits.of(class))) as u16;
            caps[class.index()] = bound.max(1).min(limits.of(class));
        }
        for block in &func.blocks {
            for inst in &block.insts {
                let fixed_uses = inst
                    .uses
                    .iter()
                    .filter_map(|u| u.fixed.map(|r| (u.value, r)));
                let fixed_defs = inst.defs.iter().filter_map(|d| match d.constraint {
                    crate::DefConstraint::Fixed(r) => Some((d.value, r)),
                    _ => None,
                });
                for (value, reg) in fixed_uses.chain(fixed_defs) {
                    let info = func.info(value);
                    let c = info.class.index();
                    caps[c] = caps[c].max(reg + u16::from(info.size));
                }
            }
        }
        // Reserved registers below the bound do not count towards it.
        for reg in reserved {
            let c = reg.class.index();
            if reg.index < caps[c] || caps[c] == 0 {
                caps[c] = (caps[c] + 1).min(limits.of(reg.class));
            }
        }
        let blocked = RegClass::ALL.map(|_| Vec::new());
        let mut ctx = Ctx {
            func,
            live,
            limits,
            caps,
            edits: Vec::new(),
            slots: HashMap::default(),
            slot_words: 0,
            pos: Position::End { block: BlockId(0) },
            at: (BlockId(0), 0),
            pinned: Vec::new(),
            blocked,
            temps: Vec::new(),
            reserved: reserved.to_vec(),
            hints: HashMap::default(),
            divergent: Vec::new(),
        };
        for class in RegClass::ALL {
            ctx.blocked[class.index()] = vec![false; usize::from(limits.of(class))];
        }
        ctx
    }

    /// Class and size of a value or temporary.
    pub(crate) fn info(&self, value: ValueId) -> ValueInfo {
        let n = self.func.values.len();
        let index = value.0 as usize;
        if index < n {
            self.func.values[index]
        } else {
            self.temps[index - n]
        }
    }

    /// A fresh temporary value of the given shape.
    pub(crate) fn new_temp(&mut self, info: ValueInfo) -> ValueId {
        self.temps.push(info);
        ValueId((self.func.values.len() + self.temps.len() - 1) as u32)
    }

    fn size(&self, value: ValueId) -> u16 {
        u16::from(self.info(value).size)
    }

    fn is_pinned(&self, value: ValueId, class: RegClass) -> bool {
        let frozen = crate::alloc::is_uniform(class)
            && self
                .divergent
                .get(self.at.0 .0 as usize)
                .copied()
                .unwrap_or(false);
        frozen
            || self.pinned.contains(&(value, class))
            || value.0 as usize >= self.func.values.len()
    }

    pub(crate) fn is_blocked(&self, class: RegClass, reg: u16) -> bool {
        self.blocked[class.index()]
            .get(usize::from(reg))
            .copied()
            .unwrap_or(false)
    }

    /// Clears every register's block mark.
    pub(crate) fn unblock_all(&mut self) {
        for file in &mut self.blocked {
            file.iter_mut().for_each(|b| *b = false);
        }
    }

    /// Marks `start..start+size` of `class` as read by the current instruction.
    pub(crate) fn block(&mut self, class: RegClass, start: u16, size: u16) {
        for r in start..start + size {
            self.blocked[class.index()][usize::from(r)] = true;
        }
    }

    fn out_of_registers(&self, class: RegClass) -> AllocError {
        AllocError::OutOfRegisters {
            block: self.at.0,
            inst: self.at.1,
            class,
            limit: self.limits.of(class),
        }
    }

    fn emit(&mut self, edit: Edit) {
        self.edits.push((self.pos, edit));
    }

    fn reg_loc(class: RegClass, index: u16) -> Location {
        Location::Reg(PhysReg { class, index })
    }

    /// The slot of `value`, handed out (aligned to its size) on first need.
    pub(crate) fn slot_of(&mut self, value: ValueId) -> u32 {
        let size = u32::from(self.size(value));
        if let Some(&slot) = self.slots.get(&value) {
            return slot;
        }
        let slot = self.slot_words.div_ceil(size) * size;
        self.slot_words = slot + size;
        self.slots.insert(value, slot);
        slot
    }

    /// How far ahead `value` is next read; temporaries count as read at once.
    fn next_use(&self, value: ValueId) -> u32 {
        if value.0 as usize >= self.func.values.len() {
            return 0;
        }
        self.live.next_use(self.func, self.at.0, self.at.1, value)
    }

    /// A free aligned window for a `size`-word value in `class`: packing tuples by moving
    /// other values, then growing the class's cap, then evicting the values read furthest
    /// ahead. With `may_write_blocked`, the window may cover registers the current
    /// instruction reads (for its own results); moves never write them.
    pub(crate) fn alloc(
        &mut self,
        st: &mut State,
        class: RegClass,
        size: u16,
        prefer: Option<u16>,
        may_write_blocked: bool,
    ) -> Result<u16, AllocError> {
        loop {
            let cap = self.caps[class.index()];
            let skip = |r: u16| !may_write_blocked && self.is_blocked(class, r);
            if let Some(start) = st.find_free(class, size, cap, prefer, &skip) {
                return Ok(start);
            }
            if size > 1 {
                if let Some(start) = self.pack(st, class, size, may_write_blocked)? {
                    return Ok(start);
                }
            }
            if cap < self.limits.of(class) {
                self.caps[class.index()] = cap + 1;
                continue;
            }
            let start = self
                .choose_victims(st, class, size, may_write_blocked)
                .ok_or_else(|| self.out_of_registers(class))?;
            for value in st.occupants(class, start, size) {
                self.evict(st, value, class)?;
            }
            return Ok(start);
        }
    }

    /// Makes an aligned window free by moving its occupants to free registers elsewhere;
    /// the lowest window that can be emptied so.
    fn pack(
        &mut self,
        st: &mut State,
        class: RegClass,
        size: u16,
        may_write_blocked: bool,
    ) -> Result<Option<u16>, AllocError> {
        let cap = self.caps[class.index()];
        'window: for start in (0..cap).step_by(usize::from(size)) {
            if start + size > cap
                || (!may_write_blocked && (start..start + size).any(|r| self.is_blocked(class, r)))
            {
                continue;
            }
            let mut occupants = st.occupants(class, start, size);
            if occupants.iter().any(|v| self.is_pinned(*v, class)) {
                continue;
            }
            occupants.sort_by_key(|v| std::cmp::Reverse(self.size(*v)));
            let mut trial = st.clone();
            for v in &occupants {
                trial.clear(*v, class, self.size(*v));
            }
            let mut plan = Vec::new();
            for v in &occupants {
                let n = self.size(*v);
                let skip = |r: u16| (r >= start && r < start + size) || self.is_blocked(class, r);
                let Some(to) = trial.find_free(class, n, cap, None, &skip) else {
                    continue 'window;
                };
                trial.set(*v, class, to, n);
                plan.push((*v, to));
            }
            for (v, to) in plan {
                self.move_within(st, v, class, to)?;
            }
            return Ok(Some(start));
        }
        Ok(None)
    }

    /// Moves `value`'s register in `class` to `to` (free). Barriers have no register-to-register
    /// move: they go out to a GPR and back.
    pub(crate) fn move_within(
        &mut self,
        st: &mut State,
        value: ValueId,
        class: RegClass,
        to: u16,
    ) -> Result<(), AllocError> {
        let n = self.size(value);
        let from = st.reg(value, class).expect("moved value is in its class");
        if class == RegClass::Barrier {
            self.evict(st, value, class)?;
            self.fill(st, value, class, Some(to))?;
            return Ok(());
        }
        self.emit(Edit::Move {
            from: Self::reg_loc(class, from),
            to: Self::reg_loc(class, to),
            size: n as u8,
        });
        st.clear(value, class, n);
        st.set(value, class, to, n);
        Ok(())
    }

    /// The window whose eviction costs least: fewest values that must be saved, then the
    /// furthest next use among them.
    fn choose_victims(
        &self,
        st: &State,
        class: RegClass,
        size: u16,
        may_write_blocked: bool,
    ) -> Option<u16> {
        let cap = self.caps[class.index()];
        let mut best: Option<((usize, std::cmp::Reverse<u32>), u16)> = None;
        for start in (0..cap).step_by(usize::from(size)) {
            if start + size > cap
                || (!may_write_blocked && (start..start + size).any(|r| self.is_blocked(class, r)))
            {
                continue;
            }
            let occupants = st.occupants(class, start, size);
            if occupants.iter().any(|v| self.is_pinned(*v, class)) {
                continue;
            }
            let saves = occupants
                .iter()
                .filter(|v| !st.elsewhere(**v, class))
                .count();
            let nearest = occupants
                .iter()
                .map(|v| self.next_use(*v))
                .min()
                .unwrap_or(u32::MAX);
            let key = (saves, std::cmp::Reverse(nearest));
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, start));
            }
        }
        best.map(|(_, start)| start)
    }

    /// Takes `value` out of its register in `class`, first saving it into the class it spills
    /// into (a GPR, a uniform register, or its slot for a GPR) unless it is held elsewhere.
    pub(crate) fn evict(
        &mut self,
        st: &mut State,
        value: ValueId,
        class: RegClass,
    ) -> Result<(), AllocError> {
        let n = self.size(value);
        let Some(from) = st.reg(value, class) else {
            return Ok(());
        };
        if !st.elsewhere(value, class) {
            match class.spill_class() {
                None => {
                    let slot = self.slot_of(value);
                    self.emit(Edit::Move {
                        from: Self::reg_loc(class, from),
                        to: Location::Slot(slot),
                        size: n as u8,
                    });
                    st.set_in_slot(value, true);
                }
                Some(down) => {
                    self.pinned.push((value, class));
                    let to = self.alloc(st, down, n, None, false);
                    self.pinned.pop();
                    let to = to?;
                    self.emit(Edit::Move {
                        from: Self::reg_loc(class, from),
                        to: Self::reg_loc(down, to),
                        size: n as u8,
                    });
                    if class == RegClass::Barrier && self.is_blocked(class, from) {
                        // Leaving a barrier clears it, but the instruction still reads it.
                        self.emit(Edit::Move {
                            from: Self::reg_loc(down, to),
                            to: Self::reg_loc(class, from),
                            size: 1,
                        });
                    }
                    st.set(value, down, to, n);
                }
            }
        }
        st.clear(value, class, n);
        Ok(())
    }

    /// Brings `value` into `class` (at `dest` if given, which must be free) from the nearest
    /// class it spills into, or its slot; returns its register.
    pub(crate) fn fill(
        &mut self,
        st: &mut State,
        value: ValueId,
        class: RegClass,
        dest: Option<u16>,
    ) -> Result<u16, AllocError> {
        if let Some(reg) = st.reg(value, class) {
            if dest.is_none_or(|d| d == reg) {
                return Ok(reg);
            }
            self.move_within(st, value, class, dest.unwrap_or(reg))?;
            return Ok(dest.unwrap_or(reg));
        }
        let n = self.size(value);
        let source = match class.spill_class() {
            None => {
                if !st.loc(value).in_slot {
                    return Err(AllocError::Internal(format!(
                        "{value} is nowhere to fill {} from at {:?} ({:?})",
                        class.prefix(),
                        self.pos,
                        st.loc(value)
                    )));
                }
                Location::Slot(self.slot_of(value))
            }
            Some(down) => {
                let reg = self.fill(st, value, down, None)?;
                Self::reg_loc(down, reg)
            }
        };
        let source_class = match source {
            Location::Reg(r) => Some(r.class),
            Location::Slot(_) => None,
        };
        if let Some(down) = source_class {
            self.pinned.push((value, down));
        }
        let to = match dest {
            Some(d) => Ok(d),
            None => self.alloc(st, class, n, None, false),
        };
        if source_class.is_some() {
            self.pinned.pop();
        }
        let to = to?;
        // The source may have been moved while packing; read it again.
        let source = match source_class {
            Some(down) => Self::reg_loc(down, st.reg(value, down).expect("pinned source stays")),
            None => source,
        };
        self.emit(Edit::Move {
            from: source,
            to: Self::reg_loc(class, to),
            size: n as u8,
        });
        st.set(value, class, to, n);
        Ok(to)
    }

    /// Puts `value` into `class` exactly at `start`, moving or evicting whatever is there.
    pub(crate) fn place_at(
        &mut self,
        st: &mut State,
        value: ValueId,
        class: RegClass,
        start: u16,
    ) -> Result<(), AllocError> {
        let n = self.size(value);
        if st.reg(value, class) == Some(start) {
            return Ok(());
        }
        self.clear_window(st, class, start, n, Some(value))?;
        if st.reg(value, class).is_some() {
            self.move_within(st, value, class, start)
        } else {
            self.fill(st, value, class, Some(start)).map(|_| ())
        }
    }

    /// Empties `start..start+size` of `class` (except for `keep`) by moving its occupants to
    /// free registers, or evicting them when there are none.
    pub(crate) fn clear_window(
        &mut self,
        st: &mut State,
        class: RegClass,
        start: u16,
        size: u16,
        keep: Option<ValueId>,
    ) -> Result<(), AllocError> {
        for other in st.occupants(class, start, size) {
            if Some(other) == keep {
                continue;
            }
            let m = self.size(other);
            let cap = self.caps[class.index()];
            let skip = |r: u16| (r >= start && r < start + size) || self.is_blocked(class, r);
            match st.find_free(class, m, cap, None, &skip) {
                Some(to) if class != RegClass::Barrier => self.move_within(st, other, class, to)?,
                _ => self.evict(st, other, class)?,
            }
        }
        Ok(())
    }

    /// Makes `value` present in `class` (one of the classes its own class spills into, or
    /// its own): copied down from a class above it where it is held, else filled from below.
    /// Copying down out of a barrier clears the barrier register, so that copy is a move.
    pub(crate) fn ensure_in(
        &mut self,
        st: &mut State,
        value: ValueId,
        class: RegClass,
    ) -> Result<u16, AllocError> {
        if let Some(reg) = st.reg(value, class) {
            return Ok(reg);
        }
        let own = self.info(value).class;
        let chain: Vec<RegClass> = std::iter::successors(Some(own), |c| c.spill_class()).collect();
        let depth = chain.iter().position(|c| *c == class).ok_or_else(|| {
            AllocError::Internal(format!("{value} cannot live in {}", class.prefix()))
        })?;
        let held_above = chain[..depth].iter().any(|c| st.reg(value, *c).is_some());
        if !held_above {
            return self.fill(st, value, class, None);
        }
        let up = chain[depth - 1];
        let from = self.ensure_in(st, value, up)?;
        let n = self.size(value);
        self.pinned.push((value, up));
        let to = self.alloc(st, class, n, None, false);
        self.pinned.pop();
        let to = to?;
        let from = st.reg(value, up).unwrap_or(from);
        self.emit(Edit::Move {
            from: Self::reg_loc(up, from),
            to: Self::reg_loc(class, to),
            size: n as u8,
        });
        st.set(value, class, to, n);
        if up == RegClass::Barrier {
            st.clear(value, up, n);
        }
        Ok(to)
    }
}
