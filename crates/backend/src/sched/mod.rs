//! Scheduling and control codes for laid-out code (issue 17, Deliver 3).
//!
//! The input is the kernel's code as emitted: physical typed instructions from address 0,
//! branch targets resolved. [`regions`] cuts it into straight-line *regions*: maximal runs
//! of instructions with no label (an address some instruction targets) inside and no
//! *fence* (a control or synchronisation operation, [`is_fence`]). The list scheduler
//! ([`list`], on the dependence graph of [`deps`]) permutes each region; fences and labels
//! keep their addresses, so every branch and `BSSY` target stays right without re-encoding
//! anything but the words. Then [`scoreboard`] computes the control codes of the whole
//! code from the new order: stalls, write and read scoreboards, wait masks, yield bits and
//! reuse flags, from the measured latency tables (`tangle_sass::latency`).
//!
//! [`Sched::None`] keeps the conservative codes of [`crate::control`] (every
//! variable-latency result waited on by the very next instruction) for comparison.

pub mod deps;
pub mod list;
pub mod scoreboard;

use std::collections::BTreeSet;

use tangle_sass::latency::LatencyClass;
use tangle_sass::{Arch, MachInst};

use crate::error::CompileError;

pub use scoreboard::Notes;

/// How the back end orders instructions and computes control codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sched {
    /// No reordering; conservative codes (`crate::control`): each fixed-latency result
    /// stalls its full latency, each variable-latency result is waited on at once.
    None,
    /// List scheduling within regions and control codes computed from the schedule.
    #[default]
    List,
}

impl Sched {
    /// Every mode, in the order the command line lists them.
    pub const ALL: [Sched; 2] = [Sched::None, Sched::List];

    /// The mode's name on the command line (`--sched none|list`).
    pub fn name(self) -> &'static str {
        match self {
            Sched::None => "none",
            Sched::List => "list",
        }
    }

    /// The mode named `s`.
    pub fn from_name(s: &str) -> Option<Sched> {
        Sched::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// Whether `i` orders everything around it: control transfers, convergence barriers, warp
/// synchronisation, block and memory barriers, `NOP`. Nothing is moved across a fence, so
/// the set of lanes executing a region is fixed and memory barriers keep their meaning.
pub fn is_fence(i: &MachInst) -> bool {
    matches!(
        i.form.latency,
        LatencyClass::Control | LatencyClass::Sync | LatencyClass::Nop
    )
}

/// The instruction indices that are branch or `BSSY` targets (join points: lanes may
/// arrive there from elsewhere than the instruction before).
pub fn labels(insts: &[MachInst]) -> BTreeSet<usize> {
    insts
        .iter()
        .filter_map(MachInst::target)
        .filter(|&a| a >= 0 && a % 16 == 0)
        .map(|a| a as usize / 16)
        .collect()
}

/// The schedulable regions of `insts`: half-open index ranges with no fence in them and
/// no label after their first instruction. Fences are not in any region.
pub fn regions(insts: &[MachInst], labels: &BTreeSet<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, i) in insts.iter().enumerate() {
        if labels.contains(&k) && start < k {
            out.push((start, k));
            start = k;
        }
        if is_fence(i) {
            if start < k {
                out.push((start, k));
            }
            start = k + 1;
        }
    }
    if start < insts.len() {
        out.push((start, insts.len()));
    }
    out
}

/// Reorders `insts` (laid out from address 0) within regions and computes their control
/// codes; returns the notes of why each stall and wait was set (for the tests' mutants).
pub fn schedule(arch: Arch, insts: &mut Vec<MachInst>) -> Result<Notes, CompileError> {
    let labels = labels(insts);
    for (s, e) in regions(insts, &labels) {
        let order = list::order(arch, &insts[s..e]);
        let region: Vec<MachInst> = order.iter().map(|&k| insts[s + k].clone()).collect();
        insts.splice(s..e, region);
    }
    scoreboard::assign(arch, insts, &labels)
}

/// Encodes `insts` from address 0.
pub fn encode(arch: Arch, insts: &[MachInst]) -> Result<Vec<tangle_sass::Word>, CompileError> {
    insts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            i.encode(arch, 16 * k as u64)
                .map_err(|e| CompileError::Internal(format!("encoding instruction {k}: {e}")))
        })
        .collect()
}
