//! Hazard mode: checks, along the executed path of every lane, that each instruction's
//! control code lets its operands be ready, from the SASS layer's latency tables
//! (`tangle_sass::latency`, measured from ptxas's own scheduling):
//!
//! - a register read before its fixed-latency producer's latency has elapsed (the stall
//!   counts of the instructions in between are the cycles that passed). The latency used is
//!   the smallest the table gives for any fixed-latency class writing that register file:
//!   a class's own minimum depends on the reader (ptxas leaves 4 cycles before an ISETP's
//!   predicate is read by one instruction and 5 before IADD3's carry is read by another),
//!   and the tables do not split by reader, so only a gap below every figure is certain.
//!   Only general registers and predicates are checked so: the uniform datapath forwards
//!   faster than any figure the tables give (ptxas reads a ULDC result in a UIMAD after 2
//!   cycles; the table's ULDC figure, from vector readers, is 8-13), and memory accesses
//!   read their uniform address registers late;
//! - a register read before waiting on the write scoreboard of its producer;
//! - a register read from a memory load or atomic that set no write scoreboard, unless a
//!   later access of the same class was waited on since (they complete in order) or a
//!   `BAR.SYNC` came in between (it completes outstanding accesses);
//! - a general register overwritten while an earlier instruction that reads it has not
//!   released its read scoreboard (not waited on).
//!
//! It also adds up a cycle estimate per warp: the sum of the stall counts its groups
//! issued, scoreboard waits counted as free. **An unvalidated model**: nothing here has been
//! compared with a GPU's clock.

use std::collections::HashMap;

use tangle_sass::latency;
use tangle_sass::typed::Loc;
use tangle_sass::Arch;

use crate::kernel::Inst;
use crate::warp::lanes;

/// Where a register's next value stands for one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    /// Ready at cycle `ready` (fixed latency `lat` from the producer at `pc`).
    Fixed {
        ready: u64,
        pc: u32,
        lat: u32,
        pipe: Option<latency::Pipe>,
    },
    /// Ready once scoreboard `sb` is waited on (`at`: the issue clock, `class`: the
    /// producer's latency class).
    Scoreboard {
        sb: u8,
        pc: u32,
        at: u64,
        class: &'static str,
    },
    /// A memory access's result with no scoreboard of its own: ready once a later access
    /// of the same class is waited on (they complete in order) or a block barrier passes.
    Unguarded {
        pc: u32,
        at: u64,
        class: &'static str,
    },
}

/// The hazard state of one warp.
#[derive(Clone, Debug, Default)]
pub struct HazardState {
    /// Each lane's issue clock (the stall counts of the instructions its groups issued).
    pub cycle: [u64; 32],
    pending: Vec<HashMap<Loc, Pending>>,
    /// Registers an in-flight reader protects with its read scoreboard: (sb, reader pc,
    /// the reader's own write scoreboard). A wait on either ends the protection: a result
    /// is written after its operands are read (ptxas overwrites the source of
    /// `SHFL.IDX R10, R10 (R0, W2)` after waiting on SB2 alone).
    protected: Vec<HashMap<Loc, Protection>>,
}

/// A pending read: the reader's read scoreboard, its pc, and its write scoreboard.
type Protection = (u8, u32, Option<u8>);

fn file(l: Loc) -> &'static str {
    match l {
        Loc::R(_) => "R",
        Loc::Ur(_) => "UR",
        Loc::P(_) => "P",
        Loc::Up(_) => "UP",
        Loc::B(_) => "B",
        Loc::Rpc(_) => "RPC",
    }
}

fn name(l: Loc) -> String {
    match l {
        Loc::R(n) => format!("R{n}"),
        Loc::Ur(n) => format!("UR{n}"),
        Loc::P(n) => format!("P{n}"),
        Loc::Up(n) => format!("UP{n}"),
        Loc::B(n) => format!("B{n}"),
        Loc::Rpc(h) => h.name().to_string(),
    }
}

/// Whether `i` is a memory load or atomic, whose result can only be guarded by a scoreboard
/// (its latency is not fixed). Other classes the tables mark as scoreboarded are not used
/// for this: ptxas gives e.g. POPC a scoreboard in the probe chains but not always.
fn always_scoreboarded(_t: &latency::Table, i: &Inst, _f: &str) -> bool {
    matches!(
        i.m.form.latency.name(),
        "global_mem" | "shared_mem" | "local_mem"
    )
}

/// The smallest latency of any fixed-latency class writing register file `f`.
fn file_minimum(t: &latency::Table, f: &str) -> Option<u32> {
    t.rows
        .iter()
        .filter(|m| m.file == f && m.kind == latency::Kind::Fixed)
        .filter_map(|m| m.min)
        .min()
}

/// The extra cycle a general-register result of `producer` needs before `reader` in the
/// other pipe (`latency::cross_pipe_delay`).
fn cross(producer: Option<latency::Pipe>, reader: &tangle_sass::Form, at: Loc) -> u64 {
    match (producer, latency::pipe(reader)) {
        (Some(a), Some(b)) if a != b && matches!(at, Loc::R(_)) => 1,
        _ => 0,
    }
}

/// How much later `IMAD.WIDE` reads the high register of its 64-bit addend than its other
/// sources, in cycles. Inferred from ptxas's SM90 schedules (found by the `ptxas` fuzz
/// engine): `MOV R3, UR5` (stall 2), one more instruction (stall 1), then
/// `IMAD.WIDE.U32 R8, R5, 0x4, R2` reads R3 3 cycles after its producer, and
/// `IMAD.U32 R9, RZ, RZ, UR5` (stall 2) then `IMAD.WIDE.U32 R22, R19, 0x4, R8` reads R9 2
/// cycles after it, where every fixed-latency result otherwise needs 4.
const HIGH_ADDEND_SLACK: u64 = 2;

/// The high register of `IMAD.WIDE`'s 64-bit addend (its third source), read late.
fn late_high_addend(i: &Inst) -> Option<Loc> {
    if i.op() != tangle_sass::Op::Imad || !i.has("WIDE") {
        return None;
    }
    let k = *i.srcs.get(2)?;
    match i.m.operands[k].val {
        tangle_sass::typed::Val::Reg(r) if r.0 < 254 => Some(Loc::R(r.0 + 1)),
        _ => None,
    }
}

impl HazardState {
    /// A warp with nothing in flight.
    pub fn new() -> HazardState {
        HazardState {
            cycle: [0; 32],
            pending: vec![HashMap::new(); 32],
            protected: vec![HashMap::new(); 32],
        }
    }

    /// Checks and records the issue of `i` at `pc` by the lanes of `group`, of which
    /// `active` pass the guard; returns the hazards found (text for each, the first lane).
    pub fn issue(&mut self, arch: Arch, i: &Inst, pc: u32, group: u32, active: u32) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        let ctl = i.m.control;
        let table = latency::table(arch);
        for l in lanes(group) {
            // A block barrier completes the lanes' outstanding memory accesses: ptxas reads
            // an LDS result after BAR.SYNC with no scoreboard of its own.
            if i.op() == tangle_sass::Op::Bar {
                self.pending[l].retain(|_, p| !matches!(p, Pending::Unguarded { .. }));
            }
            // Scoreboard waits release what they guard, and the earlier unguarded accesses of
            // the same class (in-order completion: `LDS R7; LDS R4 (W0); ... wait SB0`).
            if ctl.wait != 0 {
                let mut done: Vec<(&'static str, u64)> = Vec::new();
                for p in self.pending[l].values() {
                    if let Pending::Scoreboard { sb, at, class, .. } = *p {
                        if ctl.wait >> sb & 1 == 1 {
                            done.push((class, at));
                        }
                    }
                }
                self.pending[l].retain(|_, p| match *p {
                    Pending::Scoreboard { sb, .. } => ctl.wait >> sb & 1 == 0,
                    Pending::Unguarded { at, class, .. } => {
                        !done.iter().any(|&(c, t)| c == class && t > at)
                    }
                    Pending::Fixed { .. } => true,
                });
                self.protected[l].retain(|_, (sb, _, w)| {
                    ctl.wait >> *sb & 1 == 0 && w.is_none_or(|w| ctl.wait >> w & 1 == 0)
                });
            }
            let now = self.cycle[l];
            let late = late_high_addend(i);
            for &u in &i.uses {
                let slack = if Some(u) == late {
                    HIGH_ADDEND_SLACK
                } else {
                    0
                };
                let msg = match self.pending[l].get(&u) {
                    Some(Pending::Fixed {
                        ready,
                        pc: p,
                        lat,
                        pipe,
                    }) if *ready + cross(*pipe, i.m.form, u) > now + slack => Some(format!(
                        "{} read {} cycles after its producer at {p:#06x}, whose latency for \
                         this reader is {}",
                        name(u),
                        now + *lat as u64 - ready,
                        *lat as u64 + cross(*pipe, i.m.form, u)
                    )),
                    Some(Pending::Scoreboard { sb, pc: p, .. }) => Some(format!(
                        "{} read without waiting on scoreboard SB{sb} of its producer at {p:#06x}",
                        name(u)
                    )),
                    Some(Pending::Unguarded { pc: p, .. }) => Some(format!(
                        "{} read from the memory access at {p:#06x}, which sets no write scoreboard",
                        name(u)
                    )),
                    _ => None,
                };
                if let Some(m) = msg {
                    if !found.contains(&m) {
                        found.push(m);
                    }
                }
            }
        }
        for l in lanes(active) {
            let now = self.cycle[l];
            for &d in &i.defs {
                if let Some((sb, p, _)) = self.protected[l].get(&d) {
                    let m = format!(
                        "{} overwritten while its reader at {p:#06x} holds read scoreboard SB{sb}",
                        name(d)
                    );
                    if !found.contains(&m) {
                        found.push(m);
                    }
                }
                let class = i.m.form.latency.name();
                let entry = match ctl.write_sb {
                    Some(sb) => Some(Pending::Scoreboard {
                        sb,
                        pc,
                        at: now,
                        class,
                    }),
                    None if always_scoreboarded(table, i, file(d)) => {
                        Some(Pending::Unguarded { pc, at: now, class })
                    }
                    // Uniform registers and predicates are not checked against fixed
                    // latencies: ptxas reads a ULDC result 2 cycles later in a UIMAD while
                    // the table's ULDC figure (from vector readers) is 8-13, and no figure
                    // of the tables bounds the uniform datapath's own forwarding.
                    None if matches!(d, Loc::Ur(_) | Loc::Up(_)) => None,
                    None => match table.fixed_latency(i.m.form, file(d)) {
                        Some(_) => file_minimum(table, file(d)).map(|lat| Pending::Fixed {
                            ready: now + lat as u64,
                            pc,
                            lat,
                            pipe: latency::pipe(i.m.form),
                        }),
                        None => None,
                    },
                };
                match entry {
                    Some(e) => self.pending[l].insert(d, e),
                    None => self.pending[l].remove(&d),
                };
            }
            if let Some(sb) = ctl.read_sb {
                // Only general registers are read late; predicates and uniform registers
                // (the guard, the SM80-89 descriptor UR4:UR5) are read at issue.
                for &u in i.uses.iter().filter(|u| matches!(u, Loc::R(_))) {
                    self.protected[l].insert(u, (sb, pc, ctl.write_sb));
                }
            }
        }
        let least = latency::control::min_stall(arch, i.m.form.name);
        if ctl.stall < least {
            found.push(format!(
                "{} issued with stall {} where ptxas never gives less than {least} (the next \
                 instruction would issue before it completes)",
                i.m.form.name, ctl.stall
            ));
        }
        for l in lanes(group) {
            self.cycle[l] += ctl.stall.max(1) as u64;
        }
        found
    }

    /// Lanes released together (a barrier or warp synchronisation) continue from the latest
    /// of their clocks.
    pub fn join(&mut self, lanes_mask: u32) {
        let t = lanes(lanes_mask).map(|l| self.cycle[l]).max().unwrap_or(0);
        for l in lanes(lanes_mask) {
            self.cycle[l] = t;
        }
    }
}
