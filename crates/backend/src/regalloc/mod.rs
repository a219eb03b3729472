//! The bridge between the machine form and the SSA register allocator (`tangle-regalloc`,
//! `docs/regalloc.md`): the machine form in SSA (after selection) becomes the allocator's
//! input, and its output becomes machine code on physical registers that [`crate::emit`]
//! lays out.
//!
//! The client's duties (`docs/regalloc.md`, "What the client must say") are done here:
//! every critical edge is split, and a block ends after a `BSYNC` so the code after it can
//! count as converged ([`split`]); a barrier that a `BREAK` updates keeps a register of its
//! own (see [`Prepared::new`]: the hardware's break flag makes the tied-def model of
//! `docs/regalloc.md` unsound for it); R1 (the stack pointer) is reserved, and UR4/UR5
//! (the global memory descriptor, read implicitly by every global access on SM80-SM90)
//! where the SM has one; the blocks that may run divergent are
//! passed so no uniform register is written there ([`divergence`]); a use of one word of a
//! tuple is a use of the tuple with the word added to its register. Spill slots follow the
//! kernel's own local variables in its local frame, addressed from R1.
//!
//! [`Prepared::check`], the allocator's symbolic checker, runs on every compiled function
//! when [`crate::CompileOptions::check_allocation`] is set (by default in debug builds, so
//! in every test).

pub mod divergence;
pub mod input;
pub mod output;
pub mod split;

use std::collections::HashMap;

use tangle_regalloc::{AllocError, Allocation, Limits, Options, PhysReg, RegClass};
use tangle_sass::Arch;

use crate::assign::Assignment;
use crate::error::CompileError;
use crate::mir::{MFunc, VReg};

/// A machine function made ready for the allocator.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The machine form with its critical edges split (the blocks the allocation refers to).
    pub mf: MFunc,
    /// The allocator's input and the operand maps.
    pub input: input::Input,
    /// Reserved registers and divergent blocks.
    pub options: Options,
    /// The register limits.
    pub limits: Limits,
    /// The barriers some `BREAK` updates, each with the register it keeps throughout
    /// (the allocator never sees them, and shares only the registers below them).
    pub pinned: HashMap<VReg, u16>,
}

/// What the allocation produced, ready for emission.
#[derive(Clone, Debug)]
pub struct Allocated {
    /// Machine code on physical registers: each virtual register stands for the register
    /// `asg.phys` gives it; moves, spills and fills included, phis gone.
    pub mf: MFunc,
    /// The physical register of each virtual register of `mf`.
    pub asg: Assignment,
    /// The local frame in bytes: the kernel's variables, then the spill slots.
    pub frame_bytes: u32,
    /// Figures of the allocation.
    pub stats: AllocStats,
    /// The code on physical registers as text (for `--print-after regalloc`).
    pub listing: String,
}

/// Figures of one allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// The most general registers live at once (the lower bound, R1 not counted).
    pub max_live_gprs: u32,
    /// Bytes of spill slots.
    pub spill_bytes: u32,
    /// Moves, swaps, spills and fills the allocator inserted.
    pub edits: u32,
}

impl Prepared {
    /// Splits critical edges and blocks after syncs, gives the barriers a `BREAK` updates
    /// registers of their own, and builds the allocator's input for `mf`
    /// (in SSA, as selection leaves it) on `arch` under `limits`.
    pub fn new(mf: &MFunc, arch: Arch, limits: Limits) -> Result<Prepared, CompileError> {
        let mut mf = mf.clone();
        split::split_after_syncs(&mut mf);
        split::split_critical_edges(&mut mf);
        // A lane that BREAKs a barrier stays flagged as arrived in that barrier register
        // (its `brk` flag) until it next writes the register (BSSY, BMOV), and the barrier's
        // other lanes, still in the scope, count on the flag at their BSYNC. Liveness cannot
        // see this (on the breaking lanes' path the barrier is dead), so a spill, a move or
        // reuse of the register by those lanes would make the others wait forever. Each
        // barrier some BREAK updates therefore gets a register of its own, at the top of
        // the file, for the whole function, and the allocator shares the rest.
        let mut pinned = HashMap::new();
        let mut barriers = std::collections::HashSet::new();
        for b in &mf.blocks {
            for i in b.insts.iter().chain(&b.term) {
                for u in i.uses().chain(i.defs()) {
                    if mf.info(u.vreg).class != crate::mir::RegClass::B {
                        continue;
                    }
                    barriers.insert(u.vreg);
                    if i.op == tangle_sass::Op::Break {
                        let next = pinned.len() as u16;
                        pinned.entry(u.vreg).or_insert(next);
                    }
                }
            }
        }
        let other_barriers = barriers.iter().any(|b| !pinned.contains_key(b));
        let mut alloc_limits = limits;
        if !pinned.is_empty() {
            let n = pinned.len() as u16;
            if n > limits.barrier || (n == limits.barrier && other_barriers) {
                return Err(CompileError::Registers {
                    what: "convergence barriers (those a BREAK updates each keep their own)",
                    limit: u32::from(limits.barrier),
                });
            }
            let base = limits.barrier - n;
            for index in pinned.values_mut() {
                *index += base;
            }
            alloc_limits.barrier = base.max(1);
        }
        let input = input::build(&mf, &pinned)?;
        let mut reserved = vec![PhysReg {
            class: RegClass::Gpr,
            index: 1,
        }];
        if crate::isel::global_descriptor(arch).is_some() {
            for index in [4, 5] {
                reserved.push(PhysReg {
                    class: RegClass::UGpr,
                    index,
                });
            }
        }
        let divergent = divergence::divergent_blocks(&mf)
            .into_iter()
            .map(|b| tangle_regalloc::BlockId(b.0))
            .collect();
        Ok(Prepared {
            pinned,
            mf,
            input,
            options: Options {
                reserved,
                divergent,
            },
            limits: alloc_limits,
        })
    }

    /// Runs the allocator.
    pub fn allocate(&self) -> Result<Allocation, CompileError> {
        tangle_regalloc::allocate_with(&self.input.func, &self.limits, &self.options).map_err(|e| {
            match e {
                AllocError::OutOfRegisters { class, limit, .. } => CompileError::Registers {
                    what: match class {
                        RegClass::Gpr => "general registers",
                        RegClass::Pred => "predicates",
                        RegClass::UGpr => "uniform registers",
                        RegClass::UPred => "uniform predicates",
                        RegClass::Barrier => "convergence barriers",
                    },
                    limit: u32::from(limit),
                },
                e => CompileError::Internal(format!(
                    "the register allocator refused the machine form: {e}"
                )),
            }
        })
    }

    /// The allocator's symbolic checker on `alloc`: every use reads its own value on every
    /// path, constraints and reserved registers hold, no uniform register is written in
    /// divergent code.
    pub fn check(&self, alloc: &Allocation) -> Result<(), CompileError> {
        tangle_regalloc::check::check_with(&self.input.func, &self.limits, &self.options, alloc)
            .map_err(|e| {
                CompileError::Internal(format!(
                    "the register allocation is wrong: {e}\n{}",
                    tangle_regalloc::check::listing(&self.input.func, alloc)
                ))
            })
    }

    /// Physical machine code from `alloc`; `local_bytes` of the kernel's own variables come
    /// before the spill slots in the frame.
    pub fn finish(&self, alloc: &Allocation, local_bytes: u32) -> Result<Allocated, CompileError> {
        // Slot 0 is 16-byte aligned, so `.128` spills are aligned.
        let spill_base = local_bytes.div_ceil(16) * 16;
        let spill_bytes = 4 * alloc.spill_words;
        let (mut mf, asg) = output::build(&self.mf, &self.input, alloc, &self.pinned, spill_base)?;
        split::thread_jumps(&mut mf);
        let listing = output::physical_text(&mf, &asg);
        Ok(Allocated {
            mf,
            asg,
            frame_bytes: if spill_bytes > 0 {
                spill_base + spill_bytes
            } else {
                local_bytes
            },
            stats: AllocStats {
                max_live_gprs: alloc.max_live.of(RegClass::Gpr),
                spill_bytes,
                edits: alloc.edits.len() as u32,
            },
            listing,
        })
    }
}

/// Allocates `mf` (SSA, as selection leaves it) for `arch` under `limits`, checking the
/// allocation symbolically when `check` is set.
pub fn run(
    mf: &MFunc,
    arch: Arch,
    local_bytes: u32,
    limits: Limits,
    check: bool,
) -> Result<Allocated, CompileError> {
    let prepared = Prepared::new(mf, arch, limits)?;
    let alloc = prepared.allocate()?;
    if check {
        prepared.check(&alloc)?;
    }
    prepared.finish(&alloc, local_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{MInst, RegClass as MClass};
    use tangle_sass::Op;

    /// `MOV %r2:2, %r0, %r1` is emitted as two MOVs, so the pair must not take a source's
    /// register even where both sources die there.
    #[test]
    fn a_pair_construction_never_overlaps_its_sources() {
        let mut mf = MFunc::default();
        mf.block();
        let lo = mf.vreg(MClass::R, 1);
        let hi = mf.vreg(MClass::R, 1);
        let pair = mf.vreg(MClass::R, 2);
        let sum = mf.vreg(MClass::R, 1);
        let b = &mut mf.blocks[0];
        b.insts.push(MInst::new(Op::Mov).d(lo).imm(1));
        b.insts.push(MInst::new(Op::Mov).d(hi).imm(2));
        b.insts.push(MInst::new(Op::Mov).d(pair).u(lo).u(hi));
        b.insts.push(
            MInst::new(Op::Iadd3)
                .d(sum)
                .u(crate::mir::RegRef {
                    vreg: pair,
                    sub: Some(0),
                })
                .u(crate::mir::RegRef {
                    vreg: pair,
                    sub: Some(1),
                })
                .f(tangle_sass::typed::RZ),
        );
        b.term.push(MInst::new(Op::Exit));
        let prep = Prepared::new(&mf, Arch::Sm86, Limits::HARDWARE).unwrap();
        let alloc = prep.allocate().unwrap();
        prep.check(&alloc).unwrap();
        let regs = &alloc.insts[0][2];
        let d = regs.defs[0].index;
        for u in &regs.uses {
            assert!(u.index != d && u.index != d + 1, "{regs:?}");
        }
    }
}
