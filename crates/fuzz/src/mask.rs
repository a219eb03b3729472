//! The second oracle: a mask-stack simulator over the [`Program`] form.
//!
//! It shares nothing with the reference interpreter (`tangle_interp`): it never sees IR or
//! SPIR-V. Each subgroup runs the statement tree with an *active mask* (one bit per lane,
//! up to 128). Maximal reconvergence on structured code means:
//! - an `if` runs the then branch with `active & cond`, the else branch with
//!   `active & !cond`, and afterwards every lane of either branch that did not jump away is
//!   active again (the merge);
//! - a loop runs iteration by iteration in lockstep: the lanes that fell off the end of the
//!   body and the lanes that `continue`d meet at the continue target, those whose back-edge
//!   condition holds run the next iteration together; the lanes that broke out or left
//!   through the back edge meet at the merge, once all of them are done;
//! - a `switch` runs each case with the lanes whose selector matches its literal, the
//!   default with the rest; lanes falling through into the next case run it as a group of
//!   their own (the interpreter's default `FallthroughPolicy::Independent`), or, under
//!   [`Fallthrough::Merge`], together with the lanes that switched to that case directly
//!   (the interpreter's `FallthroughPolicy::Merge`, the grouping the token engine gives);
//!   afterwards every lane that did not jump away is active again;
//! - a call runs the helper with the caller's active lanes; the lanes that return (from
//!   any depth) and those that reach its end are active again after the call;
//! - a do-while left through `subgroupElect()` elects among the lanes at its continue
//!   target (those that reached the body's end or `continue`d); that lane leaves;
//! - `break` and `continue` take lanes out of the rest of the body (the loop frame on the
//!   stack remembers them); `return` ends the lane.
//!
//! The ballot of a statement is the active mask; `subgroupElect()` picks the lowest active
//! lane; sums, inclusive sums and broadcast-first of `LocalInvocationIndex + 1` are taken
//! over the active lanes in lane order. Records are kept per invocation and laid out as the program's buffer at the end.
//!
//! [`simulate_in`] runs in a [`MaskScratch`] kept between programs (its vectors are not
//! allocated and grown again for each) and leaves the records as [`MaskRecords`], which
//! compare with the reference's buffer without laying out the oracle's own
//! ([`MaskRecords::matches`]).

use crate::ast::{
    block_always_jumps, Collective, Cond, Program, Selector, Stmt, Trip, INPUT, RECORD_WORDS,
};

/// The output of one program at one subgroup size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskOutcome {
    /// The largest number of records any invocation wrote.
    pub max_records: u32,
    /// The output buffer in words: record `r` of invocation `i` is at
    /// `(r * local_size + i) * RECORD_WORDS`.
    pub words: Vec<u32>,
}

/// One record as the simulator writes it: the invocation, the record's number among that
/// invocation's records, and its words.
type Record = (u32, u32, [u32; RECORD_WORDS as usize]);

/// The simulator's vectors, kept between runs so that a caller running many programs (the
/// fuzz pipeline, a campaign's worker) allocates and grows them once, not per program.
/// Every run starts from them cleared: what one run leaves never reaches the next.
#[derive(Default)]
pub struct MaskScratch {
    records: Vec<Record>,
    counts: Vec<u32>,
    indices: Vec<[u32; 128]>,
    args: Vec<[u32; 128]>,
    returned: Vec<u128>,
    frames: Vec<LoopFrame>,
}

/// The records of one run, in the order written, with each invocation's count: the
/// buffer [`MaskOutcome::words`] lays out, without laying it out.
pub struct MaskRecords<'s> {
    local_size: u32,
    records: &'s [Record],
    counts: &'s [u32],
}

impl MaskRecords<'_> {
    /// The largest number of records any invocation wrote.
    pub fn max_records(&self) -> u32 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// How many words the output buffer has: `max_records · local_size` records.
    pub fn word_count(&self) -> usize {
        (self.max_records() * self.local_size * RECORD_WORDS) as usize
    }

    /// The output buffer in words: record `r` of invocation `i` at
    /// `(r * local_size + i) * RECORD_WORDS`, zero where nothing was written.
    pub fn words(&self) -> Vec<u32> {
        let n = self.local_size;
        let mut words = vec![0u32; self.word_count()];
        for &(inv, r, ref rec) in self.records {
            let at = ((r * n + inv) * RECORD_WORDS) as usize;
            words[at..at + RECORD_WORDS as usize].copy_from_slice(rec);
        }
        words
    }

    /// Whether `bytes` begins with [`Self::words`] as little-endian words (it may be
    /// longer), decided without making the words: `Ok` if so, else `Err` with `bytes` as
    /// they were. Each record is checked at its place and zeroed there; the records agree
    /// with the buffer exactly when they all matched and the buffer is then all zero
    /// (one pass the compiler vectorizes). On a difference the zeroed records are written
    /// back. `tests/mask_records.rs` holds it to the laid-out words.
    pub fn check(&self, mut bytes: Vec<u8>) -> Result<(), Vec<u8>> {
        const RECORD_BYTES: usize = 4 * RECORD_WORDS as usize;
        let len = self.word_count() * 4;
        if bytes.len() < len {
            return Err(bytes);
        }
        let n = self.local_size;
        let place = |&(inv, r, _): &Record| ((r * n + inv) * RECORD_WORDS) as usize * 4;
        let mut zeroed = 0;
        for record in self.records {
            let at = place(record);
            let slot: &mut [u8; RECORD_BYTES] = (&mut bytes[at..at + RECORD_BYTES])
                .try_into()
                .expect("a record's bytes");
            // Fixed-size: five loads and compares, no loop.
            let word = |k: usize| {
                u32::from_le_bytes([
                    slot[4 * k],
                    slot[4 * k + 1],
                    slot[4 * k + 2],
                    slot[4 * k + 3],
                ])
            };
            if (0..RECORD_WORDS as usize).fold(0, |d, k| d | (word(k) ^ record.2[k])) != 0 {
                break;
            }
            *slot = [0; RECORD_BYTES];
            zeroed += 1;
        }
        if zeroed == self.records.len() && bytes[..len].iter().fold(0, |a, &b| a | b) == 0 {
            return Ok(());
        }
        for record in &self.records[..zeroed] {
            let at = place(record);
            let words = record.2.iter().flat_map(|w| w.to_le_bytes());
            bytes[at..at + RECORD_BYTES]
                .iter_mut()
                .zip(words)
                .for_each(|(b, w)| *b = w);
        }
        Err(bytes)
    }
}

/// One loop's frame on the mask stack.
#[derive(Default)]
struct LoopFrame {
    broke: u128,
    continued: u128,
}

/// How lanes falling through into a switch case are grouped (the specification allows
/// either: it leaves the tangle of a case reached both ways open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fallthrough {
    /// Fallthrough lanes run the next case as a group of their own.
    #[default]
    Independent,
    /// Fallthrough lanes join the lanes that switched to the next case directly.
    Merge,
}

struct Sim<'p, 's> {
    program: &'p Program,
    fallthrough: Fallthrough,
    /// Per active call: the argument per lane.
    args: &'s mut Vec<[u32; 128]>,
    /// Per active call: the lanes that returned from it.
    returned: &'s mut Vec<u128>,
    /// The first invocation index of the subgroup being run.
    first: u32,
    /// Every record of the whole workgroup in the order written, each with its invocation
    /// and its number among that invocation's records (one vector for all: a vector per
    /// invocation grew a few times each, ~1.5% of the fuzz pipeline).
    records: &'s mut Vec<Record>,
    /// Per invocation, how many records it has written.
    counts: &'s mut Vec<u32>,
    /// Loop index per loop id, per lane of the current subgroup.
    indices: &'s mut Vec<[u32; 128]>,
    frames: &'s mut Vec<LoopFrame>,
}

/// Runs `program` with subgroups of `subgroup_size` lanes (a power of two in 1..=128),
/// fallthrough lanes grouped on their own.
pub fn simulate(program: &Program, subgroup_size: u32) -> MaskOutcome {
    simulate_with(program, subgroup_size, Fallthrough::Independent)
}

/// Runs `program` with subgroups of `subgroup_size` lanes, switch fallthrough grouped as
/// `fallthrough` says.
pub fn simulate_with(
    program: &Program,
    subgroup_size: u32,
    fallthrough: Fallthrough,
) -> MaskOutcome {
    let mut scratch = MaskScratch::default();
    let records = simulate_in(&mut scratch, program, subgroup_size, fallthrough);
    MaskOutcome {
        max_records: records.max_records(),
        words: records.words(),
    }
}

/// Runs `program` with subgroups of `subgroup_size` lanes, switch fallthrough grouped as
/// `fallthrough` says, in `scratch`'s vectors; the records it wrote.
pub fn simulate_in<'s>(
    scratch: &'s mut MaskScratch,
    program: &Program,
    subgroup_size: u32,
    fallthrough: Fallthrough,
) -> MaskRecords<'s> {
    let n = program.local_size;
    let MaskScratch {
        records,
        counts,
        indices,
        args,
        returned,
        frames,
    } = scratch;
    records.clear();
    counts.clear();
    counts.resize(n as usize, 0);
    indices.clear();
    indices.resize(program.loops as usize, [0; 128]);
    args.clear();
    returned.clear();
    frames.clear();
    let mut sim = Sim {
        program,
        fallthrough,
        args,
        returned,
        first: 0,
        records,
        counts,
        indices,
        frames,
    };
    let mut first = 0;
    while first < n {
        let lanes = subgroup_size.min(n - first);
        let all = if lanes == 128 {
            u128::MAX
        } else {
            (1u128 << lanes) - 1
        };
        sim.first = first;
        sim.exec(&program.body, all);
        first += subgroup_size;
    }
    MaskRecords {
        local_size: n,
        records: &scratch.records,
        counts: &scratch.counts,
    }
}

/// The lanes of `mask`, lowest first.
fn lanes(mut mask: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let l = mask.trailing_zeros();
        mask &= mask - 1;
        Some(l)
    })
}

impl Sim<'_, '_> {
    fn record(&mut self, lane: u32, rec: [u32; RECORD_WORDS as usize]) {
        let inv = self.first + lane;
        let count = &mut self.counts[inv as usize];
        self.records.push((inv, *count, rec));
        *count += 1;
    }

    /// The lanes of `active` for which `pred(lane)` holds.
    fn select(active: u128, pred: impl Fn(u32) -> bool) -> u128 {
        lanes(active)
            .filter(|&l| pred(l))
            .fold(0, |m, l| m | (1u128 << l))
    }

    fn cond(&self, c: Cond, active: u128) -> u128 {
        let first = self.first;
        match c {
            Cond::LaneMask(mask) => Self::select(active, |l| (mask >> (l & 31)) & 1 != 0),
            Cond::ArgIsLane => {
                let arg = self.args.last().expect("ArgIsLane only in a helper");
                Self::select(active, |l| l & 3 == arg[l as usize])
            }
            Cond::Uniform { index, value } => {
                if INPUT[index as usize] == value {
                    active
                } else {
                    0
                }
            }
            Cond::LoopIndexIsLane { loop_id } => {
                let idx = &self.indices[loop_id as usize];
                Self::select(active, |l| l & 3 == idx[l as usize])
            }
            Cond::InvocationBelowInput { index } => {
                Self::select(active, |l| first + l < INPUT[index as usize])
            }
        }
    }

    /// Runs `stmts` with `active`; returns the lanes that reach the end.
    fn exec(&mut self, stmts: &[Stmt], mut active: u128) -> u128 {
        for s in stmts {
            if active == 0 {
                break;
            }
            match s {
                Stmt::Ballot { id } => {
                    let words = [0, 32, 64, 96].map(|sh| (active >> sh) as u32);
                    for l in lanes(active) {
                        self.record(l, [words[0], words[1], words[2], words[3], id + 1]);
                    }
                }
                Stmt::Elect { id } => {
                    let elected = active.trailing_zeros();
                    for l in lanes(active) {
                        self.record(l, [(l == elected) as u32, 0, 0, 0, id + 1]);
                    }
                }
                Stmt::Collective { id, op } => {
                    let first = self.first;
                    let value = |l: u32| first + l + 1;
                    let lowest = active.trailing_zeros();
                    let sum = lanes(active).fold(0u32, |a, l| a.wrapping_add(value(l)));
                    let mut prefix = 0u32;
                    for l in lanes(active) {
                        prefix = prefix.wrapping_add(value(l));
                        let r = match op {
                            Collective::Sum => sum,
                            Collective::InclusiveSum => prefix,
                            Collective::BroadcastFirst => value(lowest),
                        };
                        self.record(l, [r, 0, 0, 0, id + 1]);
                    }
                }
                Stmt::If { cond, then, els } => {
                    let c = self.cond(*cond, active);
                    let t = self.exec(then, active & c);
                    let e = match els {
                        Some(els) => self.exec(els, active & !c),
                        None => active & !c,
                    };
                    active = t | e;
                }
                Stmt::For {
                    loop_id,
                    trip,
                    body,
                } => {
                    for l in lanes(active) {
                        self.indices[*loop_id as usize][l as usize] = 0;
                    }
                    self.frames.push(LoopFrame::default());
                    let mut running = active;
                    while running != 0 {
                        self.frames.last_mut().expect("pushed").continued = 0;
                        let fell = self.exec(body, running);
                        let at_continue = fell | self.frames.last().expect("pushed").continued;
                        let idx = &mut self.indices[*loop_id as usize];
                        let mut repeat = 0;
                        for l in lanes(at_continue) {
                            idx[l as usize] += 1;
                            let count = match trip {
                                Trip::Uniform(n) => *n,
                                Trip::LaneBits(m) => (l & m) + 1,
                            };
                            if idx[l as usize] < count {
                                repeat |= 1 << l;
                            }
                        }
                        self.frames.last_mut().expect("pushed").broke |= at_continue & !repeat;
                        running = repeat;
                    }
                    active = self.frames.pop().expect("pushed").broke;
                }
                Stmt::Infinite { body } => {
                    self.frames.push(LoopFrame::default());
                    let mut running = active;
                    let can_fall = !block_always_jumps(body);
                    while running != 0 {
                        let mut fell = self.exec(body, running);
                        if can_fall && fell != 0 {
                            let elected = fell & fell.wrapping_neg();
                            self.frames.last_mut().expect("pushed").broke |= elected;
                            fell &= !elected;
                        }
                        running = fell;
                    }
                    active = self.frames.pop().expect("pushed").broke;
                }
                Stmt::DoWhileElect { body } => {
                    self.frames.push(LoopFrame::default());
                    let mut running = active;
                    while running != 0 {
                        self.frames.last_mut().expect("pushed").continued = 0;
                        let fell = self.exec(body, running);
                        let at_continue = fell | self.frames.last().expect("pushed").continued;
                        // The lowest lane at the continue target is elected and leaves.
                        let elected = at_continue & at_continue.wrapping_neg();
                        self.frames.last_mut().expect("pushed").broke |= elected;
                        running = at_continue & !elected;
                    }
                    active = self.frames.pop().expect("pushed").broke;
                }
                Stmt::Switch {
                    selector,
                    cases,
                    default,
                    fallthrough,
                } => {
                    let value = |l: u32| match *selector {
                        Selector::Uniform { index } => INPUT[index as usize] & 3,
                        Selector::LoopIndex { loop_id } => {
                            self.indices[loop_id as usize][l as usize]
                        }
                        Selector::LaneBits => l & 3,
                    };
                    // The bodies in operand order with the lanes that switch to each (the
                    // targets are distinct blocks, so one group per body).
                    let groups: Vec<u128> = cases
                        .iter()
                        .map(|(lit, _)| Self::select(active, |l| value(l) == *lit))
                        .collect();
                    let unmatched = active & !groups.iter().fold(0, |a, g| a | g);
                    let mut bodies: Vec<(u128, &[Stmt])> = Vec::new();
                    if let Some(d) = default {
                        bodies.push((unmatched, d));
                    }
                    bodies.extend(groups.iter().zip(cases).map(|(g, c)| (*g, &c.1[..])));
                    let mut after = if default.is_none() { unmatched } else { 0 };
                    if self.fallthrough == Fallthrough::Merge {
                        // Bodies in order, each with its own lanes and those falling into it.
                        let mut carried = 0;
                        for k in 0..bodies.len() {
                            let mask = bodies[k].0 | carried;
                            let out = if mask == 0 {
                                0
                            } else {
                                self.exec(bodies[k].1, mask)
                            };
                            if fallthrough[k] && k + 1 < bodies.len() {
                                carried = out;
                            } else {
                                after |= out;
                                carried = 0;
                            }
                        }
                        active = after;
                        continue;
                    }
                    // Each group runs its chain of fallthroughs on its own: lanes falling
                    // into a case do not wait for the lanes that switched to it.
                    for start in 0..bodies.len() {
                        let mut mask = bodies[start].0;
                        let mut k = start;
                        loop {
                            let out = self.exec(bodies[k].1, mask);
                            if fallthrough[k] && k + 1 < bodies.len() && out != 0 {
                                mask = out;
                                k += 1;
                            } else {
                                after |= out;
                                break;
                            }
                        }
                    }
                    active = after;
                }
                Stmt::Break => {
                    self.frames.last_mut().expect("break in a loop").broke |= active;
                    active = 0;
                }
                Stmt::Continue => {
                    self.frames
                        .last_mut()
                        .expect("continue in a loop")
                        .continued |= active;
                    active = 0;
                }
                Stmt::Call { func, arg } => {
                    let mut args = [1u32; 128];
                    if let Some(l) = arg {
                        args = self.indices[*l as usize];
                    }
                    self.args.push(args);
                    self.returned.push(0);
                    let program = self.program;
                    let fell = self.exec(&program.functions[*func as usize], active);
                    self.args.pop();
                    // The lanes that returned and those that fell off the end meet after
                    // the call.
                    active = fell | self.returned.pop().expect("pushed");
                }
                Stmt::Return => {
                    // From a helper: wait after the call; from the entry point: end.
                    if let Some(r) = self.returned.last_mut() {
                        *r |= active;
                    }
                    active = 0;
                }
            }
        }
        active
    }
}
