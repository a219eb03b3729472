//! Control codes computed from a schedule, from the measured latency tables
//! (`tangle_sass::latency`, never invented), in one walk over the laid-out code:
//!
//! - **Stalls**: an instruction issues as soon as the fixed-latency results it reads have
//!   had their table latency (and a register it overwrites has had its earlier write
//!   land); the gap is the previous instruction's stall. A reader far enough away costs
//!   nothing: stall 1.
//! - **Write scoreboards**: every result without a fixed latency (memory, `S2R`, `SHFL`,
//!   `VOTE`, classes the tables scoreboard or have not measured) takes one of six
//!   scoreboards, a free one if any, else it shares the most recently allocated one (a
//!   scoreboard counts, so a wait on it waits for every producer that set it).
//! - **Read scoreboards**: stores, atomics and scoreboarded non-memory operations (`SHFL`)
//!   that read general registers set one (ptxas does the same: their sources are read
//!   late); loads do not (ptxas never sets one on a load in the latency probes). All
//!   read scoreboards share one where possible, since reads complete early.
//! - **Waits**: at the first instruction that reads a pending result, overwrites it, or
//!   overwrites a source still protected by a read scoreboard.
//! - **Block boundaries** (conservative): at every label the first instruction waits on
//!   every scoreboard the kernel uses, and before a label or after a branch or exit the
//!   stall lets every fixed-latency result land. So nothing crosses a join point in
//!   flight, whatever path led there. Fences that are not branches (`BSSY`, `BAR`,
//!   `WARPSYNC`, ...) let results stay in flight across them.
//! - **Yield**: set (ptxas's default) except where the stall is over 11 (illegal with it)
//!   or where the next instruction reads this one's result and no reuse flag is set
//!   (ptxas clears it there: 190 of 209 such pairs in its corpus code on sm_86).
//! - **Reuse**: an operand read again in the same reuse slot by the next instruction of the
//!   same region, both fixed-latency ALU operations, the register not written in between.

use std::collections::{BTreeSet, HashMap};

use tangle_sass::latency::{self, LatencyClass};
use tangle_sass::roles::{memory_effect, Access};
use tangle_sass::typed::{Loc, Val};
use tangle_sass::{Arch, Control, MachInst, Op};

use super::deps::file;
use super::is_fence;
use crate::error::CompileError;

/// Scoreboards a wait mask can name.
pub const SCOREBOARDS: u8 = 6;
/// The longest stall the yield bit allows (`docs/sass.md`).
const YIELD_MAX_STALL: u64 = 11;
/// The longest stall a control code holds.
const MAX_STALL: u64 = 15;

/// What a dependence needs from the control codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The consumer reads a fixed-latency result of this latency, and the stall of the
    /// instruction before the consumer is what makes the gap long enough.
    Stall {
        /// The producer's latency from the table.
        latency: u32,
    },
    /// The consumer reads a result in flight behind write scoreboard `sb`.
    Wait {
        /// The producer's write scoreboard.
        sb: u8,
    },
    /// The consumer overwrites a source the producer still reads (read scoreboard `sb`).
    ReadWait {
        /// The producer's read scoreboard.
        sb: u8,
    },
}

/// One dependence the control codes enforce: the producer's index, the consumer's, the
/// register, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dep {
    /// The earlier instruction.
    pub producer: usize,
    /// The later instruction.
    pub consumer: usize,
    /// The register between them.
    pub loc: Loc,
    /// What enforces it.
    pub need: Need,
}

/// Why the control codes are what they are (for tests and mutants): the dependences a
/// stall or a wait was set for. Stalls that drain results at a block boundary, waits at a
/// label and waits that keep two writes in order are not listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// The dependences, in consumer order.
    pub deps: Vec<Dep>,
    /// The wait bits every label's first instruction carries.
    pub entry_wait: u8,
}

/// A fixed-latency result not yet landed: when, and from which instruction.
#[derive(Clone, Copy, Debug)]
struct Fixed {
    ready: u64,
    by: usize,
}

/// The extra cycle a general-register result needs before a reader in the other pipe
/// (`latency::cross_pipe_delay`).
fn cross_delay(producer: &tangle_sass::Form, reader: &tangle_sass::Form, at: Loc) -> u64 {
    if matches!(at, Loc::R(_)) {
        latency::cross_pipe_delay(producer, reader) as u64
    } else {
        0
    }
}

/// What a result needs beyond its latency when the reader is not known (after a label):
/// the cross-pipe cycle for results of the two fixed-latency pipes.
fn drain_delay(producer: &tangle_sass::Form) -> u64 {
    latency::pipe(producer).is_some() as u64
}

#[derive(Default)]
struct State {
    fixed: HashMap<Loc, Fixed>,
    /// Results in flight behind a write scoreboard (the scoreboard, the producer).
    written: HashMap<Loc, (u8, usize)>,
    /// General registers a reader in flight still reads (its read scoreboard, the reader,
    /// the reader's write scoreboard: a wait on either ends the protection).
    protected: HashMap<Loc, (u8, usize, Option<u8>)>,
    /// When each scoreboard was last allocated (for sharing).
    stamp: [u64; SCOREBOARDS as usize],
    ticks: u64,
}

impl State {
    fn busy(&self, sb: u8) -> bool {
        self.written.values().any(|&(s, _)| s == sb)
            || self.protected.values().any(|&(s, _, _)| s == sb)
    }

    fn release(&mut self, mask: u8) {
        self.written.retain(|_, (s, _)| mask >> *s & 1 == 0);
        self.protected
            .retain(|_, (s, _, w)| mask >> *s & 1 == 0 && w.is_none_or(|w| mask >> w & 1 == 0));
    }

    /// A free scoreboard other than `not`, else the most recently allocated one.
    fn allocate(&mut self, not: Option<u8>) -> u8 {
        let pick = (0..SCOREBOARDS)
            .filter(|&s| Some(s) != not)
            .find(|&s| !self.busy(s))
            .unwrap_or_else(|| {
                (0..SCOREBOARDS)
                    .filter(|&s| Some(s) != not)
                    .max_by_key(|&s| self.stamp[s as usize])
                    .expect("six scoreboards")
            });
        self.ticks += 1;
        self.stamp[pick as usize] = self.ticks;
        pick
    }

    /// A scoreboard for a read: one that only protects reads, else [`State::allocate`].
    fn allocate_read(&mut self, not: Option<u8>) -> u8 {
        let reads: BTreeSet<u8> = self.protected.values().map(|&(s, _, _)| s).collect();
        match reads
            .into_iter()
            .find(|&s| Some(s) != not && !self.written.values().any(|&(w, _)| w == s))
        {
            Some(s) => s,
            None => self.allocate(not),
        }
    }
}

/// Whether `i` sets a read scoreboard when it reads general registers (see the module
/// documentation).
fn reads_late(i: &MachInst, scoreboarded: bool) -> bool {
    if !i.form.read_sb || !i.uses().iter().any(|u| matches!(u, Loc::R(_))) {
        return false;
    }
    match memory_effect(i.op()) {
        Some((_, Access::Load)) => false,
        Some(_) => true,
        None => scoreboarded,
    }
}

/// Whether control leaves `i` other than to the next instruction (so the next one's
/// predecessors and the target's include it).
fn transfers(i: &MachInst) -> bool {
    matches!(i.op(), Op::Bra | Op::Brx | Op::Exit | Op::Call | Op::Ret)
}

/// Sets the control codes of `insts` (laid out from address 0; `labels` are the indices
/// branches and `BSSY` target), returns why.
pub fn assign(
    arch: Arch,
    insts: &mut [MachInst],
    labels: &BTreeSet<usize>,
) -> Result<Notes, CompileError> {
    let table = latency::table(arch);
    let n = insts.len();
    let mut notes = Notes::default();
    let mut st = State::default();
    let mut ctl: Vec<Control> = vec![Control::default(); n];
    let mut issue = vec![0u64; n];
    // The cycle by which every fixed-latency result has landed, after a transfer.
    let mut drained = vec![0u64; n];
    let mut used = 0u8;
    for k in 0..n {
        let i = &insts[k];
        let defs = i.defs();
        let uses = i.uses();
        let boundary = k > 0 && labels.contains(&k);
        // Waits.
        let mut wait = 0u8;
        for &u in &uses {
            if let Some(&(sb, by)) = st.written.get(&u) {
                wait |= 1 << sb;
                notes.deps.push(Dep {
                    producer: by,
                    consumer: k,
                    loc: u,
                    need: Need::Wait { sb },
                });
            }
        }
        for &d in &defs {
            if let Some(&(sb, _)) = st.written.get(&d) {
                wait |= 1 << sb;
            }
        }
        for &d in &defs {
            if let Some(&(sb, by, w)) = st.protected.get(&d) {
                if w.is_some_and(|w| wait >> w & 1 == 1) {
                    // Waiting for the reader's result already waits for its reads.
                    continue;
                }
                wait |= 1 << sb;
                notes.deps.push(Dep {
                    producer: by,
                    consumer: k,
                    loc: d,
                    need: Need::ReadWait { sb },
                });
            }
        }
        if labels.contains(&k) {
            st.written.clear();
            st.protected.clear();
        }
        st.release(wait);
        // Issue time: the fixed-latency results read (or overwritten) must have landed.
        let mut at = if k == 0 { 0 } else { issue[k - 1] + 1 };
        let mut why: Option<(Loc, Fixed)> = None;
        if k > 0 && drained[k - 1] > at {
            // The previous instruction branches: its stall lets every result land.
            at = drained[k - 1];
        }
        for u in &uses {
            if let Some(f) = st.fixed.get(u) {
                // A general register read from the other pipe lands a cycle later.
                let ready = f.ready + cross_delay(insts[f.by].form, i.form, *u);
                if ready > at {
                    at = ready;
                    why = Some((*u, Fixed { ready, by: f.by }));
                }
            }
        }
        for d in &defs {
            if let Some(f) = st.fixed.get(d) {
                let own = table.fixed_latency(i.form, file(*d)).unwrap_or(0) as u64;
                let need =
                    (f.ready + cross_delay(insts[f.by].form, i.form, *d)).saturating_sub(own);
                if need > at {
                    at = need;
                    why = None;
                }
            }
        }
        if boundary {
            let drain = st
                .fixed
                .values()
                .map(|f| f.ready + drain_delay(insts[f.by].form))
                .max()
                .unwrap_or(0);
            if drain > at {
                at = drain;
                why = None;
            }
            st.fixed.clear();
        }
        if k > 0 {
            let stall = at - issue[k - 1];
            if stall > MAX_STALL {
                return Err(CompileError::Internal(format!(
                    "instruction {k} needs a stall of {stall} cycles before it"
                )));
            }
            ctl[k - 1].stall = stall as u8;
            if let (true, Some((loc, f))) = (stall > 1, why) {
                notes.deps.push(Dep {
                    producer: f.by,
                    consumer: k,
                    loc,
                    need: Need::Stall {
                        latency: (f.ready - issue[f.by]) as u32,
                    },
                });
            }
        }
        issue[k] = at;
        st.fixed.retain(|_, f| f.ready > at);
        // Effects.
        let mut c = Control {
            stall: 1,
            yield_bit: true,
            write_sb: None,
            read_sb: None,
            wait,
            reuse: 0,
        };
        let guarded = i.guard.pred != 7;
        let mut scoreboarded: Vec<Loc> = Vec::new();
        for &d in &defs {
            if matches!(d, Loc::B(_)) {
                // Convergence barriers are written by control operations, which take no
                // scoreboard; the hardware orders them (nothing was measured).
                continue;
            }
            match table.fixed_latency(i.form, file(d)) {
                Some(l) => {
                    let mut ready = at + l as u64;
                    if guarded {
                        // Lanes the guard turns off keep the earlier write in flight.
                        ready = ready.max(st.fixed.get(&d).map_or(0, |f| f.ready));
                    }
                    st.fixed.insert(d, Fixed { ready, by: k });
                }
                None => scoreboarded.push(d),
            }
        }
        if !scoreboarded.is_empty() {
            if !i.form.write_sb {
                return Err(CompileError::Internal(format!(
                    "{}: no fixed latency measured and no write scoreboard allowed",
                    i.form.name
                )));
            }
            let s = st.allocate(None);
            for d in scoreboarded.iter().copied() {
                st.fixed.remove(&d);
                st.written.insert(d, (s, k));
            }
            c.write_sb = Some(s);
        }
        if reads_late(i, c.write_sb.is_some()) {
            let s = st.allocate_read(c.write_sb);
            for &u in uses.iter().filter(|u| matches!(u, Loc::R(_))) {
                st.protected.insert(u, (s, k, c.write_sb));
            }
            c.read_sb = Some(s);
        }
        used |= c.write_sb.map_or(0, |s| 1 << s) | c.read_sb.map_or(0, |s| 1 << s);
        if transfers(i) {
            // Lanes leave for a label: every fixed-latency result lands before the
            // target's first instruction, whichever way they go.
            let drain = st
                .fixed
                .values()
                .map(|f| f.ready + drain_delay(insts[f.by].form))
                .max()
                .unwrap_or(0);
            drained[k] = drain;
            let own = drain.saturating_sub(at).max(1);
            if own > MAX_STALL {
                return Err(CompileError::Internal(format!(
                    "instruction {k} needs a stall of {own} cycles"
                )));
            }
            c.stall = own as u8;
        }
        ctl[k] = c;
    }
    for &k in labels {
        if k < n {
            ctl[k].wait |= used;
        }
    }
    notes.entry_wait = used;
    // Control instructions that ptxas never follows sooner than a minimum stall
    // (`BSYNC` 5 on every SM, ...): measured, and needed on hardware.
    for (i, c) in insts.iter().zip(ctl.iter_mut()) {
        c.stall = c
            .stall
            .max(tangle_sass::latency::control::min_stall(arch, i.form.name));
    }
    reuse_and_yield(insts, &mut ctl, labels);
    for (i, c) in insts.iter_mut().zip(ctl) {
        i.control = c;
    }
    Ok(notes)
}

/// Whether `i` is a fixed-latency ALU operation (reuse flags are set only between those).
fn alu(i: &MachInst) -> bool {
    !is_fence(i)
        && memory_effect(i.op()).is_none()
        && !matches!(
            i.form.latency,
            LatencyClass::SpecialReg
                | LatencyClass::Warp
                | LatencyClass::ToUniform
                | LatencyClass::ConstLoad
        )
}

/// The general register read in each reuse slot of `i`.
fn slots(i: &MachInst) -> Vec<(u8, u8, usize)> {
    i.form
        .ops
        .iter()
        .zip(&i.operands)
        .enumerate()
        .filter_map(|(k, (o, x))| match (o.reuse, x.val) {
            (Some(s), Val::Reg(r)) if r.0 != 255 && o.align == 1 && i.roles()[k].uses() => {
                Some((s, r.0, k))
            }
            _ => None,
        })
        .collect()
}

fn reuse_and_yield(insts: &mut [MachInst], ctl: &mut [Control], labels: &BTreeSet<usize>) {
    let n = insts.len();
    for k in 0..n {
        let next = k + 1 < n && !labels.contains(&(k + 1));
        let mut reused = false;
        if next && ctl[k].stall as u64 <= YIELD_MAX_STALL {
            let (a, b) = (&insts[k], &insts[k + 1]);
            let both = alu(a) && alu(b) && ctl[k].write_sb.is_none();
            if both && ctl[k + 1].write_sb.is_none() {
                let theirs = slots(b);
                let defs = a.defs();
                let mine: Vec<usize> = slots(a)
                    .into_iter()
                    .filter(|&(s, r, _)| {
                        theirs.iter().any(|&(t, q, _)| t == s && q == r)
                            && !defs.contains(&Loc::R(r))
                    })
                    .map(|(_, _, op)| op)
                    .collect();
                for op in mine {
                    insts[k].operands[op].reuse = true;
                    reused = true;
                }
            }
        }
        let depends = k + 1 < n && {
            let defs = insts[k].defs();
            insts[k + 1].uses().iter().any(|u| defs.contains(u))
        };
        ctl[k].yield_bit = ctl[k].stall as u64 <= YIELD_MAX_STALL && (reused || !depends);
    }
}
